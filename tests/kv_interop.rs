//! Key-Value interop with async-nats 0.51 on one real server, both ways:
//! what one client writes (puts, updates, creates, deletes, purges, TTLs)
//! the other reads the same (get, entry, entry_for_revision, history, keys,
//! watches and their caught-up signal), keys with `/`, `=` and `.`, empty
//! values, history limits and markers included. The layouts are compared
//! too: the stream each client makes for one bucket config, and the headers
//! each stores for the same operation. A difference fails the test unless
//! it is named here as one.
//!
//! Facts the two clients share: `get` of a deleted or purged key is `None`
//! (nats.js returns the marker entry instead); an expired key is a purge.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod kv_common;

use std::time::{Duration, UNIX_EPOCH};

use async_nats::jetstream as an;
use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use kv_common::{WAIT, b, header_pairs, stored};
use natsjet::jetstream::api::{Source, SubjectTransform};
use natsjet::jetstream::kv;
use natsjet::jetstream::{self, Context};
use tokio::time::timeout;

/// An entry as either client reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    bucket: String,
    key: String,
    value: Bytes,
    revision: u64,
    delta: u64,
    created_nanos: i128,
    operation: &'static str,
    seen_current: bool,
}

fn ours(e: &kv::Entry) -> Seen {
    Seen {
        bucket: e.bucket.clone(),
        key: e.key.clone(),
        value: e.value.clone(),
        revision: e.revision,
        delta: e.delta,
        created_nanos: e.created.duration_since(UNIX_EPOCH).unwrap().as_nanos() as i128,
        operation: e.operation.as_str(),
        seen_current: e.seen_current,
    }
}

fn theirs(e: &an::kv::Entry) -> Seen {
    let operation = match e.operation {
        an::kv::Operation::Put => "PUT",
        an::kv::Operation::Delete => "DEL",
        an::kv::Operation::Purge => "PURGE",
    };
    Seen {
        bucket: e.bucket.clone(),
        key: e.key.clone(),
        value: e.value.clone(),
        revision: e.revision,
        delta: e.delta,
        created_nanos: e.created.unix_timestamp_nanos(),
        operation,
        seen_current: e.seen_current,
    }
}

