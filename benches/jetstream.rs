//! JetStream publish benchmark: natsjet side by side with async-nats in one
//! run, against one local nats-server started here; then natsjet's atomic
//! batches of 100 and of 1000 and its fast ingest (one fast batch, flow 10
//! and 100) against the same messages through its acked publish window and
//! async-nats's acked publish; then counter increments (ADR-49): one at a
//! time through `Counter::add`, and 256 in flight as `Nats-Incr` publishes,
//! next to async-nats's.
//!
//! Run with `cargo bench --bench jetstream` (`BENCH_SCALE=0.1` for a quick
//! pass). Each run publishes 128 B messages to a fresh file-storage stream,
//! with at most 256 acks outstanding, and ends when every ack is in; a
//! batch run sends its batches one after the other, each ending when its
//! commit is acknowledged (ADR-50: the first message and the commit are
//! answered, the others are not).

#[path = "../tests/common/mod.rs"]
mod common;
mod support;

use std::collections::VecDeque;
use std::fmt::Debug;
use std::time::Duration;

use support::{Run, Stopwatch, scale};

use bytes::Bytes;
use natsjet::jetstream::api::{self, StorageType, StreamConfig, StreamInfo};

const PAYLOAD: [u8; 128] = [b'x'; 128];
const STREAM: &str = "BENCH";
const SUBJECT: &str = "bench.js";
const IN_FLIGHT: usize = 256;

/// Deletes the stream of the last run (if any) and creates it again, empty
/// (taking atomic batches: `allow_atomic` changes nothing for other publishes).
async fn fresh_stream(url: &str) {
    fresh_stream_on(url, StorageType::File).await
}

async fn fresh_stream_on(url: &str, storage: StorageType) {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let delete = api::stream_delete(js.api_prefix(), STREAM).unwrap();
    let _ = js.request_raw::<api::DeleteResponse>(&delete, b"").await;
    let subjects = vec![SUBJECT.into()];
    let config = StreamConfig {
        name: STREAM.into(),
        subjects,
        storage,
        allow_atomic_publish: true,
        allow_batch_publish: true,
        ..Default::default()
    };
    let create = api::stream_create(js.api_prefix(), STREAM).unwrap();
    let _: StreamInfo = js.request(&create, &config).await.unwrap();
}

/// Messages per second, both clients driven the same way: a queue of ack
/// futures, the oldest awaited once 256 are outstanding.
async fn pipelined<P, A, T, E1, E2>(n: usize, mut publish: impl FnMut() -> P) -> Run
where
    P: Future<Output = Result<A, E1>>,
    A: IntoFuture<Output = Result<T, E2>>,
    E1: Debug,
    E2: Debug,
{
    let mut pending: VecDeque<A> = VecDeque::with_capacity(IN_FLIGHT);
    let clock = Stopwatch::start();
    for _ in 0..n {
        if pending.len() == IN_FLIGHT {
            pending.pop_front().unwrap().await.unwrap();
        }
        pending.push_back(publish().await.unwrap());
    }
    for ack in pending {
        ack.await.unwrap();
    }
    clock.stop(n)
}

async fn natsjet_publish(url: &str, n: usize) -> Run {
    fresh_stream(url).await;
    let js = &natsjet::connect(url).await.unwrap().jetstream();
    js.set_max_ack_inflight(IN_FLIGHT);
    pipelined(n, || js.publish(SUBJECT, Bytes::from_static(&PAYLOAD))).await
}

/// `n` messages as atomic batches of `size` (the last one smaller if need be).
async fn natsjet_batches(url: &str, n: usize, size: usize, storage: StorageType) -> Run {
    fresh_stream_on(url, storage).await;
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let clock = Stopwatch::start();
    let mut left = n;
    while left > 0 {
        let count = left.min(size);
        let mut batch = js.batch_publish().build();
        for _ in 1..count {
            batch.add(SUBJECT, Bytes::from_static(&PAYLOAD)).await.unwrap();
        }
        let ack = batch.commit(SUBJECT, Bytes::from_static(&PAYLOAD)).await.unwrap();
        assert_eq!(ack.batch_size, Some(count as u64));
        left -= count;
    }
    clock.stop(n)
}

/// `n` messages as one fast batch asking for a flow ack every `flow`.
async fn natsjet_fast(url: &str, n: usize, flow: u16, storage: StorageType) -> Run {
    fresh_stream_on(url, storage).await;
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let clock = Stopwatch::start();
    let mut fast = js.fast_publish().flow(flow).build();
    for _ in 1..n {
        fast.add(SUBJECT, Bytes::from_static(&PAYLOAD)).await.unwrap();
    }
    let ack = fast.commit(SUBJECT, Bytes::from_static(&PAYLOAD)).await.unwrap();
    assert_eq!(ack.batch_size, Some(n as u64));
    clock.stop(n)
}

const COUNTERS: &str = "COUNT";
const COUNTER: &str = "count.hits";

/// A fresh counter stream (`allow_msg_counter`, `allow_direct`).
async fn fresh_counters(url: &str) -> natsjet::jetstream::Context {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let _ = js.delete_stream(COUNTERS).await;
    let config = StreamConfig {
        name: COUNTERS.into(),
        subjects: vec!["count.>".into()],
        allow_message_counter: true,
        allow_direct: true,
        ..Default::default()
    };
    js.create_stream(config).await.unwrap();
    js
}

