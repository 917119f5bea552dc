//! The async driver: one task per connection that moves bytes between the
//! transport and the sans-IO core and wakes the readers waiting on it. The
//! runtimes it runs on live in `src/runtime`; their public types are
//! re-exported here, where they always were.
//!
//! # Maintainer notes
//!
//! The driver decides nothing about the protocol: everything it knows comes
//! from the [`Session`](crate::session::Session) it feeds (see the crate's
//! "driving the core by hand" and `ARCHITECTURE.md`'s loop contract).
//!
//! - `task.rs` is the task: each poll runs transport actions → reads →
//!   events → writes → the one timer, checks the clock before polling its
//!   sleep, and caps its work before yielding (waking itself to go on). The
//!   shared lock is held around the session's calls only, never across a
//!   transport read or write.
//! - `shared.rs` keeps the state shared with the API's handles
//!   (`shared::Inner`: the session and the waiters for its results). Its
//!   fields are private; the API runs session commands through
//!   `Inner::command` (or `write`, for output only), which wakes the driver,
//!   and calls a method of its own only where a command is paired with a
//!   waiter (`subscribe` with a queue, `request` with an answer slot,
//!   `flush`, `start_reader`, `retire`, ...). `shared/subs.rs` holds the
//!   plain subscriptions' waiters, `shared/room.rs` the outgoing buffer's
//!   back-pressure. Nothing there blocks.
//! - `waiters.rs` holds the waiters of the machines attached to the
//!   session, one per [`Route`](crate::session::Route), and hands each the
//!   items the session routes to it; `readers.rs` the queues of a
//!   JetStream reader; `wake.rs` when the driver task is woken.
//! - The API never holds or changes one of the session's machines (a reader,
//!   a ledger, an ordered read): it holds its route and the waiter the driver
//!   feeds. A new kind of machine adds a session command and a `Route`
//!   variant (and, if its user reads something new, a `Waiter`); never
//!   protocol logic here.

pub use crate::runtime::*;

#[cfg(has_runtime)]
pub(crate) mod readers;
#[cfg(has_runtime)]
pub(crate) mod shared;
#[cfg(has_runtime)]
pub(crate) mod task;
#[cfg(has_runtime)]
mod waiters;
#[cfg(has_runtime)]
mod wake;
