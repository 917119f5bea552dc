//! JetStream: API types, pull consumers and acks.

pub mod ack;
pub mod api;
pub mod pull;

#[cfg(has_runtime)]
pub mod consumer;
#[cfg(has_runtime)]
mod context;
#[cfg(has_runtime)]
pub use context::{Context, new, with_domain, with_prefix};
#[cfg(has_runtime)]
pub mod publish;
#[cfg(has_runtime)]
pub use publish::{Publish, PublishAckFuture};
