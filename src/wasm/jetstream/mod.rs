//! JetStream for JavaScript: the raw exports that `bindings/jetstream/`
//! shapes like nats.js v3's `@nats-io/jetstream`. Thin like the rest of
//! `wasm`: each export converts its arguments, calls the Rust JetStream API
//! ([`crate::jetstream`]) and converts the answer back.
//!
//! Configs and infos cross as the server's JSON (`JSON.stringify` in TS,
//! serde here, `JSON.parse` back): their field names and nanosecond
//! durations are the server's, as in nats.js, and the serde types decide
//! what is accepted. Messages cross in batches, like core subscriptions.
//! - [`context`]: `RawJetStream` (a context), acked publish, consumer handles;
//! - [`stream_api`] and [`consumer_api`]: management calls on `RawJetStream`;
//! - [`lister`]: `RawLister`, the `*.LIST` and `*.NAMES` pages;
//! - [`consumer`]: `RawConsumer` (info, fetch, next, consume) and pull options;
//! - [`messages`]: `RawConsumerMessages`, a pull reader, and its events;
//! - [`deliveries`]: `RawDeliveries`, a batch's messages for acks and metadata;
//! - [`ack_batch`]: `RawAckBatch`, acks committed together;
//! - [`api_types`]: the TypeScript types of the API's JSON;
//! - [`batches`]: results read in batches, an error after the items before it.

mod ack_batch;
mod api_types;
mod batches;
mod consumer;
mod consumer_api;
mod context;
mod deliveries;
mod lister;
mod messages;
mod stream_api;

use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

use crate::error::Error;
use crate::wasm::options::{number, whole};

/// A `T` from the JSON the TS layer made with `JSON.stringify`. Read as
/// bytes, like the server's replies, so both share one deserializer per type.
fn from_json<T: DeserializeOwned>(json: &str, what: &str) -> Result<T, Error> {
    serde_json::from_slice(json.as_bytes()).map_err(|e| Error::InvalidArgument(format!("{what}: {e}")))
}

/// An optional whole number (a sequence, a count) that fits `T`.
fn whole_number<T: TryFrom<u64>>(value: JsValue, what: &str) -> Result<Option<T>, Error> {
    number(value, what)?.map(|n| whole(n, what)).transpose()
}
