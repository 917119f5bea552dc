//! Key-Value buckets against a real server: create, open, update, delete
//! and list them; the stream each bucket is; names and configs refused
//! before a byte is written; limit markers and the API level they need;
//! reads by direct get, or by `STREAM.MSG.GET` when the bucket has none.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod kv_common;

use std::collections::HashMap;
use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use kv_common::{Tap, WAIT, b, bucket, js};
use natsjet::Error;
use natsjet::jetstream::api::{Compression, DiscardPolicy, ErrorCode, Republish, Source, StorageType, StreamConfig};
use natsjet::jetstream::kv::{self, CreateKeyValueErrorKind, KeyValueErrorKind, UpdateKeyValueErrorKind};
use tokio::time::timeout;

async fn stream_config(js: &natsjet::jetstream::Context, bucket: &str) -> StreamConfig {
    js.get_stream(format!("KV_{bucket}")).await.unwrap().cached_info().config.clone()
}

#[tokio::test]
async fn a_bucket_is_a_stream_with_the_kv_layout() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config = kv::Config {
        bucket: "profiles".into(),
        description: "who likes what".into(),
        max_value_size: 256,
        history: 5,
        max_age: Duration::from_secs(90),
        max_bytes: 1 << 20,
        storage: StorageType::Memory,
        num_replicas: 1,
        republish: Some(Republish { source: ">".into(), destination: "changes.>".into(), headers_only: false }),
        compression: true,
        metadata: HashMap::from([("team".to_string(), "blue".to_string())]),
        ..Default::default()
    };
    let store = js.create_key_value(config).await.unwrap();
    assert_eq!(
        (store.name.as_str(), store.stream_name.as_str(), store.prefix()),
        ("profiles", "KV_profiles", "$KV.profiles.")
    );

    let stream = stream_config(&js, "profiles").await;
    assert_eq!(stream.subjects, ["$KV.profiles.>"]);
    assert_eq!(stream.description.as_deref(), Some("who likes what"));
    assert_eq!((stream.max_messages_per_subject, stream.max_message_size, stream.max_bytes), (5, 256, 1 << 20));
    assert_eq!((stream.max_messages, stream.max_consumers), (-1, -1));
    assert_eq!((stream.max_age, stream.duplicate_window), (Duration::from_secs(90), Duration::from_secs(90)));
    assert_eq!(
        (stream.storage, stream.num_replicas, stream.compression),
        (StorageType::Memory, 1, Some(Compression::S2))
    );
    assert_eq!(stream.discard, DiscardPolicy::New);
    assert!(stream.allow_rollup && stream.deny_delete && stream.allow_direct && !stream.deny_purge);
    assert!(!stream.mirror_direct && !stream.allow_message_ttl && stream.subject_delete_marker_ttl.is_none());
    assert_eq!(stream.republish.unwrap().destination, "changes.>");
    assert_eq!(stream.metadata.get("team").map(String::as_str), Some("blue"));

    // mirror_direct is for mirrors (which always get it): the server refuses it on another bucket.
    let direct = kv::Config { bucket: "md".into(), mirror_direct: true, ..Default::default() };
    let e = js.create_key_value(direct).await.unwrap_err();
    assert_eq!(e.kind(), CreateKeyValueErrorKind::BucketCreate);
    assert!(matches!(e.cause(), Error::JetStream(j) if j.err_code == ErrorCode::STREAM_INVALID_CONFIG), "{e}");

    let plain = bucket(&js, "plain", 0).await;
    let stream = stream_config(&js, &plain.name).await;
    assert_eq!(stream.max_messages_per_subject, 1, "history 0 keeps one value");
    assert_eq!(
        (stream.max_message_size, stream.max_bytes, stream.duplicate_window),
        (-1, -1, Duration::from_secs(120))
    );
    assert_eq!((stream.storage, stream.compression), (StorageType::File, Some(Compression::None)));
}

