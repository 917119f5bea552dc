//! Key-Value TTLs and markers against a real server: per-key TTLs on
//! create and purge set `Nats-TTL`, an expired key comes back to a watch as
//! the marker the server writes (`Nats-Marker-Reason`), and `purge_deletes`
//! clears the history of deleted keys. The bucket republishes every stored
//! message, so the headers are read as they were stored, however short the
//! message lives.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod kv_common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use kv_common::{WAIT, b, bucket, js, next};
use natsjet::jetstream::Context;
use natsjet::jetstream::api::{ErrorCode, Republish};
use natsjet::jetstream::kv::{self, CreateErrorKind, Operation, Store};
use natsjet::{Error, Subscriber};
use tokio::time::timeout;

/// A bucket whose markers live one second, republishing to `seen.<key>`,
/// and a subscription on what it republishes.
async fn marked(js: &Context, name: &str) -> (Store, Subscriber) {
    let republish = Republish { source: format!("$KV.{name}.>"), destination: "seen.>".into(), headers_only: true };
    let config = kv::Config {
        bucket: name.into(),
        history: 5,
        limit_markers: Some(Duration::from_secs(1)),
        republish: Some(republish),
        ..Default::default()
    };
    let store = js.create_key_value(config).await.unwrap();
    let seen = js.client().subscribe("seen.>").await.unwrap();
    js.client().flush().await.unwrap();
    (store, seen)
}

/// The headers the stream stored with the next message it republished,
/// without the ones republishing adds; and the message's sequence.
async fn next_stored(seen: &mut Subscriber) -> (u64, Vec<(String, String)>) {
    let message = timeout(WAIT, seen.next()).await.expect("a republished message in time").unwrap();
    let headers = message.headers.unwrap();
    let sequence = headers.get("Nats-Sequence").unwrap().parse().unwrap();
    let added =
        ["Nats-Stream", "Nats-Subject", "Nats-Sequence", "Nats-Time-Stamp", "Nats-Last-Sequence", "Nats-Msg-Size"];
    let mut pairs: Vec<(String, String)> =
        headers.iter().filter(|(n, _)| !added.contains(n)).map(|(n, v)| (n.into(), v.into())).collect();
    pairs.sort();
    (sequence, pairs)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
}

#[tokio::test]
async fn a_key_created_with_a_ttl_expires_into_a_marker_a_watch_sees() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let (store, mut seen) = marked(&js, "t").await;
    let mut watch = store.watch_all().await.unwrap();
    let revision = store.create_with_ttl("k", b("v"), Duration::from_secs(1)).await.unwrap();
    assert_eq!(
        next_stored(&mut seen).await,
        (revision, pairs(&[("Nats-Expected-Last-Subject-Sequence", "0"), ("Nats-TTL", "1")]))
    );
    let put = next(&mut watch).await;
    assert_eq!((put.key.as_str(), put.revision, put.operation), ("k", revision, Operation::Put));

    // The server removes the value and writes a marker that lives as long
    // as the bucket's limit_markers; it reads as a purge.
    let marker = next(&mut watch).await;
    assert_eq!((marker.key.as_str(), marker.revision, marker.operation), ("k", revision + 1, Operation::Purge));
    assert!(marker.value.is_empty());
    let (sequence, headers) = next_stored(&mut seen).await;
    assert_eq!(sequence, marker.revision);
    assert_eq!(headers, pairs(&[("Nats-Marker-Reason", "MaxAge"), ("Nats-Rollup", "sub"), ("Nats-TTL", "1s")]));
    assert_eq!(store.get("k").await.unwrap(), None);
    // Over the marker, or over nothing once it has gone too.
    let again = store.create("k", b("again")).await.unwrap();
    assert_eq!(store.get("k").await.unwrap(), Some(b("again")));
    assert!(again > marker.revision);
}

