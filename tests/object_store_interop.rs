//! The object store between natsjet and async-nats 0.51 over one real
//! server: what one puts (every size around the chunk size, metadata,
//! headers, links, names outside ASCII) the other gets, infos, lists,
//! watches and deletes; both make the same stream for the same bucket
//! config and write metas that agree.
//!
//! Facts about async-nats 0.51 these tests rest on, read from its source:
//! it awaits each chunk's ack before it reads the next chunk (natsjet
//! pipelines them); it publishes what each read of its reader returns as
//! a chunk, so its chunks can be shorter than the chunk size; it does not
//! cap the chunk size at the server's `max_payload`; it reads a meta's
//! `mtime` from the JSON, where natsjet takes the time the server stored
//! the meta; it writes `"description": null`, `"metadata": {}` and
//! `"headers": null` where natsjet leaves a field out, and `"link": null`
//! in every object's `options`; its `list` is an ordered consumer over
//! every meta (`DeliverPolicy::All`; the rollups leave one per name),
//! natsjet's one over the last of each subject.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod objects;

use std::collections::HashMap;
use std::time::Duration;

use async_nats::jetstream::object_store as an;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::jetstream::Context;
use natsjet::jetstream::api::StorageType;
use natsjet::jetstream::object_store::{
    self as nj, GetErrorKind, ObjectLink, ObjectMetadata, UpdateMetadata, WatchOptions,
};
use objects::{WAIT, bucket, collect, data, js, names, read_all};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::time::timeout;

const CHUNK: usize = 1024;
/// Sizes around the chunk size, and a name for each.
const SIZES: [(usize, &str); 6] = [
    (0, "zero"),
    (1, "one"),
    (CHUNK, "exactly-one-chunk"),
    (CHUNK + 1, "one-chunk-and-a-byte"),
    (10 * CHUNK + 7, "many"),
    (10, "café-ü.txt"),
];

async fn async_nats(server: &NatsServer) -> async_nats::jetstream::Context {
    async_nats::jetstream::new(async_nats::connect(server.client_url()).await.unwrap())
}

/// Both clients on one server, and bucket `name` as each opens it.
async fn both(server: &NatsServer, name: &str) -> (Context, nj::ObjectStore, an::ObjectStore) {
    let js = js(&server.client_url()).await;
    let ours = bucket(&js, name).await;
    let theirs = async_nats(server).await.get_object_store(name).await.unwrap();
    (js, ours, theirs)
}

/// The bytes of object `name` of size `len`: the name in front, so that
/// objects of the same size differ.
fn content(name: &str, len: usize) -> Vec<u8> {
    let mut bytes = name.as_bytes().to_vec();
    bytes.extend(data(len));
    bytes.truncate(len);
    bytes
}

fn async_nats_headers() -> async_nats::HeaderMap {
    let mut headers = async_nats::HeaderMap::new();
    headers.append("X-Tag", "a");
    headers.append("X-Tag", "b");
    headers
}

fn natsjet_headers() -> natsjet::header::HeaderMap {
    [("X-Tag", "a"), ("X-Tag", "b")].into_iter().collect()
}

fn metadata() -> HashMap<String, String> {
    HashMap::from([("owner".to_string(), "ops".to_string())])
}

async fn read_async_nats(store: &an::ObjectStore, name: &str) -> Vec<u8> {
    let mut object = store.get(name).await.unwrap();
    let mut bytes = Vec::new();
    timeout(WAIT, object.read_to_end(&mut bytes)).await.unwrap().unwrap();
    bytes
}

/// The raw JSON of the last meta of `name` in bucket `bucket`.
async fn meta_json(js: &Context, bucket: &str, name: &str) -> Value {
    let stream = js.get_stream(format!("OBJ_{bucket}")).await.unwrap();
    let message = stream.get_last_raw_message_by_subject(nj::names::meta_subject(bucket, name)).await.unwrap();
    assert_eq!(message.headers.get("Nats-Rollup").map(|v| v.as_str()), Some("sub"), "a rollup");
    serde_json::from_slice(&message.payload).unwrap()
}

