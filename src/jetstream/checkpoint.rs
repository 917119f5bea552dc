//! The checkpoint ack ledger, live: messages of a shared durable consumer
//! held until the checkpoint that covers them commits, kept alive with
//! `+WPI` by the connection's driver task (not by the user's loop), then
//! acked in one confirmed [`AckBatch`].
//!
//! Exactly-once with many workers: save [`CheckpointLedger::snapshot`] with
//! the engine's own state in one transaction, [`restore`](CheckpointLedger::restore)
//! the union of the states saved in the last checkpoint after a failure, read
//! through [`admit`](CheckpointLedger::admit) (or [`filter`](CheckpointLedger::filter))
//! so that redeliveries of work already applied are acked instead of applied
//! again, and [`abort`](CheckpointLedger::abort) an epoch whose checkpoint failed.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;

use super::ack::{Ack, AckBatch, AckLedger, AckReport, LedgerCounts, LedgerEvent, LedgerState, LedgerWarning};
use super::ack::{check_config_drift, check_ledger_fit, check_shared_durable};
use super::api::{self, ConsumerConfig, ConsumerInfo};
use super::commit::ack_confirmed;
use super::consumer::Consumer;
use super::message::Message;
use crate::client::Client;
use crate::core::error::Error;
use crate::core::session::{LedgerId, Route};

/// How the workers use the consumer, for the guardrail checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerOptions {
    /// Workers sharing the durable consumer.
    pub workers: usize,
    /// Messages each worker pulls at a time.
    pub batch: u64,
    /// Time between checkpoints (the longest a message waits for its ack).
    pub checkpoint_interval: Duration,
}

/// Holds delivered-but-uncommitted messages per epoch and acks an epoch on
/// [`commit`](Self::commit). Refuses set-ups that lose or stall data:
/// several workers on an AckAll or AckNone consumer is an error; a
/// `max_ack_pending` below workers × batch, an `ack_wait` shorter than the
/// checkpoint interval, a finite `max_deliver` or a `max_waiting` below the
/// worker count is reported in [`warnings`](Self::warnings).
pub struct CheckpointLedger {
    client: Client,
    id: LedgerId,
    /// The consumer, to read its ack floor.
    consumer: Consumer,
    ack_timeout: Duration,
    warnings: Vec<LedgerWarning>,
}

impl CheckpointLedger {
    /// A ledger for `consumer`'s messages: refuses several workers on an AckAll or AckNone consumer, and reports risky settings in `warnings()`.
    pub fn new<T>(consumer: &Consumer<T>, options: LedgerOptions) -> Result<Self, Error> {
        let info = consumer.cached_info();
        check_shared_durable(info.config.ack_policy, options.workers)?;
        let warnings = check_ledger_fit(&info.config, options.workers, options.batch, options.checkpoint_interval);
        let mut ledger = AckLedger::new();
        ledger.set_ack_wait(&info.stream_name, &info.name, info.config.ack_wait)?;
        let client = consumer.context().client().clone();
        let id = client.shared().lock().add_ledger(ledger);
        let ack_timeout = consumer.context().timeout();
        let consumer = Consumer::new(consumer.context().clone(), info.clone());
        Ok(CheckpointLedger { client, id, consumer, ack_timeout, warnings })
    }

    /// Runs `f` on the ledger in the connection's session.
    fn with<R>(&self, f: impl FnOnce(&mut AckLedger) -> R) -> Result<R, Error> {
        self.client.shared().lock().with_ledger(self.id, f)
    }

    /// Adds to [`warnings`](Self::warnings) every setting the workers depend
    /// on (`ack_wait`, `max_ack_pending`, filter, `max_deliver`, `backoff`)
    /// where the durable the server has differs from `wanted`, the config the
    /// program would have created it with: opening an existing durable keeps
    /// the server's settings.
    pub fn expecting(mut self, wanted: &ConsumerConfig) -> Self {
        self.warnings.extend(check_config_drift(&self.consumer.cached_info().config, wanted));
        self
    }

    /// What the consumer's settings risk for this pattern (empty when they fit).
    pub fn warnings(&self) -> &[LedgerWarning] {
        &self.warnings
    }

    /// Holds `message` until `epoch` commits. The ledger now owns its ack:
    /// acking the message directly is refused. When the ledger refuses it
    /// (an epoch already committed, a closed connection), the message keeps
    /// its ack.
    pub fn track(&self, message: &Message, epoch: u64) -> Result<(), Error> {
        let subject = message.claim(&Ack::Ack)?;
        // Its timing counts from its arrival, so no clock is read here (a
        // JS call per message in wasm): the ledger's clock is only moved on.
        let received = message.received();
        let tracked = self.with(|ledger| ledger.track_subject(received, received, subject, epoch)).and_then(|r| r);
        if tracked.is_err() {
            message.release_claim();
        }
        tracked
    }

    /// Whether to process `message`: `false` for a redelivery of work already
    /// applied (restored, or committed here and not yet confirmed), which the
    /// ledger then owns and acks with the next [`commit`](Self::commit).
    pub fn admit(&self, message: &Message) -> Result<bool, Error> {
        let subject = message.claim(&Ack::Ack)?;
        let admitted = self.with(|ledger| ledger.admit(subject)).and_then(|r| r);
        if !matches!(admitted, Ok(false)) {
            message.release_claim();
        }
        admitted
    }

