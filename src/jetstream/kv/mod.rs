//! Key-Value store (ADR-8, ADR-48), shaped like async-nats's
//! `jetstream::kv`: a bucket `b` is the stream `KV_b`, key `k` its subject
//! `$KV.b.k`, and a key's revision the stream sequence of its message.
//! What natsjet writes, nats.js, nats.go, async-nats and the `nats` CLI read,
//! and the other way round.
//!
//! The rules need no connection and live in the core (`src/core/kv`:
//! [`names`], [`Config`]'s stream, [`Entry`] and [`Operation`] from
//! headers, the error kinds); [`Store`], [`Watch`], [`History`] and
//! [`Keys`] here use them over the JetStream context.
//!
//! ```no_run
//! # async fn f(js: natsjet::jetstream::Context) -> Result<(), natsjet::Error> {
//! use futures_util::StreamExt;
//! use natsjet::jetstream::kv;
//!
//! let kv = js.create_key_value(kv::Config { bucket: "profiles".into(), history: 5, ..Default::default() }).await?;
//! let revision = kv.put("sue.color", "blue".into()).await?;
//! kv.update("sue.color", "green".into(), revision).await?; // refused if someone wrote in between
//! assert_eq!(kv.get("sue.color").await?.as_deref(), Some(&b"green"[..]));
//!
//! let mut watch = kv.watch_with_history("sue.>").await?; // the latest values, then every change
//! while let Some(entry) = watch.next().await {
//!     let entry = entry?;
//!     println!("{} {} {:?} caught up: {}", entry.key, entry.revision, entry.operation, entry.seen_current);
//! }
//! # Ok(()) }
//! ```

pub use crate::core::kv::names;
pub(crate) use crate::core::kv::{config, entry, error};

#[cfg(has_runtime)]
mod buckets;
#[cfg(has_runtime)]
mod store;
#[cfg(has_runtime)]
mod watch;

#[cfg(feature = "fuzzing")]
pub(crate) use crate::core::kv::read::{stored_entry, watched_entry};
#[cfg(all(feature = "wasm-kv", target_arch = "wasm32"))]
pub(crate) use crate::core::kv::write::marker;
pub use crate::core::kv::{
    Config, Entry, KV_OPERATION, MAX_HISTORY, NATS_MARKER_REASON, NATS_MESSAGE_SIZE, NATS_ROLLUP, Operation,
    ParseOperationError, Status, is_valid_bucket_name, is_valid_key,
};
pub use error::*;
#[cfg(has_runtime)]
pub use store::Store;
#[cfg(all(feature = "wasm-kv", target_arch = "wasm32"))]
pub(crate) use store::{BucketExternal, BucketFacts, BucketMirror};
#[cfg(has_runtime)]
pub use watch::{History, Keys, Watch, WatchInclude, WatchOptions};
#[cfg(all(feature = "wasm-kv", target_arch = "wasm32"))]
pub(crate) use watch::{KEYS, Reader};

/// async-nats's path of [`Status`].
pub mod bucket {
    pub use super::config::Status;
}
