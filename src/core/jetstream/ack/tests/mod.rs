//! Ack tests: metadata, bodies, batches, confirmations, the ledger on a fake
//! clock, guardrails. One behaviour per file.

mod batch;
mod confirm;
mod guard;
mod kind;
mod ledger;
mod metadata;

use super::AckToken;
use crate::core::time::Instant;

fn t(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// A v1 delivery of stream sequence `sseq` as consumer sequence `cseq`.
fn token(stream: &str, consumer: &str, sseq: u64, cseq: u64) -> AckToken {
    AckToken::new(format!("$JS.ACK.{stream}.{consumer}.1.{sseq}.{cseq}.1700000000000000000.0")).unwrap()
}
