//! Soak, run by hand (not in CI): acked publishing and 4 shared-durable
//! workers through the fault proxy, which cuts every connection every
//! interval; every interval a line with throughput, reconnects and resident
//! memory, at the end the loss line.
//!
//! ```text
//! scripts/soak.sh                      # 10 minutes, a cut and a line every 30 s (debug build)
//! scripts/soak.sh --release            # the same, optimized
//! NATSJET_SOAK_SECS=150 scripts/soak.sh
//! ```
//!
//! `NATSJET_SOAK_SECS` (default 600) and `NATSJET_SOAK_INTERVAL_SECS`
//! (default 30) set the length and the interval. The stream is a work
//! queue, so what is acked leaves the server's store.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use common::{FaultProxy, LossLedger, NatsServer, publish_with_retries, work_and_ack};
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, RetentionPolicy, StreamConfig};
use natsjet::jetstream::{self, Context};

const WORKERS: usize = 4;
/// Ids per publishing round, and the most published but not yet consumed before a round.
const ROUND: u64 = 2_000;
const BACKLOG: u64 = 20_000;

fn secs(var: &str, default: u64) -> Duration {
    Duration::from_secs(std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default))
}

/// Resident memory of process `pid` in MiB, from /proc.
fn rss_mib(pid: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next());
    kib.and_then(|k| k.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0
}

async fn client(url: &str) -> Context {
    let client = natsjet::ConnectOptions::new()
        .ping_interval(Duration::from_secs(1))
        .max_pings_outstanding(3)
        .reconnect_delay(Duration::from_millis(100), Duration::from_millis(100))
        .connect(url)
        .await
        .unwrap();
    let mut js = jetstream::new(client);
    js.set_timeout(Duration::from_secs(2));
    js
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a soak, run by hand with scripts/soak.sh"]
async fn soak_publish_and_shared_consume_through_cuts() {
    let (length, interval) = (secs("NATSJET_SOAK_SECS", 600), secs("NATSJET_SOAK_INTERVAL_SECS", 30));
    let server = NatsServer::start_jetstream();
    let proxy = FaultProxy::start(server.port());
    let checker = jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    let stream = StreamConfig {
        name: "SOAK".into(),
        subjects: vec!["SOAK.>".into()],
        retention: RetentionPolicy::WorkQueue,
        ..Default::default()
    };
    checker.create_stream(stream).await.unwrap();
    let consumer = ConsumerConfig {
        durable_name: Some("soak".into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait: Duration::from_secs(5),
        max_ack_pending: 2_000,
        ..Default::default()
    };
    checker.get_stream("SOAK").await.unwrap().create_consumer(consumer).await.unwrap();

    let ledger = LossLedger::new();
    let publisher = {
        let (js, ledger) = (client(&proxy.nats_url()).await, ledger.clone());
        tokio::spawn(async move {
            // In rounds, each once the backlog is short: the soak runs at the workers' pace.
            for round in 0u64.. {
                while ledger.backlog() > BACKLOG {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                publish_with_retries(&js, "SOAK", round * ROUND..(round + 1) * ROUND, &ledger, |_| {}).await;
            }
        })
    };
    let mut workers = Vec::new();
    for _ in 0..WORKERS {
        workers.push(tokio::spawn(work_and_ack(client(&proxy.nats_url()).await, "SOAK", "soak", ledger.clone())));
    }
    let connections = 1 + WORKERS;

    println!("soak: {length:?}, a cut and a line every {interval:?}");
    println!(
        "   t s | publish/s | consume/s | published | consumed | reconnects | client RSS MiB | ledger MiB | server RSS MiB"
    );
    let started = Instant::now();
    let server_pid = server.pid().to_string();
    let mut last = ledger.report();
    while started.elapsed() < length {
        tokio::time::sleep(interval).await;
        let now = ledger.report();
        let per_second = |a: u64, b: u64| (a - b) as f64 / interval.as_secs_f64();
        println!(
            "{:>6.0} | {:>9.0} | {:>9.0} | {:>9} | {:>8} | {:>10} | {:>13.1} | {:>10.1} | {:>14.1}",
            started.elapsed().as_secs_f64(),
            per_second(now.server_acked, last.server_acked),
            per_second(now.consumed, last.consumed),
            now.server_acked,
            now.consumed,
            proxy.accepted().saturating_sub(connections),
            rss_mib("self"),
            ledger.footprint() as f64 / (1 << 20) as f64,
            rss_mib(&server_pid),
        );
        last = now;
        proxy.cut();
    }
    publisher.abort();
    // Drain what the server acked, then the loss line.
    let drained = tokio::time::timeout(Duration::from_secs(60), async {
        while !ledger.missing().is_empty() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let drained = drained.await;
    workers.iter().for_each(|w| w.abort());
    drained.unwrap_or_else(|_| panic!("not drained: {:?}", ledger.report()));
    ledger.check("soak", ledger.report().server_acked / 100);
}
