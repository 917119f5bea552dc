//! Key-Value watches that outlive the connection and the server: a watch
//! nobody polls while the server restarts, a reconnect, and a 3-node
//! cluster whose R3 bucket changes stream leader while writes go on. The
//! watch yields every revision after the last one it delivered, once and
//! in order (async-nats lost such watches: nats.rs#1596).
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod kv_common;

use std::time::Duration;

use common::{NatsCluster, NatsServer};
use kv_common::{WAIT, b, next};
use natsjet::jetstream::api::{Placement, StorageType, StreamInfo};
use natsjet::jetstream::kv::{self, Store, Watch};
use natsjet::jetstream::{self, Context};
use tokio::time::timeout;

async fn file_bucket(js: &Context, name: &str) -> Store {
    let config = kv::Config { bucket: name.into(), history: 5, storage: StorageType::File, ..Default::default() };
    js.create_key_value(config).await.unwrap()
}

/// Revisions of the next `n` entries.
async fn revisions(watch: &mut Watch, n: usize) -> Vec<u64> {
    let mut got = Vec::with_capacity(n);
    while got.len() < n {
        got.push(next(watch).await.revision);
    }
    got
}

/// A file bucket with a watch of every key that has read the first three
/// of five puts.
async fn watching_five_puts(client: &natsjet::Client, bucket: &str) -> (Context, Store, Watch) {
    let js = jetstream::new(client.clone());
    let store = file_bucket(&js, bucket).await;
    let mut watch = store.watch_all().await.unwrap();
    for i in 0..5 {
        store.put(format!("k.{i}"), b("before")).await.unwrap();
    }
    assert_eq!(revisions(&mut watch, 3).await, [1, 2, 3]);
    (js, store, watch)
}

#[tokio::test]
async fn a_watch_not_polled_through_a_server_restart_resumes_after_its_last_entry() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let (js, store, mut watch) = watching_five_puts(&client, "r").await;
    // Two of the five stay unread in the watch when the server goes.

    common::restart_jetstream(&mut server, &js).await;
    for i in 5..10 {
        store.put(format!("k.{i}"), b("after")).await.unwrap();
    }
    assert_eq!(revisions(&mut watch, 7).await, (4..=10).collect::<Vec<_>>(), "none skipped, none repeated");
    store.put("k.last", b("x")).await.unwrap();
    assert_eq!(revisions(&mut watch, 1).await, [11], "nothing else was waiting");
    assert_eq!(client.statistics().reconnects, 1);
}

#[tokio::test]
async fn a_watch_with_history_not_polled_through_a_restart_keeps_its_place_in_the_initial_values() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = jetstream::new(client.clone());
    let store = file_bucket(&js, "h").await;
    for i in 0..6 {
        store.put(format!("k.{i}"), b("v")).await.unwrap();
    }
    let mut watch = store.watch_with_history(">").await.unwrap();
    let first = next(&mut watch).await;
    assert_eq!((first.revision, first.seen_current), (1, false));

    common::restart_jetstream(&mut server, &js).await;
    store.put("k.0", b("changed")).await.unwrap();
    let mut rest = Vec::new();
    while rest.last().is_none_or(|&(revision, _)| revision < 7) {
        let entry = next(&mut watch).await;
        rest.push((entry.revision, entry.seen_current));
    }
    let revisions: Vec<u64> = rest.iter().map(|(r, _)| *r).collect();
    assert_eq!(revisions, [2, 3, 4, 5, 6, 7]);
    assert!(rest.last().unwrap().1 && watch.seen_current(), "caught up by the end: {rest:?}");
}

