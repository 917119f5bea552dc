//! Fast ingest over a client (ADR-50): publishes that wait only while the
//! sans-IO [`FastWindow`] is full, and the batch's control messages read
//! from its inbox within a timeout.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::{Either, select};

use crate::core::jetstream::api::PublishAck;
pub use crate::core::jetstream::fast_window::FAST_INGEST_API_LEVEL;
use crate::core::jetstream::fast_window::{Control, FastWindow};
use crate::driver::{DefaultRuntime, Runtime};
use crate::error::{Error, ProtocolError};
use crate::{Client, HeaderMap, Subscriber};

/// A fast batch over a client: publishes wait only while the window is full.
pub(crate) struct FastIngest {
    client: Client,
    window: FastWindow,
    controls: Subscriber,
    timeout: Duration,
}

impl FastIngest {
    pub async fn start(client: &Client, timeout: Duration) -> Result<FastIngest, Error> {
        let window = FastWindow::new(client.new_inbox());
        let controls = client.subscribe(window.subscription()).await?;
        Ok(FastIngest { client: client.clone(), window, controls, timeout })
    }

    /// Publishes `payload` to `subject` as the batch's next message.
    pub async fn add(&mut self, subject: &str, payload: Bytes) -> Result<(), Error> {
        while !self.window.has_room() {
            if let Control::Done(_) = self.next_control().await? {
                return Err(Error::Protocol(ProtocolError::FastBatch("the server ended a fast batch early".into())));
            }
        }
        let reply = self.window.next_reply(false);
        self.client.publish_shared(subject, Some(&reply), None, &payload).await
    }

    /// Publishes the last message (with `headers`) and waits for the batch's `PublishAck`.
    pub async fn commit(
        mut self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: Bytes,
    ) -> Result<PublishAck, Error> {
        let reply = self.window.next_reply(true);
        self.client.publish_shared(subject, Some(&reply), headers, &payload).await?;
        loop {
            if let Control::Done(ack) = self.next_control().await? {
                return Ok(ack);
            }
        }
    }

    /// The next control message, within the timeout.
    async fn next_control(&mut self) -> Result<Control, Error> {
        let next = self.controls.next();
        match select(next, DefaultRuntime::sleep(self.timeout)).await {
            Either::Left((Some(message), _)) => self.window.handle(&message.payload),
            Either::Left((None, _)) => Err(Error::Closed),
            Either::Right(_) => Err(Error::Timeout),
        }
    }

    /// Messages the server acknowledged so far.
    pub fn acked(&self) -> u64 {
        self.window.acked()
    }
}
