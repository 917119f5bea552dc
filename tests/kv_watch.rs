//! Key-Value watches against a real server: every kind (updates only, last
//! values, all history, from a revision; one key, many, all) and every
//! option of `watch_with`, each entry once and in revision order, and the
//! caught-up signal — on the last initial entry, and at once when there
//! was nothing to catch up on (an empty bucket, a key set with no match).
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod kv_common;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use kv_common::{Tap, WAIT, b, bucket, js, next, summary};
use natsjet::jetstream::kv::{Entry, Operation, Store, Watch, WatchErrorKind, WatchInclude, WatchOptions};
use tokio::time::timeout;

/// The next `n` entries of a watch.
async fn take(watch: &mut Watch, n: usize) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(n);
    while entries.len() < n {
        entries.push(next(watch).await);
    }
    entries
}

fn op(key: &str, revision: u64, operation: Operation) -> (String, u64, Operation) {
    (key.to_string(), revision, operation)
}

/// a=1 (1), b=1 (2), a=2 (3), c=1 (4), delete b (5), x.y=1 (6), purge c (7).
async fn fill(store: &Store) {
    store.put("a", b("1")).await.unwrap();
    store.put("b", b("1")).await.unwrap();
    store.put("a", b("2")).await.unwrap();
    store.put("c", b("1")).await.unwrap();
    store.delete("b").await.unwrap();
    store.put("x.y", b("1")).await.unwrap();
    store.purge("c").await.unwrap();
}

#[tokio::test]
async fn watch_delivers_the_changes_of_one_key_from_now_on() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    fill(&store).await;
    let mut watch = store.watch("a").await.unwrap();
    assert!(watch.seen_current(), "nothing to catch up on");
    store.put("b", b("not watched")).await.unwrap();
    store.put("a", b("3")).await.unwrap();
    store.delete("a").await.unwrap();
    let entries = take(&mut watch, 2).await;
    assert_eq!(summary(&entries), [op("a", 9, Operation::Put), op("a", 10, Operation::Delete)]);
    let first = &entries[0];
    assert_eq!((first.bucket.as_str(), first.value.clone(), first.seen_current), ("w", b("3"), true));
    assert_eq!((entries[1].value.clone(), entries[1].delta), (Bytes::new(), 0));
}

#[tokio::test]
async fn watch_many_and_watch_all_deliver_the_changes_of_their_keys() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    fill(&store).await;
    let mut many = store.watch_many(["a", "x.*"]).await.unwrap();
    let mut every = store.watch_all().await.unwrap();
    assert!(many.seen_current() && every.seen_current());
    for key in ["b", "x.z", "a", "x.y.deeper"] {
        store.put(key, b("new")).await.unwrap();
    }
    assert_eq!(summary(&take(&mut many, 2).await), [op("x.z", 9, Operation::Put), op("a", 10, Operation::Put)]);
    let all = take(&mut every, 4).await;
    assert_eq!(all.iter().map(|e| e.revision).collect::<Vec<_>>(), [8, 9, 10, 11]);
    store.put("x.w", b("last")).await.unwrap();
    assert_eq!(next(&mut many).await.key, "x.w", "x.y.deeper was not watched");
}

#[tokio::test]
async fn watch_with_history_starts_with_the_last_entry_of_each_key() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    fill(&store).await;
    let mut watch = store.watch_with_history(">").await.unwrap();
    assert!(!watch.seen_current());
    let initial = take(&mut watch, 4).await;
    assert_eq!(
        summary(&initial),
        [
            op("a", 3, Operation::Put),
            op("b", 5, Operation::Delete),
            op("x.y", 6, Operation::Put),
            op("c", 7, Operation::Purge)
        ]
    );
    assert_eq!(initial.iter().map(|e| e.seen_current).collect::<Vec<_>>(), [false, false, false, true]);
    assert_eq!(initial.iter().map(|e| e.delta).collect::<Vec<_>>(), [3, 2, 1, 0]);
    assert_eq!(initial[0].value, b("2"));
    assert!(watch.seen_current());
    store.put("b", b("back")).await.unwrap();
    let update = next(&mut watch).await;
    assert_eq!((update.key.as_str(), update.revision, update.seen_current), ("b", 8, true));

    let mut many = store.watch_many_with_history(["a", "c"]).await.unwrap();
    let initial = take(&mut many, 2).await;
    assert_eq!(summary(&initial), [op("a", 3, Operation::Put), op("c", 7, Operation::Purge)]);
    assert!(initial[1].seen_current && !initial[0].seen_current);
}