#[tokio::test]
async fn a_watch_keeps_going_through_a_reconnect() {
    let server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = jetstream::new(client.clone());
    let store = file_bucket(&js, "c").await;
    let mut watch = store.watch_all().await.unwrap();
    store.put("a", b("1")).await.unwrap();
    store.put("b", b("1")).await.unwrap();
    assert_eq!(revisions(&mut watch, 1).await, [1]);
    client.force_reconnect().await.unwrap();
    let back = timeout(WAIT, async {
        while client.connection_state() != natsjet::State::Connected {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    back.await.expect("connected again");
    store.put("c", b("1")).await.unwrap();
    assert_eq!(revisions(&mut watch, 2).await, [2, 3]);
}

/// The stream's info, once a leader answers.
async fn stream_info(js: &Context, stream: &str) -> StreamInfo {
    loop {
        match js.get_stream(stream).await {
            Ok(stream) => return stream.cached_info().clone(),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

fn leader(info: &StreamInfo) -> Option<String> {
    info.cluster.as_ref().and_then(|c| c.leader.clone())
}

/// Puts `count` keys of its own, retrying through a leader change under
/// a new key each time (a put that timed out may still have been stored),
/// and steps the stream leader down at each of `stepdowns`; the leader
/// before each step-down, and the stream's info at the end.
async fn write_through_stepdowns(
    js: Context,
    store: Store,
    count: usize,
    stepdowns: &[usize],
) -> (Vec<Option<String>>, StreamInfo) {
    let stepdown = format!("$JS.API.STREAM.LEADER.STEPDOWN.{}", store.stream_name);
    let mut leaders = Vec::new();
    for i in 0..count {
        if stepdowns.contains(&i) {
            leaders.push(leader(&stream_info(&js, &store.stream_name).await));
            let reply = js.client().request(stepdown.as_str(), "".into()).await.unwrap();
            assert!(String::from_utf8_lossy(&reply.payload).contains("success"), "{:?}", reply.payload);
        }
        let mut attempt = 0;
        while let Err(e) = store.put(format!("k.{i}.{attempt}"), b("v")).await {
            attempt += 1;
            assert!(attempt < 20, "put {i} kept failing: {e}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    (leaders, stream_info(&js, &store.stream_name).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_of_an_r3_bucket_sees_every_revision_once_through_leader_changes() {
    let cluster = NatsCluster::start(3);
    let client = natsjet::connect(cluster.client_urls().join(",")).await.unwrap();
    let js = jetstream::new(client.clone());
    let placement = Placement { cluster: Some("natsjet-test".into()), ..Default::default() };
    let config = kv::Config {
        bucket: "r3".into(),
        history: 5,
        num_replicas: 3,
        placement: Some(placement),
        ..Default::default()
    };
    let store = js.create_key_value(config).await.unwrap();
    let placed = stream_info(&js, "KV_r3").await;
    assert_eq!(placed.config.placement.and_then(|p| p.cluster).as_deref(), Some("natsjet-test"));
    assert_eq!(
        (placed.config.num_replicas, placed.cluster.unwrap().replicas.len()),
        (3, 2),
        "a leader and two replicas"
    );
    let mut watch = store.watch_all().await.unwrap();

    let mut writer = tokio::spawn(write_through_stepdowns(js.clone(), store.clone(), 150, &[50, 100]));
    let mut seen = Vec::new();
    let (mut leaders, info) = loop {
        tokio::select! {
            done = &mut writer => break done.unwrap(),
            entry = next(&mut watch) => seen.push(entry.revision),
        }
    };
    leaders.push(leader(&info));
    while seen.last() < Some(&info.state.last_sequence) {
        seen.push(next(&mut watch).await.revision);
    }
    assert!(leaders.windows(2).all(|w| w[0] != w[1] && w[1].is_some()), "each step-down moved the leader: {leaders:?}");
    assert_eq!(seen, (1..=info.state.last_sequence).collect::<Vec<_>>(), "every revision once, in order");
    assert!(info.state.last_sequence >= 150);
}

#[tokio::test]
async fn a_watch_not_polled_through_a_server_restart_is_served_by_a_new_consumer_before_it_is_read() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let (js, store, mut watch) = watching_five_puts(&client, "u").await;

    // The memory consumer went with the server. Nobody polls the watch:
    // the server learns of a new consumer, which sends it what came after.
    common::restart_jetstream(&mut server, &js).await;
    for i in 5..10 {
        store.put(format!("k.{i}"), b("after")).await.unwrap();
    }
    let stream = js.get_stream("KV_u").await.unwrap();
    let served = timeout(WAIT, async {
        loop {
            let consumers: Vec<_> = futures_util::TryStreamExt::try_collect(stream.consumers()).await.unwrap();
            if consumers.iter().any(|c: &natsjet::jetstream::api::ConsumerInfo| c.delivered.stream_sequence == 10) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    served.await.expect("a new consumer sent every entry while the watch was not polled");
    assert_eq!(revisions(&mut watch, 7).await, (4..=10).collect::<Vec<_>>(), "none skipped, none repeated");
}
