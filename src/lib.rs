//! natsjet: a NATS and JetStream client with one sans-IO core that runs on
//! tokio and, compiled to WebAssembly, in browsers and Node.js.
//!
//! Layers, bottom up, one folder each: the sans-IO core (`src/core/`: the
//! wire codec [`proto`], the connection machine [`conn`] — bytes, commands
//! and `now` in; bytes, events and the next deadline out, see its docs for
//! the loop contract — the JetStream machines [`jetstream::pull`],
//! [`jetstream::push`], [`jetstream::ack`] and [`jetstream::ordered`],
//! [`request_many`], and the Key-Value and Object Store rules), the
//! runtimes (`src/runtime/`: tokio natively, JS timers in wasm, re-exported
//! in [`driver`]), the [`transport`]s, one driver task per connection
//! ([`driver`]), and the API on top ([`Client`], [`jetstream::Context`],
//! [`jetstream::kv`], [`jetstream::object_store`]). The core never reads a
//! clock or spawns; the driver feeds it time from the runtime. Nothing in
//! the core panics on input from the network.

#![cfg_attr(
    not(has_runtime),
    allow(
        dead_code,
        unused_imports,
        reason = "the core's crate-internal helpers serve the client, which this build leaves out"
    )
)]

#[cfg(has_runtime)]
pub mod client;
/// async-nats's path of the connection's [`State`].
pub mod connection {
    pub use crate::conn::State;
}
mod core;
pub mod driver;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod jetstream;
mod runtime;
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "wasm"))]
mod wasm;

pub use crate::core::{addr, conn, error, header, machine, message, proto, request_many, subject, time, timer};
pub(crate) use crate::core::{id_map, plain_json};

pub use addr::ServerAddr;
#[cfg(has_runtime)]
pub use client::{
    Client, ConnectError, ConnectErrorKind, ConnectOptions, Event, IntoServerAddrs, PublishError, PublishErrorKind,
    Request, RequestError, RequestErrorKind, RequestMany, ResponseFuture, Responses, SubscribeError,
    SubscribeErrorKind, Subscriber, connect, connect_with_options, create_inbox,
};
pub use conn::{AuthFn, CallbackAuth, State, Statistics};
pub use error::{Error, Result};
pub use header::{HeaderMap, HeaderName, HeaderValue, StatusCode};
pub use message::Message;
pub use proto::ServerInfo;
pub use subject::Subject;
pub use transport::TlsOptions;

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
