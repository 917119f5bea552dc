//! Key-Value histories and key listings against a real server: every kept
//! revision oldest first then the end, headers only when asked, keys that
//! hold a value (filtered or not), the end at once when there is nothing,
//! and both streamed past the flow-control window without values
//! travelling for keys.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod kv_common;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use kv_common::{Tap, WAIT, all, b, bucket, js, next};
use natsjet::jetstream::kv::{Operation, WatchErrorKind};
use tokio::time::timeout;

#[tokio::test]
async fn history_yields_every_kept_revision_oldest_first_then_ends() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "h", 10).await;
    let r1 = store.put("a", b("1")).await.unwrap();
    store.put("b", b("x")).await.unwrap();
    let r3 = store.put("a", b("2")).await.unwrap();
    store.delete("a").await.unwrap();
    store.put("a.b", b("nested")).await.unwrap();

    let history = all(store.history("a").await.unwrap()).await;
    let got: Vec<(u64, Operation, Bytes, u64, bool)> =
        history.iter().map(|e| (e.revision, e.operation, e.value.clone(), e.delta, e.seen_current)).collect();
    assert_eq!(
        got,
        [
            (r1, Operation::Put, b("1"), 2, false),
            (r3, Operation::Put, b("2"), 1, false),
            (r3 + 1, Operation::Delete, Bytes::new(), 0, true),
        ]
    );
    assert!(history.iter().all(|e| e.key == "a" && e.bucket == "h"));
    let nested: Vec<String> = all(store.history("a.*").await.unwrap()).await.into_iter().map(|e| e.key).collect();
    assert_eq!(nested, ["a.b"], "wildcards work as in watches");
}

#[tokio::test]
async fn history_of_nothing_ends_at_once() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "h", 5).await;
    assert!(all(store.history("a").await.unwrap()).await.is_empty(), "empty bucket");
    store.put("b", b("x")).await.unwrap();
    assert!(all(store.history("a").await.unwrap()).await.is_empty(), "no such key");
    assert!(all(store.history_with(["x", "y.>"], false).await.unwrap()).await.is_empty());
}

#[tokio::test]
async fn history_with_meta_only_leaves_the_values_out() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "h", 5).await;
    store.put("a", b("1")).await.unwrap();
    store.put("b", b("2")).await.unwrap();
    store.put("c", b("3")).await.unwrap();
    store.purge("b").await.unwrap();

    let meta = all(store.history_with(["a", "b"], true).await.unwrap()).await;
    let got: Vec<(&str, Operation, bool)> =
        meta.iter().map(|e| (e.key.as_str(), e.operation, e.value.is_empty())).collect();
    assert_eq!(got, [("a", Operation::Put, true), ("b", Operation::Purge, true)]);
    let full = all(store.history_with(["a", "b"], false).await.unwrap()).await;
    assert_eq!(full[0].value, b("1"));
    assert_eq!(
        meta.iter().map(|e| e.revision).collect::<Vec<_>>(),
        full.iter().map(|e| e.revision).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn keys_lists_the_keys_that_hold_a_value() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "k", 5).await;
    assert!(all(store.keys().await.unwrap()).await.is_empty(), "an empty bucket lists nothing, then ends");
    for key in ["a.1", "a.2", "b.1", "c", "gone", "purged", "again"] {
        store.put(key, b("v")).await.unwrap();
    }
    store.put("a.1", b("w")).await.unwrap();
    store.delete("gone").await.unwrap();
    store.purge("purged").await.unwrap();
    store.delete("again").await.unwrap();
    store.create("again", b("back")).await.unwrap();

    let mut keys = all(store.keys().await.unwrap()).await;
    keys.sort();
    assert_eq!(keys, ["a.1", "a.2", "again", "b.1", "c"], "each once, deleted and purged ones left out");
    let mut filtered = all(store.keys_filtered(["a.*", "c", "gone"]).await.unwrap()).await;
    filtered.sort();
    assert_eq!(filtered, ["a.1", "a.2", "c"]);
    assert!(all(store.keys_filtered(["z.>"]).await.unwrap()).await.is_empty());
}

