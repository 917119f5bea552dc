//! Guardrails for durable consumers shared by workers and acked at
//! checkpoints: the set-ups that lose data or stall, refused or flagged
//! before the first pull.

use std::fmt;
use std::time::Duration;

use crate::core::error::Error;
use crate::core::jetstream::api::{AckPolicy, ConsumerConfig};

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
    MaxAckPendingTooSmall {
        /// The consumer's `max_ack_pending`.
        max_ack_pending: i64,
        /// Unacked messages the workers can hold (workers × batch).
        needed: u64,
    },
    /// Messages wait for a checkpoint longer than the server waits for their ack.
    AckWaitShorterThanCheckpoint {
        /// The consumer's `ack_wait`.
        ack_wait: Duration,
        /// The time between checkpoints.
        checkpoint_interval: Duration,
    },
    /// The server drops a message after this many deliveries: one that keeps
    /// failing (or keeps landing in aborted epochs) is lost, not retried.
    MaxDeliverFinite {
        /// The consumer's `max_deliver`.
        max_deliver: i64,
    },
    /// Fewer pulls may wait at the server than there are workers: the
    /// others' pulls are refused (409) and they idle.
    MaxWaitingBelowWorkers {
        /// The consumer's `max_waiting`.
        max_waiting: i64,
        /// The workers that pull from it.
        workers: usize,
    },
    /// The durable that exists has another setting than the program asks
    /// for: the server's stays in force (both as text, the server's first).
    ConfigDiffers {
        /// The setting: `ack_wait`, `max_ack_pending`, `max_deliver`, `backoff` or `filter` (the filter subjects).
        field: &'static str,
        /// The durable's value, as the server has it.
        existing: String,
        /// The value the program asks for.
        wanted: String,
    },
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
            LedgerWarning::MaxDeliverFinite { max_deliver } => write!(
                f,
                "max_deliver {max_deliver}: after {max_deliver} deliveries the server stops redelivering a \
                 message, so one whose epochs keep failing is dropped"
            ),
            LedgerWarning::MaxWaitingBelowWorkers { max_waiting, workers } => write!(
                f,
                "max_waiting {max_waiting} is below the {workers} workers: pulls beyond it are refused and \
                 those workers idle"
            ),
            LedgerWarning::ConfigDiffers { field, existing, wanted } => {
                write!(f, "the durable's {field} is {existing}, the program asks for {wanted}: the durable's applies")
            }
        }
    }
}

/// Flags consumer settings that fit checkpoint acking badly. A
/// `max_ack_pending`, `max_deliver` or `max_waiting` of zero or below
/// means no limit.
pub fn check_ledger_fit(
    config: &ConsumerConfig,
    workers: usize,
    batch: u64,
    checkpoint_interval: Duration,
) -> Vec<LedgerWarning> {
    let (max_ack_pending, ack_wait) = (config.max_ack_pending, config.ack_wait);
    let mut warnings = Vec::new();
    let needed = (workers as u64).saturating_mul(batch);
    if max_ack_pending > 0 && (max_ack_pending as u64) < needed {
        warnings.push(LedgerWarning::MaxAckPendingTooSmall { max_ack_pending, needed });
    }
    if ack_wait < checkpoint_interval {
        warnings.push(LedgerWarning::AckWaitShorterThanCheckpoint { ack_wait, checkpoint_interval });
    }
    if config.max_deliver > 0 {
        warnings.push(LedgerWarning::MaxDeliverFinite { max_deliver: config.max_deliver });
    }
    if config.max_waiting > 0 && (config.max_waiting as u64) < workers as u64 {
        warnings.push(LedgerWarning::MaxWaitingBelowWorkers { max_waiting: config.max_waiting, workers });
    }
    warnings
}

/// The settings a shared durable's workers depend on where `existing` (the
/// server's) differs from what `wanted` sets; a field `wanted` leaves at its
/// default (the server picks) is not compared.
pub fn check_config_drift(existing: &ConsumerConfig, wanted: &ConsumerConfig) -> Vec<LedgerWarning> {
    let ms = |d: &Duration| format!("{}ms", d.as_millis() as u64);
    let backoff = |ds: &Vec<Duration>| list(ds.iter().map(ms));
    let filter = |fs: &Filters| list(fs.0.iter().map(|f| format!("\"{f}\"")));
    let (e, w) = (existing, wanted);
    [
        drift("ack_wait", &e.ack_wait, &w.ack_wait, !w.ack_wait.is_zero(), ms),
        drift("max_ack_pending", &e.max_ack_pending, &w.max_ack_pending, w.max_ack_pending != 0, i64::to_string),
        drift("max_deliver", &e.max_deliver, &w.max_deliver, w.max_deliver != 0, i64::to_string),
        drift("backoff", &e.backoff, &w.backoff, !w.backoff.is_empty(), backoff),
        drift("filter", &Filters::of(e), &Filters::of(w), true, filter),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A [`LedgerWarning::ConfigDiffers`] when `wanted` is `set` and differs.
fn drift<T: PartialEq>(
    field: &'static str,
    existing: &T,
    wanted: &T,
    set: bool,
    text: impl Fn(&T) -> String,
) -> Option<LedgerWarning> {
    (set && existing != wanted).then(|| LedgerWarning::ConfigDiffers {
        field,
        existing: text(existing),
        wanted: text(wanted),
    })
}

/// Every filter subject of a config, compared in any order. (No sort and
/// no `join` here: each links a few KB into the wasm.)
struct Filters<'a>(Vec<&'a str>);

impl<'a> Filters<'a> {
    fn of(config: &'a ConsumerConfig) -> Self {
        let mut all: Vec<&str> = config.filter_subjects.iter().map(String::as_str).collect();
        if !config.filter_subject.is_empty() {
            all.push(&config.filter_subject);
        }
        Filters(all)
    }
}

impl PartialEq for Filters<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().all(|f| other.0.contains(f))
    }
}

/// `[a, b]`.
fn list(items: impl Iterator<Item = String>) -> String {
    let mut text = String::from("[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        text.push_str(&item);
    }
    text.push(']');
    text
}
