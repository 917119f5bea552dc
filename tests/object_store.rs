//! Putting and getting objects against a real server: every size around
//! the chunk size, the default chunk size and a multi-MiB object, metas
//! round-tripped, replaces and failed puts cleaning up after themselves,
//! pipelined chunk publishes, progress, expected revisions, the chunk size
//! capped at the server's `max_payload`, and a slow reader past the
//! server's flow-control window.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod objects;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use common::NatsServer;
use futures_util::{StreamExt, stream};
use natsjet::header::HeaderMap;
use natsjet::jetstream::api::ErrorCode;
use natsjet::jetstream::object_store::{
    DEFAULT_CHUNK_SIZE, InfoErrorKind, ObjectMetadata, Progress, PutErrorKind, PutOptions,
};
use objects::{WAIT, bucket, bucket_without_direct, chunk_messages, data, js, read_all, subjects};
use sha2::{Digest as _, Sha256};
use tokio::io::AsyncReadExt;
use tokio::time::timeout;

/// The digest a meta must hold for `bytes`, computed here, not by natsjet.
fn sha256(bytes: &[u8]) -> String {
    format!("SHA-256={}", base64::engine::general_purpose::URL_SAFE.encode(Sha256::digest(bytes)))
}

fn sized(name: &str, chunk_size: usize) -> ObjectMetadata {
    ObjectMetadata { name: name.into(), chunk_size: Some(chunk_size), ..Default::default() }
}

#[tokio::test]
async fn objects_of_every_size_around_the_chunk_size_round_trip() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "files").await;
    let chunk = 1024;
    for len in [0, 1, chunk, chunk + 1, 10 * chunk + 7] {
        let name = format!("obj-{len}");
        let bytes = data(len);
        let info = store.put(sized(&name, chunk), &mut &bytes[..]).await.unwrap();
        assert_eq!((info.size, info.chunks), (len, len.div_ceil(chunk)), "{name}");
        assert_eq!(info.digest.as_deref(), Some(sha256(&bytes).as_str()), "{name}");
        assert_eq!(info.options.as_ref().and_then(|o| o.max_chunk_size), Some(chunk));
        let on_stream = subjects(&js, "files").await.get(&format!("$O.files.C.{}", info.nuid)).copied();
        assert_eq!(on_stream.unwrap_or(0), len.div_ceil(chunk) as u64, "{name}: chunk messages");

        let mut object = store.get(&name).await.unwrap();
        assert_eq!(object.info().nuid, info.nuid);
        assert_eq!(read_all(&mut object).await.unwrap(), bytes, "{name}");
        let stored = store.info(&name).await.unwrap();
        assert_eq!((stored.size, stored.chunks, &stored.digest), (len, info.chunks, &info.digest));
        assert!(!stored.deleted && stored.modified.is_some());
    }
}

#[tokio::test]
async fn the_default_chunk_size_cuts_a_multi_mib_object() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "big").await;
    let bytes = data(5 * 1024 * 1024 + 3);
    let info = store.put("big.bin", &mut &bytes[..]).await.unwrap();
    assert_eq!(DEFAULT_CHUNK_SIZE, 128 * 1024);
    assert_eq!((info.size, info.chunks), (bytes.len(), 41));
    assert_eq!(info.options.as_ref().and_then(|o| o.max_chunk_size), Some(DEFAULT_CHUNK_SIZE));
    assert_eq!(info.digest.as_deref(), Some(sha256(&bytes).as_str()));
    // Read through `AsyncRead`, as async-nats users do.
    let mut object = store.get("big.bin").await.unwrap();
    let mut read = Vec::new();
    timeout(WAIT, object.read_to_end(&mut read)).await.unwrap().unwrap();
    assert!(read == bytes, "{} bytes read of {}", read.len(), bytes.len());
}

