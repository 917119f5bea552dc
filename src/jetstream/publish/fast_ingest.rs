//! Fast ingest over a client (ADR-50 fast batches, nats-server 2.14,
//! streams with `allow_batched`), shaped like orbit.go's `jetstreamext`
//! fast publisher: [`FastPublisher`] publishes each message at once with
//! its place in the batch in the reply subject, and waits only while the
//! sans-IO [`FastWindow`] is full (the server acks every `flow` messages;
//! `max_outstanding_acks` intervals may be unacknowledged). The first
//! message waits for its ack, so a stream that takes no fast batches
//! refuses at once; the commit (with a last message, or an end of batch
//! that stores none) returns the batch's [`PublishAck`]. The Object Store
//! puts its chunks through the same publisher.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::{Either, select};

use super::Context;
use crate::core::error::{Error, KindError, ProtocolError, SortCause, error_kinds, is_bad_input, sort_causes};
use crate::core::header::StatusCode;
use crate::core::jetstream::api::{ErrorCode, PublishAck};
pub use crate::core::jetstream::fast_window::FAST_INGEST_API_LEVEL;
use crate::core::jetstream::fast_window::{Control, FastOptions, FastWindow};
use crate::core::jetstream::publish::Publish;
use crate::driver::{DefaultRuntime, Runtime};
use crate::{Client, Subscriber};

error_kinds!(
    /// What ended a [`FastPublisher`] call (orbit.go's errors); the cause
    /// keeps the server's `err_code` and description.
    #[derive(Copy, Hash)]
    FastPublishErrorKind {
        /// The stream does not take fast batches (`allow_batched` off; 10205).
        NotEnabled => "fast batch publishing not enabled on stream",
        /// The stream lost messages of the batch, which ends it (unless it
        /// goes on over gaps).
        GapDetected => "fast batch gap detected",
        /// The server no longer knows the batch (abandoned, or ended by an error; 10208).
        UnknownBatch => "fast batch unknown to the server",
        /// The server has as many fast batches open as it takes (10211).
        TooManyInflight => "server has too many inflight fast batches",
        /// No stream captures the subject.
        StreamNotFound => "no stream found for given subject",
        /// An ack awaited did not come in time.
        TimedOut => "timed out: didn't receive ack in time",
        /// The batch was committed, closed or ended by an earlier error.
        BatchClosed => "fast batch was closed by a prior error or its commit",
        /// A message refused before sending (a bad subject or header).
        InvalidMessage => "message refused before sending",
        Other => "fast publish failed",
    }
);

/// Why a fast publish failed: its kind, and natsjet's error as the cause.
pub type FastPublishError = KindError<FastPublishErrorKind>;

/// 10211: too many fast batches in flight on the server.
const TOO_MANY_FAST_BATCHES: ErrorCode = ErrorCode(10211);

sort_causes! { cause;
    FastPublishErrorKind {
        Error::JetStream(e) => match e.err_code {
            ErrorCode::FAST_BATCH_DISABLED => FastPublishErrorKind::NotEnabled,
            ErrorCode::FAST_BATCH_UNKNOWN_ID => FastPublishErrorKind::UnknownBatch,
            TOO_MANY_FAST_BATCHES => FastPublishErrorKind::TooManyInflight,
            _ => FastPublishErrorKind::Other,
        },
        Error::ApiMisuse(_) => FastPublishErrorKind::BatchClosed,
        _ if is_bad_input(cause) => FastPublishErrorKind::InvalidMessage,
        Error::Protocol(ProtocolError::FastBatch(_)) => FastPublishErrorKind::GapDetected,
        Error::NoResponders => FastPublishErrorKind::StreamNotFound,
        Error::Timeout => FastPublishErrorKind::TimedOut,
        _ => FastPublishErrorKind::Other,
    }
}

/// The progress a fast publish reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastPubAck {
    /// This message's place in the batch (from 1).
    pub batch_sequence: u64,
    /// The highest place the server acknowledged: with gaps failing the
    /// batch (the default), every message up to it is stored.
    pub ack_sequence: u64,
}

impl Context {
    /// A new fast publisher on this context's connection (server 2.14, the
    /// stream needs `allow_batched`).
    pub fn fast_publish(&self) -> FastPublisherBuilder {
        FastPublisherBuilder { client: self.client().clone(), options: FastOptions::default(), timeout: self.timeout() }
    }
}

/// Options of a [`FastPublisher`], from [`Context::fast_publish`].
#[derive(Debug, Clone)]
#[must_use]
pub struct FastPublisherBuilder {
    client: Client,
    options: FastOptions,
    timeout: Duration,
}

impl FastPublisherBuilder {
    /// Asks for a flow ack every `flow` messages (default 10; the server may change it).
    pub fn flow(mut self, flow: u16) -> Self {
        self.options.flow = flow;
        self
    }

    /// How many flow intervals may be unacknowledged before a publish waits (default 2).
    pub fn max_outstanding_acks(mut self, intervals: u16) -> Self {
        self.options.outstanding = intervals;
        self
    }

    /// How long an ack is awaited (default: the context's timeout).
    pub fn ack_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Goes on when the stream lost messages (each gap is counted in
    /// [`FastPublisher::gaps`]) instead of ending the batch (the default).
    pub fn continue_on_gap(mut self, go_on: bool) -> Self {
        self.options.continue_on_gap = go_on;
        self
    }

    /// The publisher; nothing is sent before its first message.
    pub fn build(self) -> FastPublisher {
        let window = FastWindow::with_options(self.client.new_inbox(), self.options);
        let (controls, first_subject) = (None, None);
        FastPublisher {
            client: self.client,
            window,
            controls,
            first_subject,
            timeout: self.timeout,
            closed: false,
            gaps: 0,
        }
    }
}

/// A fast batch: publishes that wait only while the flow window is full.
#[derive(Debug)]
pub struct FastPublisher {
    client: Client,
    window: FastWindow,
    controls: Option<Subscriber>,
    first_subject: Option<String>,
    timeout: Duration,
    closed: bool,
    gaps: u64,
}

impl FastPublisher {
    /// Publishes `payload` to `subject` as the batch's next message.
    pub async fn add(&mut self, subject: &str, payload: Bytes) -> Result<FastPubAck, FastPublishError> {
        self.add_message(subject, Publish::build().payload(payload)).await
    }

