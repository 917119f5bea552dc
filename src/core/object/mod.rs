//! The Object Store's rules, sans-IO: bucket and object names and the
//! subjects they make ([`names`]), the streaming SHA-256 ([`digest`]), an
//! object's meta ([`ObjectInfo`]), the stream a bucket [`Config`] asks for,
//! looking an object up by name (`lookup`), what a get checks and where it
//! goes (`get`), and every operation's error kinds. The `jetstream::object_store` API
//! folder uses them over a JetStream context.

pub(crate) mod change;
pub mod digest;
pub(crate) mod error;
pub(crate) mod get;
pub(crate) mod info;
pub(crate) mod lookup;
pub(crate) mod meta_json;
pub mod names;
pub(crate) mod read;
#[cfg(test)]
mod scripted;
#[cfg(test)]
mod vectors;
pub(crate) mod write;

pub use info::{
    Config, DEFAULT_CHUNK_SIZE, ObjectInfo, ObjectLink, ObjectMetadata, ObjectOptions, Status, UpdateMetadata,
};
pub use names::is_valid_bucket_name;
