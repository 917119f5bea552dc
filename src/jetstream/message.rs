//! A message delivered by a JetStream consumer, with its acks; and, under
//! async-nats's `jetstream::message` names, its [`Info`], the
//! [`AckKind`]s, stored messages ([`StreamMessage`]) and the
//! [`PublishMessage`] builder.

use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;

use super::ack::{Ack, AckToken};
pub use super::ack::{AckKind, MessageMetadata as Info};
use super::context::Context;
pub use super::publish::Publish as PublishMessage;
use super::pull::{PullRequest, PullStatus};
use crate::client::Client;
use crate::core::error::Error;
pub use crate::core::jetstream::raw_message::StreamMessage;
use crate::core::subject::Subject;
use crate::core::time::Instant;

/// A JetStream message: the core [`Message`](crate::Message) (through
/// `Deref`) plus metadata from its ack subject and the ack operations.
/// Each message takes at most one final ack (ack, nak, term): a second one is
/// [`Error::AlreadyAcknowledged`], never a resend.
pub struct Message {
    /// The message as it came (subject, reply, payload, headers).
    pub message: crate::Message,
    client: Client,
    ack_timeout: Duration,
    acked: AtomicBool,
    /// When the driver received it: the server's ack timer runs from about then.
    received: Instant,
    /// Told of each ack taken (a consumer group's order per partition).
    observer: Option<AckObserver>,
}

/// Called with each ack a message takes, before it is sent.
pub(crate) type AckObserver = Box<dyn Fn(&Ack) + Send + Sync>;

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("jetstream::Message")
            .field("message", &self.message)
            .field("acked", &self.acked.load(Ordering::Relaxed))
            .finish()
    }
}

impl Deref for Message {
    type Target = crate::Message;
    fn deref(&self) -> &crate::Message {
        &self.message
    }
}

impl Message {
    pub(crate) fn new(message: crate::Message, client: Client, ack_timeout: Duration, received: Instant) -> Self {
        Message { message, client, ack_timeout, acked: AtomicBool::new(false), received, observer: None }
    }

    /// Has `observer` told of each ack this message takes from now on.
    pub(crate) fn observe(&mut self, observer: AckObserver) {
        self.observer = Some(observer);
    }

    /// When the driver received it, by the client's clock.
    pub(crate) fn received(&self) -> Instant {
        self.received
    }

    /// Stream, consumer, sequences, delivery count, timestamp and pending,
    /// from the ack subject (v1 and v2 forms).
    pub fn info(&self) -> Result<Info, Error> {
        Info::parse(self.reply_subject()?)
    }

    /// A small serializable handle to ack this message later, from any
    /// connection (e.g. after a checkpoint): see `AckBatch`.
    pub fn ack_token(&self) -> Result<AckToken, Error> {
        AckToken::new(self.reply_subject()?)
    }

    /// Acknowledges: the server will not redeliver it.
    pub async fn ack(&self) -> Result<(), Error> {
        self.ack_with(AckKind::Ack).await
    }

    /// Asks for redelivery now.
    pub async fn nak(&self) -> Result<(), Error> {
        self.ack_with(AckKind::Nak(None)).await
    }

    /// Asks for redelivery after `delay`.
    pub async fn nak_with_delay(&self, delay: Duration) -> Result<(), Error> {
        self.ack_with(AckKind::Nak(Some(delay))).await
    }

    /// Work in progress: resets the server's ack timer (repeatable).
    pub async fn in_progress(&self) -> Result<(), Error> {
        self.ack_with(AckKind::Progress).await
    }

    /// Never redeliver this message.
    pub async fn term(&self) -> Result<(), Error> {
        self.ack_with(AckKind::Term).await
    }

    /// Never redeliver; the reason shows in the server's advisory.
    pub async fn term_with_reason(&self, reason: impl Into<String>) -> Result<(), Error> {
        self.send_ack(Ack::Term(Some(reason.into()))).await
    }

    /// Sends `kind` without waiting for the server.
    pub async fn ack_with(&self, kind: AckKind) -> Result<(), Error> {
        self.send_ack(kind.into()).await
    }

    async fn send_ack(&self, kind: Ack) -> Result<(), Error> {
        let subject = self.claim(&kind)?;
        self.client.publish_message(subject, None, None, &kind.body()).await
    }

    /// Sends `kind` at once, without waiting for room in the outgoing buffer,
    /// for callers that cannot wait (JavaScript's synchronous `ack()`), as
    /// [`Client::publish_nowait`] does for publishes.
    pub fn ack_nowait(&self, kind: Ack) -> Result<(), Error> {
        let subject = self.claim(&kind)?;
        self.client.publish_nowait(subject, None, None, &kind.body())
    }

    /// `+NXT`: acknowledges and asks the consumer for more (`request`: batch,
    /// expires, no_wait; one message by default), delivered to `deliver_to`,
    /// e.g. an inbox subscribed beforehand.
    pub async fn ack_next(&self, deliver_to: &str, request: Option<PullRequest>) -> Result<(), Error> {
        let kind = Ack::Next(request);
        let subject = self.claim(&kind)?;
        self.client.publish_message(subject, Some(deliver_to), None, &kind.body()).await
    }