#[tokio::test]
async fn put_stream_cuts_pieces_of_any_size_into_full_chunks() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "pieces").await;
    let bytes = data(10_000);
    let mut at = 0;
    let pieces: Vec<Result<Bytes, std::io::Error>> = [1, 999, 0, 3000, 7, 1, 2500, 3492]
        .into_iter()
        .map(|len| {
            at += len;
            Ok(Bytes::copy_from_slice(&bytes[at - len..at]))
        })
        .collect();
    assert_eq!(at, bytes.len());
    let info = store.put_stream(sized("p", 1000), stream::iter(pieces)).await.unwrap();
    assert_eq!((info.size, info.chunks), (10_000, 10));
    let mut object = store.get("p").await.unwrap();
    let mut lens = Vec::new();
    let mut read = Vec::new();
    while let Some(chunk) = timeout(WAIT, object.next()).await.unwrap() {
        let chunk = chunk.unwrap();
        lens.push(chunk.len());
        read.extend_from_slice(&chunk);
    }
    assert_eq!(lens, [1000; 10]);
    assert_eq!(read, bytes);
}

#[tokio::test]
async fn description_headers_and_metadata_round_trip() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "metas").await;
    let mut headers = HeaderMap::new();
    headers.append("X-Kind", "report");
    headers.append("X-Tag", "a");
    headers.append("X-Tag", "b");
    let metadata = HashMap::from([("owner".to_string(), "ops".to_string()), ("v".to_string(), "2".to_string())]);
    let meta = ObjectMetadata {
        name: "report.pdf".into(),
        description: Some("quarterly report".into()),
        metadata: metadata.clone(),
        headers: Some(headers.clone()),
        chunk_size: None,
    };
    let put = store.put(meta, &mut &b"%PDF"[..]).await.unwrap();
    for info in [put, store.info("report.pdf").await.unwrap(), store.get("report.pdf").await.unwrap().info] {
        assert_eq!(info.description.as_deref(), Some("quarterly report"));
        assert_eq!(info.metadata, metadata);
        let got = info.headers.expect("headers");
        assert_eq!(got.get_all("X-Tag").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(got.get("X-Kind").map(|v| v.as_str()), Some("report"));
        assert_eq!(got.len(), 2);
    }
}

#[tokio::test]
async fn a_replace_purges_the_old_chunks() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "r").await;
    let old = store.put(sized("a", 100), &mut &data(250)[..]).await.unwrap();
    let other = store.put(sized("b", 100), &mut &data(50)[..]).await.unwrap();
    let new_bytes = b"the second version".repeat(10);
    let new = store.put(sized("a", 100), &mut &new_bytes[..]).await.unwrap();
    assert_ne!(old.nuid, new.nuid);

    let held = subjects(&js, "r").await;
    let meta = |name: &str| natsjet::jetstream::object_store::names::meta_subject("r", name);
    let expected = HashMap::from([
        (format!("$O.r.C.{}", new.nuid), 2),
        (format!("$O.r.C.{}", other.nuid), 1),
        (meta("a"), 1),
        (meta("b"), 1),
    ]);
    assert_eq!(held, expected, "the old version's 3 chunks and meta are gone");
    let mut object = store.get("a").await.unwrap();
    assert_eq!(read_all(&mut object).await.unwrap(), new_bytes);
}

/// Bytes, then an error, as a failing disk or socket gives them.
struct FailsAfter(Vec<u8>);

