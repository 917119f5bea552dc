//! The checkpoint ack ledger, live: messages of a shared durable consumer
//! held until the checkpoint that covers them commits, kept alive with
//! `+WPI` by the connection's driver task (not by the user's loop), then
//! acked in one confirmed [`AckBatch`].

use std::time::Duration;

use super::ack::{Ack, AckBatch, AckLedger, AckReport, LedgerEvent, LedgerWarning};
use super::ack::{check_ledger_fit, check_shared_durable};
use super::consumer::Consumer;
use super::message::Message;
use crate::client::Client;
use crate::core::session::LedgerId;
use crate::error::Error;

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
/// `max_ack_pending` below workers × batch, or an `ack_wait` shorter than the
/// checkpoint interval, is reported in [`warnings`](Self::warnings).
pub struct CheckpointLedger {
    client: Client,
    id: LedgerId,
    ack_timeout: Duration,
    warnings: Vec<LedgerWarning>,
}

impl CheckpointLedger {
    pub fn new<T>(consumer: &Consumer<T>, options: LedgerOptions) -> Result<Self, Error> {
        let info = consumer.cached_info();
        check_shared_durable(info.config.ack_policy, options.workers)?;
        let warnings = check_ledger_fit(
            info.config.max_ack_pending,
            options.workers,
            options.batch,
            info.config.ack_wait,
            options.checkpoint_interval,
        );
        let mut ledger = AckLedger::new();
        ledger.set_ack_wait(&info.stream_name, &info.name, info.config.ack_wait)?;
        let client = consumer.context().client().clone();
        let id = client.shared().lock().add_ledger(ledger);
        Ok(CheckpointLedger { client, id, ack_timeout: consumer.context().timeout(), warnings })
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
        let token = message.claim_token(&Ack::Ack)?;
        let now = self.client.now();
        let tracked = self.client.shared().lock().ledger_track(now, self.id, token, epoch);
        if tracked.is_err() {
            message.release_claim();
        }
        tracked
    }

    /// Acks every message of epochs up to `epoch`, pipelined and confirmed.
    pub async fn commit(&self, epoch: u64) -> Result<AckReport, Error> {
        let tokens = self.client.shared().lock().ledger_commit(self.id, epoch)?;
        let mut batch = AckBatch::new();
        for token in tokens {
            batch.ack(token)?;
        }
        batch.commit_confirmed(&self.client, self.ack_timeout).await
    }

    /// Messages held.
    pub fn len(&self) -> usize {
        self.client.shared().lock().ledger_len(self.id)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next warning that a held message may be redelivered anyway.
    pub fn try_next_event(&self) -> Option<LedgerEvent> {
        self.client.shared().lock().ledger_event(self.id)
    }
}

impl Drop for CheckpointLedger {
    fn drop(&mut self) {
        self.client.shared().lock().remove_ledger(self.id);
    }
}
