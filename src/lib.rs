//! natsjet: a NATS and JetStream client with one sans-IO core that runs on
//! tokio and, compiled to WebAssembly, in browsers and Node.js.

pub mod addr;
#[cfg(has_runtime)]
mod client;
pub mod conn;
pub mod driver;
pub mod error;
pub mod header;
pub mod jetstream;
pub mod message;
pub mod proto;
pub mod subject;
pub mod time;
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "wasm"))]
mod wasm;

pub use addr::ServerAddr;
#[cfg(has_runtime)]
pub use client::{Client, ConnectOptions, Event, IntoServerAddrs, ResponseFuture, Subscriber, connect};
pub use conn::{State, Statistics};
pub use error::{Error, Result};
pub use header::{HeaderMap, StatusCode};
pub use message::Message;
pub use proto::ServerInfo;
pub use transport::TlsOptions;
