//! An ordered push read that knows when it has delivered what the stream
//! held when it started — the "caught up" of KV watches, key listings and
//! object store listings. The first consumer says how many messages it had
//! to deliver; each message says how many are left after it. Either count
//! reaching zero is the point, and it is at once when there was nothing.

use std::task::{Context as TaskContext, Poll, ready};

use super::OrderedMessages;
use crate::core::error::Error;
use crate::core::message::Message;
use crate::jetstream::Context;
use crate::jetstream::ack::DeliveryNumbers;
use crate::jetstream::ordered::{OrderedConfig, OrderedPushConfig};

pub(crate) struct TrackedRead {
    messages: OrderedMessages,
    /// Messages the first consumer had to deliver, not yet seen.
    left: u64,
    seen_current: bool,
}

impl TrackedRead {
    /// Reads `stream` through ordered push consumers made from `config`.
    pub async fn open(context: &Context, stream: &str, config: OrderedConfig) -> Result<TrackedRead, Error> {
        let config = OrderedPushConfig { ordered: config, ..OrderedPushConfig::default() };
        let consumer = context.ordered_push_consumer(stream, config).await?;
        let left = consumer.pending_at_creation();
        Ok(TrackedRead { messages: consumer.consume()?, left, seen_current: left == 0 })
    }

    /// Whether what existed at the start has all been delivered.
    pub fn seen_current(&self) -> bool {
        self.seen_current
    }

    /// Stops reading: what arrived can still be read, then it ends.
    pub fn stop(&mut self) {
        self.messages.stop();
    }

    /// The next message and the numbers of its ack subject (read once,
    /// also by the ordered cursor); whether it was the last one of those
    /// that existed at the start or came after them is then
    /// [`seen_current`](Self::seen_current).
    pub fn poll_next(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<(Message, DeliveryNumbers), Error>>> {
        let (message, numbers) = match ready!(self.messages.poll_delivery(cx)) {
            Some(Ok((delivery, numbers))) => (delivery.message, numbers),
            Some(Err(e)) => return Poll::Ready(Some(Err(e))),
            None => return Poll::Ready(None),
        };
        self.left = self.left.saturating_sub(1);
        self.seen_current |= self.left == 0 || numbers.pending == 0;
        Poll::Ready(Some(Ok((message, numbers))))
    }

    /// Reads until what existed at the start was delivered, then ends (and stops).
    pub fn poll_until_current(
        &mut self,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<(Message, DeliveryNumbers), Error>>> {
        if self.seen_current {
            self.stop();
            return Poll::Ready(None);
        }
        self.poll_next(cx)
    }
}
