//! [`Subscriber`]: the messages of one subscription, as a `Stream`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;

use crate::core::conn::{Sid, State};
use crate::core::error::Error;
use crate::core::message::Message;
use crate::runtime::queue::Queue;

use super::Client;

/// Messages of one subscription, as a `Stream`. Dropping it unsubscribes.
pub struct Subscriber {
    pub(super) sid: Sid,
    pub(super) messages: Arc<Queue<Message>>,
    pub(super) client: Client,
    pub(super) unsubscribed: bool,
    /// Set by the driver when the first-message timeout ended it.
    pub(super) timed_out: Arc<AtomicBool>,
}

impl fmt::Debug for Subscriber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscriber").field("sid", &self.sid.0).finish()
    }
}

impl Subscriber {
    /// Stops the subscription; messages already received can still be read.
    pub async fn unsubscribe(&mut self) -> Result<(), Error> {
        self.unsubscribed = true;
        self.client.inner.shared.lock().unsubscribe(self.sid)
    }

    /// Ends the subscription after `max` messages in total (counting those
    /// already delivered).
    pub async fn unsubscribe_after(&mut self, max: u64) -> Result<(), Error> {
        self.client.inner.shared.lock().command(|s| s.unsubscribe(self.sid, Some(max)))
    }

    /// Unsubscribes but delivers what the server sent before it processed
    /// the UNSUB, then ends the stream (async-nats `Subscriber::drain`,
    /// nats.js `Subscription.drain()`): returns once the server has
    /// answered a PING sent after the UNSUB, so every message for this
    /// subscription has arrived; they stay readable until the stream ends.
    /// Fails with [`Error::Closed`] when the connection is closed; returns
    /// at once when the subscription already ended.
    pub async fn drain(&mut self) -> Result<(), Error> {
        self.start_drain()?.await;
        Ok(())
    }

    /// [`drain`](Self::drain)'s first half (UNSUB and PING queued now); the
    /// future, borrowing nothing, ends the subscription on the PONG.
    pub(crate) fn start_drain(&mut self) -> Result<impl Future<Output = ()> + 'static, Error> {
        let mut inner = self.client.inner.shared.lock();
        let flushed = inner.drain_subscription(self.sid)?;
        if flushed.is_none() && inner.session().state() == State::Closed {
            return Err(Error::Closed);
        }
        drop(inner);
        let (client, sid) = (self.client.clone(), self.sid);
        Ok(async move {
            let Some(flushed) = flushed else { return };
            // Lost or closed meanwhile: the drained subscription is not made
            // again on another server, so it ends all the same.
            let _ = flushed.await;
            client.inner.shared.lock().end_drained(sid);
        })
    }

    /// Ends the subscription (unsubscribes and ends the stream) unless a
    /// message arrives within `timeout` from now, as nats.js's
    /// `SubOpts.timeout` (a second call replaces the first);
    /// [`timed_out`](Self::timed_out) then says so. The
    /// driver keeps the time, so it ends on time even while nobody reads.
    /// Does nothing once a message arrived or the subscription ended.
    pub fn set_first_message_timeout(&mut self, timeout: Duration) {
        let now = self.client.now();
        let mut inner = self.client.inner.shared.lock();
        if self.messages.pushed() == 0 && inner.has_subscription(self.sid) {
            inner.expect_first_message(now, self.sid, timeout, self.timed_out.clone());
        }
    }

    /// Whether the stream ended because no message came within the
    /// [first-message timeout](Self::set_first_message_timeout).
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Acquire)
    }

    /// Why the stream ended, once it did: the error the connection closed
    /// with for good ([`Error::Closed`] when it was closed without one, by
    /// the client or after reconnects ran out), or [`Error::Timeout`] after
    /// the [first-message timeout](Self::set_first_message_timeout). `None`
    /// while it runs, and after an end asked for (`unsubscribe`,
    /// `unsubscribe_after`, `drain`). The stream stays async-nats's
    /// `Stream<Item = Message>`; this says what its `None` meant.
    pub fn closed_reason(&self) -> Option<Error> {
        if self.timed_out() {
            return Some(Error::Timeout);
        }
        self.messages.close_reason()
    }

    /// Messages accepted for this subscription so far (nats.js
    /// `getReceived`); those dropped by a slow consumer are not counted.
    pub fn received(&self) -> u64 {
        self.messages.pushed()
    }

    /// Messages dropped because this subscriber had a full buffer
    /// ([`ConnectOptions::subscription_capacity`](crate::ConnectOptions::subscription_capacity)
    /// or `_bytes`), as [`Event::SlowConsumer`](crate::Event::SlowConsumer) reports them.
    pub fn dropped(&self) -> u64 {
        self.messages.dropped()
    }

    /// The subscription id used on the wire.
    pub fn sid(&self) -> u64 {
        self.sid.0
    }
}

impl Stream for Subscriber {
    type Item = Message;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Message>> {
        self.messages.poll_pop(cx)
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        if self.unsubscribed {
            return;
        }
        self.client.inner.shared.lock().forget_subscription(self.sid);
    }
}