/// One write, as either client makes it.
#[derive(Debug, Clone, Copy)]
enum Op {
    Put(&'static str, &'static str),
    /// An update at the key's current revision, read back by the writer.
    Update(&'static str, &'static str),
    Create(&'static str, &'static str),
    Delete(&'static str),
    /// A delete at the key's current revision.
    DeleteExpect(&'static str),
    Purge(&'static str),
    /// A purge at the key's current revision.
    PurgeExpect(&'static str),
}

/// Keys with `/`, `=` and `.`, an empty value, a history limit (3) at work,
/// deletes, purges, and creates over a delete and over a purge.
const SCRIPT: &[Op] = &[
    Op::Put("a/b", "1"),
    Op::Put("x=y", ""),
    Op::Put("a.b.c", "3"),
    Op::Put("u", "1"),
    Op::Update("u", "2"),
    Op::Put("h", "1"),
    Op::Put("h", "2"),
    Op::Put("h", "3"),
    Op::Put("h", "4"),
    Op::Put("h", "5"),
    Op::Put("d", "x"),
    Op::Delete("d"),
    Op::Put("p", "x"),
    Op::Put("p", "y"),
    Op::Purge("p"),
    Op::Put("c", "x"),
    Op::Delete("c"),
    Op::Create("c", "over a delete"),
    Op::Put("q", "x"),
    Op::PurgeExpect("q"),
    Op::Create("q", "over a purge"),
    Op::Put("e", "x"),
    Op::DeleteExpect("e"),
    Op::Create("n", "fresh"),
    Op::Put("z", "last"),
];

const KEYS: &[&str] = &["a/b", "x=y", "a.b.c", "u", "h", "d", "p", "c", "q", "e", "n", "z", "never"];

/// Writes `ops` through either client's store: the calls are spelled the
/// same in both, which is the point of natsjet's async-nats shapes.
macro_rules! write_ops {
    ($name:ident, $store:ty) => {
        async fn $name(store: &$store, ops: &[Op]) {
            for op in ops {
                let revision = |key| async move { store.entry(key).await.unwrap().unwrap().revision };
                match *op {
                    Op::Put(k, v) => {
                        store.put(k, b(v)).await.unwrap();
                    }
                    Op::Update(k, v) => {
                        store.update(k, b(v), revision(k).await).await.unwrap();
                    }
                    Op::Create(k, v) => {
                        store.create(k, b(v)).await.unwrap();
                    }
                    Op::Delete(k) => store.delete(k).await.unwrap(),
                    Op::DeleteExpect(k) => store.delete_expect_revision(k, Some(revision(k).await)).await.unwrap(),
                    Op::Purge(k) => store.purge(k).await.unwrap(),
                    Op::PurgeExpect(k) => store.purge_expect_revision(k, Some(revision(k).await)).await.unwrap(),
                }
            }
        }
    };
}

write_ops!(write_ours, kv::Store);
write_ops!(write_theirs, an::kv::Store);

async fn clients(server: &NatsServer) -> (Context, an::Context) {
    let ours = jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    let theirs = an::new(async_nats::connect(server.client_url()).await.unwrap());
    (ours, theirs)
}

fn config(bucket: &str) -> kv::Config {
    kv::Config { bucket: bucket.into(), history: 3, ..Default::default() }
}

fn their_config(bucket: &str) -> an::kv::Config {
    an::kv::Config { bucket: bucket.into(), history: 3, ..Default::default() }
}

async fn our_all<S: futures_util::Stream<Item = Result<kv::Entry, kv::WatcherError>> + Unpin>(s: S) -> Vec<Seen> {
    kv_common::all(s).await.iter().map(ours).collect()
}

async fn their_all<S, E>(mut s: S) -> Vec<Seen>
where
    S: futures_util::Stream<Item = Result<an::kv::Entry, E>> + Unpin,
    E: std::fmt::Debug,
{
    let mut seen = Vec::new();
    while let Some(entry) = timeout(WAIT, s.next()).await.expect("the next entry or the end in time") {
        seen.push(theirs(&entry.unwrap()));
    }
    seen
}

async fn our_next(watch: &mut kv::Watch, n: usize) -> Vec<Seen> {
    let mut seen = Vec::new();
    while seen.len() < n {
        seen.push(ours(&kv_common::next(watch).await));
    }
    seen
}

async fn their_next(watch: &mut an::kv::Watch, n: usize) -> Vec<Seen> {
    let mut seen = Vec::new();
    while seen.len() < n {
        let entry = timeout(WAIT, watch.next()).await.expect("an entry in time").expect("not ended").unwrap();
        seen.push(theirs(&entry));
    }
    seen
}

/// Both clients read bucket `name` and must agree on everything.
async fn read_alike(js: &Context, an_js: &an::Context, name: &str) {
    let our = js.get_key_value(name).await.unwrap();
    let their = an_js.get_key_value(name).await.unwrap();
    let last = our.status().await.unwrap().info.state.last_sequence;
    for key in KEYS {
        assert_eq!(our.get(*key).await.unwrap(), their.get(*key).await.unwrap(), "get {key}");
        let (a, b) = (our.entry(*key).await.unwrap(), their.entry(*key).await.unwrap());
        assert_eq!(a.as_ref().map(ours), b.as_ref().map(theirs), "entry {key}");
        for revision in 1..=last + 1 {
            let a = our.entry_for_revision(*key, revision).await.unwrap();
            let b = their.entry_for_revision(*key, revision).await.unwrap();
            assert_eq!(a.as_ref().map(ours), b.as_ref().map(theirs), "entry_for_revision {key} {revision}");
        }
        let history = our_all(our.history(*key).await.unwrap()).await;
        assert_eq!(history, their_all(their.history(*key).await.unwrap()).await, "history {key}");
    }
    let mut our_keys = kv_common::all(our.keys().await.unwrap()).await;
    let mut their_keys: Vec<String> = their.keys().await.unwrap().map(Result::unwrap).collect().await;
    our_keys.sort();
    their_keys.sort();
    assert_eq!(our_keys, their_keys);
    assert_eq!(our_keys, ["a.b.c", "a/b", "c", "h", "n", "q", "u", "x=y", "z"]);

    // Watches: the same initial entries, the same one caught up, then the same changes.
    let mut our_watch = our.watch_with_history(">").await.unwrap();
    let mut their_watch = their.watch_with_history(">").await.unwrap();
    let initial = our_next(&mut our_watch, 12).await;
    assert_eq!(initial, their_next(&mut their_watch, 12).await, "watch_with_history");
    assert_eq!(initial.iter().filter(|e| e.seen_current).count(), 1, "only the last initial entry: {initial:?}");
    assert!(initial[11].seen_current);
    let mut our_all_keys = our.watch_all().await.unwrap();
    let mut their_all_keys = their.watch_all().await.unwrap();
    // One change at a time, so each arrives with nothing after it (delta 0).
    let mut operations = Vec::new();
    for writer in 0..4 {
        match writer {
            0 => assert!(our.put("w/1", b("ours")).await.unwrap() > 0),
            1 => assert!(their.put("w/1", b("theirs")).await.unwrap() > 0),
            2 => our.delete("w/1").await.unwrap(),
            _ => their.purge("w/1").await.unwrap(),
        }
        let change = our_next(&mut our_watch, 1).await;
        assert_eq!(change, their_next(&mut their_watch, 1).await);
        assert_eq!(change, our_next(&mut our_all_keys, 1).await);
        assert_eq!(change, their_next(&mut their_all_keys, 1).await);
        assert!(change[0].seen_current && change[0].delta == 0, "{change:?}");
        operations.push(change[0].operation);
    }
    assert_eq!(operations, ["PUT", "PUT", "DEL", "PURGE"]);
}

#[tokio::test]
async fn what_natsjet_writes_async_nats_reads() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    let store = js.create_key_value(config("ours")).await.unwrap();
    write_ours(&store, SCRIPT).await;
    read_alike(&js, &an_js, "ours").await;
}

#[tokio::test]
async fn what_async_nats_writes_natsjet_reads() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    let store = an_js.create_key_value(their_config("theirs")).await.unwrap();
    write_theirs(&store, SCRIPT).await;
    read_alike(&js, &an_js, "theirs").await;
}

#[tokio::test]
async fn both_clients_store_the_same_messages_for_the_same_writes() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    let our = js.create_key_value(config("ours")).await.unwrap();
    let their = an_js.create_key_value(their_config("theirs")).await.unwrap();
    write_ours(&our, SCRIPT).await;
    write_theirs(&their, SCRIPT).await;
    let their_view = js.get_key_value("theirs").await.unwrap();
    let last = our.status().await.unwrap().info.state.last_sequence;
    assert_eq!(last, their_view.status().await.unwrap().info.state.last_sequence);
    let mut marked = 0;
    for revision in 1..=last {
        let stream = js.get_stream("KV_ours").await.unwrap();
        let Ok(a) = stream.get_raw_message(revision).await else {
            // Gone by the history limit or a purge: gone on both sides.
            assert!(js.get_stream("KV_theirs").await.unwrap().get_raw_message(revision).await.is_err());
            continue;
        };
        let b = stored(&js, &their_view, revision).await;
        assert_eq!(a.subject.replace("$KV.ours.", ""), b.subject.replace("$KV.theirs.", ""), "revision {revision}");
        assert_eq!((header_pairs(&a), a.payload.clone()), (header_pairs(&b), b.payload), "revision {revision}");
        marked += usize::from(!a.headers.is_empty());
    }
    assert!(marked >= 6, "deletes, purges, creates and updates carry headers: {marked}");
}

/// A bucket that keeps markers for a second, by either client.
fn marked(bucket: &str) -> (kv::Config, an::kv::Config) {
    let markers = Some(Duration::from_secs(1));
    let ours = kv::Config { bucket: format!("n{bucket}"), limit_markers: markers, ..Default::default() };
    let theirs = an::kv::Config { bucket: format!("a{bucket}"), limit_markers: markers, ..Default::default() };
    (ours, theirs)
}

#[tokio::test]
async fn a_ttl_written_by_one_client_expires_into_a_marker_the_other_watches() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    let (our_config, their_config) = marked("ttl");
    let our = js.create_key_value(our_config).await.unwrap();
    let their = an_js.create_key_value(their_config).await.unwrap();
    let mut their_watch_of_ours = an_js.get_key_value("nttl").await.unwrap().watch_all().await.unwrap();
    let mut our_watch_of_theirs = js.get_key_value("attl").await.unwrap().watch_all().await.unwrap();
    our.create_with_ttl("k", b("v"), Duration::from_secs(1)).await.unwrap();
    their.create_with_ttl("k", b("v"), Duration::from_secs(1)).await.unwrap();

