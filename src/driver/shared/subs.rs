//! The waiters of plain subscriptions: their queues, and the flag of a
//! first-message timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_channel::oneshot;

use super::Inner;
use crate::core::conn::{ConnectionEvent, Sid, State};
use crate::core::error::Error;
use crate::core::message::Message;
use crate::core::time::Instant;
use crate::runtime::queue::Queue;

pub(super) struct Subscription {
    /// Bounded in messages and bytes; it counts what it drops.
    pub(super) queue: Arc<Queue<Message>>,
    /// Set if the subscription ends for want of a first message in time
    /// (while its timeout is armed).
    pub(super) timed_out: Option<Arc<AtomicBool>>,
}

impl Inner {
    /// Subscribes; the messages go to `messages`.
    pub fn subscribe(
        &mut self,
        subject: &str,
        queue: Option<&str>,
        messages: Arc<Queue<Message>>,
    ) -> Result<Sid, Error> {
        let sid = self.command(|s| s.subscribe(subject, queue))?;
        self.subs.insert(sid, Subscription { queue: messages, timed_out: None });
        Ok(sid)
    }

    /// Whether subscription `sid` still delivers to its queue.
    pub fn has_subscription(&self, sid: Sid) -> bool {
        self.subs.get(&sid).is_some()
    }

    /// Ends subscription `sid` now; its stream ends after what it holds.
    pub fn unsubscribe(&mut self, sid: Sid) -> Result<(), Error> {
        match self.subs.remove(&sid) {
            Some(sub) => {
                sub.queue.close();
                self.command(|s| s.unsubscribe(sid, None))
            }
            None => Ok(()),
        }
    }

    /// The user of subscription `sid` went away.
    pub fn forget_subscription(&mut self, sid: Sid) {
        if self.subs.remove(&sid).is_some() && self.session.state() != State::Closed {
            let _ = self.command(|s| s.unsubscribe(sid, None));
        }
    }

    /// Drains subscription `sid` (UNSUB now, what is in flight still
    /// comes): the receiver resolves on the PONG after it, `None` if the
    /// subscription already ended.
    pub fn drain_subscription(&mut self, sid: Sid) -> Result<Option<oneshot::Receiver<Result<(), Error>>>, Error> {
        if !self.has_subscription(sid) {
            return Ok(None);
        }
        self.session.drain_subscription(sid)?;
        self.flush().map(Some)
    }

    /// Ends drained subscription `sid`, if it did not end meanwhile.
    pub fn end_drained(&mut self, sid: Sid) {
        if self.has_subscription(sid) {
            let _ = self.command(|s| s.unsubscribe(sid, None));
        }
    }

    /// Drains every subscription ([`Client::drain`](crate::Client::drain)),
    /// returning them to be ended once drained.
    pub fn drain(&mut self) -> Result<Vec<Sid>, Error> {
        let sids: Vec<Sid> = self.subs.keys().copied().collect();
        self.notify(ConnectionEvent::Draining);
        self.command(|s| s.drain(&sids)).map(|()| sids)
    }

    /// Ends subscription `sid` unless a message comes within `timeout`;
    /// `timed_out` is set if it ends so.
    pub fn expect_first_message(
        &mut self,
        now: Instant,
        sid: Sid,
        timeout: std::time::Duration,
        timed_out: Arc<AtomicBool>,
    ) {
        if let Some(sub) = self.subs.get_mut(&sid) {
            sub.timed_out = Some(timed_out);
        }
        // The driver must learn the new deadline.
        self.command(|s| s.expect_first_message(now, sid, timeout));
    }

    /// Ends a subscription whose first message did not come in time.
    pub(super) fn end_silent_subscription(&mut self, sid: Sid) {
        let Some(sub) = self.subs.get_mut(&sid) else { return };
        // Gone meanwhile (unsubscribed, ended by the server): nothing to end.
        let Some(timed_out) = sub.timed_out.take() else { return };
        timed_out.store(true, Ordering::Release);
        if let Some(sub) = self.subs.remove(&sid) {
            sub.queue.close();
        }
        let _ = self.session.unsubscribe(sid, None);
    }

    pub(super) fn deliver(&mut self, sid: Sid, message: Message) {
        let Some(sub) = self.subs.get_mut(&sid) else { return };
        // The first message disarmed the timeout.
        sub.timed_out = None;
        if sub.queue.push(message).is_err() && !sub.queue.is_closed() {
            let dropped = sub.queue.dropped();
            self.slow_consumer(sid, dropped);
        }
    }

    /// Reports the first drop of subscription `sid` and then every 1000th, not every message.
    pub(super) fn slow_consumer(&mut self, sid: Sid, dropped: u64) {
        if dropped == 1 || dropped % 1000 == 0 {
            self.notify(ConnectionEvent::SlowConsumer { sid: sid.0, dropped });
        }
    }
}
