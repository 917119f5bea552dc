//! JetStream consume benchmark: natsjet side by side with async-nats in one
//! run, against one local nats-server started here.
//!
//! - durable pull drain of 200,000 x 128 B with an ack per message, 1 worker
//!   and 4 workers (each on its own connection) on one durable consumer,
//!   with each library's defaults (`messages()` with no options: what users
//!   run) and with 500 messages per pull for both; the stream is filled once
//!   and every drain reads it through a durable of its own;
//! - the same 4-worker drain through a `CheckpointLedger` with its
//!   exactly-once half on (each message admitted and tracked; every 50 ms
//!   epoch snapshotted, then committed as one confirmed batch) against
//!   natsjet's own ack per message and against an `AckBatch` per epoch
//!   committed confirmed by hand, same passes: what the ledger costs;
//! - confirmed acks of 10,000 messages: one confirmed `AckBatch` commit
//!   against one `double_ack` per message;
//! - order per key: 4 members of an elastic consumer group (8 partitions,
//!   200 keys, strict order: one message in flight per member) against 4
//!   workers on one durable of the same 20,000 messages (natsjet both).
//!
//! Each drain is run `BENCH_PASSES` times (default 3), the clients in
//! alternating order, and the medians are printed, with the spread of the
//! runs (the machine is shared: compare only within one run) and the
//! server's CPU and read/write syscalls per message (an ack packed with
//! others into one write costs the server a fraction of a read).
//!
//! The sweep: `CONSUME_SWEEP="100/25,300/100"` adds natsjet drains that keep
//! `max` messages requested ahead with a refill at `threshold`
//! (`stream().max_messages(max).threshold_messages(threshold)`), each against
//! async-nats's defaults in the same passes.
//!
//! `CONSUME_ONLY=groups` runs only the order-per-key comparison;
//! `CONSUME_ONLY=groups-breakdown` measures the group's parts one by one:
//! the sourcing, then drains of the sourced work-queue stream by a plain
//! durable, by consumers with the members' filters, by the members' pinned
//! consumers without the order gate, and by the members (`GROUP_PULL` sets
//! the messages kept requested ahead by the rows without the member;
//! `GROUP_KEYS` the number of keys, 200 unless set).
//! One drain alone: `CONSUME_ONLY=natsjet:1:500` (client `natsjet`,
//! `natsjet-ledger` or `async-nats`, workers, messages per pull or `defaults`) runs just that
//! drain, `BENCH_PASSES` times, on a one-thread runtime, so a profiler told to
//! count inside `counted_drain` sees all of the client's work for the drain
//! and nothing of its set-up (`scripts/callgrind-drain.sh`). With
//! `CONSUME_MULTI=1` it runs on the multi-thread runtime the full run uses
//! (for a profile of the threads' parking and waking, e.g. with `perf`).
//!
//! Run with `cargo bench --bench consume` (`BENCH_SCALE=0.1` for a quick pass).

#[path = "../tests/common/mod.rs"]
mod common;
mod support;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use natsjet::jetstream::ack::{AckBatch, AckKind};
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use natsjet::jetstream::{CheckpointLedger, LedgerOptions, PullConsumer};
use support::{Run, Stopwatch, scale};
use tokio::runtime::Runtime;

const PAYLOAD: [u8; 128] = [b'x'; 128];
const BATCH: u64 = 500;
/// The ledger drain's checkpoint interval.
const EPOCH: Duration = Duration::from_millis(50);

/// A fresh stream holding `n` messages, stored before this returns.
async fn fill(url: &str, name: &str, n: usize) {
    let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
    let _ = js.delete_stream(name).await;
    js.create_stream(StreamConfig { name: name.into(), subjects: vec![format!("{name}.>")], ..Default::default() })
        .await
        .unwrap();
    let mut pending = std::collections::VecDeque::new();
    for _ in 0..n {
        pending.push_back(js.publish(format!("{name}.x"), bytes::Bytes::from_static(&PAYLOAD)).await.unwrap());
        if pending.len() >= 256 {
            pending.pop_front().unwrap().await.unwrap();
        }
    }
    for ack in pending {
        ack.await.unwrap();
    }
}

fn durable(name: &str) -> ConsumerConfig {
    ConsumerConfig {
        durable_name: Some(name.into()),
        ack_policy: AckPolicy::Explicit,
        max_ack_pending: 100_000,
        ..Default::default()
    }
}

