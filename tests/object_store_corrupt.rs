//! Objects that are not what their meta says, and gets the server cuts:
//! chunks altered, missing, added or all gone behind the store's back end
//! in a typed error, never in data handed out as the object; a meta that
//! is not JSON is an error, not a panic; a get across a server restart
//! ends with the right bytes, or in a typed error when the restart lost
//! the bucket.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod objects;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::Error;
use natsjet::jetstream::Context;
use natsjet::jetstream::object_store::{InfoErrorKind, Object, ObjectInfo, ObjectMetadata, ObjectStore};
use objects::{WAIT, bucket, bucket_without_direct, data, js, read_all};
use tokio::io::AsyncReadExt;
use tokio::time::timeout;

/// Puts `len` bytes as `name` in chunks of 1000.
async fn put(store: &ObjectStore, name: &str, len: usize) -> ObjectInfo {
    let meta = ObjectMetadata { name: name.into(), chunk_size: Some(1000), ..Default::default() };
    store.put(meta, &mut &data(len)[..]).await.unwrap()
}

/// Reads `name` to its end: what was handed out and how it ended.
async fn read(store: &ObjectStore, name: &str) -> (Vec<u8>, Option<Error>) {
    let mut object = store.get(name).await.unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = timeout(WAIT, object.next()).await.expect("a chunk or the end in time") {
        match chunk {
            Ok(chunk) => out.extend_from_slice(&chunk),
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

/// The sequences of the chunks of `info`, in order.
async fn chunk_sequences(js: &Context, info: &ObjectInfo) -> Vec<u64> {
    let stream = js.get_stream(format!("OBJ_{}", info.bucket)).await.unwrap();
    let subject = format!("$O.{}.C.{}", info.bucket, info.nuid);
    let mut sequences = Vec::new();
    while let Ok(message) =
        stream.get_next_raw_message_by_subject(&subject, sequences.last().map_or(1, |s| s + 1)).await
    {
        sequences.push(message.sequence);
    }
    sequences
}

#[tokio::test]
async fn an_altered_chunk_is_a_digest_mismatch_and_its_last_chunk_is_withheld() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "c").await;
    let info = put(&store, "x", 3000).await;
    // The last chunk replaced by other bytes of the same size.
    let stream = js.get_stream("OBJ_c").await.unwrap();
    assert!(stream.delete_message(*chunk_sequences(&js, &info).await.last().unwrap()).await.unwrap());
    js.publish(format!("$O.c.C.{}", info.nuid), Bytes::from(vec![0u8; 1000])).await.unwrap().await.unwrap();

    let (handed_out, end) = read(&store, "x").await;
    match end {
        Some(Error::DigestMismatch { name, expected, computed }) => {
            assert_eq!((name.as_str(), Some(expected)), ("x", info.digest));
            assert!(computed.starts_with("SHA-256="), "{computed}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(handed_out, data(2000), "the chunks before the last one, not the altered one");
    // Through `AsyncRead`: an `InvalidData` error with natsjet's inside.
    let mut object = store.get("x").await.unwrap();
    let failed = timeout(WAIT, object.read_to_end(&mut Vec::new())).await.unwrap().unwrap_err();
    assert_eq!(failed.kind(), std::io::ErrorKind::InvalidData);
    assert!(matches!(failed.get_ref().and_then(|e| e.downcast_ref()), Some(Error::DigestMismatch { .. })));
}

#[tokio::test]
async fn a_missing_chunk_is_a_size_mismatch() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "m").await;
    let info = put(&store, "x", 3500).await;
    let stream = js.get_stream("OBJ_m").await.unwrap();
    assert!(stream.delete_message(chunk_sequences(&js, &info).await[1]).await.unwrap());

    let (handed_out, end) = read(&store, "x").await;
    assert_eq!(end, Some(Error::SizeMismatch { name: "x".into(), expected: 3500, received: 2500 }));
    // What streamed out before the end is not the object: only a clean end says it is.
    assert_eq!(handed_out.len(), 2000);
}

#[tokio::test]
async fn an_extra_chunk_is_a_size_mismatch() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "e").await;
    let info = put(&store, "x", 2000).await;
    js.publish(format!("$O.e.C.{}", info.nuid), Bytes::from_static(b"more")).await.unwrap().await.unwrap();

    let (handed_out, end) = read(&store, "x").await;
    assert_eq!(end, Some(Error::SizeMismatch { name: "x".into(), expected: 2000, received: 2004 }));
    assert_eq!(handed_out, data(2000), "never the bytes past the size");
}

#[tokio::test]
async fn an_object_whose_chunks_are_all_gone_is_a_size_mismatch_not_a_wait_forever() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "g").await;
    let info = put(&store, "x", 2500).await;
    let stream = js.get_stream("OBJ_g").await.unwrap();
    stream.purge().filter(format!("$O.g.C.{}", info.nuid)).await.unwrap();

    let (handed_out, end) = read(&store, "x").await;
    assert_eq!(end, Some(Error::SizeMismatch { name: "x".into(), expected: 2500, received: 0 }));
    assert!(handed_out.is_empty());
}

