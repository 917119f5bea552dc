//! Key-Value writes and reads against a real server: put, get, entry and
//! entry_for_revision; compare-and-set updates, deletes and purges; create
//! over deletes and purges; history limits; keys and values refused before
//! a byte is written (bad keys, values over the bucket's or the server's
//! limit) with typed errors.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod kv_common;

use bytes::Bytes;
use common::NatsServer;
use kv_common::{Tap, all, b, bucket, header_pairs, js, stored, stored_count};
use natsjet::Error;
use natsjet::jetstream::api::ErrorCode;
use natsjet::jetstream::kv::{self, CreateErrorKind, EntryErrorKind, Operation, PutErrorKind, UpdateErrorKind};

#[tokio::test]
async fn put_then_get_and_entry() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 1).await;
    assert_eq!(store.get("k").await.unwrap(), None);
    assert_eq!(store.entry("k").await.unwrap(), None);
    let revision = store.put("k", b("v")).await.unwrap();
    assert_eq!(revision, 1);
    assert_eq!(store.get("k").await.unwrap(), Some(b("v")));
    let entry = store.entry("k").await.unwrap().unwrap();
    let raw = stored(&js, &store, revision).await;
    let expected = kv::Entry {
        bucket: "b".into(),
        key: "k".into(),
        value: b("v"),
        revision,
        delta: 0,
        created: raw.timestamp().unwrap(),
        operation: Operation::Put,
        seen_current: false,
    };
    assert_eq!(entry, expected);
    assert!(raw.headers.is_empty(), "a put has no headers");
    assert_eq!(store.put("k", b("w")).await.unwrap(), 2, "revisions are stream sequences");
}

#[tokio::test]
async fn keys_with_slashes_equals_and_dots_and_empty_values_round_trip() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 1).await;
    let pairs = [("a/b", "1"), ("x=y", "2"), ("a.b.c", "3"), ("-_", ""), ("A9.z/=.-", "5"), ("empty", "")];
    for (key, value) in pairs {
        store.put(key, b(value)).await.unwrap();
    }
    for (key, value) in pairs {
        // An empty value is a value, not a delete.
        assert_eq!(store.get(key).await.unwrap(), Some(b(value)), "{key}");
        let stream = js.get_stream("KV_b").await.unwrap();
        let raw = stream.get_last_raw_message_by_subject(format!("$KV.b.{key}")).await.unwrap();
        assert_eq!(raw.payload, b(value));
    }
    let mut keys = all(store.keys().await.unwrap()).await;
    keys.sort();
    assert_eq!(keys, ["-_", "A9.z/=.-", "a.b.c", "a/b", "empty", "x=y"]);
}

#[tokio::test]
async fn history_keeps_the_configured_number_of_values() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 3).await;
    let mut revisions = Vec::new();
    for i in 0..5 {
        revisions.push(store.put("k", b(&i.to_string())).await.unwrap());
    }
    store.put("other", b("o")).await.unwrap();
    let history = all(store.history("k").await.unwrap()).await;
    let kept: Vec<(u64, Bytes)> = history.iter().map(|e| (e.revision, e.value.clone())).collect();
    let mut expected: Vec<(u64, Bytes)> = Vec::new();
    for revision in &revisions[2..] {
        expected.push((*revision, stored(&js, &store, *revision).await.payload));
    }
    assert_eq!(kept, expected, "the last three of five");
    assert_eq!(store.status().await.unwrap().values(), 4);
    assert_eq!(store.entry_for_revision("k", revisions[0]).await.unwrap(), None, "aged out by the history limit");
}

