//! Procedures: an operation of several requests (an object get or put, a
//! KV create over a delete marker) as one sans-IO machine, so that its
//! sequence of requests, retries, deadlines and checks exists once, in the
//! core. A procedure asks for [`Step`]s, is told what they brought as
//! [`Reply`]s, hands out its items with [`Procedure::poll_item`] and wants
//! [`Procedure::handle_timeout`] at [`Procedure::poll_deadline`]. Whoever
//! pumps it (the Rust API over a JetStream context, the one wasm export
//! every procedure shares) only carries steps out and replies back: it
//! knows no procedure's rules.
//!
//! Loop contract, as every machine of the core: after any `handle_*`,
//! drain [`poll_step`](Procedure::poll_step), then
//! [`poll_item`](Procedure::poll_item), then look at the deadline.

use bytes::Bytes;

use crate::core::error::Error;
use crate::core::jetstream::api::MsgGetRequest;
use crate::core::jetstream::publish::Publish;
use crate::core::jetstream::raw_message::StreamMessage;
use crate::core::time::Instant;
use crate::core::timer::{Deadline, TimerKind};

/// What a procedure asks its pump to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A JetStream API request; its answer comes back as [`Reply::Answer`].
    Request {
        /// The API subject, with the context's prefix.
        subject: String,
        /// The request's body (JSON, or empty).
        payload: Bytes,
    },
    /// A batched direct get (ADR-31) from `stream`; each message comes back
    /// as [`Reply::Message`], its end as [`Reply::BatchEnd`] or
    /// [`Reply::BatchFailed`]. One batch runs at a time.
    DirectBatch {
        /// The stream asked.
        stream: String,
        /// The request, `{"batch":N,"seq":S,"next_by_subj":...}`.
        request: String,
    },
    /// The running batch is no longer wanted: stop it, report nothing more
    /// of it; or the consumer pushing the procedure's messages, read them
    /// no more.
    StopBatch,
    /// The info of the consumer pushing the procedure's messages
    /// ([`Reply::Pushed`]), the one pushing now; it comes back as
    /// [`Reply::Answer`] (the API's JSON).
    ConsumerInfo,
    /// A publish to a stream, its ack awaited; the ack's sequence (or the
    /// error) comes back as [`Reply::Acked`].
    Publish {
        /// The subject.
        subject: String,
        /// The message: payload and headers.
        publish: Publish,
    },
    /// A subscription to `subject`, made before the steps after it are
    /// carried out; each message on it comes back as [`Reply::Inbox`]. It
    /// lasts as long as the procedure.
    Subscribe {
        /// The subject (an inbox with a wildcard).
        subject: String,
    },
    /// A publish with a reply subject, no ack awaited (a fast batch's
    /// message); answers come on the [`Step::Subscribe`] inbox. A failure
    /// to send comes back as [`Reply::Acked`] with the error.
    Send {
        /// The subject.
        subject: String,
        /// The reply subject.
        reply: String,
        /// The message: payload and headers.
        publish: Publish,
    },
    /// A stored message read from `stream` (a direct get when `direct`); it
    /// comes back as [`Reply::Stored`].
    GetMessage {
        /// The stream.
        stream: String,
        /// Whether the stream answers direct gets.
        direct: bool,
        /// Which message.
        request: MsgGetRequest,
    },
}

/// What a step brought.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The answer to the last [`Step::Request`].
    Answer(Result<Bytes, Error>),
    /// A message of the running batch (or, for a procedure fed by its pump,
    /// the next message the pump read): its stream sequence, its payload and
    /// how many messages matching the request the stream holds after it.
    Message {
        /// Its stream sequence.
        sequence: u64,
        /// Its payload.
        payload: Bytes,
        /// Matching messages after it (`Nats-Num-Pending`, or a consumer's pending count).
        pending: u64,
    },
    /// A message the consumer the pump reads for the procedure pushed.
    Pushed {
        /// Its ack subject: the consumer that sent it, its consumer
        /// sequence, and the messages that consumer holds after it.
        ack: String,
        /// Its payload.
        payload: Bytes,
    },
    /// The running batch ended as the server meant it to (or the pushed
    /// messages did: the consumer had none to deliver when made).
    BatchEnd,
    /// The running batch (or the pushed messages) failed (a timeout, a lost
    /// connection, a server error).
    BatchFailed(Error),
    /// A message on the [`Step::Subscribe`] inbox (or why none will come).
    Inbox(Result<Bytes, Error>),
    /// The stream's ack of the oldest [`Step::Publish`] not yet acked (they
    /// are acked in the order they were asked for): the message's sequence.
    Acked(Result<u64, Error>),
    /// The message a [`Step::GetMessage`] read.
    Stored(Result<StreamMessage, Error>),
}

/// What a procedure has for its user now.
#[derive(Debug, PartialEq)]
pub enum Yield<T> {
    /// Nothing yet: carry out the steps, wait for replies or the deadline.
    Wait,
    /// The next item.
    Item(T),
    /// The procedure failed; it yields nothing more.
    Failed(Error),
    /// The procedure is over.
    Done,
}

/// Why a procedure wants to be woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// A step failed and is tried again after a while.
    Retry,
    /// Replies stopped coming: the step is given up on.
    Stall,
}

impl TimerKind for Wait {
    const ALL: &'static [Wait] = &[Wait::Stall, Wait::Retry];

    fn index(self) -> usize {
        self as usize
    }
}

/// A multi-step operation, sans-IO.
pub trait Procedure {
    /// What it hands out (an object's chunks, a revision).
    type Item;

    /// What a step brought.
    fn handle_reply(&mut self, now: Instant, reply: Reply);

    /// Fires what is due at `now`; early calls do nothing.
    fn handle_timeout(&mut self, now: Instant);

    /// The next step to carry out.
    #[must_use]
    fn poll_step(&mut self) -> Option<Step>;

    /// The next item at `now`, or why there is none. Taking an item may
    /// make room for more, so drain [`poll_step`](Self::poll_step) again after it.
    #[must_use]
    fn poll_item(&mut self, now: Instant) -> Yield<Self::Item>;

    /// When to call [`handle_timeout`](Self::handle_timeout) next, and why.
    fn poll_deadline(&self) -> Option<Deadline<Wait>>;
}

impl<P: Procedure + ?Sized> Procedure for Box<P> {
    type Item = P::Item;

    fn handle_reply(&mut self, now: Instant, reply: Reply) {
        (**self).handle_reply(now, reply)
    }

    fn handle_timeout(&mut self, now: Instant) {
        (**self).handle_timeout(now)
    }

    fn poll_step(&mut self) -> Option<Step> {
        (**self).poll_step()
    }

    fn poll_item(&mut self, now: Instant) -> Yield<Self::Item> {
        (**self).poll_item(now)
    }

    fn poll_deadline(&self) -> Option<Deadline<Wait>> {
        (**self).poll_deadline()
    }
}