#[tokio::test]
async fn a_meta_that_is_not_json_is_an_error_not_a_panic() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "j").await;
    put(&store, "fine", 10).await;
    let meta = natsjet::jetstream::object_store::names::meta_subject("j", "broken");
    for payload in [&b"{not json"[..], b"[]", br#"{"name":1}"#, br#"{"name":"broken","bucket":"j","size":-1}"#] {
        js.publish(meta.clone(), Bytes::copy_from_slice(payload)).await.unwrap().await.unwrap();
        let failed = store.info("broken").await.unwrap_err();
        assert_eq!(failed.kind(), InfoErrorKind::Other, "{payload:?}");
        assert!(matches!(failed.cause(), Error::Protocol(_)), "{failed:?}");
    }
    let mut list = store.list().await.unwrap();
    let mut items = Vec::new();
    while let Some(item) = timeout(WAIT, list.next()).await.unwrap() {
        items.push(item.map(|i| i.name));
    }
    assert!(items.contains(&Ok("fine".to_string())), "{items:?}");
    assert!(items.iter().any(Result::is_err), "the broken meta is an error item: {items:?}");
    assert_eq!(read_all(&mut store.get("fine").await.unwrap()).await.unwrap(), data(10));
}

/// Puts 6 MiB as "big" and reads two chunks of a get of it: 48 chunks of
/// 128 KiB, and a get holds at most 3 MiB ahead of its reader (2 MiB
/// through a consumer), so many are still to come when a restart follows.
async fn two_chunks_into_a_get(store: &ObjectStore) -> (Vec<u8>, Object, Vec<u8>) {
    let bytes = data(6 * 1024 * 1024);
    store.put("big", &mut &bytes[..]).await.unwrap();
    let mut object = store.get("big").await.unwrap();
    let mut read = Vec::new();
    for _ in 0..2 {
        read.extend_from_slice(&timeout(WAIT, object.next()).await.unwrap().unwrap().unwrap());
    }
    (bytes, object, read)
}

#[tokio::test]
async fn a_get_across_a_server_restart_ends_with_the_right_bytes() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = natsjet::jetstream::new(client);
    let store = bucket(&js, "restart").await; // file storage: the chunks outlive the restart
    let (bytes, mut object, mut read) = two_chunks_into_a_get(&store).await;
    common::restart_jetstream(&mut server, &js).await;
    match read_all(&mut object).await {
        Ok(rest) => read.extend(rest),
        Err(e) => panic!("after {} of {} bytes: {e:?}", read.len(), bytes.len()),
    }
    assert!(read == bytes, "{} bytes read of {}", read.len(), bytes.len());
}

#[tokio::test]
async fn a_get_whose_memory_bucket_a_restart_lost_fails_typed() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = natsjet::jetstream::new(client);
    let config = natsjet::jetstream::object_store::Config {
        bucket: "lost".into(),
        storage: natsjet::jetstream::api::StorageType::Memory,
        ..Default::default()
    };
    let store = js.create_object_store(config).await.unwrap();
    let (bytes, mut object, read) = two_chunks_into_a_get(&store).await;
    common::restart_jetstream(&mut server, &js).await;
    // The chunks went with the stream: the read ends in the server's word
    // for it, never in a wait without end or in a short object.
    match read_all(&mut object).await {
        Err(Error::JetStream(e)) => assert_eq!(e.err_code, natsjet::jetstream::api::ErrorCode::STREAM_NOT_FOUND),
        other => panic!("after {} of {} bytes: {other:?}", read.len(), bytes.len()),
    }
}

#[tokio::test]
async fn a_get_whose_object_is_replaced_midway_ends_in_a_size_mismatch() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "swap").await;
    // 48 chunks; a get holds at most 3 MiB ahead of what was read.
    let size = 6 * 1024 * 1024;
    store.put("x", &mut &data(size)[..]).await.unwrap();
    let mut object = store.get("x").await.unwrap();
    let first = timeout(WAIT, object.next()).await.unwrap().unwrap().unwrap();
    // Another writer replaces it: the old chunks the reader has not had are purged.
    store.put("x", &mut &b"the new version"[..]).await.unwrap();
    match read_all(&mut object).await {
        Err(Error::SizeMismatch { name, expected, received }) => {
            assert_eq!((name.as_str(), expected), ("x", size as u64));
            assert!(received > first.len() as u64 && received < expected, "{received}");
        }
        other => panic!("{:?}", other.map(|b| b.len())),
    }
}

#[tokio::test]
async fn a_get_through_a_consumer_whose_object_is_replaced_midway_ends_in_a_size_mismatch() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket_without_direct(&js, "swap_pushed").await;
    let size = 6 * 1024 * 1024;
    store.put("x", &mut &data(size)[..]).await.unwrap();
    let mut object = store.get("x").await.unwrap();
    let first = timeout(WAIT, object.next()).await.unwrap().unwrap().unwrap();
    // The old chunks the consumer has not pushed are purged: none will come,
    // and the read's stall check asks the consumer and ends.
    store.put("x", &mut &b"the new version"[..]).await.unwrap();
    match timeout(WAIT, read_all(&mut object)).await.unwrap() {
        Err(Error::SizeMismatch { name, expected, received }) => {
            assert_eq!((name.as_str(), expected), ("x", size as u64));
            assert!(received >= first.len() as u64 && received < expected, "{received}");
        }
        other => panic!("{:?}", other.map(|b| b.len())),
    }
}