#[tokio::test]
async fn update_is_a_compare_and_set_on_the_last_revision() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 5).await;
    assert_eq!(store.update("new", b("0"), 0).await.unwrap(), 1, "revision 0: the key must have none");
    let r1 = store.put("k", b("1")).await.unwrap();
    let r2 = store.update("k", b("2"), r1).await.unwrap();
    let stale = store.update("k", b("3"), r1).await.unwrap_err();
    assert_eq!(stale.kind(), UpdateErrorKind::WrongLastRevision);
    let Error::JetStream(cause) = stale.cause() else { panic!("{stale}") };
    assert!(cause.is_wrong_last_sequence() && cause.description.contains(&r2.to_string()), "{cause}");
    assert_eq!(store.update("k", b("3"), 0).await.unwrap_err().kind(), UpdateErrorKind::WrongLastRevision);
    assert_eq!(store.get("k").await.unwrap(), Some(b("2")), "refused updates wrote nothing");
    assert_eq!(store.status().await.unwrap().values(), 3);
}

#[tokio::test]
async fn deletes_and_purges_can_expect_a_revision() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 5).await;
    let r1 = store.put("k", b("1")).await.unwrap();
    let r2 = store.put("k", b("2")).await.unwrap();

    let stale = store.delete_expect_revision("k", Some(r1)).await.unwrap_err();
    assert_eq!(stale.kind(), UpdateErrorKind::WrongLastRevision);
    store.delete_expect_revision("k", Some(r2)).await.unwrap();
    let deleted = store.entry("k").await.unwrap().unwrap();
    assert_eq!((deleted.operation, deleted.value.clone()), (Operation::Delete, Bytes::new()));
    assert_eq!(store.get("k").await.unwrap(), None);
    let ops: Vec<Operation> = all(store.history("k").await.unwrap()).await.iter().map(|e| e.operation).collect();
    assert_eq!(ops, [Operation::Put, Operation::Put, Operation::Delete], "a delete keeps the history");
    let marker = stored(&js, &store, deleted.revision).await;
    assert_eq!(
        header_pairs(&marker),
        [("KV-Operation".into(), "DEL".into()), ("Nats-Expected-Last-Subject-Sequence".into(), r2.to_string())]
    );

    let stale = store.purge_expect_revision("k", Some(r2)).await.unwrap_err();
    assert_eq!(stale.kind(), UpdateErrorKind::WrongLastRevision);
    store.purge_expect_revision("k", Some(deleted.revision)).await.unwrap();
    let history = all(store.history("k").await.unwrap()).await;
    assert_eq!(history.len(), 1, "a purge leaves its marker alone");
    assert_eq!(history[0].operation, Operation::Purge);
    let marker = stored(&js, &store, history[0].revision).await;
    let pairs = header_pairs(&marker);
    assert!(pairs.contains(&("KV-Operation".into(), "PURGE".into())), "{pairs:?}");
    assert!(pairs.contains(&("Nats-Rollup".into(), "sub".into())), "{pairs:?}");

    // Without an expected revision, any key can be marked, even one never written.
    store.delete("never").await.unwrap();
    store.purge("never2").await.unwrap();
    store.delete_expect_revision("never3", None).await.unwrap();
    store.purge_expect_revision("never4", None).await.unwrap();
    assert_eq!(store.entry("never").await.unwrap().unwrap().operation, Operation::Delete);
    assert_eq!(store.entry("never4").await.unwrap().unwrap().operation, Operation::Purge);
    assert_eq!(store.status().await.unwrap().values(), 5);
}