    let seen_by_them = their_next(&mut their_watch_of_ours, 2).await;
    let seen_by_us = our_next(&mut our_watch_of_theirs, 2).await;
    for seen in [&seen_by_them, &seen_by_us] {
        let ops: Vec<(&str, u64, &str)> = seen.iter().map(|e| (e.key.as_str(), e.revision, e.operation)).collect();
        assert_eq!(ops, [("k", 1, "PUT"), ("k", 2, "PURGE")], "the server's MaxAge marker is a purge");
    }
    assert_eq!(our.get("k").await.unwrap(), None);
    assert_eq!(their.get("k").await.unwrap(), None);
}

#[tokio::test]
async fn both_clients_write_the_same_ttl_headers() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    let (our_config, their_config) = marked("h");
    let our = js.create_key_value(our_config).await.unwrap();
    let their = an_js.create_key_value(their_config).await.unwrap();
    let ttl = Duration::from_secs(60);
    our.create_with_ttl("c", b("v"), ttl).await.unwrap();
    their.create_with_ttl("c", b("v"), ttl).await.unwrap();
    our.put("p", b("v")).await.unwrap();
    their.put("p", b("v")).await.unwrap();
    our.purge_with_ttl("p", ttl).await.unwrap();
    their.purge_with_ttl("p", ttl).await.unwrap();
    our.put("e", b("v")).await.unwrap();
    their.put("e", b("v")).await.unwrap();
    our.purge_expect_revision_with_ttl("e", 4, ttl).await.unwrap();
    their.purge_expect_revision_with_ttl("e", 4, ttl).await.unwrap();
    let their_view = js.get_key_value("ah").await.unwrap();
    for revision in [1, 3, 5] {
        let (a, b) = (stored(&js, &our, revision).await, stored(&js, &their_view, revision).await);
        assert_eq!(header_pairs(&a), header_pairs(&b), "revision {revision}");
        assert!(header_pairs(&a).contains(&("Nats-TTL".into(), "60".into())), "revision {revision}");
    }

    // A difference, on purpose: over a deleted key async-nats retries the
    // create without its TTL, so the value never expires; natsjet keeps it.
    our.put("d", b("v")).await.unwrap();
    their.put("d", b("v")).await.unwrap();
    our.delete("d").await.unwrap();
    their.delete("d").await.unwrap();
    let ours_at = our.create_with_ttl("d", b("v"), ttl).await.unwrap();
    let theirs_at = their.create_with_ttl("d", b("v"), ttl).await.unwrap();
    let ttl_of = |m: &natsjet::jetstream::stream::StreamMessage| m.headers.get("Nats-TTL").map(|v| v.to_string());
    assert_eq!(ttl_of(&stored(&js, &our, ours_at).await).as_deref(), Some("60"));
    assert_eq!(ttl_of(&stored(&js, &their_view, theirs_at).await), None);
}

