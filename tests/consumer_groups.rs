//! Partitioned consumer groups against a real nats-server (2.11+ for
//! pinning): the server's partition hash is ours, elastic members keep
//! per-key order while members come and go, a static member's standby
//! takes over within the pinned TTL, a stream leader change on a cluster
//! keeps order and loses nothing, and the admin calls.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{NatsCluster, NatsServer};
use futures_util::StreamExt;
use natsjet::jetstream::api::{StreamConfig, SubjectTransform};
use natsjet::jetstream::consumer::pull;
use natsjet::jetstream::groups::{self, ElasticConfig, Kind, PartitioningFilter, StaticConfig};
use natsjet::jetstream::{self, Context};
use tokio::task::JoinHandle;
use tokio::time::{sleep, timeout};

const WAIT: Duration = Duration::from_secs(60);

async fn context(server: &NatsServer) -> Context {
    jetstream::new(natsjet::connect(server.client_url()).await.unwrap())
}

fn by_key(max_members: u32) -> ElasticConfig {
    ElasticConfig {
        max_members,
        partitioning_filters: Some(vec![PartitioningFilter {
            filter: "orders.*".into(),
            partitioning_wildcards: Some(vec![1]),
        }]),
        ..ElasticConfig::default()
    }
}

async fn orders_stream(js: &Context) {
    js.create_stream(StreamConfig { name: "ORDERS".into(), subjects: vec!["orders.*".into()], ..Default::default() })
        .await
        .unwrap();
}

#[tokio::test]
async fn the_servers_partitions_are_ours() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    orders_stream(&js).await;
    let config = groups::create_elastic(&js, "ORDERS", "cg", by_key(8)).await.unwrap();
    for k in 0..200 {
        js.publish(format!("orders.key{k}"), "x".into()).await.unwrap().await.unwrap();
    }
    let mut group_stream = js.get_stream("ORDERS-cg").await.unwrap();
    let deadline = Instant::now() + WAIT;
    while group_stream.info().await.unwrap().state.messages < 200 {
        assert!(Instant::now() < deadline, "the group's stream sources all");
        sleep(Duration::from_millis(50)).await;
    }
    for seq in 1..=200 {
        let m = group_stream.direct_get(seq).await.unwrap();
        let subject = m.subject.to_string();
        let (partition, original) = subject.split_once('.').unwrap();
        assert_eq!(Some(partition.parse().unwrap()), config.partition_of(original), "{subject}");
    }
    // The document is the Go library's, and a second create with the same shape keeps it.
    let again = groups::create_elastic(&js, "ORDERS", "cg", by_key(8)).await.unwrap();
    assert_eq!(again, config);
    assert!(groups::create_elastic(&js, "ORDERS", "cg", by_key(4)).await.is_err());
    assert_eq!(groups::list(&js, Kind::Elastic, "ORDERS").await.unwrap(), ["cg"]);
    // No filters: the whole stream, `{{Partition(N)}}.>` as Go writes it.
    let whole = ElasticConfig { max_members: 3, ..ElasticConfig::default() };
    let whole = groups::create_elastic(&js, "ORDERS", "all", whole).await.unwrap();
    let mut all_stream = js.get_stream("ORDERS-all").await.unwrap();
    while all_stream.info().await.unwrap().state.messages < 200 {
        sleep(Duration::from_millis(50)).await;
    }
    for seq in 1..=200 {
        let subject = all_stream.direct_get(seq).await.unwrap().subject.to_string();
        let (partition, original) = subject.split_once('.').unwrap();
        assert_eq!(Some(partition.parse().unwrap()), whole.partition_of(original), "{subject}");
    }
}

/// What the instances processed: (key, index) in processing order per key, and who processed it.
#[derive(Default)]
struct Seen {
    per_key: BTreeMap<String, Vec<u64>>,
    by_instance: BTreeMap<String, u64>,
    last_at: BTreeMap<String, Instant>,
}

type Shared = Arc<Mutex<Seen>>;

