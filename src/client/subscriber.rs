//! [`Subscriber`]: the messages of one subscription, as a `Stream`.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_core::Stream;

use crate::conn::{Sid, State};
use crate::driver::queue::Queue;
use crate::error::Error;
use crate::message::Message;

use super::Client;

/// Messages of one subscription, as a `Stream`. Dropping it unsubscribes.
pub struct Subscriber {
    pub(super) sid: Sid,
    pub(super) messages: Arc<Queue<Message>>,
    pub(super) client: Client,
    pub(super) unsubscribed: bool,
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
        let mut inner = self.client.inner.shared.lock();
        if let Some(sub) = inner.subs.remove(&self.sid) {
            sub.queue.close();
            inner.conn.unsubscribe(self.sid, None)?;
            inner.wake_driver();
        }
        Ok(())
    }

    /// Ends the subscription after `max` messages in total (counting those
    /// already delivered).
    pub async fn unsubscribe_after(&mut self, max: u64) -> Result<(), Error> {
        let mut inner = self.client.inner.shared.lock();
        inner.conn.unsubscribe(self.sid, Some(max))?;
        inner.wake_driver();
        Ok(())
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
        let mut inner = self.client.inner.shared.lock();
        if inner.subs.remove(&self.sid).is_some() && inner.conn.state() != State::Closed {
            let _ = inner.conn.unsubscribe(self.sid, None);
            inner.wake_driver();
        }
    }
}
