//! Atomic batch publish (ADR-50) over a client, shaped like orbit.rs's
//! `batch_publish`: [`BatchPublish`] sends what the sans-IO [`AtomicBatch`]
//! makes of each message and feeds it the answers and the time, so the
//! batch's numbering, refusals and deadlines live in the core, once for
//! Rust and for JavaScript (the wasm's `startBatch` sends through
//! [`BatchPublish::send_nowait`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, ready};
use std::time::Duration;

use bytes::Bytes;

use super::Context;
use crate::client::{Client, ResponseFuture};
use crate::core::error::{Error, KindError, SortCause, error_kinds, is_bad_input, sort_causes};
use crate::core::jetstream::atomic_batch::{AtomicBatch, BatchMessage, BatchReply};
use crate::core::jetstream::publish::Publish;
use crate::driver::{BoxFuture, DefaultRuntime, Runtime};
use crate::jetstream::api::{ErrorCode, PublishAck};
use crate::runtime::queue::lock;

error_kinds!(
    /// What ended a [`BatchPublish`] call (orbit.rs's names where it has
    /// them); the cause keeps the server's `err_code` and description.
    #[derive(Copy, Hash)]
    BatchPublishErrorKind {
        /// The stream does not take atomic batches (`allow_atomic` off; 10174).
        BatchPublishNotEnabled => "batch publishing not enabled on stream",
        /// The server no longer holds the batch: abandoned after 10 s without
        /// a message, or a message lost on the way (10176). Nothing is stored.
        BatchPublishIncomplete => "batch publish is incomplete and was abandoned",
        /// The stream (50) or the server (1000) has as many open batches as it takes (10210).
        BatchPublishTooManyInflight => "server has too many inflight batches",
        /// The batch holds more messages than the server's limit (1000 by default; 10199).
        MaxMessagesExceeded => "batch exceeds the server's limit of messages",
        /// A header batches do not support (10177).
        BatchPublishUnsupportedHeader => "batch contains an unsupported header",
        /// A message id the stream already holds, or held twice in the batch (10201).
        BatchPublishDuplicateMsgId => "batch contains a duplicate message id",
        /// An expected last sequence did not hold when the batch was committed.
        WrongLastSequence => "wrong last sequence",
        /// No stream captures the subject.
        StreamNotFound => "no stream found for given subject",
        /// An answer awaited did not come in time; for the commit that is
        /// ambiguous (the batch may be stored).
        TimedOut => "timed out: didn't receive ack in time",
        /// The batch was committed, discarded or ended by an earlier error.
        BatchClosed => "batch was closed by a prior error or its commit",
        /// A message the batch refused before sending it (a bad subject, a
        /// header the server would fail the batch for); the batch goes on.
        InvalidMessage => "message refused before sending",
        /// The commit's answer does not name this batch and its size.
        InvalidAck => "server commit ack failed invariant checks",
        Other => "batch publish failed",
    }
);

/// Why an atomic batch failed: its kind, and natsjet's error (the server's, when it refused) as the cause.
pub type BatchPublishError = KindError<BatchPublishErrorKind>;

sort_causes! { cause;
    BatchPublishErrorKind {
        Error::JetStream(e) => match e.err_code {
            ErrorCode::ATOMIC_PUBLISH_DISABLED => BatchPublishErrorKind::BatchPublishNotEnabled,
            ErrorCode::ATOMIC_PUBLISH_INCOMPLETE_BATCH => BatchPublishErrorKind::BatchPublishIncomplete,
            ErrorCode::ATOMIC_PUBLISH_TOO_MANY_INFLIGHT => BatchPublishErrorKind::BatchPublishTooManyInflight,
            ErrorCode::ATOMIC_PUBLISH_TOO_LARGE_BATCH => BatchPublishErrorKind::MaxMessagesExceeded,
            ErrorCode::ATOMIC_PUBLISH_UNSUPPORTED_HEADER => BatchPublishErrorKind::BatchPublishUnsupportedHeader,
            ErrorCode::ATOMIC_PUBLISH_DUPLICATE_MESSAGE_ID => BatchPublishErrorKind::BatchPublishDuplicateMsgId,
            code if code.is_wrong_last_sequence() => BatchPublishErrorKind::WrongLastSequence,
            _ => BatchPublishErrorKind::Other,
        },
        Error::ApiMisuse(_) => BatchPublishErrorKind::BatchClosed,
        _ if is_bad_input(cause) => BatchPublishErrorKind::InvalidMessage,
        Error::PayloadTooLarge { .. } => BatchPublishErrorKind::InvalidMessage,
        Error::NoResponders => BatchPublishErrorKind::StreamNotFound,
        Error::Timeout => BatchPublishErrorKind::TimedOut,
        Error::Protocol(_) => BatchPublishErrorKind::InvalidAck,
        _ => BatchPublishErrorKind::Other,
    }
}

