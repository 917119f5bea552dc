//! `AckBatch`, sans-IO: collect acks, plan what to publish, then sort the
//! server's answers into confirmed, unconfirmed and refused.

use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;

use super::kind::Ack;
use super::token::AckToken;
use crate::core::error::Error;
use crate::core::header::StatusCode;
use crate::core::id_map::IdMap;
use crate::core::jetstream::api::AckPolicy;
use crate::core::message::Message;
use crate::core::time::Instant;

/// Acks gathered for one round (for example one checkpoint). Each delivery
/// gets at most one final ack: a second is an error, never a resend, and a
/// `+WPI` after a final ack is dropped (ADR-15).
#[derive(Debug, Default)]
pub struct AckBatch {
    entries: Vec<(AckToken, Ack)>,
    index: HashMap<AckToken, usize>,
    /// The consumers' ack policy, for [`plan`](Self::plan) (default explicit).
    policy: AckPolicy,
}

/// One publish of a plan: `body` to `subject`, sent as a request so the server confirms it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedAck {
    /// The delivery's ack subject (its reply subject).
    pub subject: String,
    /// The ack payload (`+ACK`, `-NAK`, `+TERM`, `+WPI`, …).
    pub body: Bytes,
    /// The deliveries this publish settles: one, or for AckAll every `+ACK`
    /// of its consumer at or below this stream sequence.
    pub tokens: Vec<AckToken>,
}

impl AckBatch {
    /// An empty batch for consumers with the default (explicit) ack policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// A batch for consumers with `policy`: AckAll sends only the highest
    /// sequence per consumer, AckNone sends nothing.
    pub fn with_policy(policy: AckPolicy) -> Self {
        AckBatch { policy, ..Self::default() }
    }

    /// The consumers' ack policy the batch was made for.
    pub fn policy(&self) -> AckPolicy {
        self.policy
    }

    /// Adds `+ACK` for `token`.
    pub fn ack(&mut self, token: AckToken) -> Result<(), Error> {
        self.add(token, Ack::Ack)
    }

    /// Adds an ack of any kind but `+NXT`, which is a pull, not a batchable ack.
    pub fn add(&mut self, token: AckToken, kind: impl Into<Ack>) -> Result<(), Error> {
        let kind = kind.into();
        if matches!(kind, Ack::Next(_)) {
            return Err(Error::InvalidArgument("+NXT pulls messages; it cannot be batched".into()));
        }
        let Some(&at) = self.index.get(&token) else {
            self.index.insert(token.clone(), self.entries.len());
            self.entries.push((token, kind));
            return Ok(());
        };
        let existing = &mut self.entries[at].1;
        match (existing.is_final(), kind.is_final()) {
            (true, true) => Err(Error::InvalidArgument(format!(
                "{} already has a final ack in this batch; a message is acked once",
                token.subject()
            ))),
            // Progress after a final ack, or a second progress: nothing to add.
            (_, false) => Ok(()),
            // A final ack makes an earlier progress pointless.
            (false, true) => {
                *existing = kind;
                Ok(())
            }
        }
    }