#[tokio::test]
async fn creating_an_existing_bucket_returns_it_unless_the_config_differs() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config = kv::Config { bucket: "b".into(), history: 3, ..Default::default() };
    let first = js.create_key_value(config.clone()).await.unwrap();
    first.put("k", b("v")).await.unwrap();
    let again = js.create_key_value(config).await.unwrap();
    assert_eq!(again.get("k").await.unwrap(), Some(b("v")), "the same bucket, untouched");

    let other = js.create_key_value(kv::Config { bucket: "b".into(), history: 4, ..Default::default() }).await;
    let e = other.unwrap_err();
    assert_eq!(e.kind(), CreateKeyValueErrorKind::BucketCreate);
    assert!(matches!(e.cause(), Error::JetStream(j) if j.err_code == ErrorCode::STREAM_NAME_EXIST), "{e}");
    assert_eq!(stream_config(&js, "b").await.max_messages_per_subject, 3);
}

#[tokio::test]
async fn get_key_value_opens_a_bucket_and_refuses_a_missing_one_or_a_plain_stream() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    bucket(&js, "b", 2).await.put("k", b("v")).await.unwrap();
    let opened = js.get_key_value("b").await.unwrap();
    assert_eq!((opened.name.as_str(), opened.get("k").await.unwrap()), ("b", Some(b("v"))));

    let missing = js.get_key_value("nope").await.unwrap_err();
    assert_eq!(missing.kind(), KeyValueErrorKind::GetBucket);
    assert!(matches!(missing.cause(), Error::JetStream(j) if j.err_code == ErrorCode::STREAM_NOT_FOUND), "{missing}");

    // A stream named like a bucket that keeps no value per subject is none.
    let config = StreamConfig { name: "KV_fake".into(), subjects: vec!["fake.>".into()], ..Default::default() };
    js.create_stream(config).await.unwrap();
    let fake = js.get_key_value("fake").await.unwrap_err();
    assert_eq!(fake.kind(), KeyValueErrorKind::InvalidStoreName);
    assert!(fake.cause().to_string().contains("KV_fake"), "{fake}");
}

#[tokio::test]
async fn update_key_value_changes_a_bucket_and_refuses_a_missing_one() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    bucket(&js, "b", 1).await.put("k", b("v")).await.unwrap();
    let updated = js
        .update_key_value(kv::Config {
            bucket: "b".into(),
            history: 7,
            description: "more".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(updated.get("k").await.unwrap(), Some(b("v")), "values survive an update");
    let status = updated.status().await.unwrap();
    assert_eq!((status.history(), status.info.config.description.as_deref()), (7, Some("more")));

    let missing = js.update_key_value(kv::Config { bucket: "nope".into(), ..Default::default() }).await.unwrap_err();
    assert_eq!(missing.kind(), UpdateKeyValueErrorKind::NotFound);
    assert!(matches!(missing.cause(), Error::JetStream(j) if j.err_code == ErrorCode::STREAM_NOT_FOUND), "{missing}");

    // A change the server cannot make (storage) is the server's refusal.
    let storage = kv::Config { bucket: "b".into(), storage: StorageType::Memory, ..Default::default() };
    let refused = js.update_key_value(storage).await.unwrap_err();
    assert_eq!(refused.kind(), UpdateKeyValueErrorKind::BucketUpdate, "{refused}");
}

#[tokio::test]
async fn create_or_update_key_value_creates_then_updates() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let created = js.create_or_update_key_value(kv::Config { bucket: "b".into(), ..Default::default() }).await.unwrap();
    created.put("k", b("v")).await.unwrap();
    let updated = js
        .create_or_update_key_value(kv::Config { bucket: "b".into(), history: 9, ..Default::default() })
        .await
        .unwrap();
    assert_eq!(updated.get("k").await.unwrap(), Some(b("v")));
    assert_eq!(updated.status().await.unwrap().history(), 9);
}

#[tokio::test]
async fn get_or_create_key_value_keeps_an_existing_bucket_as_it_is() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let created = js.get_or_create_key_value(kv::Config { bucket: "b".into(), history: 2, ..Default::default() });
    created.await.unwrap().put("k", b("v")).await.unwrap();
    let other = kv::Config { bucket: "b".into(), history: 30, ..Default::default() };
    let existing = js.get_or_create_key_value(other).await.unwrap();
    assert_eq!(existing.get("k").await.unwrap(), Some(b("v")));
    assert_eq!(existing.status().await.unwrap().history(), 2, "not updated");
}

