//! What the object store tests share: a JetStream context on a test
//! server, buckets, bytes that differ at every offset, reading an object
//! to its end, and a look at what the bucket's stream holds.
#![allow(dead_code)]

use std::collections::HashMap;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use natsjet::jetstream::api::StreamInfoRequest;
use natsjet::jetstream::object_store::{self, Object, ObjectInfo, ObjectStore};
use natsjet::jetstream::{self, Context};
use tokio::time::timeout;

/// Bound on every wait for the server.
pub const WAIT: Duration = Duration::from_secs(30);

pub async fn js(url: &str) -> Context {
    jetstream::new(natsjet::connect(url).await.unwrap())
}

/// A new bucket `name` with the default settings (file storage).
pub async fn bucket(js: &Context, name: &str) -> ObjectStore {
    js.create_object_store(object_store::Config { bucket: name.into(), ..Default::default() }).await.unwrap()
}

/// Bucket `name`, made anew with a stream that refuses direct gets (as
/// buckets made before ADR-20 asked for them): gets read through a consumer.
pub async fn bucket_without_direct(js: &Context, name: &str) -> ObjectStore {
    bucket(js, name).await;
    let mut stream = js.get_stream(format!("OBJ_{name}")).await.unwrap();
    let mut config = stream.info().await.unwrap().config.clone();
    config.allow_direct = false;
    js.update_stream(config).await.unwrap();
    js.get_object_store(name).await.unwrap()
}

/// `len` bytes in which no two 256-byte blocks are alike, so a chunk out
/// of place changes the digest.
pub fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 256) as u8).collect()
}

/// Every chunk of `object`, or the first error.
pub async fn read_all(object: &mut Object) -> Result<Vec<u8>, natsjet::Error> {
    let mut out = Vec::new();
    while let Some(chunk) = timeout(WAIT, object.next()).await.expect("a chunk in time") {
        out.extend_from_slice(&chunk?);
    }
    Ok(out)
}

/// Every item of a listing or of a watch's first `n`, in order.
pub async fn collect<E: std::fmt::Debug>(
    mut infos: impl Stream<Item = Result<ObjectInfo, E>> + Unpin,
    n: Option<usize>,
) -> Vec<ObjectInfo> {
    let mut out = Vec::new();
    while n.is_none_or(|n| out.len() < n) {
        match timeout(WAIT, infos.next()).await.expect("an object in time") {
            Some(info) => out.push(info.unwrap()),
            None => break,
        }
    }
    out
}

/// The names of `infos`, sorted.
pub fn names(infos: &[ObjectInfo]) -> Vec<String> {
    let mut names: Vec<String> = infos.iter().map(|i| i.name.clone()).collect();
    names.sort();
    names
}

/// How many messages bucket `bucket` holds on each of its subjects.
pub async fn subjects(js: &Context, bucket: &str) -> HashMap<String, u64> {
    let mut stream = js.get_stream(format!("OBJ_{bucket}")).await.unwrap();
    let request = StreamInfoRequest { subjects_filter: Some(">".into()), ..Default::default() };
    let info = stream.info_with(request).await.unwrap();
    info.state.subjects.clone().unwrap_or_default()
}

/// How many messages bucket `bucket` holds on its chunk subjects.
pub async fn chunk_messages(js: &Context, bucket: &str) -> u64 {
    let prefix = format!("$O.{bucket}.C.");
    subjects(js, bucket).await.iter().filter(|(s, _)| s.starts_with(&prefix)).map(|(_, n)| n).sum()
}
