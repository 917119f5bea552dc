//! N workers on separate connections sharing one durable pull consumer,
//! against a real server: nothing lost, crashed workers' messages
//! redelivered, elastic scaling, restarts, replay pacing, max_deliver and
//! backoff, the checkpoint ledger, and slow handlers.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::Error;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, ReplayPolicy, StreamConfig};
use natsjet::jetstream::pull::ConsumerEvent;
use natsjet::jetstream::{self, CheckpointLedger, Consumer, Context, LedgerOptions};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(30);

async fn context(server: &NatsServer) -> Context {
    jetstream::new(natsjet::connect(server.client_url()).await.unwrap())
}

/// A stream `name` on `name.>` holding `count` messages whose payload is their index.
async fn stream_with(js: &Context, name: &str, count: usize) {
    js.create_stream(StreamConfig { name: name.into(), subjects: vec![format!("{name}.>")], ..Default::default() })
        .await
        .unwrap();
    publish(js, name, 0..count).await;
}

async fn publish(js: &Context, name: &str, range: std::ops::Range<usize>) {
    let client = js.client();
    for i in range {
        client.publish(format!("{name}.{}", i % 16), i.to_string().into()).await.unwrap();
    }
    client.flush().await.unwrap();
}

fn durable(name: &str) -> ConsumerConfig {
    ConsumerConfig { durable_name: Some(name.into()), ack_policy: AckPolicy::Explicit, ..Default::default() }
}

/// A worker on its own connection, bound to the durable consumer.
async fn worker_consumer(server: &NatsServer, stream: &str, name: &str) -> Consumer {
    let js = context(server).await;
    js.get_stream(stream).await.unwrap().get_consumer(name).await.unwrap()
}

/// Records which stream sequences were acked, and how often each was delivered.
#[derive(Default)]
struct Ledger {
    acked: HashSet<u64>,
    deliveries: BTreeMap<u64, u64>,
    redelivered_seen: u64,
}

async fn run_worker(consumer: Consumer, record: Arc<Mutex<Ledger>>, stop_after: Option<usize>, ack: bool) {
    let mut messages = consumer.stream().max_messages_per_batch(100).messages().await.unwrap();
    let mut handled = 0;
    while let Some(message) = messages.next().await {
        let message = message.unwrap();
        let info = message.info().unwrap();
        {
            let mut r = record.lock().unwrap();
            *r.deliveries.entry(info.stream_sequence).or_default() += 1;
            if info.delivered > 1 {
                r.redelivered_seen += 1;
            }
        }
        if ack {
            message.ack().await.unwrap();
            record.lock().unwrap().acked.insert(info.stream_sequence);
        }
        handled += 1;
        if stop_after == Some(handled) {
            return; // crash: the reader and its connection go away without acking the rest
        }
    }
}