#[tokio::test]
async fn natsjet_puts_and_async_nats_gets_infos_and_lists() {
    let server = NatsServer::start_jetstream();
    let (_js, ours, theirs) = both(&server, "to-an").await;
    for (len, name) in SIZES {
        let bytes = content(name, len);
        let meta = ObjectMetadata {
            name: name.into(),
            description: Some(format!("{len} bytes")),
            chunk_size: Some(CHUNK),
            metadata: metadata(),
            headers: Some(natsjet_headers()),
        };
        let put = ours.put(meta, &mut &bytes[..]).await.unwrap();
        let info = theirs.info(name).await.unwrap();
        assert_eq!((info.size, info.chunks, &info.digest, &info.nuid), (len, put.chunks, &put.digest, &put.nuid));
        assert_eq!(info.description, Some(format!("{len} bytes")));
        assert_eq!(info.metadata, metadata());
        let tags: Vec<_> = info.headers.as_ref().unwrap().get_all("X-Tag").map(|v| v.as_str().to_string()).collect();
        assert_eq!(tags, ["a", "b"]);
        assert_eq!(info.options.as_ref().and_then(|o| o.max_chunk_size), Some(CHUNK));
        assert!(info.modified.is_some(), "natsjet's mtime parses");
        assert_eq!(read_async_nats(&theirs, name).await, bytes, "{name}");
    }
    let listed: Vec<String> = theirs.list().await.unwrap().map(|i| i.unwrap().name).collect().await;
    let mut listed = listed;
    listed.sort();
    let mut expected: Vec<String> = SIZES.iter().map(|(_, n)| n.to_string()).collect();
    expected.sort();
    assert_eq!(listed, expected);
}

#[tokio::test]
async fn async_nats_puts_and_natsjet_gets_infos_and_lists() {
    let server = NatsServer::start_jetstream();
    let (_js, ours, theirs) = both(&server, "from-an").await;
    for (len, name) in SIZES {
        let bytes = content(name, len);
        let meta = an::ObjectMetadata {
            name: name.into(),
            description: Some(format!("{len} bytes")),
            chunk_size: Some(CHUNK),
            metadata: metadata(),
            headers: Some(async_nats_headers()),
        };
        let put = theirs.put(meta, &mut &bytes[..]).await.unwrap();
        let info = ours.info(name).await.unwrap();
        assert_eq!((info.size, info.chunks, &info.digest, &info.nuid), (len, put.chunks, &put.digest, &put.nuid));
        assert_eq!(info.description, Some(format!("{len} bytes")));
        assert_eq!(info.metadata, metadata());
        assert_eq!(info.headers.as_ref().unwrap().get_all("X-Tag").collect::<Vec<_>>(), ["a", "b"]);
        assert!(info.modified.is_some());
        let mut object = ours.get(name).await.unwrap();
        assert_eq!(read_all(&mut object).await.unwrap(), bytes, "{name}");
    }
    let listed = collect(ours.list().await.unwrap(), None).await;
    let mut expected: Vec<String> = SIZES.iter().map(|(_, n)| n.to_string()).collect();
    expected.sort();
    assert_eq!(names(&listed), expected);
}

#[tokio::test]
async fn a_multi_mib_object_with_the_default_chunk_size_crosses_both_ways() {
    let server = NatsServer::start_jetstream();
    let (_js, ours, theirs) = both(&server, "big").await;
    let bytes = data(3 * 1024 * 1024 + 5);
    ours.put("ours", &mut &bytes[..]).await.unwrap();
    assert!(read_async_nats(&theirs, "ours").await == bytes);
    theirs.put("theirs", &mut &bytes[..]).await.unwrap();
    let mut object = ours.get("theirs").await.unwrap();
    assert!(read_all(&mut object).await.unwrap() == bytes);
}