/// An instance of `member` on its own connection: acks each message after
/// recording it, `work` after receiving it; `max_ack_pending` in flight.
#[allow(clippy::too_many_arguments)]
async fn instance(
    js: Context,
    kind: Kind,
    stream: &str,
    member: &str,
    tag: &str,
    seen: Shared,
    work: Duration,
    max_ack_pending: i64,
) -> JoinHandle<()> {
    let template = pull::Config { ack_wait: Duration::from_secs(2), max_ack_pending, ..Default::default() };
    let mut joined = groups::join(&js, kind, stream, "cg", member, template).await.unwrap();
    let tag = tag.to_string();
    tokio::spawn(async move {
        let _js = js;
        while let Some(message) = joined.next().await {
            let Ok(message) = message else { continue };
            assert!(message.subject.starts_with("orders."), "partition token stripped: {}", message.subject);
            let text = String::from_utf8(message.payload.to_vec()).unwrap();
            let (key, index) = text.split_once(':').unwrap();
            if !work.is_zero() {
                sleep(work).await;
            }
            {
                let mut seen = seen.lock().unwrap();
                seen.per_key.entry(key.to_string()).or_default().push(index.parse().unwrap());
                *seen.by_instance.entry(tag.clone()).or_default() += 1;
                seen.last_at.insert(tag.clone(), Instant::now());
            }
            let _ = message.ack().await;
        }
    })
}

async fn publish_keys(js: &Context, keys: usize, range: std::ops::Range<u64>) {
    for i in range {
        for k in 0..keys {
            js.publish(format!("orders.k{k}"), format!("k{k}:{i}").into()).await.unwrap().await.unwrap();
        }
    }
}

/// Every key's indexes 0..per_key seen, none skipped ahead (a redelivery
/// may repeat an index already processed); returns the redeliveries.
fn check_order(seen: &Shared, keys: usize, per_key: u64) -> u64 {
    let seen = seen.lock().unwrap();
    assert_eq!(seen.per_key.len(), keys, "every key processed");
    let mut redelivered = 0;
    for (key, indexes) in &seen.per_key {
        let mut next = 0;
        for &i in indexes {
            assert!(i <= next, "{key}: {i} processed before {next}: {indexes:?}");
            if i == next {
                next += 1;
            } else {
                redelivered += 1;
            }
        }
        assert_eq!(next, per_key, "{key}: all processed");
    }
    redelivered
}

/// Messages processed at least once (a redelivery counts once).
fn processed(seen: &Shared) -> u64 {
    seen.lock().unwrap().per_key.values().map(|v| v.iter().max().map_or(0, |m| m + 1)).sum()
}

