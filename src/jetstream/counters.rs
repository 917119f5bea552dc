//! Distributed counters (ADR-49, server 2.12; streams with
//! `allow_msg_counter` and `allow_direct`), shaped like orbit.rs's
//! `nats-counters`: [`Context::get_counter`] binds a [`Counter`] to a
//! stream, whose every subject is a counter; [`Counter::add`] sends an
//! increment (`Nats-Incr`) and gets the new total from the ack;
//! [`Counter::load`] reads one total, [`Counter::get`] one [`Entry`] with
//! its last increment and, for a counter fed by sources, the per-source
//! breakdown (`Nats-Counter-Sources`); [`Counter::get_multiple`] reads the
//! entries of many subjects (wildcards allowed) in one batched direct get.
//! Numbers are `num_bigint::BigInt`, exact at any size, as the server's.
//! The rules that read the messages live in the core
//! (`core::jetstream::counter`), shared with the npm package's tests.

use std::collections::HashMap;
use std::pin::Pin;
use std::str::FromStr;
use std::task::{Context as TaskContext, Poll, ready};

use bytes::Bytes;
use futures_core::Stream as AsyncStream;
pub use num_bigint::BigInt;

use super::api::{ErrorCode, MsgGetRequest};
use super::context::Context;
use super::direct_batch::DirectBatch;
use super::stream::Stream;
use crate::core::error::{Error, KindError, ProtocolError, SortCause, error_kinds, is_bad_input, sort_causes};
pub use crate::core::header::{NATS_COUNTER_SOURCES as COUNTER_SOURCES_HEADER, NATS_INCR as COUNTER_INCREMENT_HEADER};
use crate::core::jetstream::counter::{self, SourceTotals};
use crate::core::jetstream::publish::Publish;
use crate::core::jetstream::raw_message::StreamMessage;

error_kinds!(
    /// What failed in a counter call (orbit.rs's names); the cause keeps the
    /// server's `err_code` and description.
    CounterErrorKind {
        /// The stream does not keep counters (`allow_msg_counter` off; 10168).
        CounterNotEnabled => "stream is not configured for counters (allow_msg_counter must be true)",
        /// The stream does not answer direct gets (`allow_direct` off).
        DirectAccessRequired => "stream must be configured for direct access (allow_direct must be true)",
        /// An increment that is not a decimal integer (refused before
        /// sending, or by the server: 10171), or a publish without one (10169).
        InvalidCounterValue => "invalid counter value",
        /// There is no such stream.
        CounterNotFound => "counter not found",
        /// The subject has no counter yet.
        NoCounterForSubject => "counter not initialized for subject",
        /// A stored total, increment or source breakdown that is not what ADR-49 writes.
        InvalidResponseValue => "invalid counter value in response",
        /// The stream acknowledged an increment without its new total.
        MissingResponseValue => "counter increment response missing value",
        /// No answer came in time.
        TimedOut => "timed out",
        Other => "counter operation failed",
    }
);

/// A counter call's error: its kind, and natsjet's error as the cause.
pub type CounterError = KindError<CounterErrorKind>;

sort_causes! { cause;
    CounterErrorKind {
        Error::JetStream(e) => match e.err_code {
            ErrorCode::MESSAGE_INCR_DISABLED => CounterErrorKind::CounterNotEnabled,
            ErrorCode::MESSAGE_INCR_INVALID | ErrorCode::MESSAGE_INCR_MISSING | ErrorCode::MESSAGE_INCR_PAYLOAD => {
                CounterErrorKind::InvalidCounterValue
            }
            ErrorCode::STREAM_NOT_FOUND => CounterErrorKind::CounterNotFound,
            ErrorCode::NO_MESSAGE_FOUND => CounterErrorKind::NoCounterForSubject,
            ErrorCode::MESSAGE_COUNTER_BROKEN => CounterErrorKind::InvalidResponseValue,
            _ => CounterErrorKind::Other,
        },
        _ if is_bad_input(cause) => CounterErrorKind::InvalidCounterValue,
        Error::Protocol(ProtocolError::Store(_)) => CounterErrorKind::InvalidResponseValue,
        Error::NoResponders => CounterErrorKind::DirectAccessRequired,
        Error::Timeout => CounterErrorKind::TimedOut,
        _ => CounterErrorKind::Other,
    }
}

/// For each source stream, the totals last taken from its subjects (before any transform).
pub type CounterSources = HashMap<String, HashMap<String, BigInt>>;

/// A counter as its last message holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The counter's subject.
    pub subject: String,
    /// The total.
    pub value: BigInt,
    /// The per-source breakdown; empty for a counter without sources.
    pub sources: CounterSources,
    /// The increment the last message made (for recounts and audits).
    pub increment: Option<BigInt>,
    /// The stream sequence of that message.
    pub sequence: u64,
}

/// The counters of one stream; cheap to clone.
#[derive(Debug, Clone)]
pub struct Counter {
    context: Context,
    stream: String,
}

impl Context {
    /// The counters of stream `name`, which must have `allow_msg_counter`
    /// and `allow_direct` (one request for its info).
    pub async fn get_counter(&self, name: impl AsRef<str>) -> Result<Counter, CounterError> {
        let stream = self.get_stream(name).await.map_err(|e| CounterErrorKind::error(e.into()))?;
        Counter::from_stream(stream)
    }
}