async fn wait_all_acked(record: &Arc<Mutex<Ledger>>, total: usize) {
    timeout(Duration::from_secs(60), async {
        while record.lock().unwrap().acked.len() < total {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("only {} of {total} acked", record.lock().unwrap().acked.len()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_workers_drain_twenty_thousand_without_loss() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "W", 20_000).await;
    js.get_stream("W").await.unwrap().create_consumer(durable("workers")).await.unwrap();
    let record = Arc::new(Mutex::new(Ledger::default()));
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let consumer = worker_consumer(&server, "W", "workers").await;
        tasks.push(tokio::spawn(run_worker(consumer, record.clone(), None, true)));
    }
    wait_all_acked(&record, 20_000).await;
    let acked = record.lock().unwrap().acked.clone();
    assert_eq!(acked, (1..=20_000).collect::<HashSet<u64>>(), "every sequence acked");
    let info = js.get_stream("W").await.unwrap().consumer_info("workers").await.unwrap();
    assert_eq!(info.num_ack_pending, 0);
    assert_eq!(info.ack_floor.stream_sequence, 20_000);
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crashed_workers_messages_go_to_survivors() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "K", 2_000).await;
    let config = ConsumerConfig { ack_wait: Duration::from_secs(2), ..durable("k") };
    js.get_stream("K").await.unwrap().create_consumer(config).await.unwrap();
    let record = Arc::new(Mutex::new(Ledger::default()));
    // Two workers crash after taking 150 messages each without acking them.
    for _ in 0..2 {
        let consumer = worker_consumer(&server, "K", "k").await;
        tokio::spawn(run_worker(consumer, record.clone(), Some(150), false));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut survivors = Vec::new();
    for _ in 0..2 {
        let consumer = worker_consumer(&server, "K", "k").await;
        survivors.push(tokio::spawn(run_worker(consumer, record.clone(), None, true)));
    }
    wait_all_acked(&record, 2_000).await;
    let r = record.lock().unwrap();
    assert_eq!(r.acked.len(), 2_000, "nothing lost");
    assert!(r.redelivered_seen >= 300, "the crashed workers' messages came back redelivered: {}", r.redelivered_seen);
    drop(r);
    survivors.iter().for_each(|t| t.abort());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_come_and_go_while_consuming() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "E", 3_000).await;
    let config = ConsumerConfig { ack_wait: Duration::from_secs(2), ..durable("e") };
    js.get_stream("E").await.unwrap().create_consumer(config).await.unwrap();
    let record = Arc::new(Mutex::new(Ledger::default()));
    let mut tasks = Vec::new();
    // Scale 1 → 3 → 1 → 4 while publishing more.
    for round in 0..4 {
        let target = [1, 3, 1, 4][round];
        while tasks.len() < target {
            let consumer = worker_consumer(&server, "E", "e").await;
            tasks.push(tokio::spawn(run_worker(consumer, record.clone(), None, true)));
        }
        while tasks.len() > target {
            let task: tokio::task::JoinHandle<()> = tasks.pop().unwrap();
            task.abort(); // its reader is dropped: unread messages are naked back
        }
        publish(&js, "E", 3_000 + round * 500..3_500 + round * 500).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    wait_all_acked(&record, 5_000).await;
    assert_eq!(record.lock().unwrap().acked, (1..=5_000).collect::<HashSet<u64>>());
    tasks.iter().for_each(|t| t.abort());
}

#[tokio::test]
async fn a_restarted_durable_resumes_after_its_acks() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "R", 100).await;
    js.get_stream("R").await.unwrap().create_consumer(durable("r")).await.unwrap();
    {
        let consumer = worker_consumer(&server, "R", "r").await;
        let mut messages = consumer.stream().max_messages_per_batch(100).messages().await.unwrap();
        for _ in 0..60 {
            messages.next().await.unwrap().unwrap().ack().await.unwrap();
        }
        messages.drain().await.unwrap();
    } // worker and connection gone; the 40 it received but never read are naked back
    let consumer = worker_consumer(&server, "R", "r").await;
    let mut messages = consumer.messages().await.unwrap();
    let mut seen = Vec::new();
    while seen.len() < 40 {
        let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
        seen.push(m.info().unwrap().stream_sequence);
        m.ack().await.unwrap();
    }
    seen.sort();
    assert_eq!(seen, (61..=100).collect::<Vec<u64>>(), "resumes after the acked 60, loses nothing");
}

/// nats-server 2.15 paces a replay-original consumer only over messages the
/// stream already holds when the consumer starts; later ones come at once.
#[tokio::test]
async fn replay_original_paces_like_the_publishes_instant_does_not() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    js.create_stream(StreamConfig { name: "P".into(), subjects: vec!["P.>".into()], ..Default::default() })
        .await
        .unwrap();
    for i in 0..6 {
        js.client().publish("P.x", i.to_string().into()).await.unwrap();
        js.client().flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stream = js.get_stream("P").await.unwrap();
    let mut elapsed = Vec::new();
    for (name, replay_policy) in [("orig", ReplayPolicy::Original), ("inst", ReplayPolicy::Instant)] {
        let consumer = stream.create_consumer(ConsumerConfig { replay_policy, ..durable(name) }).await.unwrap();
        let mut messages = consumer.messages().await.unwrap();
        let started = Instant::now();
        for _ in 0..6 {
            timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap().ack().await.unwrap();
        }
        elapsed.push(started.elapsed());
    }
    assert!(elapsed[0] >= Duration::from_millis(700), "original replay paced: {:?}", elapsed[0]);
    assert!(elapsed[1] < Duration::from_millis(500), "instant replay not paced: {:?}", elapsed[1]);
}

#[tokio::test]
async fn max_deliver_and_backoff_are_honoured() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "B", 1).await;
    let backoff = vec![Duration::from_millis(300), Duration::from_millis(900)];
    let config = ConsumerConfig { max_deliver: 3, backoff: backoff.clone(), ack_wait: backoff[0], ..durable("b") };
    let consumer = js.get_stream("B").await.unwrap().create_consumer(config).await.unwrap();
    let mut messages = consumer
        .stream()
        .heartbeat(Duration::from_millis(500))
        .expires(Duration::from_secs(2))
        .messages()
        .await
        .unwrap();
    let mut at = Vec::new();
    let started = Instant::now();
    while let Ok(Some(m)) = timeout(Duration::from_secs(3), messages.next()).await {
        let m = m.unwrap();
        at.push((m.info().unwrap().delivered, started.elapsed()));
        // never acked: the server redelivers after each backoff step
    }
    let delivered: Vec<i64> = at.iter().map(|(d, _)| *d).collect();
    assert_eq!(delivered, [1, 2, 3], "max_deliver 3: {at:?}");
    assert!(at[1].1 - at[0].1 >= Duration::from_millis(250), "first backoff: {at:?}");
    assert!(at[2].1 - at[1].1 >= Duration::from_millis(800), "second backoff: {at:?}");
}

