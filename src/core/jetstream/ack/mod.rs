//! Sans-IO acks: what a delivery is, how to ack it, and how to ack many at
//! once, exactly once, after a checkpoint.
//!
//! - [`MessageMetadata`] and [`AckToken`]: a delivery, read from and named by
//!   its ack reply subject, storable in a checkpoint and ackable from any
//!   connection.
//! - [`AckKind`] (async-nats's) and [`Ack`]: the ack bodies (`+ACK`,
//!   `-NAK`, `+WPI`, `+TERM`, `+NXT`).
//! - [`AckBatch`] and [`AckConfirmations`]: one ack per delivery, AckAll
//!   collapsed to its floor, and which acks the server confirmed.
//! - [`AckLedger`]: deliveries held until their checkpoint commits, kept
//!   alive with `+WPI`; [`check_shared_durable`] and [`check_ledger_fit`]
//!   refuse or flag set-ups that lose data or stall; [`LedgerState`] (in
//!   [`SeqRanges`]) is what a checkpoint saves of it for exactly-once.
//!
//! Like the pull consumer, nothing here owns a socket or a clock: the
//! caller publishes what the `plan`/`poll_*` methods return and passes `now`.

mod batch;
mod guard;
mod kind;
mod ledger;
mod metadata;
mod ranges;
mod state;
mod token;

pub use batch::{AckBatch, AckConfirmations, AckReport, PlannedAck};
pub use guard::{LedgerWarning, check_config_drift, check_ledger_fit, check_shared_durable};
pub use kind::{Ack, AckKind};
pub use ledger::{AckLedger, FLOOR_SETTLED, LedgerCounts, LedgerEvent, LedgerTimer};
pub(crate) use metadata::DeliveryNumbers;
pub use metadata::MessageMetadata;
pub use ranges::SeqRanges;
pub use state::{ConsumerState, LEDGER_STATE_VERSION, LedgerState};
pub use token::AckToken;

#[cfg(test)]
mod tests;
