//! natsjet: a NATS and JetStream client with one sans-IO core that runs on
//! tokio and, compiled to WebAssembly, in browsers and Node.js.

pub mod addr;
pub mod conn;
pub mod error;
pub mod header;
pub mod jetstream;
pub mod message;
pub mod proto;
pub mod subject;
pub mod time;

pub use addr::ServerAddr;
pub use error::{Error, Result};
pub use header::{HeaderMap, StatusCode};
pub use message::Message;
