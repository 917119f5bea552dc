//! The connection state machine (sans-IO).
//!
//! Owns one logical NATS connection across many transports: handshake
//! (INFO → CONNECT → PING/PONG), keep-alive pings, the subscription table,
//! the muxed request inbox, flush bookkeeping, reconnect with jittered
//! backoff, the bounded buffer of publishes made while disconnected, and
//! lame-duck moves. It never touches a socket, a clock or a task.
//!
//! # The loop contract
//! The driver feeds inputs (`handle_*`, user commands), then drains the
//! outputs in this order until each returns `None`: [`Connection::poll_action`]
//! (open/upgrade/close a transport), [`Connection::poll_event`] (messages,
//! responses, flush completions, connection events), [`Connection::poll_transmit`]
//! (bytes to write), and finally [`Connection::poll_timeout`] (when to call
//! [`Connection::handle_timeout`] next). Time is always an input.

// PLACEHOLDER: the implementation is being written; this file defines the API.

use std::time::Duration;

use bytes::Bytes;

use crate::addr::ServerAddr;
use crate::error::Error;
use crate::header::HeaderMap;
use crate::message::Message;
use crate::proto::ServerInfo;
use crate::time::Instant;

mod auth;
pub use auth::Auth;

/// Subscription id, as written in SUB/UNSUB/MSG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sid(pub u64);

/// Identifies one request made through the muxed inbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestId(pub u64);

/// Identifies one flush (one PING whose PONG completes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlushId(pub u64);

/// Settings of a connection. Durations follow the defaults of nats.go / nats.js.
#[derive(Debug, Clone)]
pub struct Config {
    /// Servers to try, in order unless `randomize` (at least one).
    pub servers: Vec<ServerAddr>,
    pub randomize: bool,
    /// Add servers learned from INFO `connect_urls`.
    pub discover_servers: bool,
    pub name: Option<String>,
    pub auth: Auth,
    pub echo: bool,
    /// Require TLS even on `nats://` URLs.
    pub tls_required: bool,
    /// Interval between keep-alive PINGs (default 2 min).
    pub ping_interval: Duration,
    /// Unanswered keep-alive PINGs after which the connection is stale (default 2).
    pub max_pings_outstanding: u32,
    /// From transport open to the PONG of the handshake (default 5 s).
    pub connect_timeout: Duration,
    /// Reconnect attempts per server before it is dropped; `None` = forever.
    pub max_reconnects: Option<usize>,
    /// Base wait between attempts on the same server (default 2 s).
    pub reconnect_delay: Duration,
    /// Random extra wait added to each reconnect delay, up to this (default 100 ms).
    pub reconnect_jitter: Duration,
    /// Give up (and close) when the very first connect fails, instead of retrying.
    pub retry_on_initial_connect: bool,
    /// Bytes of publishes kept while disconnected (default 8 MiB).
    pub reconnect_buffer_size: usize,
    /// Prefix of inboxes (default `_INBOX`).
    pub inbox_prefix: String,
    /// Client language and version sent in CONNECT.
    pub lang: String,
    pub version: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            servers: Vec::new(),
            randomize: true,
            discover_servers: true,
            name: None,
            auth: Auth::default(),
            echo: true,
            tls_required: false,
            ping_interval: Duration::from_secs(120),
            max_pings_outstanding: 2,
            connect_timeout: Duration::from_secs(5),
            max_reconnects: None,
            reconnect_delay: Duration::from_secs(2),
            reconnect_jitter: Duration::from_millis(100),
            retry_on_initial_connect: false,
            reconnect_buffer_size: 8 * 1024 * 1024,
            inbox_prefix: "_INBOX".to_string(),
            lang: "rust-natsjet".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// What the driver must do with transports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Open a transport to `addr` and call `handle_transport_open` or
    /// `handle_transport_closed`.
    Connect { addr: ServerAddr },
    /// Wrap the open TCP transport in TLS (INFO said so), then call
    /// `handle_tls_ready` or `handle_transport_closed`.
    UpgradeTls { addr: ServerAddr },
    /// Write what `poll_transmit` still has, then close the transport and call
    /// `handle_transport_closed`.
    Close,
}

/// Where the connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Waiting for a transport or in the handshake.
    Connecting,
    Connected,
    /// Lost; waiting to reconnect.
    Disconnected,
    /// Done for good (closed by the user, or reconnects ran out).
    Closed,
}

