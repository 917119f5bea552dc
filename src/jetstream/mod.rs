//! JetStream: API types, pull consumers and acks.

pub mod api;
