//! One worker of a shared durable pull consumer, as its own process: it
//! takes messages, "checkpoints" them, then acks the checkpoint in one
//! confirmed commit, through an `AckBatch` or a `CheckpointLedger`. It says
//! on stdout what each commit covers before it sends it, so that a test can
//! kill it with SIGKILL in the middle of a commit and check that what it
//! never acked goes to the other workers.
//!
//! Usage: cargo run --example worker_process -- URL STREAM DURABLE ackbatch|ledger [gated]
//!
//! Stdout, one line each: `ready`, then per commit `committing P/D P/D …`
//! (payload and delivery count of each message, whose work is durable now) and `committed C U R`
//! (confirmed, unconfirmed, refused). With `gated` it reads one line from
//! stdin after each `committing` line before it sends the commit.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use natsjet::jetstream::ack::{AckBatch, AckReport};
use natsjet::jetstream::{self, AckKind, CheckpointLedger, LedgerOptions, Message, PullConsumer};

/// Messages per checkpoint, and the longest a partial one waits.
const BATCH: u64 = 50;
const CHECKPOINT: Duration = Duration::from_millis(200);
const ACK_TIMEOUT: Duration = Duration::from_secs(2);

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), natsjet::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, stream, durable, mode, rest @ ..] = &args[..] else {
        eprintln!("usage: worker_process URL STREAM DURABLE ackbatch|ledger [gated]");
        std::process::exit(2);
    };
    let gated = rest.iter().any(|a| a == "gated");
    let client = natsjet::connect(url.as_str()).await?;
    let js = jetstream::new(client.clone());
    let consumer: PullConsumer = js.get_stream(stream).await?.get_consumer(durable).await?;
    let ledger = match mode.as_str() {
        "ledger" => Some(CheckpointLedger::new(
            &consumer,
            LedgerOptions { workers: 3, batch: BATCH, checkpoint_interval: CHECKPOINT },
        )?),
        "ackbatch" => None,
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2);
        }
    };
    let mut messages = consumer
        .stream()
        .max_messages_per_batch(BATCH as usize)
        .heartbeat(Duration::from_millis(500))
        .expires(Duration::from_secs(2))
        .messages()
        .await?;
    say("ready");
    let mut held: Vec<Message> = Vec::new();
    let mut epoch = 1;
    let mut next_checkpoint = Instant::now() + CHECKPOINT;
    loop {
        let wait = next_checkpoint.saturating_duration_since(Instant::now());
        match tokio::time::timeout(wait, messages.next()).await {
            Ok(Some(Ok(message))) => {
                if let Some(ledger) = &ledger {
                    ledger.track(&message, epoch)?;
                }
                held.push(message);
            }
            Ok(Some(Err(_))) => {} // a missed heartbeat and the like: the stream goes on
            Ok(None) => return Ok(()),
            Err(_) => {}
        }
        if (held.len() as u64) < BATCH && Instant::now() < next_checkpoint {
            continue;
        }
        next_checkpoint = Instant::now() + CHECKPOINT;
        if held.is_empty() {
            continue;
        }
        let ids: Vec<String> = held.iter().map(describe).collect();
        say(&format!("committing {}", ids.join(" ")));
        if gated {
            std::io::stdin().lock().read_line(&mut String::new()).expect("a line on stdin");
        }
        let report: AckReport = match &ledger {
            Some(ledger) => ledger.commit(epoch).await?,
            None => {
                let mut batch = AckBatch::new();
                for message in &held {
                    batch.add_message(message, AckKind::Ack)?;
                }
                batch.commit_confirmed(&client, ACK_TIMEOUT).await?
            }
        };
        say(&format!("committed {} {} {}", report.confirmed.len(), report.unconfirmed.len(), report.refused.len()));
        held.clear();
        epoch += 1;
    }
}

/// `PAYLOAD/DELIVERED`: which message, and how many times the server has sent it.
fn describe(message: &Message) -> String {
    let delivered = message.info().map_or(0, |info| info.delivered);
    format!("{}/{delivered}", String::from_utf8_lossy(&message.payload))
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
