//! Sans-IO ordered consumer (ADR-17): a stream read strictly in order,
//! without gaps or duplicates, through a chain of client-made ephemeral
//! consumers (ack policy none, memory storage, one replica): pull
//! consumers, or push consumers ([`OrderedCursor::pushing`]) that deliver
//! each to a subject of its own, with flow control and heartbeats.
//!
//! [`OrderedCursor`] remembers the stream sequence of the last message it
//! let through and the consumer sequence it expects next. The caller
//! shows it every message, event and reader error; the cursor answers
//! whether to deliver or to reset, and [`OrderedCursor::next_consumer`]
//! gives the config of the consumer that resumes at the last stream
//! sequence + 1. It owns no socket, request or timer: the caller creates
//! and deletes the consumers and sleeps until the retry time it is given.
//!
//! ```
//! use natsjet::jetstream::ordered::{OrderedConfig, OrderedCursor, Verdict};
//! use natsjet::Message;
//!
//! let mut cursor = OrderedCursor::new(OrderedConfig::default(), "Xy12").unwrap();
//! let config = cursor.next_consumer(); // create it on the stream, then:
//! assert_eq!(config.name.as_deref(), Some("Xy12_1"));
//! cursor.handle_created();
//! let msg = |sseq: u64, cseq: u64| Message {
//!     subject: "orders".into(),
//!     reply: Some(format!("$JS.ACK.S.Xy12_1.1.{sseq}.{cseq}.0.0").into()),
//!     payload: Default::default(),
//!     headers: None,
//!     status: None,
//!     description: None,
//!     length: 0,
//! };
//! assert_eq!(cursor.handle_message(&msg(5, 1)).unwrap(), Verdict::Deliver);
//! assert!(matches!(cursor.handle_message(&msg(9, 3)).unwrap(), Verdict::Reset(_))); // cseq 2 went missing
//! assert_eq!(cursor.next_consumer().deliver_policy, natsjet::jetstream::api::DeliverPolicy::ByStartSequence { start_sequence: 6 });
//! ```

use std::time::Duration;

use super::ack::DeliveryNumbers;
use super::api::{AckPolicy, ConsumerConfig, DeliverPolicy, ErrorCode, ReplayPolicy};
use super::pull::{ConsumerEvent, ResetReason, StatusKind};
use crate::core::error::{Error, ProtocolError};
use crate::core::message::Message;
use crate::core::subject::validate_subject;
use crate::core::time::Instant;

/// How long an idle ordered consumer outlives its reader on the server (nats.js: 5 min).
pub const DEFAULT_INACTIVE_THRESHOLD: Duration = Duration::from_secs(5 * 60);
/// First wait before retrying a failed create; it doubles up to [`MAX_RETRY_WAIT`].
pub const FIRST_RETRY_WAIT: Duration = Duration::from_millis(250);
/// The longest wait between retries of a failed create.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(5);

/// Options of an ordered consumer, as nats.js's `OrderedConsumerOptions`
/// and async-nats's `OrderedConfig`. A start sequence or time is a
/// [`DeliverPolicy`] variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedConfig {
    /// Only these subjects (none: the whole stream).
    pub filter_subjects: Vec<String>,
    /// Where the first consumer starts; later ones resume after the last message.
    pub deliver_policy: DeliverPolicy,
    /// How fast stored messages are delivered (default instant).
    pub replay_policy: ReplayPolicy,
    /// How long the server keeps a consumer nobody reads.
    pub inactive_threshold: Duration,
    /// Headers and `Nats-Msg-Size` only, no payloads.
    pub headers_only: bool,
    /// Put before the client's unique part of every consumer name.
    pub name_prefix: Option<String>,
}

impl Default for OrderedConfig {
    fn default() -> Self {
        OrderedConfig {
            filter_subjects: Vec::new(),
            deliver_policy: DeliverPolicy::All,
            replay_policy: ReplayPolicy::Instant,
            inactive_threshold: DEFAULT_INACTIVE_THRESHOLD,
            headers_only: false,
            name_prefix: None,
        }
    }
}

/// Options of an ordered push consumer, as nats.js's
/// `OrderedPushConsumerOptions` and async-nats's `push::OrderedConfig`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedPushConfig {
    /// What is read and where reading starts, as for the pull ordered consumer.
    pub ordered: OrderedConfig,
    /// Consumer `n` delivers to `<deliver_prefix>.<n>`, so nothing a
    /// replaced one still sends gets mixed in (default: a fresh inbox).
    pub deliver_prefix: Option<String>,
    /// How often an idle consumer sends a heartbeat; two missed ones
    /// replace it (as async-nats: 5 s).
    pub idle_heartbeat: Duration,
}

impl Default for OrderedPushConfig {
    fn default() -> Self {
        OrderedPushConfig {
            ordered: OrderedConfig::default(),
            deliver_prefix: None,
            idle_heartbeat: DEFAULT_PUSH_HEARTBEAT,
        }
    }
}