impl tokio::io::AsyncRead for FailsAfter {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if self.0.is_empty() {
            return std::task::Poll::Ready(Err(std::io::Error::other("disk on fire")));
        }
        let n = buf.remaining().min(self.0.len());
        buf.put_slice(&self.0.drain(..n).collect::<Vec<_>>());
        std::task::Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_failed_put_purges_its_partial_chunks_and_keeps_the_old_version() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "f").await;
    let old = data(300);
    store.put(sized("kept", 100), &mut &old[..]).await.unwrap();

    // A stream of pieces that breaks after five chunks' worth.
    let pieces = (0..5).map(|_| Ok(Bytes::from(vec![1u8; 100]))).chain([Err("source broke")]);
    let failed = store.put_stream(sized("kept", 100), stream::iter(pieces)).await.unwrap_err();
    assert_eq!(failed.kind(), PutErrorKind::ReadChunks);
    assert!(failed.cause().to_string().contains("source broke"), "{}", failed.cause());
    // A reader that fails after four chunks, for a new name.
    let failed = store.put(sized("new", 100), &mut FailsAfter(vec![2u8; 400])).await.unwrap_err();
    assert_eq!(failed.kind(), PutErrorKind::ReadChunks);
    assert_eq!(store.info("new").await.unwrap_err().kind(), InfoErrorKind::NotFound);

    assert_eq!(chunk_messages(&js, "f").await, 3, "only the kept object's chunks are left");
    let mut object = store.get("kept").await.unwrap();
    assert_eq!(read_all(&mut object).await.unwrap(), old);
}

#[tokio::test]
async fn chunk_publishes_are_pipelined_not_acked_one_at_a_time() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "pipe").await;
    // Acks the put has waited for, counted by its progress callback; each
    // piece of the source is one chunk, and it notes that count when the
    // put asks for the next piece. A put that awaited each chunk's ack
    // before asking for more would see 1, 2, 3…
    let acked = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (acked_in, seen_in) = (acked.clone(), seen.clone());
    let pieces = stream::iter(0..20).map(move |i| {
        seen_in.lock().unwrap().push(acked_in.load(Ordering::SeqCst));
        Ok::<_, std::io::Error>(Bytes::from(vec![i as u8; 1000]))
    });
    let counter = acked.clone();
    let options = PutOptions {
        progress: Some(Box::new(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        })),
        ..Default::default()
    };
    let info = store.put_stream_with(sized("p", 1000), pieces, options).await.unwrap();
    assert_eq!(info.chunks, 20);
    assert_eq!(*seen.lock().unwrap(), [0; 20], "every chunk went out before any ack was awaited");
    assert_eq!(acked.load(Ordering::SeqCst), 20, "then every ack was");
}

/// Whether `steps` climb to `total` without stepping back.
fn climbs_to(steps: &[Progress], total: u64) -> bool {
    steps.windows(2).all(|w| w[0].done <= w[1].done)
        && steps.iter().all(|p| p.total == Some(total) && p.done <= total)
        && steps.last().is_some_and(|p| p.done == total)
}

#[tokio::test]
async fn put_and_get_report_progress_up_to_the_total() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "prog").await;
    let bytes = data(10_500);
    let put_steps = Arc::new(Mutex::new(Vec::new()));
    let sink = put_steps.clone();
    let options = PutOptions {
        progress: Some(Box::new(move |p| sink.lock().unwrap().push(p))),
        size: Some(bytes.len() as u64),
        ..Default::default()
    };
    store.put_with(sized("o", 1000), &mut &bytes[..], options).await.unwrap();
    let put_steps = put_steps.lock().unwrap().clone();
    assert_eq!(put_steps.len(), 11, "one per chunk acked: {put_steps:?}");
    assert!(climbs_to(&put_steps, 10_500), "{put_steps:?}");

    let get_steps = Arc::new(Mutex::new(Vec::new()));
    let sink = get_steps.clone();
    let mut object = store.get("o").await.unwrap().with_progress(Box::new(move |p| sink.lock().unwrap().push(p)));
    assert_eq!(read_all(&mut object).await.unwrap(), bytes);
    assert_eq!(object.received(), 10_500);
    let get_steps = get_steps.lock().unwrap().clone();
    assert_eq!(get_steps.len(), 11, "one per chunk received: {get_steps:?}");
    assert!(climbs_to(&get_steps, 10_500), "{get_steps:?}");
}