#[tokio::test]
async fn a_purge_with_a_ttl_leaves_a_marker_that_expires() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let (store, mut seen) = marked(&js, "p").await;
    let first = store.put("k", b("1")).await.unwrap();
    let second = store.put("k", b("2")).await.unwrap();
    assert_eq!(next_stored(&mut seen).await.0, first);
    assert_eq!(next_stored(&mut seen).await.0, second);

    store.purge_with_ttl("k", Duration::from_secs(1)).await.unwrap();
    let expected = pairs(&[("KV-Operation", "PURGE"), ("Nats-Rollup", "sub"), ("Nats-TTL", "1")]);
    assert_eq!(next_stored(&mut seen).await, (second + 1, expected));
    store.put("o", b("1")).await.unwrap();
    next_stored(&mut seen).await;
    store.purge_expect_revision_with_ttl("o", second + 2, Duration::from_secs(1)).await.unwrap();
    let expected = pairs(&[
        ("KV-Operation", "PURGE"),
        ("Nats-Expected-Last-Subject-Sequence", &(second + 2).to_string()),
        ("Nats-Rollup", "sub"),
        ("Nats-TTL", "1"),
    ]);
    assert_eq!(next_stored(&mut seen).await, (second + 3, expected));

    // The server writes no marker for an expired marker: the key just has
    // nothing any more. No event says so; ask until it is so.
    let gone = timeout(WAIT, async {
        while store.entry("k").await.unwrap().is_some() || store.entry("o").await.unwrap().is_some() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    gone.await.expect("the purge markers expire");
    assert_eq!(store.status().await.unwrap().values(), 0);
}

#[tokio::test]
async fn a_create_with_a_ttl_over_a_deleted_key_keeps_its_ttl() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let (store, mut seen) = marked(&js, "d").await;
    store.put("k", b("1")).await.unwrap();
    store.delete("k").await.unwrap();
    next_stored(&mut seen).await;
    let (deleted, _) = next_stored(&mut seen).await;
    let revision = store.create_with_ttl("k", b("2"), Duration::from_secs(60)).await.unwrap();
    // async-nats 0.51 retries this write without the TTL, so its value never expires.
    let expected = pairs(&[("Nats-Expected-Last-Subject-Sequence", &deleted.to_string()), ("Nats-TTL", "60")]);
    assert_eq!(next_stored(&mut seen).await, (revision, expected));
}

#[tokio::test]
async fn a_bucket_with_history_raises_a_ttl_below_the_marker_ttl() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    // A fact of nats-server 2.15 worth knowing, the same for every client:
    // in a bucket that keeps more than one value per key, a TTL below the
    // marker TTL is raised to it (with history 1 it is kept).
    for (history, stored) in [(5, "30"), (1, "1")] {
        let bucket = format!("h{history}");
        let markers = Some(Duration::from_secs(30));
        let config = kv::Config { bucket: bucket.clone(), history, limit_markers: markers, ..Default::default() };
        let store = js.create_key_value(config).await.unwrap();
        let revision = store.create_with_ttl("k", b("v"), Duration::from_secs(1)).await.unwrap();
        let message = js.get_stream(&store.stream_name).await.unwrap().get_raw_message(revision).await.unwrap();
        assert_eq!(message.headers.get("Nats-TTL").map(|v| v.as_str()), Some(stored), "history {history}");
    }
}

#[tokio::test]
async fn ttls_are_refused_by_a_bucket_without_limit_markers() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "n", 1).await;
    let e = store.create_with_ttl("k", b("v"), Duration::from_secs(5)).await.unwrap_err();
    assert_eq!(e.kind(), CreateErrorKind::Ack);
    assert!(matches!(e.cause(), Error::JetStream(j) if j.err_code == ErrorCode::MESSAGE_TTL_DISABLED), "{e}");
    let e = store.purge_with_ttl("k", Duration::from_secs(5)).await.unwrap_err();
    assert!(matches!(e.cause(), Error::JetStream(j) if j.err_code == ErrorCode::MESSAGE_TTL_DISABLED), "{e}");
    assert_eq!(store.status().await.unwrap().values(), 0);
}

#[tokio::test]
async fn purge_deletes_clears_the_history_of_deleted_and_purged_keys() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "pd", 10).await;
    for key in ["live", "deleted", "purged"] {
        store.put(key, b("1")).await.unwrap();
        store.put(key, b("2")).await.unwrap();
    }
    store.delete("deleted").await.unwrap();
    store.purge("purged").await.unwrap();
    assert_eq!(store.status().await.unwrap().values(), 2 + 3 + 1);

    // Markers younger than an hour stay, alone.
    assert_eq!(store.purge_deletes(Duration::from_secs(3600)).await.unwrap(), 2);
    assert_eq!(store.status().await.unwrap().values(), 2 + 1 + 1);
    assert_eq!(store.entry("deleted").await.unwrap().unwrap().operation, Operation::Delete);
    // Older than nothing: the markers go too.
    assert_eq!(store.purge_deletes(Duration::ZERO).await.unwrap(), 2);
    assert_eq!(store.status().await.unwrap().values(), 2);
    assert_eq!((store.entry("deleted").await.unwrap(), store.entry("purged").await.unwrap()), (None, None));
    assert_eq!(store.get("live").await.unwrap(), Some(b("2")));
    assert_eq!(store.purge_deletes(Duration::ZERO).await.unwrap(), 0, "nothing left to clear");
}
