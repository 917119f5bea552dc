//! The Key-Value store's rules, sans-IO: bucket and key names and the
//! subjects they make ([`names`]), the stream a bucket [`Config`] asks for,
//! an [`Entry`] and its [`Operation`] read from headers, the entry a get or
//! a watch reads and the watch without deletes (`read`), the markers and
//! a create over a deleted key (`write`), and every operation's error kinds. The `jetstream::kv` API folder uses them over a
//! JetStream context.

pub(crate) mod config;
pub(crate) mod create;
pub(crate) mod entry;
pub(crate) mod error;
pub mod names;
pub(crate) mod read;
pub(crate) mod write;

pub use config::{Config, MAX_HISTORY, Status};
pub use entry::{
    Entry, KV_OPERATION, NATS_MARKER_REASON, NATS_MESSAGE_SIZE, NATS_ROLLUP, Operation, ParseOperationError,
};
pub use error::*;
pub use names::{is_valid_bucket_name, is_valid_key};
