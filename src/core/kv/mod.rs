//! The Key-Value store's rules, sans-IO: bucket and key names and the
//! subjects they make ([`names`]), the stream a bucket [`Config`] asks for,
//! an [`Entry`] and its [`Operation`] read from headers, and every
//! operation's error kinds. The `jetstream::kv` API folder uses them over a
//! JetStream context.

pub(crate) mod config;
pub(crate) mod entry;
pub(crate) mod error;
pub mod names;

pub use config::{Config, MAX_HISTORY, Status};
pub use entry::{
    Entry, KV_OPERATION, NATS_MARKER_REASON, NATS_MESSAGE_SIZE, NATS_ROLLUP, Operation, ParseOperationError,
};
pub use error::*;
pub use names::{is_valid_bucket_name, is_valid_key};
