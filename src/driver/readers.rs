//! The waiters of one JetStream reader: the queues its user reads
//! messages and events from. The reader's machine lives in the session
//! ([`Reader`](crate::session::Reader)), which the driver feeds
//! every message, the clock and the link; what it has for the user comes
//! here by the reader's sid.

use std::sync::Arc;

use crate::core::jetstream::pull::ConsumerEvent;
use crate::core::message::Message;
use crate::core::time::Instant;
use crate::runtime::queue::Queue;

/// Events kept for users who watch them; past this, new ones are dropped.
pub(crate) const EVENT_CAPACITY: usize = 256;

/// A message for a reader, with when the driver received it: the
/// checkpoint ledger times the server's ack timer from then, not from when
/// the user got to the message.
pub(crate) struct Delivery {
    pub message: Message,
    pub received: Instant,
}

impl Delivery {
    /// Its weight against the reader's byte bound.
    pub fn length(&self) -> usize {
        self.message.length
    }
}

pub(crate) struct ReaderQueues {
    /// The messages; an error that ends the reader is the queue's close
    /// reason, read after them.
    pub items: Arc<Queue<Delivery>>,
    pub events: Arc<Queue<ConsumerEvent>>,
}

impl ReaderQueues {
    /// The reader is gone or stopped: end the user's streams.
    pub fn close(&self) {
        self.items.close();
        self.events.close();
    }
}