/// The heartbeat interval of an ordered push consumer's consumers.
pub const DEFAULT_PUSH_HEARTBEAT: Duration = Duration::from_secs(5);

/// What to do with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Hand it to the user: it is the next one.
    Deliver,
    /// Drop it and the consumer, and create [`OrderedCursor::next_consumer`].
    Reset(ResetCause),
}

/// Why the consumer is replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResetCause {
    /// A consumer sequence other than the one expected: something was lost.
    Gap {
        /// The consumer sequence expected next.
        expected: u64,
        /// The one that came.
        got: u64,
    },
    /// The server went silent for two heartbeats.
    HeartbeatsMissed,
    /// A pull found no consumer (503), or the consumer said it cannot serve (409 deleted…).
    ConsumerGone,
    /// The connection came back: a memory consumer may be gone.
    Reconnected,
    /// The reader ended with this error (409 consumer deleted, no responders…).
    ReaderFailed(Error),
}

/// The position of an ordered read and the names of its consumers.
#[derive(Debug, Clone)]
pub struct OrderedCursor {
    config: OrderedConfig,
    /// `name_prefix` + the caller's unique token; consumers are `<prefix>_<serial>`.
    prefix: String,
    serial: u64,
    /// Stream sequence of the last message delivered; 0 before the first.
    stream_seq: u64,
    /// Consumer sequence of the last message delivered by the current consumer.
    consumer_seq: u64,
    /// Creates failed in a row.
    failures: u32,
    /// A consumer was ever created: API errors are worth retrying.
    created_once: bool,
    /// A missing stream ends the read even then.
    ends_without_stream: bool,
    /// Push consumers deliver to `<prefix>.<serial>` with these heartbeats.
    push: Option<(String, Duration)>,
}

impl OrderedCursor {
    /// A cursor whose consumer names start with `name_prefix` + `unique`
    /// (a token no other client uses, e.g. a NUID).
    pub fn new(config: OrderedConfig, unique: &str) -> Result<Self, Error> {
        let prefix = format!("{}{unique}", config.name_prefix.as_deref().unwrap_or_default());
        if prefix.is_empty() || prefix.contains(['.', '*', '>', ' ', '\t', '\r', '\n', '/', '\\']) {
            return Err(Error::InvalidArgument(format!("ordered consumer name prefix {prefix:?} is not a valid name")));
        }
        Ok(OrderedCursor {
            config,
            prefix,
            serial: 0,
            stream_seq: 0,
            consumer_seq: 0,
            failures: 0,
            created_once: false,
            ends_without_stream: false,
            push: None,
        })
    }

    /// Ends the read when a replacement consumer finds no stream, where by
    /// default it waits for the stream to come back: what an object store
    /// get reads does not come back.
    pub fn end_without_stream(&mut self) {
        self.ends_without_stream = true;
    }

    /// Makes push consumers instead: consumer `n` delivers to
    /// `<deliver_prefix>.<n>` with flow control and `idle_heartbeat`.
    pub fn pushing(mut self, deliver_prefix: &str, idle_heartbeat: Duration) -> Result<Self, Error> {
        validate_subject(deliver_prefix)?;
        if deliver_prefix.split('.').any(|token| token == "*" || token == ">") || idle_heartbeat.is_zero() {
            let text = format!(
                "an ordered push consumer needs a deliver prefix without wildcards ({deliver_prefix:?}) and heartbeats"
            );
            return Err(Error::InvalidArgument(text));
        }
        self.push = Some((deliver_prefix.to_string(), idle_heartbeat));
        Ok(self)
    }

    /// The stream sequence of the last message delivered (0 before the first).
    pub fn stream_sequence(&self) -> u64 {
        self.stream_seq
    }

    /// The name of the consumer made by the last [`next_consumer`](Self::next_consumer).
    pub fn consumer_name(&self) -> String {
        format!("{}_{}", self.prefix, self.serial)
    }

    /// The config of a new consumer (with a new name) that starts right after
    /// the last delivered message, or where the user asked if none was.
    pub fn next_consumer(&mut self) -> ConsumerConfig {
        self.serial += 1;
        self.consumer_seq = 0;
        let deliver_policy = match self.stream_seq {
            0 => self.config.deliver_policy.clone(),
            last => DeliverPolicy::ByStartSequence { start_sequence: last + 1 },
        };
        let mut filter_subjects = self.config.filter_subjects.clone();
        // Last per subject needs a filter; pre-2.10 servers want it as filter_subject.
        let filter_subject = match (&deliver_policy, filter_subjects.len()) {
            (DeliverPolicy::LastPerSubject, 0) => Some(">".to_string()),
            (_, 1) => filter_subjects.pop(),
            _ => None,
        };
        let (deliver_subject, idle_heartbeat) = match &self.push {
            Some((prefix, heartbeat)) => (Some(format!("{prefix}.{}", self.serial)), *heartbeat),
            None => (None, Duration::ZERO),
        };
        ConsumerConfig {
            name: Some(self.consumer_name()),
            flow_control: deliver_subject.is_some(),
            deliver_subject,
            idle_heartbeat,
            deliver_policy,
            ack_policy: AckPolicy::None,
            max_deliver: 1,
            memory_storage: true,
            num_replicas: 1,
            filter_subject: filter_subject.unwrap_or_default(),
            filter_subjects,
            replay_policy: self.config.replay_policy,
            inactive_threshold: self.config.inactive_threshold,
            headers_only: self.config.headers_only,
            ..ConsumerConfig::default()
        }
    }