#[tokio::test]
async fn create_fails_over_a_value_and_succeeds_over_a_delete_or_purge() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 5).await;
    let first = store.create("k", b("1")).await.unwrap();
    let exists = store.create("k", b("2")).await.unwrap_err();
    assert_eq!(exists.kind(), CreateErrorKind::AlreadyExists);
    assert!(matches!(exists.cause(), Error::JetStream(e) if e.is_wrong_last_sequence()), "{exists}");

    store.delete("k").await.unwrap();
    let over_delete = store.create("k", b("3")).await.unwrap();
    let written = stored(&js, &store, over_delete).await;
    assert_eq!(written.payload, b("3"));
    assert_eq!(header_pairs(&written), [("Nats-Expected-Last-Subject-Sequence".into(), (first + 1).to_string())]);

    store.purge("k").await.unwrap();
    let over_purge = store.create("k", b("4")).await.unwrap();
    let history: Vec<(Operation, u64)> =
        all(store.history("k").await.unwrap()).await.iter().map(|e| (e.operation, e.revision)).collect();
    assert_eq!(history, [(Operation::Purge, over_purge - 1), (Operation::Put, over_purge)]);
    assert_eq!(store.create("k", b("5")).await.unwrap_err().kind(), CreateErrorKind::AlreadyExists);
}

#[tokio::test]
async fn of_two_creates_over_a_delete_one_wins() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 5).await;
    store.put("k", b("old")).await.unwrap();
    store.delete("k").await.unwrap();
    let (a, b2) = tokio::join!(store.create("k", b("a")), store.create("k", b("b")));
    let (won, lost) = match (a, b2) {
        (Ok(won), Err(lost)) | (Err(lost), Ok(won)) => (won, lost),
        other => panic!("exactly one create wins: {other:?}"),
    };
    assert_eq!(lost.kind(), CreateErrorKind::AlreadyExists);
    assert_eq!(store.entry("k").await.unwrap().unwrap().revision, won);
}

#[tokio::test]
async fn bad_keys_are_refused_before_a_byte_is_written() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 5).await;
    store.put("ok", b("v")).await.unwrap();
    let mut tap = Tap::open(&server.client_url()).await;
    let ttl = std::time::Duration::from_secs(5);
    for key in ["", ".a", "a.", "a..b", "a b", "a*", "*", ">", "a.>", "a.*", "a\tb", "a\r\nPUB x 1", "ü", "a:b", "a$b"]
    {
        let named = |text: String| assert!(text.contains(&format!("{key:?}")), "{key:?}: {text}");
        let e = store.put(key, b("v")).await.unwrap_err();
        assert_eq!(e.kind(), PutErrorKind::InvalidKey, "{key:?}");
        named(e.to_string());
        for e in
            [store.create(key, b("v")).await.unwrap_err(), store.create_with_ttl(key, b("v"), ttl).await.unwrap_err()]
        {
            assert_eq!(e.kind(), CreateErrorKind::InvalidKey, "{key:?}");
            named(e.cause().to_string());
        }
        for e in [
            store.update(key, b("v"), 1).await.unwrap_err(),
            store.delete(key).await.unwrap_err(),
            store.delete_expect_revision(key, Some(1)).await.unwrap_err(),
            store.purge(key).await.unwrap_err(),
            store.purge_with_ttl(key, ttl).await.unwrap_err(),
            store.purge_expect_revision(key, Some(1)).await.unwrap_err(),
            store.purge_expect_revision_with_ttl(key, 1, ttl).await.unwrap_err(),
        ] {
            assert_eq!(e.kind(), UpdateErrorKind::InvalidKey, "{key:?}");
            named(e.cause().to_string());
        }
        for e in [
            store.get(key).await.unwrap_err(),
            store.entry(key).await.unwrap_err(),
            store.entry_for_revision(key, 1).await.unwrap_err(),
        ] {
            assert_eq!(e.kind(), EntryErrorKind::InvalidKey, "{key:?}");
            named(e.cause().to_string());
        }
    }
    tap.assert_silent(js.client(), "a call with a bad key").await;
    assert_eq!(stored_count(&js, &store).await, 1);
}