async fn hold_for_a_long_checkpoint(with_ledger: bool) -> (u64, u64) {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "L", 50).await;
    let config = ConsumerConfig { ack_wait: Duration::from_secs(1), ..durable("l") };
    let consumer = js.get_stream("L").await.unwrap().create_consumer(config).await.unwrap();
    let options = LedgerOptions { workers: 1, batch: 100, checkpoint_interval: Duration::from_secs(3) };
    let ledger = CheckpointLedger::new(&consumer, options).unwrap();
    assert!(!ledger.warnings().is_empty(), "ack_wait shorter than the checkpoint is reported");
    let mut messages = consumer.messages().await.unwrap();
    let mut held = Vec::new();
    for _ in 0..50 {
        let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
        if with_ledger {
            ledger.track(&m, 1).unwrap();
        }
        held.push(m);
    }
    // The checkpoint takes 3 × ack_wait; meanwhile keep reading.
    let mut redelivered = 0;
    let deadline = Instant::now() + Duration::from_secs(3);
    while let Ok(Some(m)) = timeout(deadline.saturating_duration_since(Instant::now()), messages.next()).await {
        redelivered += 1;
        drop(m);
    }
    let acked = if with_ledger {
        let report = ledger.commit(1).await.unwrap();
        assert!(report.refused.is_empty() && report.unconfirmed.is_empty(), "{report:?}");
        report.confirmed.len() as u64
    } else {
        for m in &held {
            m.ack().await.unwrap();
        }
        js.client().flush().await.unwrap();
        held.len() as u64
    };
    (redelivered, acked)
}

#[tokio::test]
async fn a_message_the_ledger_refuses_keeps_its_ack() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "R", 2).await;
    let consumer = js.get_stream("R").await.unwrap().create_consumer(durable("r")).await.unwrap();
    let options = LedgerOptions { workers: 1, batch: 2, checkpoint_interval: Duration::from_secs(1) };
    let ledger = CheckpointLedger::new(&consumer, options).unwrap();
    let mut messages = consumer.batch().max_messages(2).messages().await.unwrap();
    let first = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    let second = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    ledger.track(&first, 1).unwrap();
    assert_eq!(first.ack().await, Err(Error::AlreadyAcknowledged), "the ledger owns its ack");
    assert_eq!(ledger.commit(1).await.unwrap().confirmed.len(), 1);
    assert!(matches!(ledger.track(&second, 1), Err(Error::InvalidArgument(_))), "epoch 1 is committed");
    second.double_ack().await.unwrap();
    assert_eq!(consumer.clone().info().await.unwrap().num_ack_pending, 0);
}

#[tokio::test]
async fn the_ledger_keeps_messages_alive_through_a_long_checkpoint() {
    let (redelivered, acked) = hold_for_a_long_checkpoint(true).await;
    assert_eq!((redelivered, acked), (0, 50), "no redelivery with the ledger");
}

#[tokio::test]
async fn without_the_ledger_the_same_checkpoint_causes_redeliveries() {
    let (redelivered, _) = hold_for_a_long_checkpoint(false).await;
    assert!(redelivered >= 50, "redeliveries without the ledger: {redelivered}");
}

#[tokio::test]
async fn the_ledger_refuses_shared_ack_all() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "G", 1).await;
    let config = ConsumerConfig { ack_policy: AckPolicy::All, ..durable("g") };
    let consumer = js.get_stream("G").await.unwrap().create_consumer(config).await.unwrap();
    let options = LedgerOptions { workers: 2, batch: 10, checkpoint_interval: Duration::from_secs(1) };
    assert!(matches!(CheckpointLedger::new(&consumer, options), Err(Error::InvalidArgument(_))));
}

#[tokio::test]
async fn a_slow_handler_causes_no_spurious_heartbeat_error() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    stream_with(&js, "S", 3).await;
    let consumer = js.get_stream("S").await.unwrap().create_consumer(durable("s")).await.unwrap();
    let mut messages = consumer
        .stream()
        .max_messages_per_batch(1)
        .expires(Duration::from_secs(2))
        .heartbeat(Duration::from_millis(500))
        .messages()
        .await
        .unwrap();
    for _ in 0..3 {
        let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
        // The handler takes 4 × the heartbeat interval.
        tokio::time::sleep(Duration::from_secs(2)).await;
        m.ack().await.unwrap();
    }
    while let Some(event) = messages.try_next_event() {
        assert!(!matches!(event, ConsumerEvent::HeartbeatsMissed { .. }), "spurious: {event:?}");
    }
}