impl Context {
    /// A new atomic batch on this context's connection (ADR-50, server
    /// 2.12; the stream needs `allow_atomic`): messages added to it are
    /// stored together when it is committed, or not at all.
    pub fn batch_publish(&self) -> BatchPublishBuilder {
        BatchPublishBuilder { client: self.client().clone(), ack_every: None, timeout: self.timeout() }
    }
}

/// Options of a [`BatchPublish`], from [`Context::batch_publish`].
#[derive(Debug, Clone)]
#[must_use]
pub struct BatchPublishBuilder {
    client: Client,
    ack_every: Option<u64>,
    timeout: Duration,
}

impl BatchPublishBuilder {
    /// Waits for the server to acknowledge every `n`th message too, besides
    /// the first (flow control; 0: none). The acks carry no data.
    pub fn ack_every(mut self, n: u64) -> Self {
        self.ack_every = Some(n).filter(|n| *n > 0);
        self
    }

    /// How long each acknowledgement and the commit's answer are awaited
    /// (the context's timeout by default).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The batch, with a fresh id; nothing is sent before its first message.
    pub fn build(self) -> BatchPublish {
        let id = self.client.new_nuid();
        let batch = AtomicBatch::new(id.clone(), self.timeout, self.ack_every);
        BatchPublish { client: self.client, id, batch: Arc::new(Mutex::new(batch)) }
    }
}

/// An atomic batch being published: the first message is acknowledged
/// before the next goes, later ones stream without waiting, and
/// [`commit`](Self::commit) (or [`commit_message`](Self::commit_message))
/// returns the stream's [`PublishAck`] for all of them, with the batch's id
/// and size. A batch ended by an error is never committed: the server drops
/// what it staged, so nothing is stored.
#[derive(Debug)]
pub struct BatchPublish {
    client: Client,
    id: String,
    batch: Arc<Mutex<AtomicBatch>>,
}

impl BatchPublish {
    /// The batch's id (its `Nats-Batch-Id`).
    pub fn batch_id(&self) -> &str {
        &self.id
    }

    /// Messages sent so far.
    pub fn size(&self) -> u64 {
        lock(&self.batch).size()
    }

    /// Whether the batch was committed or ended by an error.
    pub fn is_closed(&self) -> bool {
        !lock(&self.batch).is_open()
    }

    /// Adds `payload` on `subject`.
    pub async fn add(&mut self, subject: impl AsRef<str>, payload: Bytes) -> Result<(), BatchPublishError> {
        self.add_message(subject, Publish::build().payload(payload)).await
    }

    /// Adds a message with headers: a TTL, a schedule, and expectations
    /// checked when the batch commits (a last sequence on the first message
    /// only; no `expected_last_message_id`).
    pub async fn add_message(&mut self, subject: impl AsRef<str>, message: Publish) -> Result<(), BatchPublishError> {
        self.send(subject.as_ref(), message, false).await.map(drop)
    }

    /// [`add_message`](Self::add_message), then waits for the server to
    /// acknowledge it (nats.js's `add(subject, payload, { ack: true })`).
    pub async fn add_acked(&mut self, subject: impl AsRef<str>, message: Publish) -> Result<(), BatchPublishError> {
        self.send(subject.as_ref(), message, true).await.map(drop)
    }

    /// Sends the last message, `payload` on `subject`, and waits for the
    /// stream's ack of the whole batch.
    pub async fn commit(self, subject: impl AsRef<str>, payload: Bytes) -> Result<PublishAck, BatchPublishError> {
        self.commit_message(subject, Publish::build().payload(payload)).await
    }

    /// [`commit`](Self::commit) with a publish's options (headers,
    /// expectations, message id, TTL, schedule) on the last message.
    pub async fn commit_message(
        mut self,
        subject: impl AsRef<str>,
        message: Publish,
    ) -> Result<PublishAck, BatchPublishError> {
        let subject = subject.as_ref();
        self.client.check_publish_subject(subject).map_err(BatchPublishErrorKind::error)?;
        let last = lock(&self.batch).commit(subject, message, DefaultRuntime::now());
        committed(self.transmit(last).await)
    }

    /// Ends the batch without a message of its own (`Nats-Batch-Commit:
    /// eob`, nats-server 2.14): the ack counts the messages added.
    pub async fn commit_eob(mut self) -> Result<PublishAck, BatchPublishError> {
        let last = lock(&self.batch).commit_eob(DefaultRuntime::now());
        committed(self.transmit(last).await)
    }

    /// Gives the batch up without committing: the server drops what it
    /// staged once the batch has been idle for its timeout (10 s).
    pub fn discard(self) {}

    async fn send(
        &mut self,
        subject: &str,
        message: Publish,
        ack: bool,
    ) -> Result<Option<BatchReply>, BatchPublishError> {
        self.client.check_publish_subject(subject).map_err(BatchPublishErrorKind::error)?;
        let next = lock(&self.batch).add(subject, message, ack, DefaultRuntime::now());
        self.transmit(next).await
    }