/// The config the server stores for bucket `bucket`, with the bucket's
/// name made `B` so two buckets compare.
async fn stored_config(js: &Context, bucket: &str) -> serde_json::Map<String, serde_json::Value> {
    let info = js.request_json(&format!("$JS.API.STREAM.INFO.KV_{bucket}"), b"").await.unwrap();
    let text = String::from_utf8(info.to_vec()).unwrap();
    let text = text.replace(&format!("KV_{bucket}\""), "KV_B\"").replace(&format!("$KV.{bucket}."), "$KV.B.");
    let info: serde_json::Value = serde_json::from_str(&text).unwrap();
    info["config"].as_object().unwrap().clone()
}

/// The fields of the two configs that differ, by name.
fn differences(
    a: &serde_json::Map<String, serde_json::Value>,
    b: &serde_json::Map<String, serde_json::Value>,
) -> Vec<String> {
    let mut fields: Vec<&String> = a.keys().chain(b.keys()).collect();
    fields.sort();
    fields.dedup();
    fields
        .into_iter()
        .filter(|f| a.get(*f) != b.get(*f))
        .map(|f| format!("{f}: {:?} vs {:?}", a.get(f), b.get(f)))
        .collect()
}

#[tokio::test]
async fn both_clients_make_the_same_stream_for_a_bucket() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    an_js.create_key_value(an::kv::Config { bucket: "origin".into(), ..Default::default() }).await.unwrap();
    let full = |bucket: &str| kv::Config {
        bucket: bucket.into(),
        description: "all options".into(),
        max_value_size: 512,
        history: 7,
        max_age: Duration::from_secs(90),
        max_bytes: 1 << 20,
        storage: natsjet::jetstream::api::StorageType::Memory,
        compression: true,
        ..Default::default()
    };
    let their_full = |bucket: &str| an::kv::Config {
        bucket: bucket.into(),
        description: "all options".into(),
        max_value_size: 512,
        history: 7,
        max_age: Duration::from_secs(90),
        max_bytes: 1 << 20,
        storage: an::stream::StorageType::Memory,
        compression: true,
        ..Default::default()
    };
    let cases: Vec<(&str, kv::Config, an::kv::Config)> = vec![
        ("plain", kv::Config::default(), an::kv::Config::default()),
        ("full", full(""), their_full("")),
        ("marked", marked("").0, marked("").1),
        (
            "mirror",
            kv::Config { mirror: Some(Source { name: "origin".into(), ..Default::default() }), ..Default::default() },
            an::kv::Config {
                mirror: Some(an::stream::Source { name: "origin".into(), ..Default::default() }),
                ..Default::default()
            },
        ),
    ];
    for (case, ours, theirs) in cases {
        let (a, b) = (format!("n_{case}"), format!("a_{case}"));
        js.create_key_value(kv::Config { bucket: a.clone(), ..ours }).await.unwrap();
        an_js.create_key_value(an::kv::Config { bucket: b.clone(), ..theirs }).await.unwrap();
        let (a, b) = (stored_config(&js, &a).await, stored_config(&js, &b).await);
        assert_eq!(differences(&a, &b), Vec::<String>::new(), "{case}");
    }
}

