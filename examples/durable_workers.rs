//! N workers sharing one durable pull consumer, acking in batches after a
//! (simulated) checkpoint: the pattern natsjet is built for.
//!
//! Each worker has its own connection and reader on the same durable
//! consumer; the server hands each pull to whichever worker asked. Workers
//! hold what they process in a checkpoint ack ledger (kept alive with +WPI
//! while the checkpoint runs) and ack the epoch in one confirmed batch once
//! the checkpoint is "durable".
//!
//! Usage: cargo run --example durable_workers -- [nats://127.0.0.1:4222] [workers] [messages]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use natsjet::jetstream::{self, CheckpointLedger, LedgerOptions, PullConsumer};

const STREAM: &str = "ORDERS";
const DURABLE: &str = "order-processors";
const CHECKPOINT: Duration = Duration::from_millis(500);

#[tokio::main]
async fn main() -> Result<(), natsjet::Error> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "nats://127.0.0.1:4222".into());
    let workers: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(4);
    let total: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(50_000);

    let js = jetstream::new(natsjet::connect(url.as_str()).await?);
    let _ = js.delete_stream(STREAM).await;
    let stream = js
        .create_stream(StreamConfig { name: STREAM.into(), subjects: vec!["orders.>".into()], ..Default::default() })
        .await?;
    let consumer_config = ConsumerConfig {
        durable_name: Some(DURABLE.into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait: Duration::from_secs(10),
        max_ack_pending: 20_000,
        ..Default::default()
    };
    stream.create_consumer(consumer_config).await?;

    println!("publishing {total} orders to stream {STREAM}");
    let started = Instant::now();
    let mut acks = std::collections::VecDeque::new();
    for i in 0..total {
        acks.push_back(js.publish(format!("orders.{}", i % 8), format!("order {i}").into()).await?);
        if acks.len() >= 256 {
            acks.pop_front().unwrap().await?;
        }
    }
    for ack in acks {
        ack.await?;
    }
    println!("published in {:.2} s", started.elapsed().as_secs_f64());

    println!("{workers} workers on durable consumer {DURABLE}, checkpoint every {CHECKPOINT:?}");
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for id in 0..workers {
        let url = url.clone();
        let done = done.clone();
        tasks.push(tokio::spawn(async move { worker(id, &url, workers, total, done).await }));
    }
    while done.load(Ordering::Relaxed) < total {
        tokio::time::sleep(Duration::from_secs(1)).await;
        println!("  acked {:>7} / {total}", done.load(Ordering::Relaxed));
    }
    for task in tasks {
        task.abort();
    }
    let secs = started.elapsed().as_secs_f64();
    println!("all {total} orders processed and acked in {secs:.2} s ({:.0} msg/s)", total as f64 / secs);
    let info = js.get_stream(STREAM).await?.consumer_info(DURABLE).await?;
    println!(
        "consumer: ack floor {} , {} pending acks, {} redelivered",
        info.ack_floor.stream_sequence, info.num_ack_pending, info.num_redelivered
    );
    Ok(())
}

async fn worker(id: usize, url: &str, workers: usize, total: u64, done: Arc<AtomicU64>) -> Result<(), natsjet::Error> {
    let js = jetstream::new(natsjet::connect(url).await?);
    let consumer: PullConsumer = js.get_stream(STREAM).await?.get_consumer(DURABLE).await?;
    let ledger =
        CheckpointLedger::new(&consumer, LedgerOptions { workers, batch: 200, checkpoint_interval: CHECKPOINT })?;
    for warning in ledger.warnings() {
        println!("  worker {id}: {warning}");
    }
    let mut messages = consumer.stream().max_messages_per_batch(200).messages().await?;
    let mut epoch = 1;
    let mut next_checkpoint = Instant::now() + CHECKPOINT;
    loop {
        let wait = next_checkpoint.saturating_duration_since(Instant::now());
        match tokio::time::timeout(wait, messages.next()).await {
            Ok(Some(message)) => ledger.track(&message?, epoch)?, // "process", then hold until the checkpoint
            Ok(None) => return Ok(()),
            Err(_) => {}
        }
        if Instant::now() >= next_checkpoint {
            // The checkpoint is durable: ack everything it covers in one confirmed batch.
            let report = ledger.commit(epoch).await?;
            done.fetch_add(report.confirmed.len() as u64, Ordering::Relaxed);
            if !report.unconfirmed.is_empty() || !report.refused.is_empty() {
                println!("  worker {id}: {} unconfirmed, {} refused", report.unconfirmed.len(), report.refused.len());
            }
            epoch += 1;
            next_checkpoint = Instant::now() + CHECKPOINT;
            if done.load(Ordering::Relaxed) >= total {
                return Ok(());
            }
        }
    }
}