    /// The next consumer resumes after stream sequence `sequence`, the last
    /// message its user took (0: where the read started), rather than after
    /// the last one let through (an ended reader may have left some unread).
    pub fn resume_after(&mut self, sequence: u64) {
        self.stream_seq = sequence;
    }

    /// The consumer of the last [`next_consumer`](Self::next_consumer) exists.
    pub fn handle_created(&mut self) {
        self.failures = 0;
        self.created_once = true;
    }

    /// The first consumer starts after stream sequence `sequence` (its
    /// info's `delivered.stream_seq`). With [`DeliverPolicy::New`] or
    /// [`DeliverPolicy::Last`] that position holds: a replacement made
    /// before anything arrived resumes there, instead of at the stream's
    /// end at that later time, which would skip what came in between.
    pub fn handle_started_after(&mut self, sequence: u64) {
        if self.stream_seq == 0 && matches!(self.config.deliver_policy, DeliverPolicy::New | DeliverPolicy::Last) {
            self.stream_seq = sequence;
        }
    }

    /// Creating the consumer failed at `now`: when to try again, or the
    /// error if trying again cannot help (bad options, closed client, or an
    /// API error before any consumer existed, such as a missing stream).
    pub fn handle_create_failed(&mut self, now: Instant, error: Error) -> Result<Instant, Error> {
        let retry = match &error {
            Error::InvalidArgument(_) | Error::ApiMisuse(_) | Error::InvalidSubject { .. } | Error::Closed => false,
            Error::JetStream(e) if e.err_code == ErrorCode::STREAM_NOT_FOUND => {
                self.created_once && !self.ends_without_stream
            }
            Error::JetStream(_) => self.created_once,
            _ => true,
        };
        if !retry {
            return Err(error);
        }
        let wait = FIRST_RETRY_WAIT.saturating_mul(1 << self.failures.min(8)).min(MAX_RETRY_WAIT);
        self.failures = self.failures.saturating_add(1);
        Ok(now + wait)
    }

    /// A message from the current consumer: deliver it if it is the next
    /// one. A message without JetStream metadata is a protocol error.
    pub fn handle_message(&mut self, message: &Message) -> Result<Verdict, Error> {
        Ok(self.handle_delivery(delivery_numbers(message)?))
    }

    /// [`handle_message`](Self::handle_message) with the numbers of the
    /// message's ack subject already read ([`delivery_numbers`]).
    pub(crate) fn handle_delivery(&mut self, numbers: DeliveryNumbers) -> Verdict {
        let expected = self.consumer_seq + 1;
        if numbers.consumer_sequence != expected {
            return Verdict::Reset(ResetCause::Gap { expected, got: numbers.consumer_sequence });
        }
        self.consumer_seq = expected;
        self.stream_seq = numbers.stream_sequence;
        Verdict::Deliver
    }

    /// A reader event: whether it calls for a new consumer.
    pub fn handle_event(&self, event: &ConsumerEvent) -> Option<ResetCause> {
        match event {
            ConsumerEvent::HeartbeatsMissed { .. } => Some(ResetCause::HeartbeatsMissed),
            ConsumerEvent::Reset(ResetReason::Reconnected) => Some(ResetCause::Reconnected),
            ConsumerEvent::Warning(status) if status.kind == StatusKind::NoResponders => Some(ResetCause::ConsumerGone),
            ConsumerEvent::Terminal(status) if status.kind != StatusKind::BadRequest => Some(ResetCause::ConsumerGone),
            _ => None,
        }
    }

    /// The reader ended with `error`: a new consumer, or the end (a 400
    /// bad request would fail the same way again; a closed client stays closed).
    pub fn handle_reader_error(&self, error: Error) -> Result<ResetCause, Error> {
        match &error {
            Error::ConsumerStatus(status) if status.kind == StatusKind::BadRequest => Err(error),
            Error::ConsumerStatus(_) | Error::NoResponders | Error::Timeout | Error::Disconnected => {
                Ok(ResetCause::ReaderFailed(error))
            }
            _ => Err(error),
        }
    }
}

/// The numbers of an ordered message's ack subject; a message without
/// JetStream metadata is a protocol error.
pub(crate) fn delivery_numbers(message: &Message) -> Result<DeliveryNumbers, Error> {
    let reply = message
        .reply
        .as_deref()
        .ok_or_else(|| Error::Protocol(ProtocolError::AckSubject("ordered message without a reply".into())))?;
    DeliveryNumbers::parse(reply)
}

#[cfg(test)]
mod tests;