    /// [`admit`](Self::admit) of each of `messages` at once (one lock of
    /// the connection's session): the indexes of those not to process, in
    /// order. A message the ledger cannot judge (another consumer's, one
    /// acked already) passes, as in [`filter`](Self::filter).
    #[cfg(feature = "wasm-jetstream")]
    pub(crate) fn admit_all<'a>(&self, messages: impl IntoIterator<Item = &'a Message>) -> Result<Vec<usize>, Error> {
        self.with(|ledger| {
            let mut skipped = Vec::new();
            for (i, message) in messages.into_iter().enumerate() {
                let Ok(subject) = message.claim(&Ack::Ack) else { continue };
                match ledger.admit(subject) {
                    Ok(false) => skipped.push(i),
                    _ => message.release_claim(),
                }
            }
            skipped
        })
    }

    /// `messages` without the redeliveries of applied work ([`admit`](Self::admit)
    /// on each): what user code sees is only work to do. A message the ledger
    /// cannot judge (another consumer's) passes, and tracking it then fails.
    pub fn filter<S>(&self, messages: S) -> Admitted<'_, S> {
        Admitted { ledger: self, messages }
    }

    /// Acks every message of epochs up to `epoch`, with the skipped
    /// redeliveries, confirmed per consumer by the server's answer to the
    /// last of its acks. Call it once the checkpoint
    /// that saved [`snapshot`](Self::snapshot)`(epoch)` is durable. Acks the
    /// server did not confirm are held again (kept alive with `+WPI`) and
    /// sent again with the next commit.
    pub async fn commit(&self, epoch: u64) -> Result<AckReport, Error> {
        let tokens = self.with(|ledger| ledger.commit(epoch))?;
        let report = ack_confirmed(&self.client, tokens, self.ack_timeout).await?;
        let applied = self.with(|ledger| {
            ledger.settle(&report.unconfirmed);
            ledger.applied_len()
        })?;
        if applied > 0 {
            self.prune().await?;
        }
        Ok(report)
    }

    /// What the checkpoint of `epoch` must save, in the same transaction as
    /// the engine's state for it. [`Error::AtRisk`] when a message of the
    /// epoch may have reached another worker: [`abort`](Self::abort) instead.
    pub fn snapshot(&self, epoch: u64) -> Result<LedgerState, Error> {
        let now = self.client.now();
        self.with(|ledger| ledger.snapshot(now, epoch))?
    }

    /// Takes the states every worker saved in the last checkpoint (all of
    /// them, whatever the worker count now). Call it before the first
    /// message. What the consumer's ack floor passes is forgotten with the
    /// commits (once that floor has settled at the server: [`FLOOR_SETTLED`](super::ack::FLOOR_SETTLED)).
    pub async fn restore(&self, states: &[LedgerState]) -> Result<(), Error> {
        self.with(|ledger| ledger.restore(states))??;
        self.prune().await
    }

    /// Gives up `epoch` and every later one (their checkpoint failed or a
    /// message was at risk): naks their messages so the server redelivers
    /// them now, not after `ack_wait`. Returns how many were nak'd.
    pub async fn abort(&self, epoch: u64) -> Result<usize, Error> {
        let now = self.client.now();
        let tokens = self.with(|ledger| ledger.abort(now, epoch))?;
        let aborted = tokens.len();
        let mut batch = AckBatch::new();
        for token in tokens {
            batch.add(token, Ack::Nak(None))?;
        }
        batch.commit(&self.client).await?;
        Ok(aborted)
    }

    /// Drops applied sequences at or below the consumer's ack floor. Reads
    /// the info's core fields only (no serde_json reader in the wasm).
    async fn prune(&self) -> Result<(), Error> {
        let context = self.consumer.context();
        let subject = api::consumer_info(context.api_prefix(), self.consumer.stream_name(), self.consumer.name())?;
        let info = ConsumerInfo::from_json_core(&context.request_json(&subject, b"").await?)?;
        let (now, floor) = (self.client.now(), info.ack_floor.stream_sequence);
        self.with(|ledger| ledger.prune(now, &info.stream_name, &info.name, floor))
    }

    /// Messages held.
    pub fn len(&self) -> usize {
        self.with(|ledger| ledger.len()).unwrap_or(0)
    }

    /// Whether the ledger holds no message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Skipped, aborted, at-risk and unexplained redelivered messages so far.
    pub fn counts(&self) -> LedgerCounts {
        self.with(|ledger| ledger.counts()).unwrap_or_default()
    }

    /// The next warning that a held message may be redelivered anyway.
    pub fn try_next_event(&self) -> Option<LedgerEvent> {
        self.client.shared().lock().ledger_event(self.id)
    }
}

/// A `Nats-Msg-Id` for output `index` derived from `message`: its stream
/// and stream sequence, the same on every delivery. A processor that
/// publishes results to another stream sets it, so a republish after a
/// crash is dropped by that stream's duplicate window. Past the window
/// (`duplicate_window`, 2 minutes by default) the server no longer
/// remembers the id: a recovery slower than the window can store twice.
pub fn output_msg_id(message: &Message, index: u32) -> Result<String, Error> {
    let token = message.ack_token()?;
    Ok(format!("{}:{}:{index}", token.stream(), token.stream_sequence()))
}

/// The stream of [`CheckpointLedger::filter`].
pub struct Admitted<'a, S> {
    ledger: &'a CheckpointLedger,
    messages: S,
}

impl<S, E> Stream for Admitted<'_, S>
where
    S: Stream<Item = Result<Message, E>> + Unpin,
{
    type Item = Result<Message, E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            let next = Pin::new(&mut self.messages).poll_next(cx);
            match next {
                Poll::Ready(Some(Ok(message))) if self.ledger.admit(&message) == Ok(false) => continue,
                other => return other,
            }
        }
    }
}

impl Drop for CheckpointLedger {
    fn drop(&mut self) {
        self.client.shared().lock().retire(Route::Ledger(self.id));
    }
}
