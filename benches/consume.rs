//! JetStream consume benchmark: natsjet side by side with async-nats in one
//! run, against one local nats-server started here.
//!
//! - durable pull drain of 200,000 x 128 B with an ack per message, 1 worker
//!   and 4 workers (each on its own connection) on one durable consumer,
//!   with each library's defaults (`messages()` with no options: what users
//!   run) and with 500 messages per pull for both;
//! - confirmed acks of 10,000 messages: one confirmed `AckBatch` commit
//!   against one `double_ack` per message.
//!
//! Run with `cargo bench --bench consume` (`BENCH_SCALE=0.1` for a quick pass).

#[path = "../tests/common/mod.rs"]
mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use natsjet::jetstream::PullConsumer;
use natsjet::jetstream::ack::{AckBatch, AckKind};
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use support::{Run, Stopwatch, scale};

const PAYLOAD: [u8; 128] = [b'x'; 128];
const BATCH: u64 = 500;

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

/// `batch`: messages per pull, or `None` for the library's defaults.
async fn natsjet_drain(url: &str, n: usize, workers: usize, batch: Option<u64>) -> Run {
    fill(url, "DRAIN", n).await;
    let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
    js.create_consumer_on_stream(durable("d"), "DRAIN").await.unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    let clock = Stopwatch::start();
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let (url, done) = (url.to_string(), done.clone());
        tasks.push(tokio::spawn(async move {
            let js = natsjet::jetstream::new(natsjet::connect(url.as_str()).await.unwrap());
            let consumer: PullConsumer = js.get_consumer_from_stream("d", "DRAIN").await.unwrap();
            let mut messages = match batch {
                Some(batch) => consumer.stream().max_messages_per_batch(batch).messages().await,
                None => consumer.messages().await,
            }
            .unwrap();
            while done.load(Ordering::Relaxed) < n {
                match tokio::time::timeout(Duration::from_millis(200), messages.next()).await {
                    Ok(Some(m)) => {
                        m.unwrap().ack().await.unwrap();
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    _ => continue,
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

async fn async_nats_drain(url: &str, n: usize, workers: usize, batch: Option<u64>) -> Run {
    use async_nats::jetstream::consumer::pull;
    fill(url, "DRAIN", n).await;
    let js = async_nats::jetstream::new(async_nats::connect(url).await.unwrap());
    let stream = js.get_stream("DRAIN").await.unwrap();
    let _: async_nats::jetstream::consumer::PullConsumer = stream
        .create_consumer(pull::Config {
            durable_name: Some("d".into()),
            ack_policy: async_nats::jetstream::consumer::AckPolicy::Explicit,
            max_ack_pending: 100_000,
            ..Default::default()
        })
        .await
        .unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    let clock = Stopwatch::start();
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let (url, done) = (url.to_string(), done.clone());
        tasks.push(tokio::spawn(async move {
            let client = async_nats::connect(url).await.unwrap();
            let js = async_nats::jetstream::new(client.clone());
            let consumer: async_nats::jetstream::consumer::PullConsumer =
                js.get_stream("DRAIN").await.unwrap().get_consumer("d").await.unwrap();
            let mut messages = match batch {
                Some(batch) => consumer.stream().max_messages_per_batch(batch as usize).messages().await,
                None => consumer.messages().await,
            }
            .unwrap();
            while done.load(Ordering::Relaxed) < n {
                match tokio::time::timeout(Duration::from_millis(200), messages.next()).await {
                    Ok(Some(Ok(m))) => {
                        m.ack().await.unwrap();
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    _ => continue,
                }
            }
            client.flush().await.unwrap();
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    clock.stop(n)
}

/// Acks per second for `n` fetched messages: one confirmed batch, or one
/// confirmed ack after another.
async fn natsjet_confirmed_acks(url: &str, n: usize, batched: bool) -> Run {
    fill(url, "ACKS", n).await;
    let js = natsjet::jetstream::new(natsjet::connect(url).await.unwrap());
    let consumer = js.create_consumer_on_stream(durable("a"), "ACKS").await.unwrap();
    let fetched: Vec<_> = consumer
        .batch()
        .max_messages(n as u64)
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

fn main() {
    let server = common::NatsServer::start_jetstream();
    let url = server.client_url();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let drain = scale(200_000);
    let acks = scale(10_000);
    support::watch_server(Some(server.pid()));
    support::header();
    let mut drains = Vec::new();
    for (options, batch) in [("defaults", None), ("500/pull", Some(BATCH))] {
        for workers in [1, 4] {
            let ours = rt.block_on(natsjet_drain(&url, drain, workers, batch));
            let theirs = rt.block_on(async_nats_drain(&url, drain, workers, batch));
            let name = format!("drain {drain} x 128 B + ack, {workers} worker(s), {options}");
            support::row(&name, ours, theirs);
            drains.push((name, ours, theirs));
        }
    }
    let batched = rt.block_on(natsjet_confirmed_acks(&url, acks, true));
    let one_by_one = rt.block_on(natsjet_confirmed_acks(&url, acks, false));
    let theirs = rt.block_on(async_nats_confirmed_acks(&url, acks));
    support::row(&format!("confirmed acks {acks}: AckBatch vs double_ack"), batched, theirs);
    support::row(&format!("confirmed acks {acks}: double_ack each"), one_by_one, theirs);
    println!(
        "AckBatch confirmed commit vs natsjet per-message double_ack: {:.1}x",
        batched.per_second / one_by_one.per_second
    );
    support::server_table(&drains);
}
