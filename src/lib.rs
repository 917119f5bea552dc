//! natsjet: a NATS and JetStream client with one sans-IO core that runs on
//! tokio and, compiled to WebAssembly, in browsers and Node.js (the npm
//! package `natsjet`). The Rust API is shaped like async-nats's: a program
//! written for async-nats 0.52 switches with `use natsjet as nats;`.
//!
//! The guides (getting started, JetStream, many workers on one durable,
//! exactly-once, Key-Value, Object Store, errors, troubleshooting) are in
//! the repository's `docs/`; contributors start at its `ARCHITECTURE.md`.
//!
//! # Quick start
//!
//! Connect, publish and subscribe ([`connect`], [`Client`], [`Subscriber`]):
//!
//! ```no_run
//! use futures_util::StreamExt;
//!
//! # async fn run() -> Result<(), natsjet::Error> {
//! let client = natsjet::connect("nats://127.0.0.1:4222").await?; // also tls://, ws://, wss://
//! let mut sub = client.subscribe("greet.*").await?;
//! client.publish("greet.joe", "hello".into()).await?;
//! let message = sub.next().await.expect("the subscription is open");
//! assert_eq!(&message.payload[..], b"hello");
//!
//! let answer = client.request("svc.time", "".into()).await; // errors have async-nats's kinds
//! # let _ = answer;
//! client.drain().await?; // deliver what arrived, flush, close
//! # Ok(()) }
//! ```
//!
//! JetStream: a durable pull consumer, read and acked ([`jetstream`]). Any
//! number of workers may run this loop on the same durable; the connection's
//! task keeps pulls outstanding, watches heartbeats and re-pulls after a
//! reconnect. [`jetstream::ack::AckBatch`] acks in bulk and
//! [`jetstream::CheckpointLedger`] acks after a checkpoint.
//!
//! ```no_run
//! use futures_util::StreamExt;
//! use natsjet::jetstream::{self, consumer::{PullConsumer, pull}, stream};
//!
//! # async fn run(client: natsjet::Client) -> Result<(), natsjet::Error> {
//! let js = jetstream::new(client);
//! let config = stream::Config { name: "ORDERS".into(), subjects: vec!["orders.>".into()], ..Default::default() };
//! let stream = js.get_or_create_stream(config).await?;
//! let ack = js.publish("orders.1", "data".into()).await?.await?; // stored once this returns
//! println!("sequence {}", ack.sequence);
//!
//! let consumer: PullConsumer = stream
//!     .get_or_create_consumer("workers", pull::Config { durable_name: Some("workers".into()), ..Default::default() })
//!     .await?;
//! let mut messages = consumer.messages().await?;
//! while let Some(message) = messages.next().await {
//!     let message = message?;
//!     println!("{} {:?}", message.subject, message.payload);
//!     message.ack().await?;
//! }
//! # Ok(()) }
//! ```
//!
//! Key-Value ([`jetstream::kv`]); the Object Store is
//! [`jetstream::object_store`]:
//!
//! ```no_run
//! use futures_util::StreamExt;
//! use natsjet::jetstream::kv;
//!
//! # async fn run(js: natsjet::jetstream::Context) -> Result<(), natsjet::Error> {
//! let kv = js.create_key_value(kv::Config { bucket: "profiles".into(), history: 5, ..Default::default() }).await?;
//! let revision = kv.put("sue.color", "blue".into()).await?;
//! kv.update("sue.color", "green".into(), revision).await?; // fails if someone wrote in between
//! assert_eq!(kv.get("sue.color").await?.as_deref(), Some(&b"green"[..]));
//!
//! let mut watch = kv.watch("sue.>").await?; // changes from now on
//! while let Some(entry) = watch.next().await {
//!     let entry = entry?;
//!     println!("{} = {:?} ({})", entry.key, entry.value, entry.operation);
//! }
//! # Ok(()) }
//! ```
//!
//! Errors: every call returns natsjet's one [`Error`] or an operation's
//! error with async-nats's `kind()` and natsjet's `Error` as its `cause()`.
//! The crate's features: `native` (tokio TCP, rustls TLS, tokio-tungstenite
//! WebSocket) and `nkeys` (nkey and `.creds` authentication) by default;
//! `wasm` builds the npm package's WebAssembly.
//!
//! # Driving the core by hand
//!
//! Under the async API is a sans-IO core: no sockets, no clock, no tasks.
//! Whoever drives a [`session::Session`] (natsjet's driver task, a test, or a
//! program with its own event loop) does the same three things in a loop:
//! **feed** it what happened (bytes with `handle_input`, the transport
//! opening or closing, user commands such as `publish` or `attach_reader`,
//! the clock with `handle_timeout`), then **drain** everything it has —
//! `poll_action` (open, upgrade or close the transport), `poll_event`
//! (messages and answers routed by id, reader items, connection events),
//! `poll_transmit` (bytes for the server) — and then **sleep until**
//! `poll_deadline`, which says when and why ([`session::Wake`]) it must be
//! woken next. Draining after every input matters: outputs queue up until
//! taken, and a deadline may have moved.
//!
//! The core never reads a clock: every entry point takes `now`, a
//! [`time::Instant`] measured from an origin the driver picks (tests start
//! at [`time::Instant::ZERO`] and move it by hand); time that runs backwards
//! counts as standing still. Nothing panics on input from the network: bad
//! bytes are a protocol error that closes the connection and reaches every
//! waiter as a typed [`Error`].
//!
//! Offline, with scripted server bytes: what the driver does, step by step.
//!
//! ```
//! use bytes::BytesMut;
//! use natsjet::conn::{Action, Config, Connection, ConnectionEvent, Event, Timer};
//! use natsjet::session::{Session, SessionEvent, Wake};
//! use natsjet::time::Instant;
//! use natsjet::ServerAddr;
//!
//! let config = Config { servers: vec![ServerAddr::parse("nats://127.0.0.1:4222")?], ..Config::default() };
//! let mut session = Session::new(Connection::new(config, Instant::ZERO, 1)?);
//! let now = Instant::from_millis(5);
//!
//! // The session asks for a transport; the driver opens it and says so.
//! assert!(matches!(session.poll_action(), Some(Action::Connect { .. })));
//! session.handle_transport_open(now);
//!
//! // The server speaks first; the client answers CONNECT and PING.
//! let info = r#"INFO {"server_id":"S","version":"2.15.0","proto":1,"headers":true,"max_payload":1048576}"#;
//! session.handle_input(now, &mut BytesMut::from(format!("{info}\r\n").as_str()));
//! let hello = session.poll_transmit(usize::MAX).expect("the handshake");
//! assert!(hello.starts_with(b"CONNECT {") && hello.ends_with(b"PING\r\n"));
//! session.handle_input(now, &mut BytesMut::from("PONG\r\n"));
//! assert!(matches!(
//!     session.poll_event(now),
//!     Some(SessionEvent::Connection(Event::Connection(ConnectionEvent::Connected { .. })))
//! ));
//!
//! // A user command writes at once; what the server sends back is routed by sid.
//! let sid = session.subscribe("greetings", None)?;
//! assert_eq!(&session.poll_transmit(usize::MAX).expect("the SUB")[..], b"SUB greetings 1\r\n");
//! session.handle_input(now, &mut BytesMut::from("MSG greetings 1 5\r\nhello\r\n"));
//! match session.poll_event(now) {
//!     Some(SessionEvent::Connection(Event::Message { sid: to, message })) => {
//!         assert_eq!((to, &message.payload[..]), (sid, &b"hello"[..]));
//!     }
//!     other => panic!("expected the message, got {other:?}"),
//! }
//!
//! // Drained: the driver sleeps until the next deadline, which says why.
//! assert!(session.poll_event(now).is_none() && session.poll_transmit(usize::MAX).is_none());
//! let next = session.poll_deadline().expect("the keep-alive");
//! assert_eq!(next.reason, Wake::Connection(Timer::Ping));
//! session.handle_timeout(next.at);
//! assert_eq!(&session.poll_transmit(usize::MAX).expect("the ping")[..], b"PING\r\n");
//! # Ok::<(), natsjet::Error>(())
//! ```