#[tokio::test]
async fn each_client_deletes_what_the_other_put() {
    let server = NatsServer::start_jetstream();
    let (js, ours, theirs) = both(&server, "del").await;
    ours.put(
        ObjectMetadata { name: "ours".into(), chunk_size: Some(CHUNK), ..Default::default() },
        &mut &data(3000)[..],
    )
    .await
    .unwrap();
    theirs
        .put(
            an::ObjectMetadata { name: "theirs".into(), chunk_size: Some(CHUNK), ..Default::default() },
            &mut &data(3000)[..],
        )
        .await
        .unwrap();
    theirs.delete("ours").await.unwrap();
    ours.delete("theirs").await.unwrap();

    assert_eq!(ours.get("ours").await.unwrap_err().kind(), GetErrorKind::NotFound);
    assert!(ours.info("ours").await.unwrap().deleted);
    let gone = theirs.get("theirs").await.unwrap_err();
    assert_eq!(gone.kind(), an::GetErrorKind::NotFound);
    assert!(theirs.info("theirs").await.unwrap().deleted);
    assert_eq!(objects::chunk_messages(&js, "del").await, 0, "both purged the chunks");
    assert!(collect(ours.list().await.unwrap(), None).await.is_empty());
    assert_eq!(theirs.list().await.unwrap().count().await, 0);
}

#[tokio::test]
async fn each_client_watches_what_the_other_writes() {
    let server = NatsServer::start_jetstream();
    let (_js, ours, theirs) = both(&server, "watch").await;
    let mut our_watch = ours.watch_with(WatchOptions::default()).await.unwrap();
    let mut their_watch = theirs.watch().await.unwrap();
    theirs.put("by-async-nats", &mut &b"a"[..]).await.unwrap();
    ours.put("by-natsjet", &mut &b"bb"[..]).await.unwrap();
    theirs.delete("by-natsjet").await.unwrap();

    let seen = collect(&mut our_watch, Some(3)).await;
    let seen: Vec<_> = seen.iter().map(|i| (i.name.as_str(), i.size, i.deleted)).collect();
    assert_eq!(seen, [("by-async-nats", 1, false), ("by-natsjet", 2, false), ("by-natsjet", 0, true)]);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let info = timeout(WAIT, their_watch.next()).await.unwrap().unwrap().unwrap();
        seen.push((info.name, info.size, info.deleted));
    }
    let seen: Vec<_> = seen.iter().map(|(n, s, d)| (n.as_str(), *s, *d)).collect();
    assert_eq!(seen, [("by-async-nats", 1, false), ("by-natsjet", 2, false), ("by-natsjet", 0, true)]);

    // With history, each sees the other's objects first.
    let mut history = theirs.watch_with_history().await.unwrap();
    let first = timeout(WAIT, history.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(first.name, "by-async-nats");
    let mut history = ours.watch_with_history().await.unwrap();
    let all = collect(&mut history, Some(2)).await;
    assert!(history.seen_current());
    assert_eq!(names(&all), ["by-async-nats", "by-natsjet"]);
}