#[tokio::test]
async fn bad_filters_are_refused_before_a_byte_is_written() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "k", 5).await;
    let mut tap = Tap::open(&server.client_url()).await;
    for filter in ["", "a..b", ".a", "a.>.b", "a*", ">a", "a b", "a\r\nPUB x 1"] {
        let named = |text: String| assert!(text.contains(&format!("{filter:?}")), "{filter:?}: {text}");
        for e in [
            store.history(filter).await.err().unwrap(),
            store.history_with(["ok", filter], true).await.err().unwrap(),
            store.keys_filtered(["ok", filter]).await.err().unwrap(),
        ] {
            assert_eq!(e.kind(), WatchErrorKind::InvalidKey, "{filter:?}");
            named(e.cause().to_string());
        }
    }
    let none: [&str; 0] = [];
    assert_eq!(store.keys_filtered(none).await.err().unwrap().kind(), WatchErrorKind::InvalidKey);
    tap.assert_silent(js.client(), "a listing with a bad filter").await;
}

#[tokio::test]
async fn histories_and_keys_stream_past_the_flow_control_window() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "big", 2).await;
    // 6 MiB of values: three times what the server sends before its
    // flow-control request must be answered.
    let value = Bytes::from(vec![b'v'; 96 * 1024]);
    for i in 0..32 {
        store.put(format!("k.{i}"), value.clone()).await.unwrap();
        store.put(format!("k.{i}"), value.clone()).await.unwrap();
    }
    let reader = kv_common::js(&server.client_url()).await;
    let store = reader.get_key_value("big").await.unwrap();
    let history = all(store.history("k.*").await.unwrap()).await;
    assert_eq!(history.len(), 64);
    assert!(history.windows(2).all(|w| w[0].revision < w[1].revision));
    assert!(history.iter().all(|e| e.value == value));

    // Keys travel as headers only: far less than one value arrives.
    let before = reader.client().statistics().in_bytes;
    let keys = all(store.keys().await.unwrap()).await;
    assert_eq!(keys.len(), 32);
    let read = reader.client().statistics().in_bytes - before;
    assert!(read < value.len() as u64, "keys read {read} bytes");
}

#[tokio::test]
async fn a_history_read_slowly_holds_no_more_than_the_flow_control_window() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "big", 1).await;
    let value = Bytes::from(vec![b'v'; 96 * 1024]);
    for i in 0..64 {
        store.put(format!("k.{i}"), value.clone()).await.unwrap();
    }
    let total = 64 * value.len() as u64;
    let reader = kv_common::js(&server.client_url()).await;
    let store = reader.get_key_value("big").await.unwrap();
    let mut history = store.history(">").await.unwrap();
    assert_eq!(next(&mut history).await.revision, 1);

    // Listen to what the server pushes to the history's consumer, until it
    // says that it waits for a flow-control reply: the reader is behind.
    let consumers = all(js.get_stream("KV_big").await.unwrap().consumers()).await;
    let deliver = consumers[0].config.deliver_subject.clone().unwrap();
    let spy = natsjet::connect(server.client_url()).await.unwrap();
    let mut pushed = spy.subscribe(deliver).await.unwrap();
    spy.flush().await.unwrap();
    let stalled = timeout(WAIT, async {
        while let Some(message) = pushed.next().await {
            if message.headers.as_ref().is_some_and(|h| h.get("Nats-Consumer-Stalled").is_some()) {
                return;
            }
        }
    });
    stalled.await.expect("the server stalls while the reader does not read");
    let held = reader.client().statistics().in_bytes;
    assert!(held < total / 2, "{held} of {total} bytes arrived for a reader that took one value");

    let mut revisions = vec![1];
    while let Some(entry) = timeout(WAIT, history.next()).await.unwrap() {
        revisions.push(entry.unwrap().revision);
    }
    assert_eq!(revisions, (1..=64).collect::<Vec<u64>>(), "reading on, the rest comes");
}