#[tokio::test]
async fn watches_from_a_revision_replay_every_entry_since() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    fill(&store).await;
    let mut one = store.watch_from_revision("a", 2).await.unwrap();
    assert_eq!(summary(&take(&mut one, 1).await), [op("a", 3, Operation::Put)]);
    assert!(one.seen_current());
    let mut all = store.watch_all_from_revision(4).await.unwrap();
    // Revision 4 went with the purge of c.
    let replayed = take(&mut all, 3).await;
    assert_eq!(
        summary(&replayed),
        [op("b", 5, Operation::Delete), op("x.y", 6, Operation::Put), op("c", 7, Operation::Purge)]
    );
    assert_eq!(replayed.iter().map(|e| e.seen_current).collect::<Vec<_>>(), [false, false, true]);
    store.put("a", b("3")).await.unwrap();
    assert_eq!(next(&mut one).await.revision, 8);
    assert_eq!(next(&mut all).await.revision, 8);
}

#[tokio::test]
async fn watch_with_includes_all_history_last_values_or_updates_only() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    fill(&store).await;
    let with = |include| WatchOptions { include, ..WatchOptions::default() };

    let mut history = store.watch_with(["a", "b"], with(WatchInclude::AllHistory)).await.unwrap();
    let initial = take(&mut history, 4).await;
    assert_eq!(
        summary(&initial),
        [
            op("a", 1, Operation::Put),
            op("b", 2, Operation::Put),
            op("a", 3, Operation::Put),
            op("b", 5, Operation::Delete)
        ]
    );
    assert_eq!(initial.iter().map(|e| e.seen_current).collect::<Vec<_>>(), [false, false, false, true]);

    let mut last = store.watch_with(["a", "b"], with(WatchInclude::LastValue)).await.unwrap();
    assert_eq!(summary(&take(&mut last, 2).await), [op("a", 3, Operation::Put), op("b", 5, Operation::Delete)]);

    let mut updates = store.watch_with(["a", "b"], with(WatchInclude::UpdatesOnly)).await.unwrap();
    assert!(updates.seen_current());
    store.put("b", b("2")).await.unwrap();
    for watch in [&mut history, &mut last, &mut updates] {
        assert_eq!(summary(&take(watch, 1).await), [op("b", 8, Operation::Put)]);
    }
}

#[tokio::test]
async fn watch_with_can_leave_out_deletes_and_values_and_resume_from_a_revision() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    fill(&store).await;

    let options = WatchOptions { include: WatchInclude::AllHistory, ignore_deletes: true, ..WatchOptions::default() };
    let mut puts = store.watch_with([">"], options).await.unwrap();
    let initial = take(&mut puts, 4).await;
    assert_eq!(initial.iter().map(|e| e.revision).collect::<Vec<_>>(), [1, 2, 3, 6], "no delete, no purge");
    // The purge left out last (7) completed the initial entries: the last put says so.
    assert_eq!(initial.iter().map(|e| e.seen_current).collect::<Vec<_>>(), [false, false, false, true]);
    store.delete("a").await.unwrap();
    store.put("a", b("4")).await.unwrap();
    assert_eq!(summary(&take(&mut puts, 1).await), [op("a", 9, Operation::Put)]);

    let options = WatchOptions { meta_only: true, ..WatchOptions::default() };
    let mut meta = store.watch_with(["a", "x.y"], options).await.unwrap();
    let entries = take(&mut meta, 2).await;
    assert_eq!(summary(&entries), [op("x.y", 6, Operation::Put), op("a", 9, Operation::Put)]);
    assert!(entries.iter().all(|e| e.value.is_empty()), "headers only");

    // A revision to resume from wins over what to include.
    let options =
        WatchOptions { include: WatchInclude::UpdatesOnly, resume_from_revision: Some(7), ..WatchOptions::default() };
    let mut resumed = store.watch_with([">"], options).await.unwrap();
    assert!(!resumed.seen_current());
    let entries = take(&mut resumed, 3).await;
    assert_eq!(
        summary(&entries),
        [op("c", 7, Operation::Purge), op("a", 8, Operation::Delete), op("a", 9, Operation::Put)]
    );
    assert!(entries[2].seen_current && resumed.seen_current());
}