#[tokio::test]
async fn links_made_by_either_client_are_followed_by_the_other() {
    let server = NatsServer::start_jetstream();
    let (js, ours, theirs) = both(&server, "links").await;
    let other = bucket(&js, "elsewhere").await;
    let target = other.put("target", &mut &b"linked bytes"[..]).await.unwrap();
    let their_target =
        async_nats(&server).await.get_object_store("elsewhere").await.unwrap().info("target").await.unwrap();

    ours.add_link("ours-to-target", &target).await.unwrap();
    theirs.add_link("theirs-to-target", &their_target).await.unwrap();
    ours.add_bucket_link("ours-to-bucket", "elsewhere").await.unwrap();
    theirs.add_bucket_link("theirs-to-bucket", "elsewhere").await.unwrap();

    for name in ["ours-to-target", "theirs-to-target"] {
        assert_eq!(read_all(&mut ours.get(name).await.unwrap()).await.unwrap(), b"linked bytes", "{name}");
        assert_eq!(read_async_nats(&theirs, name).await, b"linked bytes", "{name}");
        let link = ours.info(name).await.unwrap();
        assert_eq!(link.link(), Some(&ObjectLink { name: Some("target".into()), bucket: "elsewhere".into() }));
    }
    for name in ["ours-to-bucket", "theirs-to-bucket"] {
        assert_eq!(ours.get(name).await.unwrap_err().kind(), GetErrorKind::BucketLink, "{name}");
        assert_eq!(theirs.get(name).await.unwrap_err().kind(), an::GetErrorKind::BucketLink, "{name}");
    }
}

#[tokio::test]
async fn a_rename_by_natsjet_is_seen_by_async_nats() {
    let server = NatsServer::start_jetstream();
    let (_js, ours, theirs) = both(&server, "ren").await;
    theirs.put("before", &mut &data(2000)[..]).await.unwrap();
    let update = UpdateMetadata { name: "after".into(), description: Some("renamed".into()), ..Default::default() };
    ours.update_metadata("before", update).await.unwrap();
    assert_eq!(theirs.info("before").await.unwrap_err().kind(), an::InfoErrorKind::NotFound);
    assert_eq!(theirs.info("after").await.unwrap().description.as_deref(), Some("renamed"));
    assert_eq!(read_async_nats(&theirs, "after").await, data(2000));
}

/// Config `bucket`'s stream as the server keeps it, the bucket's name
/// replaced by `B`.
async fn stream_config(js: &Context, bucket: &str) -> Value {
    let info = js.request_json(&format!("$JS.API.STREAM.INFO.OBJ_{bucket}"), b"").await.unwrap();
    let info: Value = serde_json::from_slice(&info).unwrap();
    let config = serde_json::to_string(&info["config"]).unwrap();
    serde_json::from_str(&config.replace(&format!("OBJ_{bucket}"), "OBJ_B").replace(&format!("$O.{bucket}."), "$O.B."))
        .unwrap()
}

#[tokio::test]
async fn both_clients_make_the_same_stream_for_the_same_bucket_config() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let theirs = async_nats(&server).await;
    for (n, config) in [
        nj::Config { bucket: "plain".into(), ..Default::default() },
        nj::Config {
            bucket: "full".into(),
            description: Some("every setting".into()),
            max_age: Duration::from_secs(600),
            max_bytes: 1 << 24,
            storage: StorageType::Memory,
            num_replicas: 1,
            compression: true,
            ..Default::default()
        },
    ]
    .into_iter()
    .enumerate()
    {
        let async_nats_config = an::Config {
            bucket: format!("an{n}"),
            description: config.description.clone(),
            max_age: config.max_age,
            max_bytes: config.max_bytes,
            storage: match config.storage {
                StorageType::File => async_nats::jetstream::stream::StorageType::File,
                StorageType::Memory => async_nats::jetstream::stream::StorageType::Memory,
            },
            num_replicas: config.num_replicas,
            compression: config.compression,
            placement: None,
        };
        js.create_object_store(nj::Config { bucket: format!("nj{n}"), ..config.clone() }).await.unwrap();
        theirs.create_object_store(async_nats_config).await.unwrap();
        assert_eq!(
            stream_config(&js, &format!("nj{n}")).await,
            stream_config(&js, &format!("an{n}")).await,
            "{config:?}"
        );
    }
}

