//! The account's JetStream usage and limits under async-nats's names
//! (`jetstream::account`), as `Context::query_account` returns them.

pub use super::api::{AccountInfo as Account, AccountLimits as Limits, ApiStats as Requests, Tier};
