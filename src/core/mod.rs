//! The sans-IO core: everything natsjet knows about NATS and JetStream that
//! needs no socket, clock or task. Bytes, commands and `now` go in; bytes,
//! events and the next deadline come out. Nothing here names tokio,
//! wasm-bindgen, the driver or the API folders, so it builds alone.
//!
//! - [`machine`]: the interface every protocol machine shares;
//! - [`proto`]: the wire codec; [`conn`]: the connection machine;
//! - [`jetstream`]: the pull, push, ordered and ack machines and the API's
//!   JSON types; [`request_many`]: the end rules of scatter-gather requests;
//!   [`first_message`]: a subscription's first-message timeout;
//! - [`kv`] and [`object`]: the Key-Value and Object Store rules (names,
//!   subjects, entries, metas, digests, the streams they need);
//! - [`service`]: the services API's rules (ADR-32: names, discovery
//!   subjects, the PING/INFO/STATS replies, endpoint stats);
//! - the small shared types: [`addr`], [`error`], [`header`], [`message`],
//!   [`subject`], [`time`] (and [`timer`], the one timer table), and the crate's own `id_map` and `plain_json`.

pub mod addr;
mod app_errors;
pub mod conn;
pub mod error;
pub(crate) mod first_message;
pub mod header;
pub(crate) mod id_map;
pub mod jetstream;
pub mod kv;
pub mod machine;
pub mod message;
pub mod object;
pub(crate) mod plain_json;
pub(crate) mod procedure;
pub mod proto;
pub mod request_many;
#[cfg(feature = "service")]
pub mod service;
pub mod session;
pub mod subject;
pub mod time;
pub mod timer;
