//! JetStream for JavaScript: the raw exports that `bindings/jetstream/`
//! shapes like nats.js v3's `@nats-io/jetstream`. Thin like the rest of
//! `wasm`: each export converts its arguments, calls the Rust JetStream API
//! ([`crate::jetstream`]) and converts the answer back.
//!
//! API requests and replies cross as JSON text, untouched: TS makes them
//! with `JSON.stringify` and reads the server's replies with `JSON.parse`,
//! so field names and nanosecond durations are the server's, as in nats.js,
//! and the server decides what it accepts. No config or info type is
//! (de)serialised here (each one would cost kilobytes of wasm); Rust only
//! validates the names that go into a subject, reads the few fields the
//! core needs (a consumer's names), turns error replies into `NatsError`s,
//! and parses the header blocks of stored messages (TS decodes the base64).
//! Messages cross in batches, like core subscriptions.
//! - [`context`]: `RawJetStream` (a context), acked publish (with schedules), ack batches;
//! - [`atomic_batch`]: `RawAtomicBatch`, an atomic batch publish;
//! - [`api`]: every management call and listing on `RawJetStream`, direct
//!   gets, and consumer handles from their info;
//! - [`direct_batch`]: `RawDirectBatch`, the messages of a batched direct get;
//! - [`lister`]: `RawLister`, the `*.LIST` and `*.NAMES` pages;
//! - [`consumer`]: `RawConsumer` (fetch, next, consume) and pull options;
//! - [`ordered`]: `RawOrderedConsumer` (fetch, next, consume in order) and its options;
//! - [`push`]: `RawPushConsumer` (consume) and its options;
//! - [`messages`]: `RawConsumerMessages`, a pull or push reader, and its events;
//! - [`deliveries`]: `RawDeliveries`, a batch's messages for acks and metadata;
//! - [`ack_batch`]: `RawAckBatch`, acks committed together;
//! - [`groups`]: partitioned consumer groups: admin calls and `groupJoin`;
//! - [`ledger`]: `RawCheckpointLedger`, messages held until their checkpoint commits;
//! - [`api_types`]: the TypeScript types of the API's JSON.

mod ack_batch;
mod api;
mod api_types;
mod atomic_batch;
mod consumer;
mod context;
mod deliveries;
mod direct_batch;
#[cfg(feature = "wasm-fast-ingest")]
mod fast_publish;
#[cfg(feature = "wasm-groups")]
mod groups;
mod ledger;
mod lister;
mod messages;
mod ordered;
mod push;
mod replies;

#[cfg(any(feature = "wasm-kv", feature = "wasm-object-store"))]
pub(super) use context::RawJetStream;

use wasm_bindgen::JsValue;

use crate::core::error::Error;
use crate::wasm::options::{number, whole};

/// An optional whole number (a sequence, a count) that fits `T`.
fn whole_number<T: TryFrom<u64>>(value: JsValue, what: &str) -> Result<Option<T>, Error> {
    number(value, what)?.map(|n| whole(n, what)).transpose()
}
