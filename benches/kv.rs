//! Key-Value benchmark: natsjet side by side with async-nats in one run,
//! against one local nats-server started here.
//!
//! Run with `cargo bench --bench kv` (`BENCH_SCALE=0.1` for a quick pass,
//! `BENCH_RUNS=n` for the best of n passes instead of 3 and 5).
//! Sequential puts then sequential gets of 100 B values (each a round trip:
//! operations per second and their latency percentiles), and a watch of a
//! bucket of 100,000 keys (the latest value of each) from asking for it to
//! the caught-up entry, as entries per second. The clients' passes
//! alternate, each pass on a connection of its own, and the best counts.

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

/// A watch of every key's latest value, from asking for it to the entry that is caught up
/// (entries per second), and the entries it handed out.
async fn natsjet_catch_up(url: &str) -> (Run, usize) {
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let kv = js.get_key_value("watch").await.unwrap();
    let clock = Stopwatch::start();
    let mut watch = kv.watch_with_history(">").await.unwrap();
    let mut seen = 0;
    while let Some(entry) = watch.next().await {
        seen += 1;
        if entry.unwrap().seen_current {
            break;
        }
    }
    (clock.stop(seen), seen)
}

async fn async_nats_catch_up(url: &str) -> (Run, usize) {
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let kv = js.get_key_value("watch").await.unwrap();
    let clock = Stopwatch::start();
    let mut watch = kv.watch_with_history(">").await.unwrap();
    let mut seen = 0;
    while let Some(entry) = watch.next().await {
        seen += 1;
        if entry.unwrap().seen_current {
            break;
        }
    }
    (clock.stop(seen), seen)
}

fn latency_row(name: &str, ours: &Pass, theirs: &Pass) {
    support::row(name, ours.run, theirs.run);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for (p, at) in [("p50", 0.5), ("p99", 0.99)] {
        let (ours, theirs) = (us(ours.percentile(at)), us(theirs.percentile(at)));
        println!(
            "| {:<50} | {:>10.1} µs | {:>10.1} µs | {:>5.2}x | {:>15} | {:>15} |",
            format!("  {p} latency"),
            ours,
            theirs,
            theirs / ours,
            "",
            ""
        );
    }
}

/// Passes of each client, alternating which goes first (a noisy moment or
/// a warmer server then favours neither); each pass its own connection.
fn alternate<T>(passes: usize, mut ours: impl FnMut() -> T, mut theirs: impl FnMut() -> T) -> (Vec<T>, Vec<T>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for pass in 0..passes {
        if pass % 2 == 0 {
            a.push(ours());
            b.push(theirs());
        } else {
            b.push(theirs());
            a.push(ours());
        }
    }
    (a, b)
}

/// The pass with the highest throughput of what `run` picks.
fn best_by<T>(passes: &[T], run: impl Fn(&T) -> Run) -> &T {
    passes.iter().max_by(|a, b| run(a).per_second.total_cmp(&run(b).per_second)).expect("at least one pass")
}

/// Best of `BENCH_RUNS` passes (default `default`).
fn passes(default: usize) -> usize {
    std::env::var("BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(default).max(1)
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
    // The best put pass and the best get pass of each client count.
    let (ours, theirs) =
        alternate(passes(3), || rt.block_on(natsjet_ops(&url, ops)), || rt.block_on(async_nats_ops(&url, ops)));
    let put = |p: &(Pass, Pass)| p.0.run;
    let get = |p: &(Pass, Pass)| p.1.run;
    let (put_ours, put_theirs) = (&best_by(&ours, put).0, &best_by(&theirs, put).0);
    let (get_ours, get_theirs) = (&best_by(&ours, get).1, &best_by(&theirs, get).1);
    let put_name = format!("KV put {ops} x 100 B, sequential");
    let get_name = format!("KV get {ops} x 100 B, sequential");
    latency_row(&put_name, put_ours, put_theirs);
    latency_row(&get_name, get_ours, get_theirs);

    let keys = scale(100_000);
    rt.block_on(fill(&url, keys));
    // A short run (a fifth of a second): more passes.
    let (ours, theirs) =
        alternate(passes(5), || rt.block_on(natsjet_catch_up(&url)), || rt.block_on(async_nats_catch_up(&url)));
    for (client, passes) in [("natsjet", &ours), ("async-nats", &theirs)] {
        assert!(
            passes.iter().all(|(_, seen)| *seen == keys),
            "{client}: a watch caught up after other than {keys} entries"
        );
    }
    let (watch_ours, watch_theirs) = (best_by(&ours, |p| p.0).0, best_by(&theirs, |p| p.0).0);
    let watch_name = format!("KV watch {keys} keys to caught-up (entries)");
    support::row(&watch_name, watch_ours, watch_theirs);
    println!(
        "watch catch-up: natsjet {:.3} s, async-nats {:.3} s",
        keys as f64 / watch_ours.per_second,
        keys as f64 / watch_theirs.per_second
    );
    support::server_table(&[
        (put_name, put_ours.run, put_theirs.run),
        (get_name, get_ours.run, get_theirs.run),
        (watch_name, watch_ours, watch_theirs),
    ]);
    drop(rt);
    std::thread::sleep(Duration::from_millis(50));
}