#[tokio::test]
async fn previous_revision_guards_the_meta_and_a_refused_put_leaves_no_chunks() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "rev").await;
    let revision = |n: u64| PutOptions { previous_revision: Some(n), ..Default::default() };
    store.put_with(sized("o", 10), &mut &b"first"[..], revision(0)).await.unwrap();
    let stream = js.get_stream("OBJ_rev").await.unwrap();
    let meta = natsjet::jetstream::object_store::names::meta_subject("rev", "o");
    let first = stream.get_last_raw_message_by_subject(&meta).await.unwrap().sequence;

    // 0 means "no such object yet": refused now, and its chunks purged.
    let refused = store.put_with(sized("o", 10), &mut &data(35)[..], revision(0)).await.unwrap_err();
    assert_eq!(refused.kind(), PutErrorKind::PublishMetadata);
    let natsjet::Error::JetStream(e) = refused.cause() else { panic!("{refused:?}") };
    assert_eq!(e.err_code, ErrorCode::STREAM_WRONG_LAST_SEQUENCE, "{e:?}");
    let stale = store.put_with(sized("o", 10), &mut &b"stale"[..], revision(first + 100)).await.unwrap_err();
    assert_eq!(stale.kind(), PutErrorKind::PublishMetadata);
    assert_eq!(chunk_messages(&js, "rev").await, 1, "only the first version's chunk");

    store.put_with(sized("o", 10), &mut &b"second"[..], revision(first)).await.unwrap();
    let mut object = store.get("o").await.unwrap();
    assert_eq!(read_all(&mut object).await.unwrap(), b"second");
}

#[tokio::test]
async fn the_chunk_size_is_capped_at_the_servers_max_payload() {
    let server = NatsServer::builder().jetstream().config_extra("max_payload: 4096").start();
    let js = js(&server.client_url()).await;
    assert_eq!(js.client().server_info().max_payload, 4096);
    let store = bucket(&js, "small").await;
    let bytes = data(3 * 4096 + 1);
    let info = store.put("default", &mut &bytes[..]).await.unwrap();
    assert_eq!((info.chunks, info.options.as_ref().and_then(|o| o.max_chunk_size)), (4, Some(4096)));
    let info = store.put(sized("asked-big", 1 << 20), &mut &bytes[..]).await.unwrap();
    assert_eq!(info.chunks, 4);
    let mut object = store.get("asked-big").await.unwrap();
    assert_eq!(read_all(&mut object).await.unwrap(), bytes);
}

#[tokio::test]
async fn a_chunk_size_of_zero_is_the_default() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "zero").await;
    let info = store.put(sized("z", 0), &mut &data(DEFAULT_CHUNK_SIZE + 1)[..]).await.unwrap();
    assert_eq!((info.chunks, info.options.and_then(|o| o.max_chunk_size)), (2, Some(DEFAULT_CHUNK_SIZE)));
}

#[tokio::test]
async fn a_slow_reader_of_an_object_past_the_flow_control_window_gets_it_all() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    // Without direct gets, chunks come through a push consumer's flow control.
    let store = bucket_without_direct(&js, "fc").await;
    // 48 chunks of 128 KiB: the server stops after 2 MiB in flight until its
    // flow-control request is answered (nats.js 3.4.0 never answers it and
    // stalls after 16 chunks, nats.js#430).
    let bytes = data(6 * 1024 * 1024);
    store.put("six", &mut &bytes[..]).await.unwrap();
    let mut object = store.get("six").await.unwrap();
    let first = timeout(WAIT, object.next()).await.unwrap().unwrap().unwrap();
    // Until the server stops sending: it waits for a flow-control reply the
    // reader sends only once the chunks before it were taken.
    let mut stream = js.get_stream("OBJ_fc").await.unwrap();
    let mut delivered = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let consumers = stream.info().await.unwrap().state.consumer_count;
        assert_eq!(consumers, 1);
        let mut infos = stream.consumers();
        let info = timeout(WAIT, infos.next()).await.unwrap().unwrap().unwrap();
        if info.delivered.stream_sequence == delivered && delivered > 0 {
            break;
        }
        delivered = info.delivered.stream_sequence;
    }
    assert!((2..48).contains(&delivered), "the server held back at {delivered} of 48 chunks");
    let mut read = first.to_vec();
    read.extend(read_all(&mut object).await.unwrap());
    assert!(read == bytes, "{} bytes read of {}", read.len(), bytes.len());
}

