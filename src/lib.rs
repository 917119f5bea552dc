//! natsjet: a NATS and JetStream client with one sans-IO core that runs on
//! tokio and, compiled to WebAssembly, in browsers and Node.js. This page is
//! the manual for working on it; the user's guide is the README.
//!
//! # Layers, and where they live
//!
//! Bottom up, one folder each; each layer names only the ones below it.
//!
//! - **The sans-IO core**, `src/core/`: everything natsjet knows about
//!   NATS that needs no socket, clock or task. The wire codec [`proto`];
//!   the connection machine [`conn`] (handshake, pings, reconnects,
//!   subscriptions, requests); the JetStream machines ([`jetstream::pull`],
//!   [`jetstream::push`], [`jetstream::ordered`], [`jetstream::ack`] and the
//!   API's JSON types); [`request_many`]; the Key-Value and Object Store
//!   rules; and [`session`], which owns a [`conn::Connection`] and every
//!   machine attached to it under ids. Every protocol machine — the
//!   connection, the pull consumer, the push inbox, the checkpoint ledger,
//!   a request for many, a first-message timer, and in the session a
//!   reader (over a pull consumer or a push inbox) and an ordered read
//!   (over its ordered cursor) — speaks the one [`machine::Machine`]
//!   interface and keeps its timers in the one [`timer::TimerTable`], each
//!   with a reason; the session folds their deadlines once and fires what
//!   is due through that interface. Nothing in the core names tokio, wasm-bindgen or
//!   an upper layer (`tests/core_imports.rs` fails the build if it does),
//!   and its unit tests also run on wasm32.
//! - **The runtimes**, `src/runtime/`: tokio natively, `spawn_local` and JS
//!   timers in wasm, the queues between the driver and the user's
//!   streams; their public types are re-exported in [`driver`].
//! - **The transports**, `src/transport/native/` (TCP, TLS) and
//!   `src/transport/wasm/` (WebSocket, Node sockets).
//! - **The driver**, `src/driver/`: one task per connection that moves
//!   bytes between the transport and the session, fires its deadline, and
//!   wakes the waiters (reply slots, message and event queues) that it
//!   keys by the session's ids. It decides nothing about the protocol.
//!   Its shared state (`driver::shared::Inner`: the session and those
//!   waiters) is private to it; the API calls its methods, named for what
//!   the API needs (`subscribe` with a queue, `request` with an answer
//!   slot, `flush`, `drain`, `close_waited`, `start_reader`,
//!   `ledger_track`, ...), each a session command plus its waiter, and
//!   reads the session's state (`state`, `server_info`, ...) through it.
//! - **The API**, `src/client/`, `src/jetstream/` (with `kv/` and
//!   `object_store/`) and the wasm bindings in `src/wasm/`: the shapes of
//!   async-nats and nats.js, which call the driver and never hold or
//!   change one of the session's machines (a reader, a ledger, an ordered
//!   read): they hold its id and the waiters the driver feeds.
//!
//! # The loop contract
//!
//! Whoever drives a [`session::Session`] (the driver, or a test) does the
//! same three things in a loop: **feed** it what happened (bytes with
//! `handle_input`, the transport opening or closing, user commands such as
//! `publish` or `attach_reader`, the clock with `handle_timeout`), then
//! **drain** everything it has — `poll_action` (open, upgrade or close the
//! transport), `poll_event` (messages and answers routed by id, reader
//! items, connection events), `poll_transmit` (bytes for the server) —
//! and then **sleep until** `poll_deadline`, which says when and why
//! ([`session::Wake`]) it must be woken next. Draining after every input
//! matters: outputs queue up until taken, and a deadline may have moved.
//!
//! # Time
//!
//! The core never reads a clock: every entry point takes `now`, a
//! [`time::Instant`] measured from an origin the driver picks (tests start
//! at [`time::Instant::ZERO`] and move it by hand). Each machine keeps the
//! latest `now` it saw in a [`time::Clock`], so time that runs backwards
//! counts as standing still and no passed deadline comes back. Every timer
//! that keeps a subscription alive — pings, pull heartbeats and refills,
//! push heartbeats, ledger `+WPI`s, request-for-many and first-message
//! timeouts, and an ordered read's re-creation and retries (a continuous
//! read's and a fetched batch's alike) — runs from the session's deadline,
//! so none depends on the user polling a stream.
//!
//! # What panics, what errors
//!
//! Nothing panics on input from the network: bad bytes are a protocol
//! error that closes the connection and reaches every waiter as a typed
//! [`Error`]; parsers never allocate beyond the limits the server
//! announced. Bad input from the caller (a subject with spaces, an empty
//! stream name, options that contradict each other) is a typed error
//! returned before a byte is written, and a call the object's state does
//! not allow is [`Error::ApiMisuse`]. What panics:
//!
//! - polling a [`jetstream::PublishAckFuture`] again after it completed,
//!   as Rust's futures may (`jetstream/publish/ack_future.rs`);
//! - invariants the code just established, which no input can break: the
//!   CONNECT's JSON of strings and numbers serializes (`core/proto/encode.rs`),
//!   the driver's sleep was just armed (`driver/task.rs`), a publish-ack
//!   future's answer was just matched (`jetstream/publish/ack_future.rs`),
//!   an object put's windowed sender was just matched
//!   (`jetstream/object_store/put.rs`), and the wasm's batch arena was
//!   just made (`wasm/batch.rs`);
//! - at compile time, a timer enum with more timers than the table holds
//!   (`core/timer.rs`).
//!
//! # Driving a session by hand
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
pub mod transport;
#[cfg(all(target_arch = "wasm32", feature = "wasm-runtime"))]
mod wasm;

pub(crate) use crate::core::id_map;
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
pub use subject::Subject;
pub use transport::TlsOptions;

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
    #[doc = include_str!("../docs/key-value.md")]
    pub struct KeyValue;
    #[doc = include_str!("../docs/object-store.md")]
    pub struct ObjectStore;
    #[doc = include_str!("../docs/switching-from-async-nats.md")]
    pub struct SwitchingFromAsyncNats;
}