#[tokio::test]
async fn delete_key_value_removes_the_bucket_and_its_values() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    bucket(&js, "b", 1).await.put("k", b("v")).await.unwrap();
    assert!(js.delete_key_value("b").await.unwrap().success);
    assert_eq!(js.get_key_value("b").await.unwrap_err().kind(), KeyValueErrorKind::GetBucket);
    let again = js.delete_key_value("b").await.unwrap_err();
    // async-nats sorts every failed delete as `JetStream`.
    assert_eq!(again.kind(), KeyValueErrorKind::JetStream, "{again}");
    assert!(matches!(again.cause(), Error::JetStream(j) if j.err_code == ErrorCode::STREAM_NOT_FOUND));
}

#[tokio::test]
async fn buckets_are_listed_by_name_and_status_without_other_streams() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    for (name, history) in [("one", 1), ("two", 2), ("three", 3)] {
        bucket(&js, name, history).await;
    }
    let config = StreamConfig { name: "ORDERS".into(), subjects: vec!["orders.>".into()], ..Default::default() };
    js.create_stream(config).await.unwrap();

    let mut names: Vec<String> = kv_common::all(js.key_value_store_names()).await;
    names.sort();
    assert_eq!(names, ["one", "three", "two"]);
    let mut statuses: Vec<(String, i64)> = kv_common::all(js.key_value_stores())
        .await
        .into_iter()
        .map(|s| (s.bucket().to_string(), s.history()))
        .collect();
    statuses.sort();
    assert_eq!(statuses, [("one".into(), 1), ("three".into(), 3), ("two".into(), 2)]);
}

#[tokio::test]
async fn status_reports_the_bucket_and_its_state() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config = kv::Config { bucket: "s".into(), history: 4, max_age: Duration::from_secs(600), ..Default::default() };
    let store = js.create_key_value(config).await.unwrap();
    store.put("a", b("12345")).await.unwrap();
    store.put("a", b("6")).await.unwrap();
    store.delete("b").await.unwrap();
    let status = store.status().await.unwrap();
    assert_eq!((status.bucket(), status.values(), status.history()), ("s", 3, 4));
    assert_eq!((status.max_age(), status.limit_markers()), (Duration::from_secs(600), None));
    assert_eq!(status.size(), status.info.state.bytes);
    assert!(status.size() > 6, "values, subjects and headers: {}", status.size());
    let json: serde_json::Value = serde_json::from_slice(&store.status_json().await.unwrap()).unwrap();
    assert_eq!(json["config"]["name"], "KV_s");
    assert_eq!(json["state"]["messages"], 3);
}

#[tokio::test]
async fn bad_bucket_names_and_histories_are_refused_before_a_byte_is_written() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let mut tap = Tap::open(&server.client_url()).await;
    for name in ["", "a.b", "a b", "a*", "a>", "a/b", "ü", "a\r\nPUB x 1"] {
        let config = kv::Config { bucket: name.into(), ..Default::default() };
        let named = |text: String| assert!(text.contains(&format!("{name:?}")), "{text}");
        let create = js.create_key_value(config.clone()).await.unwrap_err();
        assert_eq!(create.kind(), CreateKeyValueErrorKind::InvalidStoreName);
        named(create.cause().to_string());
        let e = js.get_or_create_key_value(config.clone()).await.unwrap_err();
        assert_eq!(e.kind(), CreateKeyValueErrorKind::InvalidStoreName);
        let e = js.create_or_update_key_value(config.clone()).await.unwrap_err();
        assert_eq!(e.kind(), CreateKeyValueErrorKind::InvalidStoreName);
        let e = js.update_key_value(config).await.unwrap_err();
        assert_eq!(e.kind(), UpdateKeyValueErrorKind::InvalidStoreName);
        named(e.cause().to_string());
        let e = js.get_key_value(name).await.unwrap_err();
        assert_eq!(e.kind(), KeyValueErrorKind::InvalidStoreName);
        named(e.cause().to_string());
        let e = js.delete_key_value(name).await.unwrap_err();
        assert_eq!(e.kind(), KeyValueErrorKind::InvalidStoreName);
    }
    let long = kv::Config { bucket: "b".into(), history: 65, ..Default::default() };
    let e = js.create_key_value(long.clone()).await.unwrap_err();
    assert_eq!(e.kind(), CreateKeyValueErrorKind::TooLongHistory);
    assert!(e.cause().to_string().contains("65"), "{e}");
    assert_eq!(js.update_key_value(long).await.unwrap_err().kind(), UpdateKeyValueErrorKind::TooLongHistory);
    tap.assert_silent(js.client(), "a refused bucket call").await;
}

