//! JetStream publish benchmark: natsjet side by side with async-nats in one
//! run, against one local nats-server started here.
//!
//! Run with `cargo bench --bench jetstream` (`BENCH_SCALE=0.1` for a quick
//! pass). Each run publishes 128 B messages to a fresh file-storage stream,
//! with at most 256 acks outstanding, and ends when every ack is in.

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::VecDeque;
use std::fmt::Debug;
use std::time::{Duration, Instant};

use bytes::Bytes;
use natsjet::jetstream::api::{self, StreamConfig, StreamInfo};

const PAYLOAD: [u8; 128] = [b'x'; 128];
const STREAM: &str = "BENCH";
const SUBJECT: &str = "bench.js";
const IN_FLIGHT: usize = 256;

fn scale(n: usize) -> usize {
    let s: f64 = std::env::var("BENCH_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0);
    ((n as f64) * s).max(1.0) as usize
}

/// Deletes the stream of the last run (if any) and creates it again, empty.
async fn fresh_stream(url: &str) {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let delete = api::stream_delete(js.api_prefix(), STREAM).unwrap();
    let _ = js.request_raw::<api::DeleteResponse>(&delete, b"").await;
    let config = StreamConfig { name: STREAM.into(), subjects: vec![SUBJECT.into()], ..Default::default() };
    let create = api::stream_create(js.api_prefix(), STREAM).unwrap();
    let _: StreamInfo = js.request(&create, &config).await.unwrap();
}

/// Messages per second, both clients driven the same way: a queue of ack
/// futures, the oldest awaited once 256 are outstanding.
async fn pipelined<P, A, T, E1, E2>(n: usize, mut publish: impl FnMut() -> P) -> f64
where
    P: Future<Output = Result<A, E1>>,
    A: IntoFuture<Output = Result<T, E2>>,
    E1: Debug,
    E2: Debug,
{
    let mut pending: VecDeque<A> = VecDeque::with_capacity(IN_FLIGHT);
    let started = Instant::now();
    for _ in 0..n {
        if pending.len() == IN_FLIGHT {
            pending.pop_front().unwrap().await.unwrap();
        }
        pending.push_back(publish().await.unwrap());
    }
    for ack in pending {
        ack.await.unwrap();
    }
    n as f64 / started.elapsed().as_secs_f64()
}

async fn natsjet_publish(url: &str, n: usize) -> f64 {
    fresh_stream(url).await;
    let js = &natsjet::connect(url).await.unwrap().jetstream();
    js.set_max_ack_inflight(IN_FLIGHT);
    pipelined(n, || js.publish(SUBJECT, Bytes::from_static(&PAYLOAD))).await
}

async fn async_nats_publish(url: &str, n: usize) -> f64 {
    fresh_stream(url).await;
    let client = async_nats::connect(url).await.unwrap();
    let js = &async_nats::jetstream::context::ContextBuilder::new().max_ack_inflight(IN_FLIGHT).build(client);
    pipelined(n, || js.publish(SUBJECT, Bytes::from_static(&PAYLOAD))).await
}

fn row(name: &str, unit: &str, ours: f64, theirs: f64) {
    println!("| {name:<36} | {ours:>12.0} {unit:<6} | {theirs:>12.0} {unit:<6} | {:>6.2}x |", ours / theirs);
}

fn main() {
    let server = common::NatsServer::start_jetstream();
    let url = server.client_url();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let publishes = scale(100_000);
    // Warm up both clients and the server once.
    rt.block_on(natsjet_publish(&url, publishes / 10));
    rt.block_on(async_nats_publish(&url, publishes / 10));

    println!("| {:<36} | {:>19} | {:>19} | {:>7} |", "workload", "natsjet", "async-nats", "ratio");
    println!("|{:-<38}|{:-<21}|{:-<21}|{:-<9}|", "", "", "", "");
    let best = |f: &dyn Fn() -> f64| (0..3).map(|_| f()).fold(0.0, f64::max);
    let ours = best(&|| rt.block_on(natsjet_publish(&url, publishes)));
    let theirs = best(&|| rt.block_on(async_nats_publish(&url, publishes)));
    row(&format!("JetStream publish {publishes} x 128 B"), "msg/s", ours, theirs);
    drop(rt);
    std::thread::sleep(Duration::from_millis(50));
}