/// How a drain reads: each library's defaults, `n` messages per pull
/// (`max_messages_per_batch`, both libraries), or (natsjet, the sweep)
/// `max_messages` kept requested ahead with a refill at `threshold`.
#[derive(Clone, Copy, Debug)]
enum Reading {
    Defaults,
    PerPull(usize),
    Ahead { max: u64, threshold: u64 },
}

impl Reading {
    fn name(self) -> String {
        match self {
            Reading::Defaults => "defaults".into(),
            Reading::PerPull(n) => format!("{n}/pull"),
            Reading::Ahead { max, threshold } => format!("ahead {max}, refill at {threshold}"),
        }
    }
}

/// Durable names are never reused: each drain reads the whole stream afresh.
static DURABLES: AtomicUsize = AtomicUsize::new(0);

fn natsjet_drain(rt: &Runtime, url: &str, n: usize, workers: usize, reading: Reading) -> Run {
    natsjet_drain_acking(rt, url, "DRAIN", n, workers, reading, Acking::Each)
}

/// How a natsjet drain acks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Acking {
    /// Each message as it comes.
    Each,
    /// Each [`EPOCH`]'s messages in one confirmed `AckBatch`, by hand.
    Batch,
    /// In a `CheckpointLedger` (admitted, tracked, snapshotted, committed every [`EPOCH`]).
    Ledger,
}