#[tokio::test]
async fn a_bucket_sourced_from_another_differs_on_purpose() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    let origin = js.create_key_value(kv::Config { bucket: "origin".into(), ..Default::default() }).await.unwrap();
    origin.put("k", b("from the origin")).await.unwrap();
    let ours = kv::Config {
        bucket: "n_sourced".into(),
        sources: Some(vec![Source { name: "origin".into(), ..Default::default() }]),
        ..Default::default()
    };
    let our = js.create_key_value(ours).await.unwrap();
    let theirs = an::kv::Config {
        bucket: "a_sourced".into(),
        sources: Some(vec![an::stream::Source { name: "origin".into(), ..Default::default() }]),
        ..Default::default()
    };
    an_js.create_key_value(theirs).await.unwrap();

    // natsjet, as nats.go and nats.js: the bucket keeps subjects of its own
    // and maps the origin's keys into them. async-nats: no subjects and no
    // mapping, so the sourced keys keep the origin's subjects, where a get
    // of the bucket never looks, and the bucket takes no writes of its own
    // (so the server gives it no duplicate window either).
    let (a, b) = (stored_config(&js, "n_sourced").await, stored_config(&js, "a_sourced").await);
    assert_eq!(a["subjects"], serde_json::json!(["$KV.B.>"]));
    assert_eq!(b.get("subjects"), None);
    let transform = SubjectTransform { source: "$KV.origin.>".into(), destination: "$KV.n_sourced.>".into() };
    let stream = js.get_stream("KV_n_sourced").await.unwrap();
    assert_eq!(stream.cached_info().config.sources.as_ref().unwrap()[0].subject_transforms, [transform]);
    let mut differing: Vec<String> =
        differences(&a, &b).into_iter().map(|d| d.split(':').next().unwrap().to_string()).collect();
    differing.sort();
    assert_eq!(differing, ["duplicate_window", "sources", "subjects"], "only these differ");

    let copied = timeout(WAIT, async {
        while our.get("k").await.unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    copied.await.expect("the origin's key reaches the sourced bucket");
    let their_view = an_js.get_key_value("a_sourced").await.unwrap();
    assert_eq!(their_view.get("k").await.unwrap(), None, "async-nats's sourced bucket does not find the key");
}

#[tokio::test]
async fn markers_with_each_reason_read_alike() {
    let server = NatsServer::start_jetstream();
    let (js, an_js) = clients(&server).await;
    let our = js.create_key_value(config("m")).await.unwrap();
    // Markers as the server writes them (ADR-48), stored here by hand: a
    // real server writes only `MaxAge` ones for a bucket (see kv_ttl).
    for (key, reason) in [("age", "MaxAge"), ("purged", "Purge"), ("removed", "Remove")] {
        our.put(key, b("v")).await.unwrap();
        let mut headers = natsjet::HeaderMap::new();
        headers.insert("Nats-Marker-Reason", reason);
        js.publish_with_headers(format!("$KV.m.{key}"), headers, Bytes::new()).await.unwrap().await.unwrap();
    }
    let their = an_js.get_key_value("m").await.unwrap();
    for (key, operation) in [("age", "PURGE"), ("purged", "PURGE"), ("removed", "DEL")] {
        let (a, b) =
            (our.entry(key).await.unwrap().map(|e| ours(&e)), their.entry(key).await.unwrap().map(|e| theirs(&e)));
        assert_eq!(a, b, "{key}");
        assert_eq!(a.unwrap().operation, operation, "{key}");
        assert_eq!((our.get(key).await.unwrap(), their.get(key).await.unwrap()), (None, None), "{key}");
    }
    let mut our_watch = our.watch_with_history(">").await.unwrap();
    let mut their_watch = their.watch_with_history(">").await.unwrap();
    let initial = our_next(&mut our_watch, 3).await;
    assert_eq!(initial, their_next(&mut their_watch, 3).await);
    assert_eq!(initial.iter().map(|e| e.operation).collect::<Vec<_>>(), ["PURGE", "PURGE", "DEL"]);
}
