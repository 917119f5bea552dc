//! Sans-IO JetStream pull consumer: `fetch` and `consume` over one inbox.
//!
//! [`PullConsumer`] decides when to pull and how much (ADR-13, ADR-37),
//! counts what each pull may still deliver, sorts the server's status
//! messages ([`status::classify`]) and watches idle heartbeats on the caller's
//! clock. It owns no socket, subscription or timer: the caller publishes the
//! [`PullRequest`]s it yields, feeds it every inbox message, and calls
//! `handle_timeout` at [`PullConsumer::poll_deadline`](crate::core::machine::Machine::poll_deadline).
//!
//! ```
//! use natsjet::jetstream::pull::{ConsumeOptions, PullConsumer};
//! use natsjet::machine::Machine;
//! use natsjet::time::Instant;
//!
//! let mut consumer = PullConsumer::consume(Instant::ZERO, ConsumeOptions::default()).unwrap();
//! let pull = consumer.poll_pull().unwrap(); // publish to $JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>
//! assert_eq!(pull.batch, 300);
//! assert_eq!(consumer.pending_messages(), 300);
//! // Nothing arrives: two heartbeat intervals (2 × 15 s) later the watchdog fires.
//! let deadline = consumer.poll_deadline().map(|d| d.at).unwrap();
//! consumer.handle_timeout(deadline);
//! assert!(consumer.poll_event().is_some()); // HeartbeatsMissed
//! assert!(consumer.poll_pull().is_some()); // and a fresh pull
//! ```

mod event;
mod options;
mod pending;
mod request;
mod state;
mod status;
mod timer;

pub use event::{ConsumerEvent, Delivery, FetchEnd, ResetReason};
pub use options::{
    BYTES_MODE_BATCH, ConsumeOptions, DEFAULT_CONSUME_MAX_BYTES, DEFAULT_CONSUME_MAX_MESSAGES,
    DEFAULT_CONSUME_THRESHOLD_MESSAGES, DEFAULT_EXPIRES, DEFAULT_MAX_MESSAGES, FetchOptions, MAX_IDLE_HEARTBEAT,
    MIN_CONSUME_EXPIRES, MIN_IDLE_HEARTBEAT, PriorityOptions,
};
pub use request::PullRequest;
pub use state::{GONE_CHECKS, PIN_ID_HEADER, PullConsumer};
pub use status::{PENDING_BYTES, PENDING_MESSAGES, PullStatus, StatusKind, classify};
pub use timer::Timer;

#[cfg(test)]
mod tests;