    /// Publishes a message with headers as the batch's next message. The
    /// first waits for its ack; later ones only for room in the window.
    pub async fn add_message(&mut self, subject: &str, message: Publish) -> Result<FastPubAck, FastPublishError> {
        self.step(Some(subject), message, false).await.map_err(FastPublishErrorKind::error)?;
        Ok(FastPubAck { batch_sequence: self.window.sent(), ack_sequence: self.window.acked() })
    }

    /// Publishes the last message and waits for the batch's [`PublishAck`].
    pub async fn commit(self, subject: &str, payload: Bytes) -> Result<PublishAck, FastPublishError> {
        self.commit_message(subject, Publish::build().payload(payload)).await
    }

    /// Publishes the last message, with headers, and waits for the batch's [`PublishAck`].
    pub async fn commit_message(mut self, subject: &str, message: Publish) -> Result<PublishAck, FastPublishError> {
        self.last(Some(subject), message).await
    }

    /// Ends the batch without storing another message (server 2.14: the
    /// end-of-batch commit) and waits for its [`PublishAck`]; at least one
    /// message must have been added.
    pub async fn close(mut self) -> Result<PublishAck, FastPublishError> {
        self.last(None, Publish::build()).await
    }

    /// The last call (with a message, or the end of batch without one) and its ack.
    async fn last(&mut self, subject: Option<&str>, message: Publish) -> Result<PublishAck, FastPublishError> {
        let done = self.step(subject, message, true).await;
        let ack = done.and_then(|ack| ack.ok_or(Error::ApiMisuse("the fast batch ended without its ack")));
        ack.map_err(FastPublishErrorKind::error)
    }

    /// Messages sent so far.
    pub fn sent(&self) -> u64 {
        self.window.sent()
    }

    /// Messages the server acknowledged so far.
    pub fn acked(&self) -> u64 {
        self.window.acked()
    }

    /// Gaps the server reported (only when going on over them).
    pub fn gaps(&self) -> u64 {
        self.gaps
    }

    /// Whether the batch was committed or ended by an error.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    async fn subscribe(&mut self) -> Result<(), Error> {
        if self.controls.is_none() {
            self.controls = Some(self.client.subscribe(self.window.subscription()).await?);
        }
        Ok(())
    }

    fn open(&self) -> Result<(), Error> {
        match self.closed {
            true => Err(Error::ApiMisuse("the fast batch was committed or ended by an error")),
            false => Ok(()),
        }
    }

    /// Every call in one state machine (the wasm's calls go straight
    /// here, so its code is there once): publishes the next message
    /// (`last` false), the last one, or (`last` without a subject) the end
    /// of batch to the first message's subject, which the stream captures;
    /// then the batch's [`PublishAck`] when `last`.
    pub(crate) async fn step(
        &mut self,
        subject: Option<&str>,
        message: Publish,
        last: bool,
    ) -> Result<Option<PublishAck>, Error> {
        let (subject, reply) = match subject {
            Some(subject) => {
                self.open()?;
                self.client.check_publish_subject(subject)?;
                self.subscribe().await?;
                while !last && !self.window.has_room() {
                    self.next_control().await?;
                }
                (subject.to_owned(), self.window.next_reply(last))
            }
            None => {
                let subject =
                    self.first_subject.clone().ok_or(Error::ApiMisuse("an empty fast batch cannot be closed"))?;
                self.open()?;
                (subject, self.window.end_reply())
            }
        };
        let sent = self.client.publish_shared(&subject, Some(&reply), message.headers.as_ref(), &message.payload).await;
        self.closed |= sent.is_err();
        sent?;
        if last {
            loop {
                if let Some(ack) = self.next_control().await? {
                    return Ok(Some(ack));
                }
            }
        }
        if self.window.sent() == 1 {
            self.first_subject = Some(subject);
            // The server answers the start at once (a flow ack of 0, or its
            // refusal): whether the stream takes the batch at all.
            self.next_control().await?;
        }
        Ok(None)
    }

    /// The next control message, within the timeout: the batch's ack when
    /// it is the last; an error ends the batch.
    async fn next_control(&mut self) -> Result<Option<PublishAck>, Error> {
        let control = match self.controls.as_mut() {
            None => Err(Error::ApiMisuse("the fast batch has no inbox")),
            Some(controls) => match select(controls.next(), DefaultRuntime::sleep(self.timeout)).await {
                Either::Left((Some(message), _)) => match message.status {
                    Some(StatusCode::NO_RESPONDERS) => Err(Error::NoResponders),
                    _ => self.window.handle(&message.payload),
                },
                Either::Left((None, _)) => Err(Error::Closed),
                Either::Right(_) => Err(Error::Timeout),
            },
        };
        match control {
            Ok(Control::Ack { .. }) => Ok(None),
            Ok(Control::Gap { .. }) => {
                self.gaps += 1;
                Ok(None)
            }
            Ok(Control::Done(ack)) => {
                self.closed = true;
                Ok(Some(ack))
            }
            Err(e) => {
                self.closed = true;
                Err(e)
            }
        }
    }
}