/// `n` increments one after the other, each returning the new total.
async fn natsjet_counter_adds(url: &str, n: usize) -> Run {
    let counter = fresh_counters(url).await.get_counter(COUNTERS).await.unwrap();
    let clock = Stopwatch::start();
    for _ in 0..n {
        counter.add(COUNTER, 1).await.unwrap();
    }
    let run = clock.stop(n);
    assert_eq!(counter.load(COUNTER).await.unwrap(), n.into());
    run
}

/// `n` increments as `Nats-Incr` publishes, 256 acks in flight.
async fn natsjet_increments(url: &str, n: usize) -> Run {
    let js = &fresh_counters(url).await;
    js.set_max_ack_inflight(IN_FLIGHT);
    let incr = || natsjet::jetstream::Publish::build().header("Nats-Incr", "1");
    let run = pipelined(n, || js.send_publish(COUNTER, incr())).await;
    let counter = js.get_counter(COUNTERS).await.unwrap();
    assert_eq!(counter.load(COUNTER).await.unwrap(), n.into());
    run
}

async fn async_nats_increments(url: &str, n: usize) -> Run {
    fresh_counters(url).await;
    let client = async_nats::connect(url).await.unwrap();
    let js = &async_nats::jetstream::context::ContextBuilder::new().max_ack_inflight(IN_FLIGHT).build(client);
    let incr = || {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("Nats-Incr", "1");
        headers
    };
    pipelined(n, || js.publish_with_headers(COUNTER, incr(), Bytes::new())).await
}

async fn async_nats_publish(url: &str, n: usize) -> Run {
    fresh_stream(url).await;
    let client = async_nats::connect(url).await.unwrap();
    let js = &async_nats::jetstream::context::ContextBuilder::new().max_ack_inflight(IN_FLIGHT).build(client);
    pipelined(n, || js.publish(SUBJECT, Bytes::from_static(&PAYLOAD))).await
}

fn main() {
    let server = common::NatsServer::start_jetstream();
    let url = server.client_url();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let publishes = scale(100_000);
    // Warm up both clients and the server once.
    rt.block_on(natsjet_publish(&url, publishes / 10));
    rt.block_on(async_nats_publish(&url, publishes / 10));

    support::header();
    let ours = support::best(3, || rt.block_on(natsjet_publish(&url, publishes)));
    let theirs = support::best(3, || rt.block_on(async_nats_publish(&url, publishes)));
    support::row(&format!("JetStream publish {publishes} x 128 B, 256 in flight"), ours, theirs);

    // The same messages as atomic batches, against the acked window, with
    // the server's CPU: a batch answers 2 messages of each, not every one.
    support::watch_server(Some(server.pid()));
    rt.block_on(natsjet_batches(&url, publishes / 10, 100, StorageType::File));
    let window = support::best(3, || rt.block_on(natsjet_publish(&url, publishes)));
    let mut batches = Vec::new();
    for storage in [StorageType::File, StorageType::Memory] {
        for size in [100, 1000] {
            batches.push((
                size,
                storage,
                support::best(3, || rt.block_on(natsjet_batches(&url, publishes, size, storage))),
            ));
        }
    }
    let mut fast = Vec::new();
    for storage in [StorageType::File, StorageType::Memory] {
        for flow in [10, 100] {
            fast.push((flow, storage, support::best(3, || rt.block_on(natsjet_fast(&url, publishes, flow, storage)))));
        }
    }
    let theirs = support::best(3, || rt.block_on(async_nats_publish(&url, publishes)));
    println!();
    println!(
        "| {:<50} | {:>13} | {:>8} | {:>15} | {:>15} |",
        format!("natsjet, {publishes} x 128 B"),
        "messages /s",
        "vs window",
        "client CPU/msg",
        "server CPU/msg"
    );
    println!("|{:-<52}|{:-<15}|{:-<10}|{:-<17}|{:-<17}|", "", "", "", "", "");
    let line = |name: &str, run: Run| {
        println!(
            "| {name:<50} | {:>13.0} | {:>7.2}x | {:>12.2} µs | {:>12.2} µs |",
            run.per_second,
            run.per_second / window.per_second,
            run.cpu_us_per_op,
            run.server_us_per_op
        );
    };
    line("acked publish window, 256 in flight (file)", window);
    for (size, storage, run) in batches {
        line(&format!("atomic batches of {size}, one at a time ({storage:?})").to_lowercase(), run);
    }
    line("async-nats acked publish, 256 in flight (file)", theirs);
    for (flow, storage, run) in fast {
        line(&format!("fast ingest, one batch, flow {flow} ({storage:?})").to_lowercase(), run);
    }

    // Counters: increments per second.
    let increments = publishes / 2;
    let adds = support::best(3, || rt.block_on(natsjet_counter_adds(&url, increments / 10)));
    let ours = support::best(3, || rt.block_on(natsjet_increments(&url, increments)));
    let theirs = support::best(3, || rt.block_on(async_nats_increments(&url, increments)));
    println!();
    support::header();
    support::row(&format!("counter increments {increments}, 256 in flight"), ours, theirs);
    println!(
        "natsjet Counter::add one at a time ({} increments): {:.0} increments/s, {:.2} µs client CPU each",
        increments / 10,
        adds.per_second,
        adds.cpu_us_per_op
    );
    drop(rt);
    std::thread::sleep(Duration::from_millis(50));
}