#[tokio::test]
async fn a_watch_of_an_empty_bucket_is_caught_up_at_once() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "empty", 5).await;
    let mut last = store.watch_with_history(">").await.unwrap();
    let options = WatchOptions { include: WatchInclude::AllHistory, ..WatchOptions::default() };
    let mut all = store.watch_with([">"], options).await.unwrap();
    let mut from = store.watch_all_from_revision(1).await.unwrap();
    for watch in [&last, &all, &from] {
        assert!(watch.seen_current(), "nothing to catch up on");
    }
    store.put("k", b("first")).await.unwrap();
    for watch in [&mut last, &mut all, &mut from] {
        let first = next(watch).await;
        assert_eq!((first.key.as_str(), first.revision, first.seen_current), ("k", 1, true));
    }
}

#[tokio::test]
async fn a_watch_of_keys_that_match_nothing_is_caught_up_at_once() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    fill(&store).await;
    let mut none = store.watch_many_with_history(["nothing", "nope.>"]).await.unwrap();
    assert!(none.seen_current());
    let past_the_end = store.watch_all_from_revision(100).await.unwrap();
    assert!(past_the_end.seen_current());
    store.put("nope.1", b("v")).await.unwrap();
    let first = next(&mut none).await;
    assert_eq!((first.key.as_str(), first.revision, first.seen_current), ("nope.1", 8, true));
}

#[tokio::test]
async fn a_stopped_watch_ends() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    let mut watch = store.watch_all().await.unwrap();
    store.put("a", b("1")).await.unwrap();
    assert_eq!(next(&mut watch).await.revision, 1);
    watch.stop();
    assert!(timeout(WAIT, watch.next()).await.unwrap().is_none());
}

#[tokio::test]
async fn bad_watch_keys_are_refused_before_a_byte_is_written() {
    let server = NatsServer::start_jetstream();
    let js = js(&server.client_url()).await;
    let store = bucket(&js, "w", 5).await;
    let mut tap = Tap::open(&server.client_url()).await;
    for key in ["", "a..b", ".a", "a.", "a.>.b", "a*", ">a", "a b", "a\r\nPUB x 1"] {
        let named = |text: String| assert!(text.contains(&format!("{key:?}")), "{key:?}: {text}");
        for e in [
            store.watch(key).await.err().unwrap(),
            store.watch_many(["a", key]).await.err().unwrap(),
            store.watch_with_history(key).await.err().unwrap(),
            store.watch_many_with_history([key]).await.err().unwrap(),
            store.watch_from_revision(key, 1).await.err().unwrap(),
            store.watch_with([key], WatchOptions::default()).await.err().unwrap(),
        ] {
            assert_eq!(e.kind(), WatchErrorKind::InvalidKey, "{key:?}");
            named(e.cause().to_string());
        }
    }
    let none: [&str; 0] = [];
    assert_eq!(store.watch_many(none).await.err().unwrap().kind(), WatchErrorKind::InvalidKey);
    tap.assert_silent(js.client(), "a watch of a bad key").await;
}