#[tokio::test]
async fn both_clients_write_metas_that_agree() {
    let server = NatsServer::start_jetstream();
    let (js, ours, theirs) = both(&server, "metas").await;
    let bytes = data(2500);
    let our_meta = ObjectMetadata {
        name: "ours".into(),
        description: Some("d".into()),
        chunk_size: Some(CHUNK),
        metadata: metadata(),
        headers: Some(natsjet_headers()),
    };
    ours.put(our_meta, &mut &bytes[..]).await.unwrap();
    let their_meta = an::ObjectMetadata {
        name: "theirs".into(),
        description: Some("d".into()),
        chunk_size: Some(CHUNK),
        metadata: metadata(),
        headers: Some(async_nats_headers()),
    };
    theirs.put(their_meta, &mut &bytes[..]).await.unwrap();
    ours.put("ours-plain", &mut &b"x"[..]).await.unwrap();
    theirs.put("theirs-plain", &mut &b"x"[..]).await.unwrap();

    let mut our_json = meta_json(&js, "metas", "ours").await;
    let mut their_json = meta_json(&js, "metas", "theirs").await;
    for (json, name) in [(&mut our_json, "ours"), (&mut their_json, "theirs")] {
        assert_eq!(json["name"], name);
        assert_eq!(json["nuid"].as_str().map(str::len), Some(22), "a NUID: {json}");
        assert!(json["mtime"].as_str().is_some_and(|t| t.ends_with('Z')), "an RFC 3339 UTC time: {json}");
        for varies in ["name", "nuid", "mtime"] {
            json.as_object_mut().unwrap().remove(varies);
        }
    }
    // The one difference: async-nats writes the absent link as `null`.
    assert_eq!(their_json["options"].get("link"), Some(&Value::Null), "{their_json}");
    assert_eq!(our_json["options"].get("link"), None, "{our_json}");
    their_json["options"].as_object_mut().unwrap().remove("link");
    assert_eq!(our_json, their_json, "every other field alike");
    assert_eq!(our_json["digest"].as_str().map(|d| d.starts_with("SHA-256=") && d.ends_with('=')), Some(true));

    // Without description, metadata or headers, async-nats writes them
    // empty and natsjet leaves them out; each reads the other's as none.
    let our_plain = meta_json(&js, "metas", "ours-plain").await;
    let their_plain = meta_json(&js, "metas", "theirs-plain").await;
    for field in ["description", "metadata", "headers"] {
        assert_eq!(our_plain.get(field), None, "{field}: {our_plain}");
    }
    assert_eq!((&their_plain["description"], &their_plain["headers"]), (&Value::Null, &Value::Null));
    assert_eq!(their_plain["metadata"], serde_json::json!({}));
    let info = ours.info("theirs-plain").await.unwrap();
    assert_eq!((info.description, info.metadata.len(), info.headers), (None, 0, None));
    let info = theirs.info("ours-plain").await.unwrap();
    assert_eq!((info.description, info.metadata.len(), info.headers), (None, 0, None));
}

#[tokio::test]
async fn async_nats_chunks_are_what_natsjet_reads_even_when_it_writes_short_ones() {
    let server = NatsServer::start_jetstream();
    let (js, ours, theirs) = both(&server, "short").await;
    // async-nats publishes whatever one read of its reader returns as a
    // chunk; a reader that returns a few bytes at a time makes short chunks.
    let (mut writer, mut reader) = tokio::io::duplex(64);
    let bytes = data(5000);
    let sent = bytes.clone();
    let feed = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        for piece in sent.chunks(700) {
            writer.write_all(piece).await.unwrap();
        }
    });
    let meta = an::ObjectMetadata { name: "short".into(), chunk_size: Some(CHUNK), ..Default::default() };
    let info = theirs.put(meta, &mut reader).await.unwrap();
    feed.await.unwrap();
    assert_eq!(info.size, 5000);
    assert!(info.chunks > 5000usize.div_ceil(CHUNK), "{} chunks of at most 64 bytes", info.chunks);
    let mut object = ours.get("short").await.unwrap();
    assert_eq!(read_all(&mut object).await.unwrap(), bytes);
    assert_eq!(objects::chunk_messages(&js, "short").await, info.chunks as u64);
}