/// Things the connection reports to the driver and, through it, to users.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A message for a subscription.
    Message { sid: Sid, message: Message },
    /// A subscription reached its `unsubscribe_after` limit or was removed.
    SubscriptionEnded { sid: Sid },
    /// The answer to a request (503 becomes `Err(NoResponders)`).
    Response { id: RequestId, result: Result<Message, Error> },
    /// A flush completed (`Ok`) or cannot complete (`Err(Disconnected|Closed)`).
    Flushed { id: FlushId, result: Result<(), Error> },
    /// Connection lifecycle, for users.
    Connection(ConnectionEvent),
}

/// Connection lifecycle events users can observe.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionEvent {
    Connected { server: ServerAddr },
    Disconnected { error: Option<Error> },
    Reconnected { server: ServerAddr },
    /// The server announced lame-duck mode; the connection moves elsewhere.
    LameDuck { server: ServerAddr },
    /// An error that did not close the connection (e.g. a permissions violation).
    ServerError(Error),
    /// Closed for good.
    Closed { error: Option<Error> },
}

/// Counters since the connection was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Statistics {
    pub in_msgs: u64,
    pub out_msgs: u64,
    pub in_bytes: u64,
    pub out_bytes: u64,
    pub reconnects: u64,
}

/// The sans-IO connection. See the module docs for the loop contract.
pub struct Connection {
    _todo: (),
}

impl Connection {
    /// A new connection; the first `poll_action` asks to connect.
    /// `seed` feeds the jitter and inbox randomness (tests pass a fixed one).
    pub fn new(config: Config, now: Instant, seed: u64) -> Result<Self, Error> {
        todo!("{config:?} {now:?} {seed}")
    }

    // ---- getters
    pub fn state(&self) -> State {
        todo!()
    }
    pub fn server_info(&self) -> Option<&ServerInfo> {
        todo!()
    }
    pub fn statistics(&self) -> Statistics {
        todo!()
    }
    /// Bytes accepted but not yet taken by `poll_transmit` (or buffered while
    /// disconnected); the client applies backpressure on it.
    pub fn pending_bytes(&self) -> usize {
        todo!()
    }
    /// The server's max_payload (or a default before the first INFO).
    pub fn max_payload(&self) -> usize {
        todo!()
    }
    /// The inbox prefix for a new unique inbox (`<prefix>.<nuid>`).
    pub fn new_inbox(&mut self) -> String {
        todo!()
    }

    // ---- transport inputs
    pub fn handle_transport_open(&mut self, now: Instant) {
        todo!("{now:?}")
    }
    pub fn handle_tls_ready(&mut self, now: Instant) {
        todo!("{now:?}")
    }
    pub fn handle_transport_closed(&mut self, now: Instant, error: Option<Error>) {
        todo!("{now:?} {error:?}")
    }
    /// Bytes read from the transport. Protocol errors close the transport and
    /// are reported as events.
    pub fn handle_input(&mut self, now: Instant, data: &mut bytes::BytesMut) {
        todo!("{now:?} {data:?}")
    }
    pub fn handle_timeout(&mut self, now: Instant) {
        todo!("{now:?}")
    }

    // ---- user commands
    pub fn publish(
        &mut self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), Error> {
        todo!("{subject} {reply:?} {headers:?} {payload:?}")
    }
    pub fn subscribe(&mut self, subject: &str, queue: Option<&str>) -> Result<Sid, Error> {
        todo!("{subject} {queue:?}")
    }
    /// `max`: end the subscription after that many messages in total.
    pub fn unsubscribe(&mut self, sid: Sid, max: Option<u64>) -> Result<(), Error> {
        todo!("{sid:?} {max:?}")
    }
    pub fn request(
        &mut self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<RequestId, Error> {
        todo!("{subject} {headers:?} {payload:?}")
    }
    /// Forget a request (its caller gave up).
    pub fn cancel_request(&mut self, id: RequestId) {
        todo!("{id:?}")
    }
    pub fn flush(&mut self) -> Result<FlushId, Error> {
        todo!()
    }
    /// Close for good after writing what was accepted.
    pub fn close(&mut self, now: Instant) {
        todo!("{now:?}")
    }

    // ---- outputs
    #[must_use]
    pub fn poll_action(&mut self) -> Option<Action> {
        todo!()
    }
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        todo!()
    }
    /// Bytes to write, coalesced, at most `max` (it may be larger when a single
    /// message is larger).
    #[must_use]
    pub fn poll_transmit(&mut self, max: usize) -> Option<Bytes> {
        todo!("{max}")
    }
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        todo!()
    }
}