    /// [`ack_next`](Self::ack_next) at once, without waiting for room in the
    /// outgoing buffer (JavaScript's synchronous `next()`).
    pub fn ack_next_nowait(&self, deliver_to: &str, request: Option<PullRequest>) -> Result<(), Error> {
        let kind = Ack::Next(request);
        let subject = self.claim(&kind)?;
        self.client.publish_nowait(subject, Some(deliver_to), None, &kind.body())
    }

    /// Acknowledges and waits until the server confirms it applied the ack.
    /// A timeout is ambiguous, not a failure: the server does not answer
    /// acks for a consumer it no longer has, or for a sequence a fresh leader
    /// has not delivered yet; sending the ack again is safe.
    pub async fn double_ack(&self) -> Result<(), Error> {
        self.double_ack_with(AckKind::Ack).await
    }

    /// The async-nats name of [`double_ack`](Self::double_ack).
    pub async fn ack_sync(&self) -> Result<(), Error> {
        self.double_ack().await
    }

    /// How long confirmed acks wait for the server: the JetStream context's timeout.
    pub fn ack_timeout(&self) -> Duration {
        self.ack_timeout
    }

    /// Sends `kind` as a request and waits for the server's confirmation.
    pub async fn double_ack_with(&self, kind: AckKind) -> Result<(), Error> {
        self.double_ack_within(kind, self.ack_timeout).await
    }

    /// [`double_ack_with`](Self::double_ack_with), waiting at most `timeout`
    /// instead of the JetStream context's timeout.
    pub async fn double_ack_within(&self, kind: impl Into<Ack>, timeout: Duration) -> Result<(), Error> {
        let kind = kind.into();
        let subject = self.claim(&kind)?;
        let reply = self.client.start_request(subject, None, &kind.body(), Some(timeout))?.await?;
        match reply.status {
            None => Ok(()),
            Some(code) => {
                Err(Error::ConsumerStatus(PullStatus::new(code, reply.description.clone().unwrap_or_default())))
            }
        }
    }

    /// Marks a final ack as taken, refusing a second one.
    pub(crate) fn claim(&self, kind: &Ack) -> Result<&str, Error> {
        let subject = self.reply_subject()?;
        if kind.is_final() && self.acked.swap(true, Ordering::AcqRel) {
            return Err(Error::AlreadyAcknowledged);
        }
        if !kind.is_final() && self.acked.load(Ordering::Acquire) {
            return Err(Error::AlreadyAcknowledged);
        }
        if let Some(observer) = &self.observer {
            observer(kind);
        }
        Ok(subject)
    }

    /// The core message, without its ack subject, and an [`Acker`] that
    /// holds the subject: the payload can go one way and the ack another.
    pub fn split(mut self) -> (crate::Message, Acker) {
        let reply = self.message.reply.take();
        let message = std::mem::replace(&mut self.message, ack_only(reply));
        (message, Acker { message: self })
    }

    /// Gives back a final ack taken by [`claim`](Self::claim) that was not
    /// sent after all.
    pub(crate) fn release_claim(&self) {
        self.acked.store(false, Ordering::Release);
    }

    fn reply_subject(&self) -> Result<&str, Error> {
        // A match, not `ok_or`: every ack asks, and an error made and dropped is not free.
        match self.message.reply.as_deref() {
            Some(subject) => Ok(subject),
            None => Err(Error::ApiMisuse("message has no ack subject (not from a JetStream consumer)")),
        }
    }
}

/// The acks of a message whose body went elsewhere
/// ([`Message::split`]): one final ack, as the message would take.
#[derive(Debug)]
pub struct Acker {
    message: Message,
}

impl Acker {
    /// An acker for the ack subject `reply` of a message `context`'s client received.
    pub fn new(context: Context, reply: Option<Subject>) -> Self {
        let client = context.client().clone();
        let now = client.now();
        Acker { message: Message::new(ack_only(reply), client, context.timeout(), now) }
    }

    /// Acks the message; a second final ack is `Error::AlreadyAcknowledged`.
    pub async fn ack(&self) -> Result<(), Error> {
        self.message.ack().await
    }

    /// Sends an ack of `kind` (ack, nak, in progress, term, next).
    pub async fn ack_with(&self, kind: AckKind) -> Result<(), Error> {
        self.message.ack_with(kind).await
    }

    /// Acks the message and waits for the server to confirm it; a timeout is ambiguous (the ack may have been applied) and safe to resend.
    pub async fn double_ack(&self) -> Result<(), Error> {
        self.message.double_ack().await
    }

    /// Sends an ack of `kind` and waits for the server to confirm it, as [`double_ack`](Self::double_ack).
    pub async fn double_ack_with(&self, kind: AckKind) -> Result<(), Error> {
        self.message.double_ack_with(kind).await
    }
}

/// A message that is only its ack subject.
fn ack_only(reply: Option<Subject>) -> crate::Message {
    crate::Message {
        subject: reply.clone().unwrap_or_default(),
        reply,
        payload: Bytes::new(),
        headers: None,
        status: None,
        description: None,
        length: 0,
    }
}