#[tokio::test]
async fn values_over_the_buckets_max_value_size_are_refused_unsent() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let config = kv::Config { bucket: "b".into(), max_value_size: 8, history: 5, ..Default::default() };
    let store = js.create_key_value(config).await.unwrap();
    let revision = store.put("k", b("12345678")).await.unwrap();
    let mut tap = Tap::open(&server.client_url()).await;
    let too_big = b("123456789");
    let over = |cause: &Error| {
        let Error::JetStream(e) = cause else { panic!("{cause}") };
        assert_eq!(e.err_code, ErrorCode::STREAM_MESSAGE_EXCEEDS_MAXIMUM);
        assert!(e.description.contains("9 bytes") && e.description.contains("max_value_size of 8"), "{e}");
    };
    // As async-nats sorts the server's refusal of a put: an ack error.
    let e = store.put("k", too_big.clone()).await.unwrap_err();
    assert_eq!(e.kind(), PutErrorKind::Ack);
    over(e.cause());
    let e = store.create("new", too_big.clone()).await.unwrap_err();
    assert_eq!(e.kind(), CreateErrorKind::Ack);
    over(e.cause());
    let e = store.update("k", too_big, revision).await.unwrap_err();
    assert_eq!(e.kind(), UpdateErrorKind::Other);
    over(e.cause());
    tap.assert_silent(js.client(), "a value over max_value_size").await;
    assert_eq!(stored_count(&js, &store).await, 1);

    // A fact of the server, for every client: it counts headers too, so a
    // value of exactly max_value_size is put, but not created or updated.
    let e = store.create("new", b("12345678")).await.unwrap_err();
    assert_eq!(e.kind(), CreateErrorKind::Ack);
    assert!(matches!(e.cause(), Error::JetStream(j) if j.err_code == ErrorCode::STREAM_MESSAGE_EXCEEDS_MAXIMUM));
}

#[tokio::test]
async fn values_over_the_servers_max_payload_are_refused_unsent() {
    let server = NatsServer::builder().jetstream().config_extra("max_payload: 1024").start();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 1).await;
    let mut tap = Tap::open(&server.client_url()).await;
    let big = Bytes::from(vec![b'x'; 1025]);
    let e = store.put("k", big.clone()).await.unwrap_err();
    assert_eq!(e.kind(), PutErrorKind::Publish);
    assert_eq!(e.cause(), &Error::PayloadTooLarge { size: 1025, max_payload: 1024 });
    let e = store.create("k", big.clone()).await.unwrap_err();
    assert_eq!(e.kind(), CreateErrorKind::Publish);
    assert!(matches!(e.cause(), Error::PayloadTooLarge { max_payload: 1024, .. }), "{e}");
    let e = store.update("k", big, 1).await.unwrap_err();
    assert!(matches!(e.cause(), Error::PayloadTooLarge { max_payload: 1024, .. }), "{e}");
    tap.assert_silent(js.client(), "a value over max_payload").await;
    assert_eq!(stored_count(&js, &store).await, 0);
}

#[tokio::test]
async fn entry_for_revision_reads_the_keys_own_revisions_only() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "b", 5).await;
    let r1 = store.put("k", b("1")).await.unwrap();
    let other = store.put("o", b("x")).await.unwrap();
    let r3 = store.put("k", b("3")).await.unwrap();
    store.delete("k").await.unwrap();

    let old = store.entry_for_revision("k", r1).await.unwrap().unwrap();
    assert_eq!((old.key.as_str(), old.revision, old.value.clone(), old.operation), ("k", r1, b("1"), Operation::Put));
    assert_eq!(store.entry_for_revision("k", r3).await.unwrap().unwrap().value, b("3"));
    assert_eq!(store.entry_for_revision("k", other).await.unwrap(), None, "another key's revision");
    assert_eq!(store.entry_for_revision("o", other).await.unwrap().unwrap().value, b("x"));
    assert_eq!(store.entry_for_revision("k", 99).await.unwrap(), None, "past the end");
    assert_eq!(store.entry_for_revision("k", 0).await.unwrap(), None, "before the first");
    let marker = store.entry_for_revision("k", r3 + 1).await.unwrap().unwrap();
    assert_eq!(marker.operation, Operation::Delete);
}
