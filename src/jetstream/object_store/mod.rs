//! Object store (ADR-20), shaped like async-nats's `jetstream::object_store`:
//! a bucket `b` is the stream `OBJ_b`; an object is chunks on `$O.b.C.<nuid>`
//! and a meta on `$O.b.M.<name in base64>` with its size, chunk count and
//! SHA-256. Puts stream with bounded memory, pipelining chunk acks; gets
//! stream by batched direct gets or through an ordered push consumer and
//! check size and digest before the end. What natsjet writes, nats.js, nats.go and async-nats read,
//! and the other way round (see [`names`] for names outside ASCII).
//!
//! The rules need no connection and live in the core (`src/core/object`:
//! [`names`], [`digest`], [`ObjectInfo`], [`Config`]'s stream, the error
//! kinds); [`ObjectStore`] and [`Object`] here use them over the JetStream
//! context.
//!
//! ```no_run
//! # async fn f(js: natsjet::jetstream::Context) -> Result<(), natsjet::Error> {
//! use futures_util::StreamExt;
//! use natsjet::jetstream::object_store::{self, ObjectMetadata};
//!
//! let store = js.create_object_store(object_store::Config { bucket: "files".into(), ..Default::default() }).await?;
//! let mut file = tokio::fs::File::open("report.pdf").await.map_err(natsjet::Error::from)?;
//! let info = store.put(ObjectMetadata::from("report.pdf"), &mut file).await?;
//! println!("{} bytes in {} chunks, {}", info.size, info.chunks, info.digest.unwrap_or_default());
//!
//! let mut object = store.get("report.pdf").await?;
//! while let Some(chunk) = object.next().await {
//!     let chunk = chunk?; // the last one only once size and digest checked out
//!     println!("{} bytes", chunk.len());
//! }
//! # Ok(()) }
//! ```

pub use crate::core::object::{digest, names};
pub(crate) use crate::core::object::{error, info};

#[cfg(has_runtime)]
mod buckets;
#[cfg(has_runtime)]
mod direct;
#[cfg(has_runtime)]
mod get;
#[cfg(has_runtime)]
mod put;
#[cfg(has_runtime)]
mod store;

pub use crate::core::object::{
    Config, DEFAULT_CHUNK_SIZE, ObjectInfo, ObjectLink, ObjectMetadata, ObjectOptions, Status, UpdateMetadata,
    is_valid_bucket_name,
};
pub use error::*;
#[cfg(has_runtime)]
pub use get::Object;
#[cfg(all(feature = "wasm-object-store", target_arch = "wasm32"))]
pub(crate) use get::chunk_consumer;
#[cfg(has_runtime)]
pub use put::{Progress, ProgressFn, PutOptions};
#[cfg(feature = "fuzzing")]
pub(crate) use store::parse_meta;
#[cfg(has_runtime)]
pub use store::{AsObjectInfo, List, ObjectStore, Watch, WatchOptions};
