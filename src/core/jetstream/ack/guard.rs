//! Guardrails for durable consumers shared by workers and acked at
//! checkpoints: the set-ups that lose data or stall, refused or flagged
//! before the first pull.

use std::fmt;
use std::time::Duration;

use crate::core::error::Error;
use crate::core::jetstream::api::AckPolicy;

/// Refuses ack policies that cannot be shared by several workers.
///
/// AckAll moves the consumer-wide ack floor: one worker's ack of sequence N
/// acks every message up to N, including those other workers still process,
/// which are then lost if those workers fail. AckNone never redelivers, so a
/// crashed worker's messages are lost. Shared consumers need AckExplicit.
pub fn check_shared_durable(ack_policy: AckPolicy, workers: usize) -> Result<(), Error> {
    if workers <= 1 {
        return Ok(());
    }
    let why = match ack_policy {
        AckPolicy::All => {
            "AckAll moves the consumer-wide ack floor: one worker's ack of sequence N acks every \
             message up to N, including those other workers are still processing, which are lost \
             if those workers fail"
        }
        AckPolicy::None => "AckNone never redelivers, so messages of a worker that fails are lost",
        _ => return Ok(()),
    };
    Err(Error::InvalidArgument(format!(
        "{workers} workers cannot share a consumer with this ack policy: {why}; use AckExplicit"
    )))
}

/// A set-up that works but will hurt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerWarning {
    /// Workers can hold more unacked messages than the consumer allows.
    MaxAckPendingTooSmall { max_ack_pending: i64, needed: u64 },
    /// Messages wait for a checkpoint longer than the server waits for their ack.
    AckWaitShorterThanCheckpoint { ack_wait: Duration, checkpoint_interval: Duration },
}

impl fmt::Display for LedgerWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerWarning::MaxAckPendingTooSmall { max_ack_pending, needed } => write!(
                f,
                "max_ack_pending {max_ack_pending} is below workers × batch = {needed}: messages stay \
                 unacked until their checkpoint commits, so the server stops delivering once \
                 {max_ack_pending} are outstanding and workers stall"
            ),
            // Whole milliseconds: formatting a Duration would bring float formatting into the wasm.
            LedgerWarning::AckWaitShorterThanCheckpoint { ack_wait, checkpoint_interval } => write!(
                f,
                "ack_wait {}ms is shorter than the checkpoint interval {}ms: \
                 the ack ledger keeps each message alive with +WPI every half ack_wait; without it \
                 (or while disconnected) the server redelivers messages still awaiting their \
                 checkpoint, a redelivery storm",
                ack_wait.as_millis() as u64,
                checkpoint_interval.as_millis() as u64,
            ),
        }
    }
}

/// Flags consumer settings that fit checkpoint acking badly. A
/// `max_ack_pending` of zero or below means no limit.
pub fn check_ledger_fit(
    max_ack_pending: i64,
    workers: usize,
    batch: u64,
    ack_wait: Duration,
    checkpoint_interval: Duration,
) -> Vec<LedgerWarning> {
    let mut warnings = Vec::new();
    let needed = (workers as u64).saturating_mul(batch);
    if max_ack_pending > 0 && (max_ack_pending as u64) < needed {
        warnings.push(LedgerWarning::MaxAckPendingTooSmall { max_ack_pending, needed });
    }
    if ack_wait < checkpoint_interval {
        warnings.push(LedgerWarning::AckWaitShorterThanCheckpoint { ack_wait, checkpoint_interval });
    }
    warnings
}
