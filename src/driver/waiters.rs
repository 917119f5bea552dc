//! The waiters of what the session routes ([`Route`]): one per attached
//! machine, keyed by its route, each taking the [`Item`]s its machine has
//! for its user. And the answer slots of requests.

use std::collections::VecDeque;
use std::sync::Arc;

use futures_channel::oneshot;

use super::readers::{Delivery, ReaderQueues};
use crate::core::conn::RequestId;
use crate::core::error::Error;
use crate::core::jetstream::ack::LedgerEvent;
use crate::core::message::Message;
use crate::core::session::Item;
use crate::core::time::Instant;
use crate::runtime::queue::Queue;

/// Where the answer to a request goes.
pub(crate) enum Answer {
    /// One waiter ([`ResponseFuture`](crate::client::ResponseFuture)).
    One(oneshot::Sender<Result<Message, Error>>),
    /// A queue shared by many requests (a confirmed ack batch): one wake for
    /// many answers instead of a channel per request.
    Group(Arc<Queue<(RequestId, Result<Message, Error>)>>),
}

impl Answer {
    pub fn send(self, id: RequestId, result: Result<Message, Error>) {
        match self {
            Answer::One(tx) => {
                let _ = tx.send(result);
            }
            Answer::Group(queue) => {
                let _ = queue.push((id, result));
            }
        }
    }
}

/// An answer ready to go out, with the request it answers.
pub(crate) type Answered = (Answer, RequestId, Result<Message, Error>);

/// The reader of a request for many replies.
pub(crate) type Replies = Arc<Queue<Result<Message, Error>>>;

/// Whoever waits on one attached machine.
pub(crate) enum Waiter {
    /// The queues of a JetStream reader or an ordered read.
    Reader(ReaderQueues),
    /// The reader of a request for many replies.
    Replies(Replies),
    /// A checkpoint ledger's events, until its user asks (it never waits on one).
    Ledger(VecDeque<LedgerEvent>),
}

/// What became of an item given to a waiter.
pub(crate) enum Taken {
    Kept,
    /// A reader's queue refused a message: full, or (`closed`) its user went away.
    Refused {
        closed: bool,
        dropped: u64,
    },
    /// The machine ended: the waiter goes.
    Ended,
}

impl Waiter {
    /// Hands `item`, received at `now`, to its waiter.
    pub fn take(&mut self, now: Instant, item: Item) -> Taken {
        match (self, item) {
            (Waiter::Reader(queues), Item::Message(message)) => {
                let pushed = queues.items.push(Delivery { message, received: now });
                if pushed.is_err() {
                    let (closed, dropped) = (queues.items.is_closed(), queues.items.dropped());
                    return Taken::Refused { closed, dropped };
                }
            }
            // The user's stream yields it after the messages it holds, whatever the bound.
            (Waiter::Reader(queues), Item::Failed(error)) => queues.items.close_with(error),
            (Waiter::Reader(queues), Item::Consumer(event)) => {
                let _ = queues.events.push(event);
            }
            // A full queue means the user stopped reading long ago.
            (Waiter::Replies(replies), Item::Message(message)) => {
                let _ = replies.push(Ok(message));
            }
            (Waiter::Replies(replies), Item::Failed(error)) => {
                let _ = replies.push(Err(error));
            }
            // Unbounded, as the ledger's own list was: one per held delivery and deadline.
            (Waiter::Ledger(events), Item::Ledger(event)) => events.push_back(event),
            (_, Item::Ended) => return Taken::Ended,
            _ => {}
        }
        Taken::Kept
    }

    /// Ends its user's streams: the machine is gone.
    pub fn close(&self) {
        match self {
            Waiter::Reader(queues) => queues.close(),
            Waiter::Replies(replies) => replies.close(),
            Waiter::Ledger(_) => {}
        }
    }
}
