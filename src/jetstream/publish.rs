//! JetStream publish: each message goes out at once as a request on the
//! client's muxed inbox (encoded straight into the outgoing buffer), and a
//! [`PublishAckFuture`] waits for the stream's [`PublishAck`]. Errors have
//! async-nats's kinds ([`PublishErrorKind`]).
//!
//! Publishes pipeline, bounded by a window: at most `max_ack_inflight` acks
//! outstanding per context (clones share it), and `publish` waits for room,
//! so a fast producer neither floods the stream nor grows memory unbounded.
//!
//! Atomic batches ([`BatchPublish`], ADR-50) store many messages together
//! or none; a [`Schedule`] (ADR-51) makes a message publish itself later.

mod ack_future;
mod atomic_batch;
mod error;
mod fast_ingest;
mod window;

pub use super::api::PublishAck;
pub use crate::core::jetstream::publish::{
    NATS_EXPECTED_LAST_MESSAGE_ID, NATS_EXPECTED_LAST_SEQUENCE, NATS_EXPECTED_LAST_SUBJECT_SEQUENCE,
    NATS_EXPECTED_STREAM, NATS_MESSAGE_ID, NATS_MESSAGE_TTL, Publish,
};
pub use crate::core::jetstream::schedule::{Predefined, Schedule};
pub use ack_future::PublishAckFuture;
#[cfg(feature = "wasm-jetstream")]
pub(crate) use atomic_batch::BatchAnswer;
pub use atomic_batch::{BatchPublish, BatchPublishBuilder, BatchPublishError, BatchPublishErrorKind};
pub use error::{PublishError, PublishErrorKind};
pub use fast_ingest::{
    FAST_INGEST_API_LEVEL, FastPubAck, FastPublishError, FastPublishErrorKind, FastPublisher, FastPublisherBuilder,
};

use std::time::Duration;

use bytes::Bytes;

use super::context::Context;
use crate::core::error::{Error, KindError, SortCause};
use crate::core::header::HeaderMap;
use ack_future::Route;
use window::AckWindow;

/// Default bound on acks outstanding per context.
pub const DEFAULT_MAX_ACK_INFLIGHT: usize = 256;
/// Default re-sends after a 503 (50, 100, 200 ms apart): enough to ride out
/// a stream that is being created; a leader election can take seconds.
pub const DEFAULT_PUBLISH_RETRIES: u32 = 3;

/// A context's publish settings.
#[derive(Debug, Clone)]
pub(crate) struct PublishSettings {
    window: AckWindow,
    retries: u32,
    retry_timeouts: bool,
    /// How long an ack is waited for; the context's timeout when `None`.
    pub(super) ack_timeout: Option<Duration>,
    /// Wait for room in a full window (true) or fail with `MaxAckPending`.
    pub(super) backpressure: bool,
}

impl Default for PublishSettings {
    fn default() -> Self {
        PublishSettings {
            window: AckWindow::new(DEFAULT_MAX_ACK_INFLIGHT),
            retries: DEFAULT_PUBLISH_RETRIES,
            retry_timeouts: false,
            ack_timeout: None,
            backpressure: true,
        }
    }
}

impl Context {
    /// Publishes `payload` to a subject a stream captures. Awaits only room
    /// in the window; the returned future resolves to the stream's ack.
    pub async fn publish(&self, subject: impl Into<String>, payload: Bytes) -> Result<PublishAckFuture, PublishError> {
        self.send_publish(subject, Publish::build().payload(payload)).await
    }

    /// Publishes `payload` with `headers` to the stream that takes `subject`; returns the ack future, as [`publish`](Self::publish).
    pub async fn publish_with_headers(
        &self,
        subject: impl Into<String>,
        headers: HeaderMap,
        payload: Bytes,
    ) -> Result<PublishAckFuture, PublishError> {
        self.send_publish(subject, Publish::build().payload(payload).headers(headers)).await
    }

    /// Publishes a message built with [`Publish`] (message id, expected
    /// stream or last sequence, TTL, a [`Schedule`] or its cancellation).
    pub async fn send_publish(
        &self,
        subject: impl Into<String>,
        publish: Publish,
    ) -> Result<PublishAckFuture, PublishError> {
        let subject = subject.into();
        // Refuse a bad subject or schedule before waiting for room.
        self.client().check_publish_subject(&subject).map_err(PublishErrorKind::error)?;
        publish.check_for(&subject).map_err(PublishErrorKind::error)?;
        let settings = &self.publish;
        let permit = match settings.backpressure {
            true => settings.window.acquire().await,
            false => settings.window.try_acquire().ok_or_else(|| {
                let cause = Error::ApiMisuse("max ack pending reached (backpressure_on_inflight is off)");
                KindError::new(PublishErrorKind::MaxAckPending, cause)
            })?,
        };
        let route = Route {
            client: self.client().clone(),
            subject,
            timeout: settings.ack_timeout.unwrap_or(self.timeout()),
            window: settings.window.clone(),
            retries: settings.retries,
            retry_timeouts: settings.retry_timeouts,
        };
        PublishAckFuture::send(route, publish, permit).map_err(PublishErrorKind::error)
    }

    /// Bounds the acks outstanding (at least 1). The window is shared with
    /// this context's clones, so it changes for them too.
    pub fn set_max_ack_inflight(&self, max: usize) {
        self.publish.window.set_limit(max);
    }

    /// How many publishes may await their ack at once (default 256).
    pub fn max_ack_inflight(&self) -> usize {
        self.publish.window.limit()
    }

    /// Publishes whose ack has not arrived yet.
    pub fn acks_in_flight(&self) -> usize {
        self.publish.window.in_flight()
    }

    /// Waits until the acks in flight have arrived, and those of publishes
    /// that start meanwhile, taking all of the window's room once.
    pub async fn wait_for_acks(&self) {
        let mut room = Vec::with_capacity(self.max_ack_inflight());
        for _ in 0..self.max_ack_inflight() {
            room.push(self.publish.window.acquire().await);
        }
    }

    /// How many times a publish answered with 503 (or timed out, see
    /// [`Context::set_publish_retry_on_timeout`]) is sent again before it
    /// fails with [`Error::NoResponders`] (or [`Error::Timeout`]); default 3.
    pub fn set_publish_retries(&mut self, retries: u32) {
        self.publish.retries = retries;
    }

    /// Also sends a publish again when its ack did not come in time, as
    /// nats.js does (off by default). The stream may then have stored it
    /// already: give it a message id ([`Publish::message_id`]) so that the
    /// stream's duplicate window drops the copy.
    pub fn set_publish_retry_on_timeout(&mut self, retry: bool) {
        self.publish.retry_timeouts = retry;
    }
}
