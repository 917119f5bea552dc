//! Object Store buckets: put from an `AsyncRead`, get as an `AsyncRead`,
//! info, metadata, links, list, watch, delete, seal, and the error kinds
//! of a missing object.

use std::collections::HashMap;

use futures_util::{StreamExt, TryStreamExt};
use tokio::io::AsyncReadExt;

use crate::nats;
use crate::nats::jetstream;
use crate::nats::jetstream::object_store::{self, ObjectMetadata};
use crate::{Outcome, Transcript};

pub async fn object_store(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let mut bucket = js
        .create_object_store(object_store::Config {
            bucket: "files".to_string(),
            description: Some("compat files".to_string()),
            ..Default::default()
        })
        .await?;

    let report = vec![7u8; 300 * 1024];
    let info = bucket.put("report.bin", &mut report.as_slice()).await?;
    seen.push(format!(
        "put {} {} bytes in {} chunks, digest set {}",
        info.name,
        info.size,
        info.chunks,
        info.digest.is_some()
    ));

    let meta = ObjectMetadata {
        name: "notes.txt".to_string(),
        description: Some("notes".to_string()),
        metadata: HashMap::from([("owner".to_string(), "sue".to_string())]),
        chunk_size: Some(4),
        ..Default::default()
    };
    let info = bucket.put(meta, &mut "some notes".as_bytes()).await?;
    // No chunk count: async-nats's chunks may be larger than chunk_size.
    seen.push(format!("put {} {} bytes, owner {:?}", info.name, info.size, info.metadata.get("owner")));

    let mut object = bucket.get("report.bin").await?;
    let mut read = Vec::new();
    object.read_to_end(&mut read).await?;
    seen.push(format!("get {} bytes, same: {}, info size {}", read.len(), read == report, object.info().size));

    let info = bucket.info("notes.txt").await?;
    seen.push(format!("info {} {:?} deleted {}", info.name, info.description, info.deleted));

    bucket.add_link("latest", &info).await?;
    let mut linked = String::new();
    bucket.get("latest").await?.read_to_string(&mut linked).await?;
    seen.push(format!("through the link: {linked}"));

    let mut names = bucket.list().await?.map_ok(|info| info.name).try_collect::<Vec<String>>().await?;
    names.sort();
    seen.push(format!("list {names:?}"));

    let mut watch = bucket.watch().await?;
    bucket.put("new.txt", &mut "new".as_bytes()).await?;
    let change = watch.next().await.expect("watch ended")?;
    seen.push(format!("watch: {} {}", change.name, change.size));

    bucket.delete("notes.txt").await?;
    match bucket.get("notes.txt").await {
        Err(e) if e.kind() == object_store::GetErrorKind::NotFound => seen.push("get deleted: not found".into()),
        Err(e) => seen.push(format!("get deleted: {:?}", e.kind())),
        Ok(_) => seen.push("got a deleted object".into()),
    }
    match bucket.info("never.txt").await {
        Err(e) if e.kind() == object_store::InfoErrorKind::NotFound => seen.push("info missing: not found".into()),
        Err(e) => seen.push(format!("info missing: {:?}", e.kind())),
        Ok(_) => seen.push("info of nothing".into()),
    }

    bucket.seal().await?;
    match bucket.put("after.txt", &mut "sealed".as_bytes()).await {
        Err(e) => seen.push(format!("put after seal: {:?}", e.kind())),
        Ok(_) => seen.push("put after seal worked".into()),
    }
    let again = js.get_object_store("files").await?;
    seen.push(format!("reopened: {}", again.info("report.bin").await?.size));
    js.delete_object_store("files").await?;
    seen.push("bucket deleted".into());
    Ok(seen)
}