async fn wait_for(seen: &Shared, total: usize) {
    let deadline = Instant::now() + WAIT;
    loop {
        let done = processed(seen);
        if done as usize >= total {
            return;
        }
        assert!(Instant::now() < deadline, "processed {done} of {total}");
        sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn elastic_members_keep_each_keys_order_while_members_change() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    orders_stream(&js).await;
    groups::create_elastic(&js, "ORDERS", "cg", by_key(6)).await.unwrap();
    let seen = Shared::default();
    let mut tasks = Vec::new();
    let work = Duration::from_millis(3);
    for m in ["m1", "m2", "m3", "m4"] {
        tasks.push(instance(context(&server).await, Kind::Elastic, "ORDERS", m, m, seen.clone(), work, 1).await);
    }
    let members = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    groups::add_members(&js, "ORDERS", "cg", &members(&["m1", "m2"])).await.unwrap();
    // All published first: the members change while the partitions are being consumed.
    publish_keys(&js, 20, 0..30).await;
    wait_for(&seen, 150).await;
    groups::add_members(&js, "ORDERS", "cg", &members(&["m3", "m4"])).await.unwrap();
    // How soon the new members take over is the server's and the watch's
    // timing: if the backlog drains before both have had a message, a
    // round more per key until they have (the order check counts rounds).
    let mut rounds = 30;
    let deadline = Instant::now() + WAIT;
    while !["m3", "m4"].iter().all(|m| seen.lock().unwrap().by_instance.contains_key(*m)) {
        assert!(Instant::now() < deadline, "m3 and m4 got partitions: {:?}", seen.lock().unwrap().by_instance);
        if processed(&seen) >= rounds * 20 {
            publish_keys(&js, 20, rounds..rounds + 1).await;
            rounds += 1;
        }
        sleep(Duration::from_millis(20)).await;
    }
    groups::drop_members(&js, "ORDERS", "cg", &members(&["m1", "m3"])).await.unwrap();
    publish_keys(&js, 20, rounds..rounds + 10).await;
    rounds += 10;
    wait_for(&seen, rounds as usize * 20).await;
    assert_eq!(seen.lock().unwrap().by_instance.len(), 4, "every member had partitions for a while");
    let redelivered = check_order(&seen, 20, rounds);
    let states = groups::members(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    assert_eq!(states.iter().map(|s| s.member.as_str()).collect::<Vec<_>>(), ["m2", "m4"]);
    let processed = rounds * 20;
    println!(
        "elastic: {processed} processed, {redelivered} redelivered, by instance {:?}",
        seen.lock().unwrap().by_instance
    );
    // Deleting the group ends its members.
    groups::delete(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    for task in tasks {
        timeout(WAIT, task).await.unwrap().unwrap();
    }
    assert!(groups::list(&js, Kind::Elastic, "ORDERS").await.unwrap().is_empty());
}

/// Handed out, in flight, done: per key, and how many partitions each instance worked on at once.
#[derive(Default)]
struct Pipelined {
    handed: BTreeMap<String, Vec<u64>>,
    in_flight: BTreeMap<String, BTreeMap<String, u32>>,
    most_at_once: BTreeMap<String, usize>,
    naks: u64,
}

#[tokio::test]
async fn a_member_works_on_several_partitions_at_once_in_order_per_key() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    orders_stream(&js).await;
    groups::create_elastic(&js, "ORDERS", "cg", by_key(8)).await.unwrap();
    groups::add_members(&js, "ORDERS", "cg", &["m1".into(), "m2".into()]).await.unwrap();
    let (keys, rounds) = (40, 25u64);
    publish_keys(&js, keys, 0..rounds).await;
    let state = Arc::new(Mutex::new(Pipelined::default()));
    let done = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut tasks = Vec::new();
    for member in ["m1", "m2"] {
        let js = context(&server).await;
        // Many messages in flight: the order per key is the member's to keep.
        let template = pull::Config { ack_wait: Duration::from_secs(2), max_ack_pending: 100, ..Default::default() };
        let mut joined = groups::join(&js, Kind::Elastic, "ORDERS", "cg", member, template).await.unwrap();
        let (state, done) = (state.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            let _js = js;
            while let Some(message) = joined.next().await {
                let message = message.unwrap();
                let text = String::from_utf8(message.payload.to_vec()).unwrap();
                let (key, index) =
                    text.split_once(':').map(|(k, i)| (k.to_string(), i.parse::<u64>().unwrap())).unwrap();
                {
                    let mut s = state.lock().unwrap();
                    s.handed.entry(key.clone()).or_default().push(index);
                    let flight = s.in_flight.entry(member.to_string()).or_default();
                    assert!(!flight.contains_key(&key), "{key}:{index} handed out while {key}'s previous is in flight");
                    flight.insert(key.clone(), message.partition);
                    let partitions: std::collections::BTreeSet<u32> = flight.values().copied().collect();
                    assert_eq!(partitions.len(), flight.len(), "two messages of one partition in flight: {flight:?}");
                    let most = s.most_at_once.entry(member.to_string()).or_default();
                    *most = (*most).max(partitions.len());
                }
                // Each message on its own task, finishing in a scrambled order;
                // every 7th is nak'd on its first delivery.
                let (state, done) = (state.clone(), done.clone());
                tokio::spawn(async move {
                    sleep(Duration::from_millis(1 + (index * 3 + key.len() as u64) % 4)).await;
                    let nak = index % 7 == 3 && message.info().unwrap().delivered == 1;
                    state.lock().unwrap().in_flight.get_mut(member).unwrap().remove(&key);
                    if nak {
                        state.lock().unwrap().naks += 1;
                        message.nak().await.unwrap();
                    } else {
                        message.ack().await.unwrap();
                        done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                });
            }
        }));
    }
    let total = keys as u64 * rounds;
    let deadline = Instant::now() + WAIT;
    while done.load(std::sync::atomic::Ordering::Relaxed) < total {
        assert!(Instant::now() < deadline, "acked {} of {total}", done.load(std::sync::atomic::Ordering::Relaxed));
        sleep(Duration::from_millis(50)).await;
    }
    {
        let s = state.lock().unwrap();
        assert!(s.naks > 0);
        for (key, handed) in &s.handed {
            // A nak'd message comes again before the key's next one.
            let mut next = 0;
            for &i in handed {
                assert!(
                    i == next || i + 1 == next,
                    "{key}: {i} handed out after {}: {handed:?}",
                    next.saturating_sub(1)
                );
                next = i + 1;
            }
            assert_eq!(next, rounds, "{key}");
        }
        for member in ["m1", "m2"] {
            assert!(s.most_at_once[member] >= 2, "{member} pipelined partitions: {:?}", s.most_at_once);
        }
        println!("pipelined: at most {:?} partitions in flight per member, {} naks", s.most_at_once, s.naks);
    }
    groups::delete(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    for task in tasks {
        timeout(WAIT, task).await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn a_static_members_standby_takes_over_within_the_pinned_ttl() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    js.create_stream(StreamConfig {
        name: "ORDERS".into(),
        subjects: vec!["orders.*".into()],
        subject_transform: Some(SubjectTransform {
            source: "orders.*".into(),
            destination: "{{partition(2,1)}}.orders.{{wildcard(1)}}".into(),
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    let members = vec!["m1".to_string(), "m2".to_string()];
    let config = StaticConfig { max_members: 2, members, ..StaticConfig::default() };
    groups::create_static(&js, "ORDERS", "cg", config.clone()).await.unwrap();
    assert_eq!(groups::static_config(&js, "ORDERS", "cg").await.unwrap(), config);
    let seen = Shared::default();
    let work = Duration::from_millis(5);
    let a = instance(context(&server).await, Kind::Static, "ORDERS", "m1", "m1-a", seen.clone(), work, 1).await;
    let b = instance(context(&server).await, Kind::Static, "ORDERS", "m1", "m1-b", seen.clone(), work, 1).await;
    let other = instance(context(&server).await, Kind::Static, "ORDERS", "m2", "m2", seen.clone(), work, 1).await;
    publish_keys(&js, 10, 0..20).await;
    wait_for(&seen, 200).await;
    let first = {
        let seen = seen.lock().unwrap();
        let a = seen.by_instance.get("m1-a").copied().unwrap_or(0);
        let b = seen.by_instance.get("m1-b").copied().unwrap_or(0);
        assert!(a == 0 || b == 0, "one instance of m1 is pinned: {:?}", seen.by_instance);
        if a > 0 { "m1-a" } else { "m1-b" }
    };
    let state = groups::members(&js, Kind::Static, "ORDERS", "cg").await.unwrap();
    assert!(state.iter().all(|s| s.active && s.pinned_client_id.is_some()), "{state:?}");
    // Kill the pinned instance; the standby gets m1's next messages.
    let (pinned, standby, standby_tag) = if first == "m1-a" { (a, b, "m1-b") } else { (b, a, "m1-a") };
    pinned.abort();
    let _ = pinned.await;
    let killed = Instant::now();
    publish_keys(&js, 10, 20..40).await;
    wait_for(&seen, 400).await;
    let took = {
        let seen = seen.lock().unwrap();
        assert!(seen.by_instance.get(standby_tag).copied().unwrap_or(0) > 0, "the standby took over");
        seen.last_at[standby_tag].duration_since(killed)
    };
    check_order(&seen, 10, 40);
    println!("static: standby took over; all processed {took:?} after the kill");
    // Pinned TTL is ack_wait (2 s); the last message is processed within it + 1 s + the work.
    assert!(took < Duration::from_secs(2 + 1 + 2), "{took:?}");
    // Step-down moves a pin; deleting the group ends the members.
    groups::step_down(&js, Kind::Static, "ORDERS", "cg", "m2").await.unwrap();
    groups::delete(&js, Kind::Static, "ORDERS", "cg").await.unwrap();
    for task in [standby, other] {
        timeout(WAIT, task).await.unwrap().unwrap();
    }
    let left = js.get_stream("ORDERS").await.unwrap();
    assert_eq!(left.consumers().count().await, 0, "the group's consumers went with it");
}

/// An elastic group of one member, m1, with `keys` x `rounds` published, and
/// two instances of it, "a" and "b" (`work` per message, up to 64 delivered
/// at once, held per partition); once `started` are processed, the tag of
/// the pinned one.
async fn two_instances(
    server: &NatsServer,
    js: &Context,
    keys: usize,
    rounds: u64,
    work: Duration,
    started: usize,
) -> (Shared, JoinHandle<()>, JoinHandle<()>, String) {
    orders_stream(js).await;
    groups::create_elastic(js, "ORDERS", "cg", by_key(8)).await.unwrap();
    groups::add_members(js, "ORDERS", "cg", &["m1".into()]).await.unwrap();
    publish_keys(js, keys, 0..rounds).await;
    let seen = Shared::default();
    let a = instance(context(server).await, Kind::Elastic, "ORDERS", "m1", "a", seen.clone(), work, 64).await;
    let b = instance(context(server).await, Kind::Elastic, "ORDERS", "m1", "b", seen.clone(), work, 64).await;
    wait_for(&seen, started).await;
    let pinned = {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.by_instance.len(), 1, "one instance pinned: {:?}", seen.by_instance);
        seen.by_instance.keys().next().unwrap().clone()
    };
    (seen, a, b, pinned)
}

#[tokio::test]
async fn a_standby_taking_over_with_many_in_flight_keeps_each_keys_order() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    let (keys, rounds) = (40, 30u64);
    let (seen, a, b, pinned) = two_instances(&server, &js, keys, rounds, Duration::from_millis(2), 300).await;
    // Kill it mid-stream, with messages delivered to it and not acked.
    let (killed, standby, standby_tag) = if pinned == "a" { (a, b, "b") } else { (b, a, "a") };
    killed.abort();
    let _ = killed.await;
    wait_for(&seen, keys * rounds as usize).await;
    assert!(seen.lock().unwrap().by_instance.contains_key(standby_tag), "the standby took over");
    let redelivered = check_order(&seen, keys, rounds);
    println!(
        "takeover with 64 in flight: {redelivered} redelivered, by instance {:?}",
        seen.lock().unwrap().by_instance
    );
    groups::delete(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    timeout(WAIT, standby).await.unwrap().unwrap();
}

/// A step-down while the pinned instance holds many messages (work slow
/// enough that it could not finish them within twice `ack_wait`): it gives
/// them back at once and the new pin processes every key in order.
#[tokio::test]
async fn a_step_down_hands_what_the_old_instance_holds_to_the_new_one_in_order() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    let (keys, rounds) = (16, 8u64);
    let (seen, a, b, pinned) = two_instances(&server, &js, keys, rounds, Duration::from_millis(100), 3).await;
    let standby = if pinned == "a" { "b" } else { "a" };
    // The pinned instance holds up to 64 (6.4 s of work, ack_wait is 2 s).
    groups::step_down(&js, Kind::Elastic, "ORDERS", "cg", "m1").await.unwrap();
    wait_for(&seen, keys * rounds as usize).await;
    let by_instance = seen.lock().unwrap().by_instance.clone();
    assert!(by_instance.contains_key(standby), "the standby took over: {by_instance:?}");
    let redelivered = check_order(&seen, keys, rounds);
    println!("step-down with 64 in flight: {redelivered} redelivered, by instance {by_instance:?}");
    groups::delete(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    for task in [a, b] {
        timeout(WAIT, task).await.unwrap().unwrap();
    }
}

/// Asks the stream's leader to step down; a new one is elected from its replicas.
async fn step_down(js: &Context, stream: &str) {
    let reply = js.client().request(format!("$JS.API.STREAM.LEADER.STEPDOWN.{stream}"), "".into()).await.unwrap();
    let text = String::from_utf8_lossy(&reply.payload);
    assert!(text.contains("\"success\":true"), "{stream} stepped down: {text}");
}

#[tokio::test]
async fn a_stream_leader_change_keeps_order_and_loses_nothing() {
    let cluster = NatsCluster::start(3);
    let urls = cluster.client_urls();
    let connect = |i: usize| {
        let url = urls[i % urls.len()].clone();
        async move { jetstream::new(natsjet::connect(url).await.unwrap()) }
    };
    let js = connect(0).await;
    let config = StreamConfig {
        name: "ORDERS".into(),
        subjects: vec!["orders.*".into()],
        num_replicas: 3,
        ..Default::default()
    };
    js.create_stream(config).await.unwrap();
    groups::create_elastic(&js, "ORDERS", "cg", by_key(4)).await.unwrap();
    let members: Vec<String> = vec!["m1".into(), "m2".into()];
    groups::add_members(&js, "ORDERS", "cg", &members).await.unwrap();
    let seen = Shared::default();
    let mut tasks = Vec::new();
    for (i, m) in members.iter().enumerate() {
        // Each member on another node than the admin connection.
        let member = connect(i + 1).await;
        tasks.push(instance(member, Kind::Elastic, "ORDERS", m, m, seen.clone(), Duration::from_millis(2), 1).await);
    }
    publish_keys(&js, 20, 0..20).await;
    wait_for(&seen, 100).await;
    // The origin's leader, then the group's work-queue stream's, while the members consume.
    step_down(&js, "ORDERS").await;
    publish_keys(&js, 20, 20..30).await;
    wait_for(&seen, 450).await;
    step_down(&js, "ORDERS-cg").await;
    publish_keys(&js, 20, 30..40).await;
    wait_for(&seen, 800).await;
    let redelivered = check_order(&seen, 20, 40);
    println!(
        "leader change: 800 processed, {redelivered} redelivered, by instance {:?}",
        seen.lock().unwrap().by_instance
    );
    groups::delete(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    for task in tasks {
        timeout(WAIT, task).await.unwrap().unwrap();
    }
}

/// An application's checkpoint, saved with its effects in one step: a
/// count per key (which cannot tell a duplicate) and, per partition, the
/// last stream sequence whose effect is in it.
#[derive(Default)]
struct Checkpoint {
    counts: BTreeMap<String, u64>,
    done: BTreeMap<u32, u64>,
}

/// Applies a member's messages to `checkpoint`, acking the first
/// `ack_first`; with `die`, then applies without acking one more message
/// per partition and stops (a partition's next message would wait for that
/// ack): those are in the checkpoint with their acks never sent, as when a
/// process dies between its checkpoint and its acks. Without `die` it
/// stops once every key has its `per_key` messages applied. Returns the
/// member's skipped count.
async fn apply(
    js: Context,
    member: &str,
    checkpoint: Arc<Mutex<Checkpoint>>,
    resume: bool,
    ack_first: usize,
    die: bool,
    keys_times: (usize, u64),
) -> u64 {
    let template = pull::Config { ack_wait: Duration::from_secs(1), max_ack_pending: 32, ..Default::default() };
    let mut joined = groups::join(&js, Kind::Elastic, "ORDERS", "cg", member, template).await.unwrap();
    if resume {
        let saved = checkpoint.clone();
        joined = joined.resume_with(move |partition| {
            let done = saved.lock().unwrap().done.get(&partition).copied();
            async move { Ok(done) }
        });
    }
    let (keys, per_key) = keys_times;
    let mut applied = 0;
    let mut unacked = std::collections::BTreeSet::new();
    let deadline = Instant::now() + WAIT;
    loop {
        let all = {
            let counts = &checkpoint.lock().unwrap().counts;
            counts.len() == keys && counts.values().all(|c| *c >= per_key)
        };
        if !die && all {
            return joined.skipped();
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let message = timeout(left, joined.next()).await.expect("messages keep coming").unwrap().unwrap();
        let sequence = message.sequence().unwrap();
        if applied >= ack_first && (unacked.contains(&message.partition) || message.info().unwrap().delivered > 1) {
            return joined.skipped();
        }
        let key = String::from_utf8(message.payload.to_vec()).unwrap().split(':').next().unwrap().to_string();
        {
            let mut checkpoint = checkpoint.lock().unwrap();
            *checkpoint.counts.entry(key).or_default() += 1;
            checkpoint.done.insert(message.partition, sequence);
        }
        applied += 1;
        if applied <= ack_first {
            message.ack().await.unwrap();
        } else {
            unacked.insert(message.partition);
        }
    }
}

/// m1 applies 100 messages and acks them, applies one more per partition
/// and dies before acking those; m2 takes its partitions over with the
/// checkpoint: returns the counts per key and m2's skipped.
async fn moved_partitions(resume: bool) -> (BTreeMap<String, u64>, u64) {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    orders_stream(&js).await;
    groups::create_elastic(&js, "ORDERS", "cg", by_key(4)).await.unwrap();
    groups::add_members(&js, "ORDERS", "cg", &["m1".to_string()]).await.unwrap();
    publish_keys(&js, 20, 0..10).await;
    let checkpoint = Arc::new(Mutex::new(Checkpoint::default()));
    apply(context(&server).await, "m1", checkpoint.clone(), resume, 100, true, (20, 10)).await;
    groups::drop_members(&js, "ORDERS", "cg", &["m1".to_string()]).await.unwrap();
    groups::add_members(&js, "ORDERS", "cg", &["m2".to_string()]).await.unwrap();
    let skipped = apply(context(&server).await, "m2", checkpoint.clone(), resume, usize::MAX, false, (20, 10)).await;
    let counts = std::mem::take(&mut checkpoint.lock().unwrap().counts);
    (counts, skipped)
}

#[tokio::test]
async fn a_partition_resumes_after_the_checkpoint_so_nothing_is_applied_twice() {
    let (counts, skipped) = moved_partitions(true).await;
    assert_eq!(counts.len(), 20);
    assert!(counts.values().all(|c| *c == 10), "every key applied 10 times: {counts:?}");
    assert!(skipped >= 1, "the unacked redeliveries were skipped: {skipped}");
    // Without the checkpoint the same run applies the unacked ones twice: the test can fail.
    let (counts, without) = moved_partitions(false).await;
    println!("resume: 200 applied once each, {skipped} skipped; without: {} applied", counts.values().sum::<u64>());
    assert_eq!(without, 0);
    assert!(counts.values().sum::<u64>() > 200, "duplicates without resume: {counts:?}");
}

/// The member's next error, skipping messages (acked).
async fn next_error(member: &mut groups::Member) -> natsjet::Error {
    timeout(WAIT, async {
        loop {
            match member.next().await {
                Some(Ok(message)) => message.ack().await.unwrap(),
                Some(Err(e)) => return e,
                None => panic!("the member ended without an error"),
            }
        }
    })
    .await
    .expect("an error on the member's stream")
}

fn jetstream_code(error: &natsjet::Error) -> Option<u64> {
    match error {
        natsjet::Error::JetStream(e) => Some(e.err_code.0),
        _ => None,
    }
}

#[tokio::test]
async fn a_member_hands_out_the_errors_it_cannot_get_past() {
    let server = NatsServer::builder()
        .jetstream()
        .config_extra(
            r#"authorization { users = [
                { user: "admin", password: "pw" },
                { user: "reader", password: "pw", permissions: { publish: { deny: ["$JS.API.CONSUMER.CREATE.ORDERS-cg.>", "$JS.API.CONSUMER.DURABLE.CREATE.ORDERS-cg.>"] } } }
            ] }"#,
        )
        .start();
    let connect = |user: &'static str| {
        let url = server.client_url();
        async move {
            let options = natsjet::ConnectOptions::new().user_and_password(user.into(), "pw".into());
            let mut js = jetstream::new(options.connect(url).await.unwrap());
            if user == "reader" {
                // Far longer than the test waits: a refusal must not be a timeout.
                js.set_timeout(Duration::from_secs(60));
            }
            js
        }
    };
    let js = connect("admin").await;
    orders_stream(&js).await;
    groups::create_elastic(&js, "ORDERS", "cg", by_key(4)).await.unwrap();
    groups::add_members(&js, "ORDERS", "cg", &["m1".into()]).await.unwrap();
    let template = || pull::Config { ack_wait: Duration::from_secs(1), max_ack_pending: 8, ..Default::default() };

    // Not allowed to create the member's consumer: the server's refusal of
    // the request, at once (again at each retry).
    let reader = connect("reader").await;
    let mut refused = groups::join(&reader, Kind::Elastic, "ORDERS", "cg", "m1", template()).await.unwrap();
    let is_refusal = |error: &natsjet::Error| {
        matches!(error, natsjet::Error::Server(natsjet::error::ServerError {
            kind: natsjet::error::ServerErrorKind::PermissionsViolation {
                operation: natsjet::error::PermissionOp::Publish, subject, .. }, .. })
            if subject.starts_with("$JS.API.CONSUMER.CREATE.ORDERS-cg."))
    };
    let error = next_error(&mut refused).await;
    assert!(is_refusal(&error), "{error:?}");
    let error = next_error(&mut refused).await;
    assert!(is_refusal(&error), "{error:?}");
    drop(refused);

    // The group's stream deleted under a running member: the server's error (10059).
    let mut member = groups::join(&js, Kind::Elastic, "ORDERS", "cg", "m1", template()).await.unwrap();
    publish_keys(&js, 4, 0..5).await;
    let mut got = 0;
    while got < 20 {
        let message = timeout(WAIT, member.next()).await.unwrap().unwrap().unwrap();
        message.ack().await.unwrap();
        got += 1;
    }
    js.delete_stream("ORDERS-cg").await.unwrap();
    let error = next_error(&mut member).await;
    assert_eq!(jetstream_code(&error), Some(10059), "{error:?}");
}

#[tokio::test]
async fn an_instance_whose_handler_hangs_gives_its_pin_to_a_standby() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    orders_stream(&js).await;
    groups::create_elastic(&js, "ORDERS", "cg", by_key(4)).await.unwrap();
    groups::add_members(&js, "ORDERS", "cg", &["m1".into()]).await.unwrap();
    publish_keys(&js, 4, 0..10).await;
    // The first instance takes a message and hangs: it never settles it nor
    // reads on, while its connection (and so its pin) lives on.
    // The same template as the standby's (a different one would re-make the consumer).
    let template = pull::Config { ack_wait: Duration::from_secs(2), max_ack_pending: 8, ..Default::default() };
    let hanging_js = context(&server).await;
    let mut hanging = groups::join(&hanging_js, Kind::Elastic, "ORDERS", "cg", "m1", template).await.unwrap();
    let stuck = timeout(WAIT, hanging.next()).await.unwrap().unwrap().unwrap();
    let started = Instant::now();
    let seen = Shared::default();
    let standby =
        instance(context(&server).await, Kind::Elastic, "ORDERS", "m1", "b", seen.clone(), Duration::ZERO, 8).await;
    wait_for(&seen, 40).await;
    let took = started.elapsed();
    check_order(&seen, 4, 10);
    println!("hung handler: the standby processed everything {took:?} after the hang began");
    // Twice ack_wait until the instance steps down, a check every half
    // ack_wait, the pinned TTL, the takeover: well under 15 s.
    assert!(took > Duration::from_secs(4) && took < Duration::from_secs(15), "{took:?}");
    let states = groups::members(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    assert!(states[0].pinned_client_id.is_some() && states[0].pinned_client_id.as_deref() != hanging.pin_id());
    drop(stuck);
    groups::delete(&js, Kind::Elastic, "ORDERS", "cg").await.unwrap();
    timeout(WAIT, standby).await.unwrap().unwrap();
}
