//! Key-Value benchmark: natsjet side by side with async-nats in one run,
//! against one local nats-server started here.
//!
//! Run with `cargo bench --bench kv` (`BENCH_SCALE=0.1` for a quick pass).
//! Sequential puts then sequential gets of 100 B values (each a round trip:
//! operations per second and their latency percentiles), and a watch of a
//! bucket of 100,000 keys from its start to the caught-up signal.

#[path = "../tests/common/mod.rs"]
mod common;
mod support;

use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use support::{Run, Stopwatch, scale};

const VALUE: [u8; 100] = [b'v'; 100];

/// Latencies of one pass, sorted.
struct Pass {
    run: Run,
    latencies: Vec<Duration>,
}

impl Pass {
    fn percentile(&self, p: f64) -> Duration {
        let at = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[at]
    }
}

async fn timed<F: Future>(n: usize, mut op: impl FnMut(usize) -> F) -> Pass {
    let mut latencies = Vec::with_capacity(n);
    let clock = Stopwatch::start();
    for i in 0..n {
        let start = Instant::now();
        op(i).await;
        latencies.push(start.elapsed());
    }
    let run = clock.stop(n);
    latencies.sort();
    Pass { run, latencies }
}

fn key(i: usize) -> String {
    format!("k.{}", i % 1000)
}

async fn natsjet_ops(url: &str, n: usize) -> (Pass, Pass) {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let _ = js.delete_key_value("bench").await;
    let kv = js
        .create_key_value(natsjet::jetstream::kv::Config { bucket: "bench".into(), ..Default::default() })
        .await
        .unwrap();
    let kv = &kv;
    let puts = timed(n, |i| async move { kv.put(key(i), Bytes::from_static(&VALUE)).await.unwrap() }).await;
    let gets = timed(n, |i| async move { kv.get(key(i)).await.unwrap().unwrap() }).await;
    (puts, gets)
}

async fn async_nats_ops(url: &str, n: usize) -> (Pass, Pass) {
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let _ = js.delete_key_value("bench").await;
    let kv = js
        .create_key_value(async_nats::jetstream::kv::Config { bucket: "bench".into(), ..Default::default() })
        .await
        .unwrap();
    let kv = &kv;
    let puts = timed(n, |i| async move { kv.put(key(i), Bytes::from_static(&VALUE)).await.unwrap() }).await;
    let gets = timed(n, |i| async move { kv.get(key(i)).await.unwrap().unwrap() }).await;
    (puts, gets)
}

/// A fresh bucket `watch` holding `keys` keys, filled with pipelined publishes.
async fn fill(url: &str, keys: usize) {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let _ = js.delete_key_value("watch").await;
    js.create_key_value(natsjet::jetstream::kv::Config { bucket: "watch".into(), ..Default::default() }).await.unwrap();
    let mut acks = std::collections::VecDeque::new();
    for i in 0..keys {
        if acks.len() == 256 {
            let ack: natsjet::jetstream::PublishAckFuture = acks.pop_front().unwrap();
            ack.await.unwrap();
        }
        acks.push_back(js.publish(format!("$KV.watch.w.{i}"), Bytes::from_static(&VALUE)).await.unwrap());
    }
    for ack in acks {
        ack.await.unwrap();
    }
}

/// Seconds from asking for a watch of every key's last value to the entry that is caught up.
async fn natsjet_catch_up(url: &str) -> (f64, usize) {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let kv = js.get_key_value("watch").await.unwrap();
    let start = Instant::now();
    let mut watch = kv.watch_with_history(">").await.unwrap();
    let mut seen = 0;
    while let Some(entry) = watch.next().await {
        seen += 1;
        if entry.unwrap().seen_current {
            break;
        }
    }
    (start.elapsed().as_secs_f64(), seen)
}

async fn async_nats_catch_up(url: &str) -> (f64, usize) {
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let kv = js.get_key_value("watch").await.unwrap();
    let start = Instant::now();
    let mut watch = kv.watch_with_history(">").await.unwrap();
    let mut seen = 0;
    while let Some(entry) = watch.next().await {
        seen += 1;
        if entry.unwrap().seen_current {
            break;
        }
    }
    (start.elapsed().as_secs_f64(), seen)
}

fn latency_row(name: &str, ours: &Pass, theirs: &Pass) {
    support::row(name, ours.run, theirs.run);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "| {:<50} | {:>10.1} µs | {:>10.1} µs | {:>5.2}x | p99 {:>8.1} µs | p99 {:>8.1} µs |",
        format!("  {name}: p50"),
        us(ours.percentile(0.5)),
        us(theirs.percentile(0.5)),
        us(theirs.percentile(0.5)) / us(ours.percentile(0.5)),
        us(ours.percentile(0.99)),
        us(theirs.percentile(0.99)),
    );
}

fn main() {
    let server = common::NatsServer::start_jetstream();
    support::watch_server(Some(server.pid()));
    let url = server.client_url();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let ops = scale(10_000);
    // Warm up both clients and the server once.
    rt.block_on(natsjet_ops(&url, ops / 10));
    rt.block_on(async_nats_ops(&url, ops / 10));

    support::header();
    // Passes alternate, so a noisy moment hurts both alike; the best of three counts.
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        ours.push(rt.block_on(natsjet_ops(&url, ops)));
        theirs.push(rt.block_on(async_nats_ops(&url, ops)));
    }
    let best = |passes: &[(Pass, Pass)], put: bool| {
        let pick = |p: &(Pass, Pass)| if put { p.0.run.per_second } else { p.1.run.per_second };
        (0..passes.len()).max_by(|&a, &b| pick(&passes[a]).total_cmp(&pick(&passes[b]))).unwrap()
    };
    let (op, tp) = (best(&ours, true), best(&theirs, true));
    latency_row(&format!("KV put {ops} x 100 B, sequential"), &ours[op].0, &theirs[tp].0);
    let (og, tg) = (best(&ours, false), best(&theirs, false));
    latency_row(&format!("KV get {ops} x 100 B, sequential"), &ours[og].1, &theirs[tg].1);

    let keys = scale(100_000);
    rt.block_on(fill(&url, keys));
    let mut rows = Vec::new();
    for _ in 0..3 {
        rows.push((rt.block_on(natsjet_catch_up(&url)), rt.block_on(async_nats_catch_up(&url))));
    }
    let ours = rows.iter().map(|r| r.0.0).fold(f64::INFINITY, f64::min);
    let theirs = rows.iter().map(|r| r.1.0).fold(f64::INFINITY, f64::min);
    println!();
    println!(
        "watch catch-up, {keys} keys: natsjet {:.3} s ({} entries), async-nats {:.3} s ({} entries): {:.2}x",
        ours,
        rows[0].0.1,
        theirs,
        rows[0].1.1,
        theirs / ours
    );
    drop(rt);
    std::thread::sleep(Duration::from_millis(50));
}
