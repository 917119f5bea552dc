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
//!   (`shared::Inner`: the session and the waiters for its results — reply
//!   slots, message and event queues — keyed by the session's ids). It is
//!   private to the driver: its fields are private, and the API calls its
//!   methods, named for what the API needs (`subscribe` with a queue,
//!   `request` with an answer slot, `flush`, `drain`, `close_waited`,
//!   `start_reader`, `ledger_track`, ...), each a session command plus its
//!   waiter, and reads the session's state (`state`, `server_info`, ...)
//!   through it. Every user command locks it, calls the session and wakes
//!   the driver; nothing there blocks.
//! - `readers.rs` holds the waiters of the JetStream readers (the queues
//!   their users read from); the readers' machines live in the session.
//! - The API never holds or changes one of the session's machines (a reader,
//!   a ledger, an ordered read): it holds its id and the waiters the driver
//!   feeds. A new feature adds a session command and, here, a method on
//!   `Inner` with its waiter; never protocol logic.

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