    /// Writes the batch's next message (waiting while the outgoing buffer is
    /// full) and, when it awaits an answer, the answer.
    async fn transmit(&mut self, next: Result<BatchMessage, Error>) -> Result<Option<BatchReply>, BatchPublishError> {
        let next = next.map_err(BatchPublishErrorKind::error)?;
        let sent = match next.awaits {
            Some(seq) => match self.request(&next, seq) {
                Ok(answer) => answer.await.map(Some),
                Err(e) => Err(e),
            },
            None => {
                let BatchMessage { subject, headers, payload, .. } = &next;
                self.client.publish_shared(subject, None, Some(headers), payload).await.map(|()| None)
            }
        };
        sent.map_err(|e| BatchPublishErrorKind::error(self.close(e)))
    }

    /// Sends the batch's next message without waiting for room in the
    /// outgoing buffer (JavaScript's synchronous `add`); the answer to await,
    /// if it asks for one.
    #[cfg_attr(
        not(all(target_arch = "wasm32", feature = "wasm-jetstream")),
        allow(dead_code, reason = "JavaScript's add and commit send this way")
    )]
    pub(crate) fn send_nowait(
        &mut self,
        subject: &str,
        message: Publish,
        ack: bool,
        commit: bool,
    ) -> Result<Option<BatchAnswer>, Error> {
        self.client.check_publish_subject(subject)?;
        let now = DefaultRuntime::now();
        let next = match commit {
            true => lock(&self.batch).commit(subject, message, now)?,
            false => lock(&self.batch).add(subject, message, ack, now)?,
        };
        self.dispatch_nowait(next)
    }

    /// Ends the batch without storing a message (server 2.14), without
    /// waiting for room (JavaScript's `commitEob`): the answer to await.
    #[cfg_attr(not(feature = "wasm-jetstream"), allow(dead_code, reason = "JavaScript's commitEob sends this way"))]
    pub(crate) fn end_nowait(&mut self) -> Result<Option<BatchAnswer>, Error> {
        let next = lock(&self.batch).commit_eob(DefaultRuntime::now())?;
        self.dispatch_nowait(next)
    }

    fn dispatch_nowait(&mut self, next: BatchMessage) -> Result<Option<BatchAnswer>, Error> {
        let sent = match next.awaits {
            Some(seq) => self.request(&next, seq).map(Some),
            None => self.client.publish_nowait(&next.subject, None, Some(&next.headers), &next.payload).map(|()| None),
        };
        sent.map_err(|e| self.close(e))
    }

    fn request(&self, message: &BatchMessage, seq: u64) -> Result<BatchAnswer, Error> {
        let BatchMessage { subject, headers, payload, .. } = message;
        let response = self.client.start_request_shared(subject, Some(headers), payload, None)?;
        Ok(BatchAnswer { batch: self.batch.clone(), seq, response, sleep: None })
    }

    /// Closes the batch with `e` (nothing of it is committed any more).
    fn close(&self, e: Error) -> Error {
        lock(&self.batch).close(e.clone());
        e
    }
}

/// The stream's ack out of the commit's answer.
fn committed(answer: Result<Option<BatchReply>, BatchPublishError>) -> Result<PublishAck, BatchPublishError> {
    match answer? {
        Some(BatchReply::Committed(ack)) => Ok(ack),
        _ => Err(BatchPublishErrorKind::error(Error::ApiMisuse("the commit was not answered with the batch's ack"))),
    }
}

/// The answer to one message of a batch that asked for one, read by the
/// batch (a refusal closes it), within the batch's timeout. Dropped before
/// the answer, the batch stops awaiting it.
#[must_use = "the answer is given up when its future is dropped"]
pub(crate) struct BatchAnswer {
    batch: Arc<Mutex<AtomicBatch>>,
    seq: u64,
    response: ResponseFuture,
    /// Until the answer's deadline.
    sleep: Option<BoxFuture<()>>,
}

impl Drop for BatchAnswer {
    fn drop(&mut self) {
        lock(&self.batch).forget(self.seq);
    }
}

impl Future for BatchAnswer {
    type Output = Result<BatchReply, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Poll::Ready(answer) = Pin::new(&mut this.response).poll(cx) {
            let payload = answer.as_ref().map(|reply| &reply.payload[..]).map_err(Error::clone);
            return Poll::Ready(lock(&this.batch).handle_reply(this.seq, payload));
        }
        loop {
            let sleep = match &mut this.sleep {
                Some(sleep) => sleep,
                None => {
                    let Some(deadline) = lock(&this.batch).deadline(this.seq) else {
                        // Already given up on (the batch timed out on another answer).
                        return Poll::Ready(lock(&this.batch).handle_reply(this.seq, Err(Error::Timeout)));
                    };
                    let wait = deadline.saturating_duration_since(DefaultRuntime::now());
                    this.sleep.insert(DefaultRuntime::sleep(wait))
                }
            };
            ready!(sleep.as_mut().poll(cx));
            this.sleep = None;
            if lock(&this.batch).handle_timeout(DefaultRuntime::now()).contains(&this.seq) {
                return Poll::Ready(Err(Error::Timeout));
            }
        }
    }
}
