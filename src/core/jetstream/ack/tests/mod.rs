//! Ack tests: metadata, bodies, batches, confirmations, the ledger on a fake
//! clock, guardrails. One behaviour per file.

mod batch;
mod confirm;
mod exactly_once;
mod guard;
mod kind;
mod ledger;
mod metadata;
mod ranges;

use std::time::Duration;

use super::{AckLedger, AckToken, LedgerEvent};
use crate::core::time::Instant;

const ACK_WAIT: Duration = Duration::from_secs(30);

/// A ledger for consumer `C` of stream `S` with an `ack_wait` of 30 s.
fn ledger() -> AckLedger {
    let mut ledger = AckLedger::new();
    ledger.set_ack_wait("S", "C", ACK_WAIT).unwrap();
    ledger
}

fn events(ledger: &mut AckLedger) -> Vec<LedgerEvent> {
    std::iter::from_fn(|| ledger.poll_event()).collect()
}

fn t(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// A v1 delivery of stream sequence `sseq` as consumer sequence `cseq`.
fn token(stream: &str, consumer: &str, sseq: u64, cseq: u64) -> AckToken {
    AckToken::new(format!("$JS.ACK.{stream}.{consumer}.1.{sseq}.{cseq}.1700000000000000000.0")).unwrap()
}
