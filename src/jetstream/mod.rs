//! JetStream: API types, pull consumers and acks.

pub mod ack;
pub mod api;
pub mod pull;
