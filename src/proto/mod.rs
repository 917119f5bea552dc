//! The NATS wire codec: an incremental parser for what the server sends and
//! an encoder for what the client sends. Owns bytes only; knows nothing of
//! connections, time or subscriptions.

mod encode;
mod parser;
mod types;

pub use encode::*;
pub use parser::{Parser, ParserLimits, ServerOp};
pub use types::{ConnectInfo, ServerInfo};
