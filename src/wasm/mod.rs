//! The Rust half of the JavaScript API: wasm-bindgen exports, compiled only
//! for wasm32 with the `wasm` feature. Thin by rule: convert JS values, call
//! the Rust API ([`Client`](crate::Client), [`Subscriber`](crate::Subscriber)),
//! convert the result back. The TypeScript layer in `bindings/` turns these
//! raw exports into nats.js shapes; it must not add behaviour either, with
//! one exception: the Object Store (`bindings/obj/`) is TS over the generic
//! JetStream exports and the core's put and get procedures, because its
//! rules (JSON metas, names, writes decided over lookups) cost the bundle a
//! fraction in TS of what they cost in wasm; shared vectors
//! (`tests/vectors/object_store.json`) and the interop tests keep them the
//! Rust store's.
//!
//! One file per exported object or conversion; each declares the TypeScript
//! types of its boundary values in a `typescript_custom_section`, so the
//! generated `.d.ts` is exact and the TS layer compiles against it:
//! - [`connection`]: `connect` and `RawConnection` (publish, subscribe,
//!   request, requestMany, flush, drain, close, info, stats, rtt,
//!   reconnect, server), and `createInbox`;
//! - [`subscription`]: `RawSubscription` (`nextBatch`, `unsubscribe`,
//!   `drain`, `received`);
//! - [`responses`]: `RawResponses`, the replies of `requestMany`;
//! - [`batch`]: messages packed for one boundary crossing (`RawBatch`), and
//!   headers from JS;
//! - [`options`]: nats.js connection options to [`ConnectOptions`](crate::ConnectOptions);
//! - [`auth`]: nats.js authenticator functions as the connection's auth callback;
//! - [`reconnect`]: nats.js's `reconnectToServer` as the connection's server chooser;
//! - [`status`]: connection events to the TS layer's `StatusSink`;
//! - [`error`]: [`Error`](crate::Error) to a JS `Error` with a switchable `code`;
//! - [`batches`]: results read in batches, an error after the items before it;
//! - [`jetstream`]: the JetStream context, management calls, publish, pull
//!   consumers, acks, `AckBatch` and the checkpoint ledger;
//! - [`kv`], [`entries`], [`reader`]: the Key-Value store;
//! - [`procedure`]: `RawProcedure`, the one export of every core procedure;
//!   [`object_read`]: an object's read (get) and write (put) by it;
//!   [`object_change`]: an object's lookup, delete, update and link by it;
//!
//! The npm package's tiers are builds of these exports by cargo feature:
//! `wasm-runtime` alone is core NATS (`natsjet/core`), `wasm-jetstream` adds
//! [`jetstream`] (`natsjet/jetstream`), `wasm-kv` and `wasm-object-store`
//! add the stores (`natsjet`, feature `wasm`). Rust only an ungated export
//! reaches stays in a tier; the linker drops the rest.

mod auth;
mod batch;
mod batches;
mod connection;
#[cfg(feature = "wasm-kv")]
mod entries;
mod error;
#[cfg(feature = "wasm-jetstream")]
mod jetstream;
#[cfg(feature = "wasm-kv")]
mod kv;
#[cfg(feature = "wasm-object-store")]
mod object_change;
#[cfg(feature = "wasm-object-store")]
mod object_read;
mod options;
#[cfg(any(feature = "wasm-kv", feature = "wasm-object-store"))]
mod procedure;
#[cfg(feature = "wasm-kv")]
mod reader;
mod reconnect;
mod responses;
mod status;
mod subscription;

use std::future::Future;

use futures_util::FutureExt;
use futures_util::future::LocalBoxFuture;
use js_sys::Promise;
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::core::error::{Error, ProtocolError};

/// A JS promise of an export's future, which resolves to a JS value; `?`
/// on an [`Error`] rejects it as a `NatsError`. The future's own output is
/// the promise's: a conversion after it (`future.map(..)`) would be one more
/// future type, a copy of its poll, for every export.
fn promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    boxed_promise(Box::pin(future))
}

/// The one `future_to_promise` of every export: instantiated per future
/// type, it would cost a kilobyte or two of wasm each.
fn boxed_promise(future: LocalBoxFuture<'static, Result<JsValue, JsValue>>) -> Promise {
    wasm_bindgen_futures::future_to_promise(future)
}

/// Runs a Rust API future that completes on its first poll (subscribe and
/// unsubscribe only lock the connection and queue protocol; they are async
/// for async-nats's shape), so JS gets nats.js's synchronous calls.
fn at_once<T>(future: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    future.now_or_never().unwrap_or_else(|| Err(Error::ApiMisuse("the call would have to wait")))
}

/// `value` as a plain JS object with its serde (the server's JSON) names.
fn to_js_object(value: &impl Serialize) -> Result<JsValue, Error> {
    parse_json(&to_json(value)?)
}

/// Without serde_json's error text, as the JetStream `encode_request`.
fn to_json(value: &impl Serialize) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|_| Error::Protocol(ProtocolError::JsValue("cannot encode for JS".into())))
}

/// `JSON.parse` of JSON that natsjet made.
fn parse_json(json: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(json)
        .map_err(|_| Error::Protocol(ProtocolError::JsValue("JSON.parse refused natsjet's JSON".into())))
}
