//! The waiters of one JetStream reader: the queues its user reads
//! messages and events from. The reader's machine lives in the session
//! ([`Reader`](crate::core::session::Reader)), which the driver feeds
//! every message, the clock and the link; what it has for the user comes
//! here by the reader's sid.

use std::sync::Arc;

use crate::core::jetstream::pull::ConsumerEvent;
use crate::error::Error;
use crate::message::Message;
use crate::runtime::queue::Queue;

/// What the user's stream yields: messages, then maybe the error that ended it.
pub(crate) type Item = Result<Message, Error>;

/// Events kept for users who watch them; past this, new ones are dropped.
pub(crate) const EVENT_CAPACITY: usize = 256;

pub(crate) struct ReaderQueues {
    pub items: Arc<Queue<Item>>,
    pub events: Arc<Queue<ConsumerEvent>>,
}

impl ReaderQueues {
    /// The reader is gone or stopped: end the user's streams.
    pub fn close(&self) {
        self.items.close();
        self.events.close();
    }
}