/// A natsjet drain that acks as `acking` says; the held ones' commits run
/// while the next epoch reads, as an engine would run them.
fn natsjet_drain_acking(
    rt: &Runtime,
    url: &str,
    stream: &str,
    n: usize,
    workers: usize,
    reading: Reading,
    acking: Acking,
) -> Run {
    let (js, name, consumers) = rt.block_on(async {
        let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
        let name = format!("d{}", DURABLES.fetch_add(1, Ordering::Relaxed));
        js.create_consumer_on_stream(durable(&name), stream).await.unwrap();
        let mut consumers = Vec::new();
        for _ in 0..workers {
            let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
            let consumer: PullConsumer = js.get_consumer_from_stream(&name, stream).await.unwrap();
            consumers.push((js, consumer));
        }
        (js, name, consumers)
    });
    let run = counted_drain(rt, async move {
        let (done, finished) = (Arc::new(AtomicUsize::new(0)), Arc::new(tokio::sync::watch::Sender::new(false)));
        let clock = Stopwatch::start();
        let mut tasks = Vec::new();
        for (js, consumer) in consumers {
            let (done, finished) = (done.clone(), finished.clone());
            tasks.push(tokio::spawn(async move {
                let mut messages = match reading {
                    Reading::Defaults => consumer.messages().await,
                    Reading::PerPull(n) => consumer.stream().max_messages_per_batch(n).messages().await,
                    Reading::Ahead { max, threshold } => {
                        consumer.stream().max_messages(max).threshold_messages(threshold).messages().await
                    }
                }
                .unwrap();
                let mut all_in = finished.subscribe();
                let count = |acked: usize| {
                    if done.fetch_add(acked, Ordering::Relaxed) + acked >= n {
                        finished.send_replace(true);
                    }
                };
                if acking == Acking::Batch {
                    let mut checkpoint = tokio::time::interval(EPOCH);
                    let (mut batch, mut committing) = (AckBatch::new(), None);
                    loop {
                        tokio::select! {
                            m = messages.next() => batch.add_message(&m.unwrap().unwrap(), AckKind::Ack).unwrap(),
                            _ = checkpoint.tick(), if committing.is_none() => {
                                let epoch = std::mem::take(&mut batch);
                                committing = Some(Box::pin(epoch.commit_confirmed(js.client(), Duration::from_secs(5))));
                            }
                            report = async { committing.as_mut().unwrap().await }, if committing.is_some() => {
                                count(report.unwrap().confirmed.len());
                                committing = None;
                            }
                            () = async { drop(all_in.wait_for(|all| *all).await) } => break,
                        }
                    }
                } else if acking == Acking::Ledger {
                    let options = LedgerOptions { workers, batch: BATCH, checkpoint_interval: EPOCH };
                    let ledger = CheckpointLedger::new(&consumer, options).unwrap();
                    let mut messages = ledger.filter(messages);
                    let mut checkpoint = tokio::time::interval(EPOCH);
                    let mut epoch = 1;
                    let mut committing = None;
                    loop {
                        tokio::select! {
                            m = messages.next() => ledger.track(&m.unwrap().unwrap(), epoch).unwrap(),
                            _ = checkpoint.tick(), if committing.is_none() => {
                                ledger.snapshot(epoch).unwrap();
                                committing = Some(Box::pin(ledger.commit(epoch)));
                                epoch += 1;
                            }
                            report = async { committing.as_mut().unwrap().await }, if committing.is_some() => {
                                count(report.unwrap().confirmed.len());
                                committing = None;
                            }
                            () = async { drop(all_in.wait_for(|all| *all).await) } => break,
                        }
                    }
                } else {
                    loop {
                        tokio::select! {
                            m = messages.next() => {
                                m.unwrap().unwrap().ack().await.unwrap();
                                count(1);
                            }
                            () = async { drop(all_in.wait_for(|all| *all).await) } => break,
                        }
                    }
                }
                js.client().flush().await.unwrap();
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        clock.stop(n)
    });
    rt.block_on(js.delete_consumer_from_stream(&name, stream)).unwrap();
    run
}

/// Keys of the consumer-group comparison (`GROUP_KEYS`, 200 unless set).
fn keys() -> usize {
    std::env::var("GROUP_KEYS").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

/// A fresh stream `KEYED` of `n` messages on `keyed.k<i % keys()>`.
async fn fill_keyed(url: &str, n: usize) {
    let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
    let _ = js.delete_stream("KEYED").await;
    let config = StreamConfig { name: "KEYED".into(), subjects: vec!["keyed.*".into()], ..Default::default() };
    js.create_stream(config).await.unwrap();
    let mut pending = std::collections::VecDeque::new();
    let keys = keys();
    for i in 0..n {
        pending
            .push_back(js.publish(format!("keyed.k{}", i % keys), bytes::Bytes::from_static(&PAYLOAD)).await.unwrap());
        if pending.len() >= 256 {
            pending.pop_front().unwrap().await.unwrap();
        }
    }
    for ack in pending {
        ack.await.unwrap();
    }
}

/// `members` members of an elastic group of 8 partitions over `KEYED`, each
/// on its own connection, acking each message: strict order per key (a
/// partition's next message is handed out after the previous one's ack),
/// up to `GROUP_MAX_ACK_PENDING` messages in flight per member (1000 unless
/// set; 1 is orbit.go's one at a time). The group's stream is filled
/// (sourced) before the clock starts: the sourcing is the first run, the
/// drain the second.
fn group_drain_sourced(rt: &Runtime, url: &str, n: usize, members: usize) -> (Run, Run) {
    use natsjet::jetstream::consumer::pull;
    use natsjet::jetstream::groups::{self, Kind};
    let (js, sourcing) = source_group(rt, url, n);
    let joined = rt.block_on(async {
        let names: Vec<String> = (0..members).map(|m| format!("m{m}")).collect();
        let mut joined = Vec::new();
        for name in &names {
            let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
            let template = pull::Config {
                ack_wait: Duration::from_secs(30),
                max_ack_pending: group_max_ack_pending(),
                ..Default::default()
            };
            joined.push((groups::join(&js, Kind::Elastic, "KEYED", "bench", name, template).await.unwrap(), js));
        }
        (js, joined)
    });
    let (js, members) = joined;
    let members = members.into_iter().map(|(member, js)| (js, member)).collect();
    let run = counted_drain(rt, ack_each(members, n));
    rt.block_on(groups::delete(&js, Kind::Elastic, "KEYED", "bench")).unwrap();
    (sourcing, run)
}

/// `n` messages read by `readers` (each on its own connection), each
/// acked as it comes, one task per reader: the run.
async fn ack_each<S, M, E>(readers: Vec<(natsjet::jetstream::Context, S)>, n: usize) -> Run
where
    S: futures_util::Stream<Item = Result<M, E>> + Unpin + Send + 'static,
    M: Acked + Send,
    E: std::fmt::Debug + Send,
{
    let (done, finished) = (Arc::new(AtomicUsize::new(0)), Arc::new(tokio::sync::watch::Sender::new(false)));
    let clock = Stopwatch::start();
    let mut tasks = Vec::new();
    for (js, mut messages) in readers {
        let (done, finished) = (done.clone(), finished.clone());
        tasks.push(tokio::spawn(async move {
            let mut all_in = finished.subscribe();
            loop {
                tokio::select! {
                    m = messages.next() => {
                        m.unwrap().unwrap().message().ack().await.unwrap();
                        if done.fetch_add(1, Ordering::Relaxed) + 1 >= n {
                            finished.send_replace(true);
                        }
                    }
                    () = async { drop(all_in.wait_for(|all| *all).await) } => break,
                }
            }
            js.client().flush().await.unwrap();
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    clock.stop(n)
}

/// A message [`ack_each`] acks: a reader's, or a group member's.
trait Acked {
    fn message(&self) -> &natsjet::jetstream::Message;
}

impl Acked for natsjet::jetstream::Message {
    fn message(&self) -> &natsjet::jetstream::Message {
        self
    }
}

impl Acked for natsjet::jetstream::groups::GroupMessage {
    fn message(&self) -> &natsjet::jetstream::Message {
        &self.message
    }
}

/// How a drain of the group's work-queue stream reads it (the breakdown of
/// what the group costs, `CONSUME_ONLY=groups-breakdown`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WorkQueueReading {
    /// 4 workers on one durable with no filter.
    Plain,
    /// One consumer per member with the member's filters, no priority group.
    Filtered,
    /// The members' own consumers (filters, pinned priority group), read
    /// without the member's order gate.
    Pinned,
}

/// Creates the elastic group `bench` over `KEYED` (4 members, 8 partitions)
/// and waits until its work-queue stream holds all `n` messages: the
/// sourcing, as a run of its own.
fn source_group(rt: &Runtime, url: &str, n: usize) -> (natsjet::jetstream::Context, Run) {
    use natsjet::jetstream::groups::{self, ElasticConfig, PartitioningFilter};
    rt.block_on(async {
        let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
        let filter = PartitioningFilter { filter: "keyed.*".into(), partitioning_wildcards: Some(vec![1]) };
        let config = ElasticConfig { max_members: 8, partitioning_filters: Some(vec![filter]), ..Default::default() };
        let clock = Stopwatch::start();
        groups::create_elastic(&js, "KEYED", "bench", config).await.unwrap();
        let mut sourced = js.get_stream("KEYED-bench").await.unwrap();
        while (sourced.info().await.unwrap().state.messages as usize) < n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let run = clock.stop(n);
        let names: Vec<String> = (0..4).map(|m| format!("m{m}")).collect();
        groups::add_members(&js, "KEYED", "bench", &names).await.unwrap();
        (js, run)
    })
}

/// One drain of the sourced work-queue stream `KEYED-bench` as `reading`
/// says (4 workers, each on its own connection, an ack per message).
fn work_queue_drain(rt: &Runtime, url: &str, n: usize, reading: WorkQueueReading) -> Run {
    use natsjet::jetstream::groups::{self, Kind, member};
    use natsjet::jetstream::pull::{ConsumeOptions, PriorityOptions};
    let (js, _) = source_group(rt, url, n);
    if reading == WorkQueueReading::Plain {
        let run = natsjet_drain_acking(rt, url, "KEYED-bench", n, 4, Reading::Defaults, Acking::Each);
        rt.block_on(groups::delete(&js, Kind::Elastic, "KEYED", "bench")).unwrap();
        return run;
    }
    let readers = rt.block_on(async {
        let document = groups::elastic_config(&js, "KEYED", "bench").await.unwrap();
        let mut readers = Vec::new();
        for m in 0..4 {
            let name = format!("m{m}");
            let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
            let template = ConsumerConfig {
                ack_policy: AckPolicy::Explicit,
                ack_wait: Duration::from_secs(30),
                max_ack_pending: group_max_ack_pending(),
                ..Default::default()
            };
            let mut config = member::elastic_consumer_config(&template, &name, document.member_filters(&name)).unwrap();
            let mut options = ConsumeOptions {
                expires: Some(Duration::from_secs(15)),
                max_messages: std::env::var("GROUP_PULL").ok().and_then(|s| s.parse().ok()),
                ..Default::default()
            };
            if reading == WorkQueueReading::Pinned {
                options.priority = Some(PriorityOptions { group: "PCG".into(), ..Default::default() });
            } else {
                config.priority_groups = Vec::new();
                config.priority_policy = Default::default();
                config.priority_timeout = Duration::ZERO;
            }
            let consumer = js.create_consumer_on_stream(config, "KEYED-bench").await.unwrap();
            readers.push((js, consumer.consume_with(options).unwrap()));
        }
        readers
    });
    let run = counted_drain(rt, ack_each(readers, n));
    rt.block_on(groups::delete(&js, Kind::Elastic, "KEYED", "bench")).unwrap();
    run
}

/// Where the group's cost is: the durable on the origin stream, the
/// sourcing, and drains of the sourced work-queue stream with each of the
/// group's parts added in turn, up to the members themselves; medians of
/// `passes` passes, one line each.
fn group_breakdown(rt: &Runtime, url: &str, passes: usize) {
    let keyed = scale(20_000);
    rt.block_on(fill_keyed(url, keyed));
    let names = [
        "durable on the origin stream (limits), 4 workers",
        "sourcing into the work-queue stream",
        "durable on the work-queue stream, 4 workers",
        "4 consumers with the members' filters",
        "the members' consumers (filters, pinned), no gate",
        "the members (join: pinned consumers + gate)",
    ];
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); names.len()];
    for pass in 0..passes {
        let mut order: Vec<usize> = vec![0, 2, 3, 4, 5];
        if pass % 2 == 1 {
            order.reverse();
        }
        for i in order {
            let run = match i {
                0 => natsjet_drain_acking(rt, url, "KEYED", keyed, 4, Reading::Defaults, Acking::Each),
                2 => work_queue_drain(rt, url, keyed, WorkQueueReading::Plain),
                3 => work_queue_drain(rt, url, keyed, WorkQueueReading::Filtered),
                4 => work_queue_drain(rt, url, keyed, WorkQueueReading::Pinned),
                _ => {
                    let (sourcing, run) = group_drain_sourced(rt, url, keyed, 4);
                    runs[1].push(sourcing);
                    run
                }
            };
            runs[i].push(run);
        }
    }
    println!();
    println!(
        "the group's cost, {keyed} x 128 B over {} keys, max_ack_pending {}, medians of {passes} passes (CPU per message; the server's read and write syscalls per message):",
        keys(),
        group_max_ack_pending()
    );
    for (name, runs) in names.iter().zip(&runs) {
        let r = support::median(runs);
        println!(
            "  {name:<52} {:>8.0} /s, client {:>6.2} µs, server {:>6.2} µs, reads {:.2}, writes {:.2}",
            r.per_second, r.cpu_us_per_op, r.server_us_per_op, r.server_reads_per_op, r.server_writes_per_op
        );
    }
}

/// The group members' `max_ack_pending` (`GROUP_MAX_ACK_PENDING`, 1000 unless set).
fn group_max_ack_pending() -> i64 {
    std::env::var("GROUP_MAX_ACK_PENDING").ok().and_then(|s| s.parse().ok()).unwrap_or(1000)
}

fn async_nats_drain(rt: &Runtime, url: &str, n: usize, workers: usize, reading: Reading) -> Run {
    use async_nats::jetstream::consumer::pull;
    let (stream, name, consumers) = rt.block_on(async {
        let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
        let stream = js.get_stream("DRAIN").await.unwrap();
        let name = format!("d{}", DURABLES.fetch_add(1, Ordering::Relaxed));
        let _: async_nats::jetstream::consumer::PullConsumer = stream
            .create_consumer(pull::Config {
                durable_name: Some(name.clone()),
                ack_policy: async_nats::jetstream::consumer::AckPolicy::Explicit,
                max_ack_pending: 100_000,
                ..Default::default()
            })
            .await
            .unwrap();
        let mut consumers = Vec::new();
        for _ in 0..workers {
            let client = async_nats::connect(url).await.unwrap();
            let js = async_nats::jetstream::new(client.clone());
            let consumer: async_nats::jetstream::consumer::PullConsumer =
                js.get_stream("DRAIN").await.unwrap().get_consumer(&name).await.unwrap();
            consumers.push((client, consumer));
        }
        (stream, name, consumers)
    });
    let run = counted_drain(rt, async move {
        let (done, finished) = (Arc::new(AtomicUsize::new(0)), Arc::new(tokio::sync::watch::Sender::new(false)));
        let clock = Stopwatch::start();
        let mut tasks = Vec::new();
        for (client, consumer) in consumers {
            let (done, finished) = (done.clone(), finished.clone());
            tasks.push(tokio::spawn(async move {
                let mut messages = match reading {
                    Reading::PerPull(n) => consumer.stream().max_messages_per_batch(n).messages().await,
                    _ => consumer.messages().await,
                }
                .unwrap();
                let mut all_in = finished.subscribe();
                loop {
                    tokio::select! {
                        m = messages.next() => {
                            m.unwrap().unwrap().ack().await.unwrap();
                            if done.fetch_add(1, Ordering::Relaxed) + 1 >= n {
                                finished.send_replace(true);
                            }
                        }
                        () = async { drop(all_in.wait_for(|all| *all).await) } => break,
                    }
                }
                client.flush().await.unwrap();
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        clock.stop(n)
    });
    rt.block_on(stream.delete_consumer(&name)).unwrap();
    run
}

/// Runs a drain, its consumers ready: a function of its own, never inlined,
/// which a profiler can be told to count inside (`scripts/callgrind-drain.sh`).
#[inline(never)]
fn counted_drain(rt: &Runtime, drain: impl Future<Output = Run>) -> Run {
    rt.block_on(drain)
}

/// The one drain `CONSUME_ONLY` ("client:workers:per pull") names: the
/// client `natsjet`, `natsjet-ledger` (the ledger drain), `natsjet-batch`
/// (an `AckBatch` per epoch) or `async-nats`.
fn only() -> Option<(&'static str, usize, Reading)> {
    let only = std::env::var("CONSUME_ONLY").ok()?;
    let parts: Vec<&str> = only.split(':').collect();
    let [client, workers, reading] = parts[..] else { panic!("CONSUME_ONLY: client:workers:per pull") };
    let client = ["natsjet", "natsjet-ledger", "natsjet-batch", "async-nats"]
        .into_iter()
        .find(|c| *c == client)
        .expect("CONSUME_ONLY: the client is natsjet, natsjet-ledger, natsjet-batch or async-nats");
    let reading = match reading {
        "defaults" => Reading::Defaults,
        n => Reading::PerPull(n.parse().expect("CONSUME_ONLY: messages per pull, or defaults")),
    };
    Some((client, workers.parse().expect("CONSUME_ONLY: workers"), reading))
}

/// The sweep's natsjet settings from `CONSUME_SWEEP` ("max/threshold,…").
fn sweep() -> Vec<Reading> {
    let Ok(list) = std::env::var("CONSUME_SWEEP") else { return Vec::new() };
    list.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let (max, threshold) = s.trim().split_once('/').expect("CONSUME_SWEEP: max/threshold,…");
            Reading::Ahead {
                max: max.parse().expect("CONSUME_SWEEP: max"),
                threshold: threshold.parse().expect("CONSUME_SWEEP: threshold"),
            }
        })
        .collect()
}

/// Acks per second for `n` fetched messages: one confirmed batch, or one
/// confirmed ack after another.
async fn natsjet_confirmed_acks(url: &str, n: usize, batched: bool) -> Run {
    fill(url, "ACKS", n).await;
    let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
    let consumer = js.create_consumer_on_stream(durable("a"), "ACKS").await.unwrap();
    let fetched: Vec<_> = consumer
        .batch()
        .max_messages(n)
        .expires(Duration::from_secs(10))
        .messages()
        .await
        .unwrap()
        .map(|m| m.unwrap())
        .collect()
        .await;
    assert_eq!(fetched.len(), n);
    let clock = Stopwatch::start();
    if batched {
        let mut batch = AckBatch::new();
        for m in &fetched {
            batch.add_message(m, AckKind::Ack).unwrap();
        }
        let report = batch.commit_confirmed(js.client(), Duration::from_secs(10)).await.unwrap();
        assert_eq!(report.confirmed.len(), n);
    } else {
        for m in &fetched {
            m.double_ack().await.unwrap();
        }
    }
    clock.stop(n)
}

async fn async_nats_confirmed_acks(url: &str, n: usize) -> Run {
    use async_nats::jetstream::consumer::pull;
    fill(url, "ACKS", n).await;
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let consumer: async_nats::jetstream::consumer::PullConsumer = js
        .get_stream("ACKS")
        .await
        .unwrap()
        .create_consumer(pull::Config {
            durable_name: Some("a".into()),
            max_ack_pending: 100_000,
            ..Default::default()
        })
        .await
        .unwrap();
    let mut batch = consumer.batch().max_messages(n).expires(Duration::from_secs(10)).messages().await.unwrap();
    let mut fetched = Vec::new();
    while let Some(m) = batch.next().await {
        fetched.push(m.unwrap());
    }
    assert_eq!(fetched.len(), n);
    let clock = Stopwatch::start();
    for m in &fetched {
        m.double_ack().await.unwrap();
    }
    clock.stop(n)
}

/// Order per key: an elastic group's 4 members against 4 workers on one
/// durable, same keyed stream, alternating; prints one line.
fn order_per_key(rt: &Runtime, url: &str, passes: usize) {
    let keyed = scale(20_000);
    rt.block_on(fill_keyed(url, keyed));
    let (mut grouped, mut sourced, mut shared) = (Vec::new(), Vec::new(), Vec::new());
    let group = |grouped: &mut Vec<Run>, sourced: &mut Vec<Run>| {
        let (sourcing, drain) = group_drain_sourced(rt, url, keyed, 4);
        grouped.push(drain);
        sourced.push(sourcing);
    };
    for pass in 0..passes {
        if pass % 2 == 0 {
            group(&mut grouped, &mut sourced);
            shared.push(natsjet_drain_acking(rt, url, "KEYED", keyed, 4, Reading::Defaults, Acking::Each));
        } else {
            shared.push(natsjet_drain_acking(rt, url, "KEYED", keyed, 4, Reading::Defaults, Acking::Each));
            group(&mut grouped, &mut sourced);
        }
    }
    let (g, s, d) = (support::median(&grouped), support::median(&sourced), support::median(&shared));
    // Sourcing then draining, one after the other: the group's rate end to end.
    let end_to_end: Vec<f64> = grouped
        .iter()
        .zip(&sourced)
        .map(|(g, s)| keyed as f64 / (keyed as f64 / g.per_second + keyed as f64 / s.per_second))
        .collect();
    let mut sorted = end_to_end.clone();
    sorted.sort_by(f64::total_cmp);
    let with_sourcing = sorted[sorted.len() / 2];
    println!();
    println!(
        "order per key, {keyed} x 128 B over {} keys, medians of {passes} passes (natsjet both; CPU per message):",
        keys()
    );
    println!(
        "  elastic group, 4 members, strict order, max_ack_pending {}: {:.0} /s, client {:.2} µs, server {:.2} µs (drain after sourcing)",
        group_max_ack_pending(),
        g.per_second,
        g.cpu_us_per_op,
        g.server_us_per_op
    );
    println!(
        "  sourcing into the group's work-queue stream:  {:.0} /s, server {:.2} µs; sourcing + drain: {with_sourcing:.0} /s",
        s.per_second, s.server_us_per_op
    );
    println!(
        "  4 workers on one durable, no order:    {:.0} /s, client {:.2} µs, server {:.2} µs",
        d.per_second, d.cpu_us_per_op, d.server_us_per_op
    );
    println!(
        "  group / durable: {:.2}x (drain after sourcing), {:.2}x (sourcing + drain)",
        g.per_second / d.per_second,
        with_sourcing / d.per_second
    );
}

fn main() {
    let server = common::NatsServer::start_jetstream();
    let url = server.client_url();
    let groups_only = std::env::var("CONSUME_ONLY").ok().filter(|o| o.starts_with("groups"));
    if let Some(which) = groups_only {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        let passes: usize = std::env::var("BENCH_PASSES").ok().and_then(|s| s.parse().ok()).unwrap_or(3).max(1);
        support::watch_server(Some(server.pid()));
        if which == "groups-breakdown" {
            group_breakdown(&rt, &url, passes);
        } else {
            order_per_key(&rt, &url, passes);
        }
        return;
    }
    let only = only();
    let rt = match only {
        Some(_) if std::env::var_os("CONSUME_MULTI").is_none() => {
            tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
        }
        _ => tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap(),
    };
    let drain = scale(200_000);
    let acks = scale(10_000);
    let passes: usize = std::env::var("BENCH_PASSES").ok().and_then(|s| s.parse().ok()).unwrap_or(3).max(1);
    support::watch_server(Some(server.pid()));
    rt.block_on(fill(&url, "DRAIN", drain));
    if let Some((client, workers, reading)) = only {
        for _ in 0..passes {
            let run = match client {
                "async-nats" => async_nats_drain(&rt, &url, drain, workers, reading),
                "natsjet-ledger" => natsjet_drain_acking(&rt, &url, "DRAIN", drain, workers, reading, Acking::Ledger),
                "natsjet-batch" => natsjet_drain_acking(&rt, &url, "DRAIN", drain, workers, reading, Acking::Batch),
                _ => natsjet_drain(&rt, &url, drain, workers, reading),
            };
            println!(
                "{client}, {workers} worker(s), {}: drained {drain} messages, {:.0} /s, {:.2} µs CPU/msg",
                reading.name(),
                run.per_second,
                run.cpu_us_per_op
            );
        }
        return;
    }
    // Each of natsjet's readings against async-nats's defaults, or against
    // the same messages per pull.
    let mut readings = vec![Reading::Defaults, Reading::PerPull(BATCH as usize)];
    readings.extend(sweep());
    let theirs_for = |r: Reading| match r {
        Reading::PerPull(n) => Reading::PerPull(n),
        _ => Reading::Defaults,
    };
    let theirs_readings = [Reading::Defaults, Reading::PerPull(BATCH as usize)];
    let mut ours: Vec<Vec<Run>> = vec![Vec::new(); 2 * readings.len()];
    let mut theirs: Vec<Vec<Run>> = vec![Vec::new(); 2 * theirs_readings.len()];
    let ackings = [Acking::Ledger, Acking::Batch, Acking::Each];
    let mut held: Vec<Vec<Run>> = vec![Vec::new(); ackings.len()];
    for pass in 0..passes {
        // The ledger's cost: its 4-worker drain against an AckBatch per
        // epoch by hand and against acking each message, alternating.
        let mut order: Vec<usize> = (0..ackings.len()).collect();
        if pass % 2 == 1 {
            order.reverse();
        }
        for i in order {
            held[i].push(natsjet_drain_acking(&rt, &url, "DRAIN", drain, 4, Reading::Defaults, ackings[i]));
        }
        // Alternating order: neither client always runs on a warmer server.
        for (w, workers) in [1, 4].into_iter().enumerate() {
            let mut order: Vec<(bool, usize)> = (0..readings.len()).map(|i| (true, i)).collect();
            order.extend((0..theirs_readings.len()).map(|i| (false, i)));
            if pass % 2 == 1 {
                order.reverse();
            }
            for (natsjet, i) in order {
                if natsjet {
                    ours[w * readings.len() + i].push(natsjet_drain(&rt, &url, drain, workers, readings[i]));
                } else {
                    let run = async_nats_drain(&rt, &url, drain, workers, theirs_readings[i]);
                    theirs[w * theirs_readings.len() + i].push(run);
                }
            }
        }
    }
    println!("durable drain {drain} x 128 B + ack per message: medians of {passes} alternating passes");
    support::header();
    let mut drains = Vec::new();
    let mut spreads = Vec::new();
    for (w, workers) in [1, 4].into_iter().enumerate() {
        for (i, &reading) in readings.iter().enumerate() {
            let j = theirs_readings.iter().position(|t| t.name() == theirs_for(reading).name()).unwrap();
            let (o, t) = (&ours[w * readings.len() + i], &theirs[w * theirs_readings.len() + j]);
            let name = format!("{workers} worker(s), natsjet {} vs {}", reading.name(), theirs_for(reading).name());
            support::row(&name, support::median(o), support::median(t));
            drains.push((name.clone(), support::median(o), support::median(t)));
            spreads.push((name, support::spread(o), support::spread(t)));
        }
    }
    for (name, theirs) in
        [("4 workers, natsjet ledger vs natsjet ack each", 2), ("4 workers, natsjet ledger vs AckBatch/epoch", 1)]
    {
        support::row(name, support::median(&held[0]), support::median(&held[theirs]));
        drains.push((name.to_string(), support::median(&held[0]), support::median(&held[theirs])));
        spreads.push((name.to_string(), support::spread(&held[0]), support::spread(&held[theirs])));
    }
    support::server_table(&drains);
    println!();
    println!("| {:<50} | {:>22} | {:>22} |", "spread of throughput (max - min) / median", "natsjet", "async-nats");
    println!("|{:-<52}|{:-<24}|{:-<24}|", "", "", "");
    for (name, o, t) in spreads {
        println!("| {name:<50} | {:>21.0}% | {:>21.0}% |", o, t);
    }
    order_per_key(&rt, &url, passes);
    let batched = rt.block_on(natsjet_confirmed_acks(&url, acks, true));
    let one_by_one = rt.block_on(natsjet_confirmed_acks(&url, acks, false));
    let their_acks = rt.block_on(async_nats_confirmed_acks(&url, acks));
    println!();
    support::header();
    support::row(&format!("confirmed acks {acks}: AckBatch vs double_ack"), batched, their_acks);
    support::row(&format!("confirmed acks {acks}: double_ack each"), one_by_one, their_acks);
    println!(
        "AckBatch confirmed commit vs natsjet per-message double_ack: {:.1}x",
        batched.per_second / one_by_one.per_second
    );
}
