//! The sans-IO JetStream machines and types: the API's JSON ([`api`]), the
//! pull consumer ([`pull`]), the push inbox ([`push`]), the ordered cursor
//! ([`ordered`]), acks and the checkpoint ledger ([`ack`]), the window
//! of a fast-ingest batch ([`fast_window`]), an atomic batch
//! ([`atomic_batch`]), a publish's message and headers ([`publish`]),
//! schedules ([`schedule`]), partitioned consumer groups'
//! rules ([`groups`]) and a message read back from a stream
//! ([`raw_message`]). The `jetstream` API folder runs them over a connection.

pub mod ack;
pub mod api;
/// Atomic batch publish (ADR-50): re-exported in `jetstream::publish`.
pub(crate) mod atomic_batch;
pub mod counter;
#[cfg_attr(not(has_runtime), allow(dead_code, reason = "only the native client sends fast batches"))]
#[cfg_attr(target_arch = "wasm32", allow(dead_code, reason = "the wasm only reads its API level"))]
pub(crate) mod fast_window;
pub mod groups;
pub mod ordered;
/// A message for a JetStream publish and its headers: re-exported as `jetstream::publish`.
pub(crate) mod publish;
pub mod pull;
pub mod push;
/// A message read back from a stream: re-exported as `jetstream::stream::StreamMessage`.
pub(crate) mod raw_message;
pub(crate) mod read_mark;
/// Message schedules (ADR-51): re-exported in `jetstream::publish`.
pub(crate) mod schedule;