impl Counter {
    /// The counters of `stream`, checked against its cached config.
    pub fn from_stream(stream: Stream) -> Result<Counter, CounterError> {
        let config = &stream.cached_info().config;
        let refused = |kind, text: &str| KindError::new(kind, Error::InvalidArgument(text.into()));
        if !config.allow_message_counter {
            return Err(refused(CounterErrorKind::CounterNotEnabled, "the stream has no allow_msg_counter"));
        }
        if !config.allow_direct {
            return Err(refused(CounterErrorKind::DirectAccessRequired, "the stream has no allow_direct"));
        }
        Ok(Counter { stream: stream.name().to_owned(), context: stream.context().clone() })
    }

    /// The stream's name.
    pub fn stream_name(&self) -> &str {
        &self.stream
    }

    /// Adds `value` (negative to subtract) to the counter `subject` and
    /// returns its new total, from the stream's ack.
    pub async fn add(&self, subject: impl Into<String>, value: impl Into<BigInt>) -> Result<BigInt, CounterError> {
        self.add_text(subject.into(), value.into().to_string()).await
    }

    /// Adds one to `subject`; its new total.
    pub async fn increment(&self, subject: impl Into<String>) -> Result<BigInt, CounterError> {
        self.add_text(subject.into(), "1".into()).await
    }

    /// Subtracts one from `subject`; its new total.
    pub async fn decrement(&self, subject: impl Into<String>) -> Result<BigInt, CounterError> {
        self.add_text(subject.into(), "-1".into()).await
    }

    /// Adds an increment given as decimal text (`"+5"`, `"-12"`, any size):
    /// refused with [`CounterErrorKind::InvalidCounterValue`] before sending
    /// when it is not a decimal integer.
    pub async fn add_text(&self, subject: String, increment: String) -> Result<BigInt, CounterError> {
        let total = async {
            counter::check_increment(&increment)?;
            let publish = Publish::build().payload(Bytes::new()).header(COUNTER_INCREMENT_HEADER, increment);
            let ack = self.context.send_publish(subject, publish).await?.await?;
            Ok::<_, Error>(ack.value)
        };
        match total.await.map_err(CounterErrorKind::error)? {
            Some(total) => big(total).map_err(CounterErrorKind::error),
            None => Err(KindError::new(
                CounterErrorKind::MissingResponseValue,
                Error::Protocol(ProtocolError::ApiResponse("the ack of an increment has no val".into())),
            )),
        }
    }

    /// The total of counter `subject` (its last message, by direct get).
    pub async fn load(&self, subject: impl AsRef<str>) -> Result<BigInt, CounterError> {
        let value = async { big(counter::parse_value(&self.last(subject.as_ref()).await?.payload)?) };
        value.await.map_err(CounterErrorKind::error)
    }

    /// Counter `subject` with its last increment and per-source breakdown.
    pub async fn get(&self, subject: impl AsRef<str>) -> Result<Entry, CounterError> {
        let entry = async { entry(&self.last(subject.as_ref()).await?) };
        entry.await.map_err(CounterErrorKind::error)
    }

    /// The entries of every counter `subjects` match (wildcards allowed; at
    /// most 1024 counters), in stream order, from one batched direct get
    /// (server 2.11+).
    pub fn get_multiple<S: Into<String>>(
        &self,
        subjects: impl IntoIterator<Item = S>,
    ) -> Result<Entries, CounterError> {
        let batch = || {
            let request =
                MsgGetRequest { multi_last: subjects.into_iter().map(Into::into).collect(), ..Default::default() };
            let payload = serde_json::to_vec(&request).map_err(|e| Error::InvalidArgument(e.to_string()))?;
            self.context.direct_get_batch_from_stream(&self.stream, &payload)
        };
        Ok(Entries { batch: batch().map_err(CounterErrorKind::error)? })
    }

    async fn last(&self, subject: &str) -> Result<StreamMessage, Error> {
        self.context.direct_get_from_stream(&self.stream, Some(subject), b"").await
    }
}

/// The entries of [`Counter::get_multiple`], in stream order.
#[derive(Debug)]
pub struct Entries {
    batch: DirectBatch,
}

impl AsyncStream for Entries {
    type Item = Result<Entry, CounterError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let next = ready!(Pin::new(&mut self.batch).poll_next(cx));
        Poll::Ready(next.map(|message| message.and_then(|m| entry(&m)).map_err(CounterErrorKind::error)))
    }
}

fn entry(message: &StreamMessage) -> Result<Entry, Error> {
    let reading = counter::read(message)?;
    Ok(Entry {
        subject: reading.subject,
        value: big(reading.value)?,
        sources: sources(reading.sources)?,
        increment: reading.increment.map(big).transpose()?,
        sequence: reading.sequence,
    })
}

fn sources(totals: SourceTotals) -> Result<CounterSources, Error> {
    let subjects = |totals: std::collections::BTreeMap<String, String>| {
        totals.into_iter().map(|(subject, total)| Ok((subject, big(total)?))).collect::<Result<_, Error>>()
    };
    totals.into_iter().map(|(source, totals)| Ok((source, subjects(totals)?))).collect()
}

/// A decimal text (already checked by the core's rules) as a `BigInt`.
fn big(text: String) -> Result<BigInt, Error> {
    BigInt::from_str(&text)
        .map_err(|_| Error::Protocol(ProtocolError::Store(format!("counter value {text:?} is not a decimal integer"))))
}
