//! The Key-Value store against a real server: every call and option, CAS
//! conflicts, create over deletes and purges, history limits, TTLs and
//! markers, watches that catch up (also over nothing) and survive restarts.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::jetstream::kv::{self, CreateErrorKind, Operation, UpdateErrorKind};
use natsjet::jetstream::{self, Context};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(20);

async fn js(server: &NatsServer) -> Context {
    jetstream::new(natsjet::connect(server.client_url()).await.unwrap())
}

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

#[tokio::test]
async fn put_get_update_delete_purge() {
    let server = NatsServer::start_jetstream();
    let js = js(&server).await;
    let kv = js.create_key_value(kv::Config { bucket: "b".into(), history: 3, ..Default::default() }).await.unwrap();
    let r1 = kv.put("a.b", b("1")).await.unwrap();
    assert_eq!(kv.get("a.b").await.unwrap(), Some(b("1")));
    let r2 = kv.update("a.b", b("2"), r1).await.unwrap();
    assert!(r2 > r1);
    let stale = kv.update("a.b", b("3"), r1).await.unwrap_err();
    assert_eq!(stale.kind(), UpdateErrorKind::WrongLastRevision);
    let exists = kv.create("a.b", b("x")).await.unwrap_err();
    assert_eq!(exists.kind(), CreateErrorKind::AlreadyExists);
    kv.delete("a.b").await.unwrap();
    assert_eq!(kv.get("a.b").await.unwrap(), None);
    let marker = kv.entry("a.b").await.unwrap().unwrap();
    assert_eq!(marker.operation, Operation::Delete);
    let r4 = kv.create("a.b", b("again")).await.unwrap();
    assert!(r4 > marker.revision);
    let mut history = kv.history("a.b").await.unwrap();
    let mut ops = Vec::new();
    while let Some(e) = timeout(WAIT, history.next()).await.unwrap() {
        let e = e.unwrap();
        ops.push((e.operation, String::from_utf8(e.value.to_vec()).unwrap()));
    }
    assert_eq!(ops, [(Operation::Put, "2".into()), (Operation::Delete, "".into()), (Operation::Put, "again".into())]);
    kv.purge("a.b").await.unwrap();
    assert_eq!(kv.entry("a.b").await.unwrap().unwrap().operation, Operation::Purge);
    let mut keys = kv.keys().await.unwrap();
    assert!(timeout(WAIT, keys.next()).await.unwrap().is_none());

    let mut watch = kv.watch_with_history(">").await.unwrap();
    kv.put("x", b("y")).await.unwrap();
    let first = timeout(WAIT, watch.next()).await.unwrap().unwrap().unwrap();
    assert_eq!((first.key.as_str(), first.operation, first.seen_current), ("a.b", Operation::Purge, true));
    let next = timeout(WAIT, watch.next()).await.unwrap().unwrap().unwrap();
    assert_eq!((next.key.as_str(), next.value.clone()), ("x", b("y")));
}
