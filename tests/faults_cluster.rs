//! A 3-node cluster losing nodes mid-run: an R3 stream, one publisher with
//! acks (message ids, retried until acked) and 4 shared-durable workers on
//! separate connections that ack after each checkpoint through a
//! `CheckpointLedger`. The stream leader is SIGKILLed, then the consumer
//! leader, then a follower, each restarted on its store before the next.
//! Every acked publish ends consumed and acked; duplicates stay bounded and
//! show in the delivery count.
//!
//! 20,000 messages by default (the 100,000 take minutes in a debug
//! build); `NATSJET_FAULT_CLUSTER_MESSAGES` sets another count.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use common::{LossLedger, NatsCluster, publish_with_retries};
use futures_util::StreamExt;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use natsjet::jetstream::{self, CheckpointLedger, Context, LedgerOptions, PullConsumer};

const WAIT: Duration = Duration::from_secs(30);
const CHECKPOINT: Duration = Duration::from_millis(200);
const WORKERS: usize = 4;
const MAX_ACK_PENDING: u64 = 4_000;
/// Pause before a worker tries its consumer again (no leader yet, say).
const RETRY: Duration = Duration::from_millis(100);

fn count() -> u64 {
    std::env::var("NATSJET_FAULT_CLUSTER_MESSAGES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000)
}

async fn connect(cluster: &NatsCluster) -> Context {
    let client = natsjet::ConnectOptions::new()
        .reconnect_delay(Duration::from_millis(50), Duration::from_millis(50))
        .max_reconnects(None)
        .connect(cluster.client_urls())
        .await
        .unwrap();
    let mut js = jetstream::new(client);
    js.set_timeout(Duration::from_secs(2));
    js
}

/// Index of the node named in a `cluster.leader` field (`n1`..`n3`).
fn node_index(name: &str) -> usize {
    name.trim_start_matches('n').parse::<usize>().unwrap() - 1
}

/// The stream's and the consumer's leaders, once both have one.
async fn leaders(js: &Context) -> (usize, usize) {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Ok(stream) = js.get_stream("CL").await {
            let stream_leader = stream.cached_info().cluster.as_ref().and_then(|c| c.leader.clone());
            let consumer_leader = stream.consumer_info("work").await.ok().and_then(|i| i.cluster?.leader);
            if let (Some(s), Some(c)) = (stream_leader, consumer_leader) {
                return (node_index(&s), node_index(&c));
            }
        }
        assert!(Instant::now() < deadline, "no stream and consumer leaders");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A worker: takes messages, holds them in the ledger until the next
/// checkpoint, then records them as done and commits their acks. It starts
/// over when its reader ends (a consumer leader lost, say).
async fn worker(js: Context, ledger: LossLedger) {
    loop {
        let Ok(stream) = js.get_stream("CL").await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        let Ok(consumer): Result<PullConsumer, _> = stream.get_consumer("work").await else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        let options = LedgerOptions { workers: WORKERS, batch: 100, checkpoint_interval: CHECKPOINT };
        let checkpoints = CheckpointLedger::new(&consumer, options).unwrap();
        let Ok(mut messages) = consumer
            .stream()
            .max_messages_per_batch(100)
            .heartbeat(Duration::from_millis(500))
            .expires(Duration::from_secs(2))
            .messages()
            .await
        else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        let mut epoch = 1;
        let mut held = Vec::new();
        let mut next_checkpoint = Instant::now() + CHECKPOINT;
        loop {
            let wait = next_checkpoint.saturating_duration_since(Instant::now());
            match tokio::time::timeout(wait, messages.next()).await {
                Ok(Some(Ok(message))) => {
                    let id: u64 = std::str::from_utf8(&message.payload).unwrap().parse().unwrap();
                    let delivered = message.info().unwrap().delivered;
                    if checkpoints.track(&message, epoch).is_ok() {
                        held.push((id, delivered));
                    } // else: not held, so not acked; it comes again
                }
                Ok(Some(Err(_))) => {}
                Ok(None) => break,
                Err(_) => {}
            }
            if Instant::now() >= next_checkpoint {
                // The checkpoint is durable: what it holds is done, whatever the ack's fate.
                for (id, delivered) in held.drain(..) {
                    ledger.consumed(id, delivered);
                }
                let _ = checkpoints.commit(epoch).await;
                epoch += 1;
                next_checkpoint = Instant::now() + CHECKPOINT;
            }
        }
    }
}

/// Waits until publishes and consumes together reach `fraction` of the run.
async fn progress(ledger: &LossLedger, total: u64, fraction: f64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = ledger.report();
        if (r.server_acked + r.consumed) as f64 >= fraction * 2.0 * total as f64 {
            return;
        }
        assert!(Instant::now() < deadline, "stuck at {r:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_and_follower_kills_lose_no_acked_publish() {
    let total = count();
    let mut cluster = NatsCluster::start(3);
    let js = connect(&cluster).await;
    let config =
        StreamConfig { name: "CL".into(), subjects: vec!["CL.>".into()], num_replicas: 3, ..Default::default() };
    js.create_stream(config).await.unwrap();
    let consumer = ConsumerConfig {
        durable_name: Some("work".into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait: Duration::from_secs(3),
        max_ack_pending: MAX_ACK_PENDING as i64,
        ..Default::default()
    };
    js.get_stream("CL").await.unwrap().create_consumer(consumer).await.unwrap();

    let ledger = LossLedger::new();
    let publisher = {
        let (js, ledger) = (connect(&cluster).await, ledger.clone());
        tokio::spawn(async move { publish_with_retries(&js, "CL", 0..total, &ledger, |_| {}).await })
    };
    let mut workers = Vec::new();
    for _ in 0..WORKERS {
        workers.push(tokio::spawn(worker(connect(&cluster).await, ledger.clone())));
    }

    let mut killed = Vec::new();
    for (at, which) in [(0.2, "stream leader"), (0.45, "consumer leader"), (0.7, "follower")] {
        progress(&ledger, total, at).await;
        let (stream_leader, consumer_leader) = leaders(&js).await;
        let victim = match which {
            "stream leader" => stream_leader,
            "consumer leader" => consumer_leader,
            _ => (0..3).find(|i| *i != stream_leader && *i != consumer_leader).unwrap(),
        };
        killed.push(format!("{which} n{}", victim + 1));
        tokio::task::block_in_place(|| cluster.kill(victim));
        // Leaders move on; the killed node comes back on its store.
        leaders(&js).await;
        tokio::task::block_in_place(|| cluster.restart(victim));
    }

    tokio::time::timeout(Duration::from_secs(120), publisher).await.expect("every publish acked").unwrap();
    let stream = js.get_stream("CL").await.unwrap();
    let drained = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if let Ok(info) = stream.consumer_info("work").await
                && info.ack_floor.stream_sequence == total
                && info.num_ack_pending == 0
                && info.num_pending == 0
                && ledger.consumed_count() as u64 == total
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let drained = drained.await;
    workers.iter().for_each(|w| w.abort());
    drained.unwrap_or_else(|_| panic!("not drained after {killed:?}: {:?}", ledger.report()));
    let stored = stream.clone().info().await.unwrap().state.messages;
    assert_eq!(stored, total, "the stream holds each id once");
    // Each kill can send again at most what was pending: max_ack_pending.
    let report = ledger.check(&format!("cluster kills ({})", killed.join(", ")), 3 * MAX_ACK_PENDING);
    assert!(report.redelivered >= report.duplicates, "each duplicate shows in its delivery count: {report:?}");
}