/// Puts two 3 MiB objects at once, their chunks interleaved in the stream,
/// and reads both back whole, checking midway whether the stream has a
/// consumer: none when direct gets read the chunks.
async fn interleaved_objects_read_back(js: &natsjet::jetstream::Context, bucket: &str, pushed: bool) {
    let store = js.get_object_store(bucket).await.unwrap();
    let (a, b) = (data(3 << 20), data(3 << 20).into_iter().rev().collect::<Vec<u8>>());
    let (mut read_a, mut read_b) = (&a[..], &b[..]);
    let (put_a, put_b) = futures_util::join!(store.put("a", &mut read_a), store.put("b", &mut read_b));
    let (put_a, put_b) = (put_a.unwrap(), put_b.unwrap());
    assert_eq!((put_a.chunks, put_b.chunks), (24, 24));
    let mut stream = js.get_stream(format!("OBJ_{bucket}")).await.unwrap();
    for (name, bytes) in [("a", &a), ("b", &b)] {
        let mut object = store.get(name).await.unwrap();
        let mut read = timeout(WAIT, object.next()).await.unwrap().unwrap().unwrap().to_vec();
        let consumers = stream.info().await.unwrap().state.consumer_count;
        assert_eq!(consumers > 0, pushed, "{name}: {consumers} consumers");
        read.extend(read_all(&mut object).await.unwrap());
        assert!(read == *bytes, "{name}: {} bytes read of {}", read.len(), bytes.len());
    }
}

#[tokio::test]
async fn chunks_are_read_by_direct_gets_past_other_objects_chunks() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    bucket(&js, "direct").await;
    interleaved_objects_read_back(&js, "direct", false).await;
}

#[tokio::test]
async fn a_bucket_without_direct_gets_is_read_through_a_consumer() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    bucket_without_direct(&js, "pushed").await;
    interleaved_objects_read_back(&js, "pushed", true).await;
}

#[tokio::test]
async fn a_bucket_that_allows_fast_batches_takes_puts_as_one() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config =
        natsjet::jetstream::object_store::Config { bucket: "fast".into(), allow_batched: true, ..Default::default() };
    let store = js.create_object_store(config).await.unwrap();
    // Watch the chunks go by: a fast batch says so in each reply subject.
    let mut chunks = js.client().subscribe("$O.fast.C.>").await.unwrap();
    js.client().flush().await.unwrap();
    for len in [0, 1, 1000, 1001, 50 * 1000 + 3] {
        let bytes = data(len);
        let info = store.put(sized(&format!("f{len}"), 1000), &mut &bytes[..]).await.unwrap();
        assert_eq!((info.size, info.chunks), (len, len.div_ceil(1000)));
        assert_eq!(info.digest.as_deref(), Some(sha256(&bytes).as_str()));
        assert_eq!(read_all(&mut store.get(format!("f{len}")).await.unwrap()).await.unwrap(), bytes);
        for _ in 0..info.chunks {
            let chunk = timeout(WAIT, chunks.next()).await.unwrap().unwrap();
            assert!(chunk.reply.as_deref().is_some_and(|r| r.ends_with(".$FI")), "{:?}", chunk.reply);
        }
    }
    // A replace purges the old version's chunks in a fast bucket too.
    let bytes = data(2500);
    store.put(sized("f1", 1000), &mut &bytes[..]).await.unwrap();
    assert_eq!(read_all(&mut store.get("f1").await.unwrap()).await.unwrap(), bytes);
    // 0 + 1 + 1 + 2 + 51 chunks, then f1's one replaced by three.
    assert_eq!(chunk_messages(&js, "fast").await, 55 - 1 + 3);
}