#[tokio::test]
async fn limit_markers_turn_on_message_ttls_and_marker_ttls() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config = kv::Config { bucket: "m".into(), limit_markers: Some(Duration::from_secs(5)), ..Default::default() };
    let store = js.create_key_value(config).await.unwrap();
    let stream = stream_config(&js, "m").await;
    assert!(stream.allow_message_ttl);
    assert_eq!(stream.subject_delete_marker_ttl, Some(Duration::from_secs(5)));
    assert_eq!(store.status().await.unwrap().limit_markers(), Some(Duration::from_secs(5)));
}

#[tokio::test]
async fn gets_are_direct_gets_when_the_bucket_allows_them() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "d", 3).await;
    let first = store.put("k", b("1")).await.unwrap();
    store.put("k", b("2")).await.unwrap();
    let mut tap = Tap::open(&server.client_url()).await;
    assert_eq!(store.get("k").await.unwrap(), Some(b("2")));
    assert_eq!(store.entry_for_revision("k", first).await.unwrap().unwrap().value, b("1"));
    assert_eq!(tap.requests(js.client()).await, ["$JS.API.DIRECT.GET.KV_d.$KV.d.k", "$JS.API.DIRECT.GET.KV_d"]);
}

#[tokio::test]
async fn a_bucket_without_direct_gets_is_read_through_the_stream_leader() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    // Made by hand, as an old client or a tool would have made it.
    let config = StreamConfig {
        name: "KV_nd".into(),
        subjects: vec!["$KV.nd.>".into()],
        max_messages_per_subject: 5,
        allow_rollup: true,
        deny_delete: true,
        discard: DiscardPolicy::New,
        allow_direct: false,
        ..Default::default()
    };
    js.create_stream(config).await.unwrap();
    let store = js.get_key_value("nd").await.unwrap();
    let first = store.put("k", b("1")).await.unwrap();
    store.put("k", b("2")).await.unwrap();
    let other = store.put("o", b("x")).await.unwrap();
    store.delete("o").await.unwrap();

    let mut tap = Tap::open(&server.client_url()).await;
    assert_eq!(store.get("k").await.unwrap(), Some(b("2")));
    let old = store.entry_for_revision("k", first).await.unwrap().unwrap();
    assert_eq!((old.key.as_str(), old.revision, old.value.clone()), ("k", first, b("1")));
    assert_eq!(store.entry_for_revision("k", other).await.unwrap(), None, "another key's revision");
    assert_eq!(store.entry("o").await.unwrap().unwrap().operation, kv::Operation::Delete);
    assert_eq!(store.get("missing").await.unwrap(), None);
    let asked = tap.requests(js.client()).await;
    assert_eq!(asked, ["$JS.API.STREAM.MSG.GET.KV_nd"; 5]);
}

#[tokio::test]
async fn a_listing_of_no_buckets_ends_at_once() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let mut names = js.key_value_store_names();
    assert!(timeout(WAIT, names.next()).await.unwrap().is_none());
    assert!(kv_common::all(js.key_value_stores()).await.is_empty());
}

#[tokio::test]
async fn a_mirror_bucket_writes_to_its_origin() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let origin = bucket(&js, "origin", 1).await;
    let mirror = Source { name: "origin".into(), ..Default::default() };
    let config = kv::Config { bucket: "copy".into(), mirror: Some(mirror), ..Default::default() };
    let copy = js.create_key_value(config).await.unwrap();
    let stream = stream_config(&js, "copy").await;
    assert_eq!(stream.mirror.map(|m| m.name).as_deref(), Some("KV_origin"));
    assert!(stream.subjects.is_empty() && stream.mirror_direct);
    let revision = copy.put("k", b("through the mirror")).await.unwrap();
    let entry = origin.entry("k").await.unwrap().unwrap();
    assert_eq!((entry.revision, entry.value), (revision, b("through the mirror")));
}