    /// Deliveries with an ack in the batch.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the batch holds no ack.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What to publish for a consumer with `policy`. AckNone: nothing (the
    /// server ignores acks). AckAll: every other kind one by one, then one
    /// `+ACK` per consumer at its highest stream sequence, which acks
    /// everything below it. Otherwise one publish per delivery, in order.
    pub fn plan(&self, policy: AckPolicy) -> Vec<PlannedAck> {
        let single = |token: &AckToken, kind: &Ack| PlannedAck {
            subject: token.subject().to_string(),
            body: kind.body(),
            tokens: vec![token.clone()],
        };
        match policy {
            AckPolicy::None => Vec::new(),
            AckPolicy::All => {
                let mut plan = Vec::new();
                // The `+ACK`s of each consumer, in the order consumers first
                // appear; a batch spans few of them, so a list will do.
                let mut floors: Vec<((&str, &str), Vec<&AckToken>)> = Vec::new();
                for (token, kind) in &self.entries {
                    if !matches!(kind, Ack::Ack) {
                        plan.push(single(token, kind));
                        continue;
                    }
                    let consumer = (token.stream(), token.consumer());
                    match floors.iter_mut().find(|(c, _)| *c == consumer) {
                        Some((_, tokens)) => tokens.push(token),
                        None => floors.push((consumer, vec![token])),
                    }
                }
                for (_, tokens) in floors {
                    if let Some(top) = tokens.iter().max_by_key(|t| t.stream_sequence()) {
                        plan.push(PlannedAck {
                            tokens: tokens.iter().map(|t| (*t).clone()).collect(),
                            ..single(top, &Ack::Ack)
                        });
                    }
                }
                plan
            }
            _ => self.entries.iter().map(|(token, kind)| single(token, kind)).collect(),
        }
    }
}

/// How a round of acks ended, per delivery.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AckReport {
    /// The server answered: the ack is applied.
    pub confirmed: Vec<AckToken>,
    /// No answer in time. Ambiguous (the server does not answer acks for a
    /// closed consumer, or a sequence a fresh leader has not delivered yet),
    /// and safe to send again.
    pub unconfirmed: Vec<AckToken>,
    /// The server answered with an error, given as text.
    pub refused: Vec<(AckToken, String)>,
}

/// Waits for the answers to acks sent as requests.
#[derive(Debug)]
pub struct AckConfirmations {
    /// The tokens each request settles, by request id.
    waiting: IdMap<u64, Vec<AckToken>>,
    deadline: Instant,
    report: AckReport,
}

impl AckConfirmations {
    /// Answers are awaited until `now + timeout`.
    pub fn new(now: Instant, timeout: Duration) -> Self {
        AckConfirmations { waiting: IdMap::default(), deadline: now + timeout, report: AckReport::default() }
    }

    /// `ack` was published as the request with the caller's id `id`.
    pub fn sent(&mut self, id: u64, ack: &PlannedAck) {
        self.waiting.insert(id, ack.tokens.clone());
    }

    /// Request `id` settles `tokens` (the acks of one consumer sent before
    /// it on the same connection, and its own).
    pub(crate) fn sent_many(&mut self, id: u64, tokens: Vec<AckToken>) {
        self.waiting.insert(id, tokens);
    }

    /// The answer to request `id`: empty means applied. A 503 means nobody
    /// took it (consumer or leader missing), so it may be sent again.
    pub fn handle_reply(&mut self, id: u64, reply: &Message) {
        let Some(tokens) = self.waiting.remove(&id) else {
            return;
        };
        match reply.status {
            None if reply.payload.is_empty() => self.report.confirmed.extend(tokens),
            Some(StatusCode::NO_RESPONDERS) => self.report.unconfirmed.extend(tokens),
            _ => {
                let why = match (reply.status, &reply.description) {
                    (Some(code), Some(text)) => format!("{code} {text}"),
                    (Some(code), None) => code.to_string(),
                    (None, _) => String::from_utf8_lossy(&reply.payload[..reply.payload.len().min(256)]).into_owned(),
                };
                self.report.refused.extend(tokens.into_iter().map(|t| (t, why.clone())));
            }
        }
    }

    /// After the deadline, what is still unanswered is unconfirmed.
    pub fn handle_timeout(&mut self, now: Instant) {
        if now >= self.deadline {
            self.report.unconfirmed.extend(self.waiting.drain().flat_map(|(_, tokens)| tokens));
        }
    }

    /// The deadline for the answers; `None` once every request is answered.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        (!self.is_done()).then_some(self.deadline)
    }

    /// Whether every request has its answer or timed out.
    pub fn is_done(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The report so far.
    pub fn report(&self) -> &AckReport {
        &self.report
    }

    /// The final report.
    pub fn into_report(self) -> AckReport {
        self.report
    }
}