// Every public item is documented; a new one without a doc comment fails
// the build (and scripts/api-docs.sh).
#![deny(missing_docs)]
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
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub mod datetime;
/// async-nats's path of the connection's [`State`].
pub mod connection {
    pub use crate::conn::State;
}
mod core;
/// async-nats's path of [`StatusCode`].
pub mod status {
    pub use crate::header::StatusCode;
}
pub mod driver;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod jetstream;
mod runtime;
#[cfg(all(feature = "service", has_runtime))]
pub mod service;
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "wasm-runtime"))]
mod wasm;

#[cfg(any(test, feature = "fuzzing"))]
pub(crate) use crate::core::plain_json;
pub use crate::core::{
    addr, conn, error, header, machine, message, proto, request_many, session, subject, time, timer,
};

pub use addr::ServerAddr;
#[cfg(has_runtime)]
pub use client::{
    Auth, AuthError, Client, ClientError, ConnectError, ConnectErrorKind, ConnectOptions, ConnectionEvent, Event,
    IntoServerAddrs, PublishError, PublishErrorKind, Request, RequestError, RequestErrorKind, RequestMany,
    ResponseFuture, Responses, ServerError, SubscribeError, SubscribeErrorKind, Subscriber, connect,
    connect_with_options, create_inbox,
};
pub use conn::{AuthFn, CallbackAuth, PoolServer as Server, ReconnectToServer, State, Statistics};
pub use error::{Error, Result};
pub use header::{HeaderMap, HeaderName, HeaderValue, StatusCode};
pub use message::Message;
pub use proto::ServerInfo;
pub use subject::{Subject, SubjectError};
pub use transport::TlsOptions;

/// The rustls natsjet's TLS runs on (async-nats's re-export, at its path),
/// to build the `ClientConfig` that
/// [`ConnectOptions::tls_client_config`] and [`TlsOptions::client_config`] take.
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub use tokio_rustls::rustls;

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The guides' examples (docs/), compiled as doctests.
#[cfg(doctest)]
pub mod guides {
    #[doc = include_str!("../docs/getting-started.md")]
    pub struct GettingStarted;
    #[doc = include_str!("../docs/jetstream.md")]
    pub struct JetStream;
    #[doc = include_str!("../docs/many-workers.md")]
    pub struct ManyWorkers;
    #[doc = include_str!("../docs/exactly-once.md")]
    pub struct ExactlyOnce;
    #[doc = include_str!("../docs/consumer-groups.md")]
    pub struct ConsumerGroups;
    #[doc = include_str!("../docs/key-value.md")]
    pub struct KeyValue;
    #[doc = include_str!("../docs/object-store.md")]
    pub struct ObjectStore;
    #[doc = include_str!("../docs/services.md")]
    pub struct Services;
    #[doc = include_str!("../docs/switching-from-async-nats.md")]
    pub struct SwitchingFromAsyncNats;
}
