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
//! (bytes to write), and finally [`Connection::poll_deadline`](crate::core::machine::Machine::poll_deadline) (when to call
//! [`Connection::handle_timeout`] next). Time is always an input: every
//! entry point that can move a deadline takes `now`, and time that runs
//! backwards is clamped. The driver reads each transport into a fresh
//! buffer. No server input makes the core panic: bad bytes are protocol
//! errors that replace the transport.
//!
//! ```
//! use bytes::BytesMut;
//! use natsjet::conn::{Action, Config, Connection, ConnectionEvent, Event};
//! use natsjet::{ServerAddr, time::Instant};
//!
//! let config = Config { servers: vec![ServerAddr::parse("nats://127.0.0.1:4222")?], ..Config::default() };
//! let mut conn = Connection::new(config, Instant::ZERO, 42)?;
//! assert!(matches!(conn.poll_action(), Some(Action::Connect { .. })));
//! conn.handle_transport_open(Instant::from_millis(3));
//! let mut input = BytesMut::from(&b"INFO {\"max_payload\":1048576}\r\n"[..]);
//! conn.handle_input(Instant::from_millis(4), &mut input);
//! let hello = conn.poll_transmit(usize::MAX).unwrap(); // CONNECT {...}\r\nPING\r\n
//! assert!(hello.starts_with(b"CONNECT ") && hello.ends_with(b"PING\r\n"));
//! input.extend_from_slice(b"PONG\r\n");
//! conn.handle_input(Instant::from_millis(5), &mut input);
//! assert!(matches!(conn.poll_event(), Some(Event::Connection(ConnectionEvent::Connected { .. }))));
//! conn.publish("greetings", None, None, b"hello")?;
//! assert_eq!(&conn.poll_transmit(usize::MAX).unwrap()[..], b"PUB greetings 5\r\nhello\r\n");
//! # Ok::<(), natsjet::Error>(())
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use bytes::{Bytes, BytesMut};

use crate::core::addr::ServerAddr;
use crate::core::error::Error;
use crate::core::header::HeaderMap;
use crate::core::machine::{Link, Machine};
use crate::core::message::Message;
use crate::core::proto::{self, Parser, ParserLimits, ServerInfo};
use crate::core::subject::{validate_publish_subject, validate_queue, validate_subject, validate_subscribe_subject};
use crate::core::time::{Clock, Instant};
use crate::core::timer::Deadline;

mod auth;
mod inbound;
mod lifecycle;
mod outbox;
mod pings;
mod requests;
mod rng;
mod servers;
mod subs;
impl Machine for Connection {
    type Input<'a> = &'a mut BytesMut;
    type Verdict = ();
    type Event = Event;
    type Timer = Timer;

    fn handle_input(&mut self, now: Instant, data: &mut BytesMut) {
        Connection::handle_input(self, now, data);
    }

    fn handle_timeout(&mut self, now: Instant) {
        Connection::handle_timeout(self, now);
    }

    /// The transport opened or closed (with no error to report).
    fn handle_link(&mut self, now: Instant, link: Link) {
        match link {
            Link::Up => self.handle_transport_open(now),
            Link::Down => self.handle_transport_closed(now, None),
        }
    }

    fn poll_event(&mut self) -> Option<Event> {
        Connection::poll_event(self)
    }

    fn poll_deadline(&self) -> Option<Deadline<Timer>> {
        self.timers.next()
    }
}

#[cfg(test)]
mod tests;
mod timers;

pub use auth::{Auth, AuthCallback, AuthFn, CallbackAuth, credentials_parts};
use outbox::Outbox;
use pings::{PingKind, Pings};
use requests::Requests;
pub(crate) use rng::Rng;
use servers::ServerPool;
pub use servers::{PoolServer, ReconnectToServer, ServerChoice};
use subs::{Limit, Subscriptions};
pub use timers::Timer;
use timers::Timers;

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
    /// Shuffle `servers`, and the servers discovered later, so clients
    /// spread over a cluster (default `true`).
    pub randomize: bool,
    /// Add servers learned from INFO `connect_urls`.
    pub discover_servers: bool,
    /// Connection name sent in CONNECT; shows in the server's monitoring.
    pub name: Option<String>,
    /// How to authenticate (default: none).
    pub auth: Auth,
    /// Receive the messages this connection publishes itself when it is
    /// subscribed to their subjects (default `true`).
    pub echo: bool,
    /// Require TLS even on `nats://` URLs.
    pub tls_required: bool,
    /// TLS before the server's INFO, for servers configured with
    /// `handshake_first` (not for WebSocket URLs, whose TLS is their own).
    pub tls_first: bool,
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
    /// The wait before each reconnect attempt, from the number of attempts
    /// since the last connection (this one included), instead of
    /// `reconnect_delay` and `reconnect_jitter` (async-nats's callback).
    pub reconnect_delay_callback: Option<ReconnectDelay>,
    /// nats.js's `reconnectDelayHandler`: `reconnect_delay_callback` gives
    /// the wait before trying a server again, from its failed attempts,
    /// counted from its last attempt.
    pub reconnect_delay_per_server: bool,
    /// The driver picks the server of each attempt (an async callback): the
    /// core asks with `Action::ChooseServer`.
    pub choose_server: bool,
    /// Retry a first connect that fails as later reconnects are retried
    /// (delays, `max_reconnects`). With `false`, the default, every server is
    /// tried once and then the connection closes.
    pub retry_on_initial_connect: bool,
    /// Keep trying until the first connect succeeds, those attempts not
    /// counting towards `max_reconnects` (nats.js's `waitOnFirstConnect`).
    pub wait_on_first_connect: bool,
    /// Bytes of publishes kept while disconnected (default 8 MiB).
    pub reconnect_buffer_size: usize,
    /// Bytes waiting for the transport past which publishes are refused
    /// with [`Error::OutgoingBufferFull`] (default 64 MiB), counting those
    /// the host holds unsent ([`Connection::handle_unwritten`]). Async publishes
    /// wait long before (the client's high water mark); this bounds callers
    /// that cannot wait (JavaScript's synchronous `publish`), well inside
    /// wasm32's 4 GiB, with room for several connections and the rest of a
    /// page. Control traffic (PONG, SUB, PING) is never refused.
    pub outgoing_buffer_size: usize,
    /// The server's `max_control_line` (default 4096, the server's): a
    /// longer PUB or SUB line makes the server close the connection, and
    /// INFO does not announce it, so subjects, replies and queue groups
    /// that would not fit are refused with [`Error::InvalidSubject`] first.
    pub max_control_line: usize,
    /// Publishes and requests check only that their subjects and replies
    /// keep the protocol line whole (not empty, no whitespace or control
    /// character), not their tokens (async-nats's `skip_subject_validation`).
    /// Subscriptions and queue groups are always checked in full.
    pub skip_subject_validation: bool,
    /// Prefix of inboxes (default `_INBOX`).
    pub inbox_prefix: String,
    /// Client language and version sent in CONNECT.
    pub lang: String,
    /// Client version sent in CONNECT (default this crate's version).
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
            tls_first: false,
            ping_interval: Duration::from_secs(120),
            max_pings_outstanding: 2,
            connect_timeout: Duration::from_secs(5),
            max_reconnects: None,
            reconnect_delay: Duration::from_secs(2),
            reconnect_jitter: Duration::from_millis(100),
            reconnect_delay_callback: None,
            reconnect_delay_per_server: false,
            choose_server: false,
            retry_on_initial_connect: false,
            wait_on_first_connect: false,
            reconnect_buffer_size: 8 * 1024 * 1024,
            outgoing_buffer_size: 64 * 1024 * 1024,
            max_control_line: 4096,
            skip_subject_validation: false,
            inbox_prefix: "_INBOX".to_string(),
            lang: "rust-natsjet".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// A pure function from attempts to a delay: the core calls it, so it
/// must not block. `Send + Sync` natively; JS functions in wasm are neither.
#[derive(Clone)]
pub struct ReconnectDelay(pub SharedDelayFn);

#[cfg(not(target_arch = "wasm32"))]
type SharedDelayFn = std::sync::Arc<dyn Fn(usize) -> Duration + Send + Sync>;
#[cfg(target_arch = "wasm32")]
type SharedDelayFn = std::sync::Arc<dyn Fn(usize) -> Duration>;

impl fmt::Debug for ReconnectDelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReconnectDelay(..)")
    }
}

/// What the driver must do with transports.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Open a transport to `addr` and call `handle_transport_open` or
    /// `handle_transport_closed`.
    Connect {
        /// The server to connect to.
        addr: ServerAddr,
    },
    /// Wrap the open TCP transport in TLS (INFO said so), then call
    /// `handle_tls_ready` or `handle_transport_closed`.
    UpgradeTls {
        /// The server the transport is open to (its host names the TLS server).
        addr: ServerAddr,
    },
    /// Write what `poll_transmit` still has, then close the transport and call
    /// `handle_transport_closed`.
    Close,
    /// Answer the server's `nonce` (empty when it sent none) with the async
    /// auth callback, then call `handle_auth` (only with `Auth::deferred`).
    Authenticate {
        /// The nonce of the server's INFO, to sign.
        nonce: Vec<u8>,
    },
    /// Ask the reconnect-to-server callback which server the next attempt
    /// goes to, then call `handle_server_choice` (only with
    /// `Config::choose_server`).
    ChooseServer(Box<ServerChoice>),
}

/// Where the connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Waiting for a transport or in the handshake.
    Connecting,
    /// Handshake done: messages flow.
    Connected,
    /// Lost; waiting to reconnect.
    Disconnected,
    /// Done for good (closed by the user, or reconnects ran out).
    Closed,
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            State::Connecting => "connecting",
            State::Connected => "connected",
            State::Disconnected => "disconnected",
            State::Closed => "closed",
        })
    }
}

/// Things the connection reports to the driver and, through it, to users.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A message for a subscription.
    Message {
        /// The subscription it matched.
        sid: Sid,
        /// The message.
        message: Message,
    },
    /// A subscription reached its `unsubscribe_after` limit or was removed.
    SubscriptionEnded {
        /// The subscription that ended.
        sid: Sid,
    },
    /// The answer to a request (503 becomes `Err(NoResponders)`).
    Response {
        /// The request answered.
        id: RequestId,
        /// The reply, or why there is none.
        result: Result<Message, Error>,
    },
    /// A flush completed (`Ok`) or cannot complete (`Err(Disconnected|Closed)`).
    Flushed {
        /// The flush that completed.
        id: FlushId,
        /// `Ok` once the server answered the PING.
        result: Result<(), Error>,
    },
    /// Connection lifecycle, for users.
    Connection(ConnectionEvent),
}

/// Connection lifecycle events: the facts behind nats.js's `status()` and
/// async-nats's events, and what users of [`Client`](crate::Client) get as
/// [`Event`](crate::Event). A `server` is the one connected to or tried
/// (its `Display` leaves credentials out).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ConnectionEvent {
    /// The first connection is up.
    Connected {
        /// The server connected to.
        server: ServerAddr,
    },
    /// The connection to `server` was lost (or the server refused the
    /// handshake); `error` says why, when something went wrong.
    Disconnected {
        /// The server that was lost.
        server: ServerAddr,
        /// Why, when something went wrong.
        error: Option<Error>,
    },
    /// Another attempt starts, to `server`, after a loss or a failed
    /// attempt (every attempt but the very first).
    Reconnecting {
        /// The server tried.
        server: ServerAddr,
    },
    /// The connection is up again after a loss (every connection but the
    /// first): subscriptions are restored and buffered publishes sent.
    Reconnected {
        /// The server connected to.
        server: ServerAddr,
    },
    /// An INFO changed the server pool: servers the cluster announced
    /// joined it (`added`, tried on reconnect), discovered ones it no
    /// longer lists left it (`deleted`).
    ClusterUpdate {
        /// Servers that joined the pool.
        added: Vec<ServerAddr>,
        /// Discovered servers that left it.
        deleted: Vec<ServerAddr>,
    },
    /// The server announced lame-duck mode (it shuts down soon); the
    /// connection moves elsewhere.
    LameDuck {
        /// The server going away.
        server: ServerAddr,
    },
    /// A keep-alive PING went out; `pending_pings` are unanswered now, this one included.
    Ping {
        /// Unanswered PINGs, this one included.
        pending_pings: u32,
    },
    /// `max_pings_outstanding` keep-alive PINGs went unanswered: the
    /// connection to `server` is dropped (`Disconnected` with
    /// [`Error::Timeout`] follows) and replaced.
    StaleConnection {
        /// The server that did not answer.
        server: ServerAddr,
    },
    /// [`Connection::force_reconnect`] (or [`Client::force_reconnect`](crate::Client::force_reconnect))
    /// is dropping the connection to `server` (nats.js's `forceReconnect` status).
    ForcedReconnect {
        /// The server being left.
        server: ServerAddr,
    },
    /// The server chooser ([`Config::choose_server`]: async-nats's
    /// `reconnect_to_server_callback`) picked `server`, which is not in the
    /// pool: the attempt goes to the pool's usual next server instead.
    ServerNotInPool {
        /// The server the chooser named.
        server: ServerAddr,
    },
    /// An error that did not close the connection (e.g. a permissions violation).
    ServerError(Error),
    /// A subscriber did not keep up: messages were dropped. Reported by
    /// the client's subscription queues, never by this core.
    SlowConsumer {
        /// The subscription's id (its [`Sid`] number).
        sid: u64,
        /// Messages dropped since the last report.
        dropped: u64,
    },
    /// [`Client::drain`](crate::Client::drain) began. Reported by the
    /// client, never by this core.
    Draining,
    /// Closed for good.
    Closed {
        /// The error that closed it, if one did.
        error: Option<Error>,
    },
}

/// Counters since the connection was created, as a snapshot (async-nats
/// hands out its live atomics, with `connects` = `reconnects` + 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Messages received (replies to requests included).
    pub in_messages: u64,
    /// Messages published.
    pub out_messages: u64,
    /// Payload bytes received (headers not counted).
    pub in_bytes: u64,
    /// Payload bytes published (headers not counted).
    pub out_bytes: u64,
    /// Reconnections after the first connection.
    pub reconnects: u64,
}

/// The server's max_payload assumed before the first INFO (the server default).
const DEFAULT_MAX_PAYLOAD: usize = 1024 * 1024;

/// Where the current transport stands; finer than [`State`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No transport; the next attempt waits for the reconnect timer.
    Idle,
    /// `Action::Connect` issued; waiting for the transport.
    Opening,
    /// Transport open; waiting for INFO.
    AwaitInfo,
    /// `Action::UpgradeTls` issued.
    AwaitTls,
    /// `Action::Authenticate` issued; waiting for `handle_auth`.
    AwaitAuth,
    /// No transport; `Action::ChooseServer` issued, waiting for `handle_server_choice`.
    AwaitChoice,
    /// CONNECT, SUBs and PING written; waiting for the PONG.
    AwaitPong,
    Connected,
    /// Lame duck: connected, but moving; new publishes wait for the next server.
    Moving,
    /// `Action::Close` issued; waiting for `handle_transport_closed`.
    Closing,
    Closed,
}

/// The sans-IO connection. See the module docs for the loop contract.
///
/// Methods: getters; `handle_*` for transport inputs and time; user commands
/// (`publish`, `subscribe`, `request`, `flush`, `close`…); `poll_*` for
/// outputs. Commands fail with [`Error::Closed`] once [`Connection::close`]
/// was called or the connection gave up.
pub struct Connection {
    config: Config,
    state: State,
    phase: Phase,
    servers: ServerPool,
    /// When the attempt awaiting `handle_server_choice` would start without a pick.
    choice_due: Option<Instant>,
    parser: Parser,
    info: Option<ServerInfo>,
    /// Bytes for the open transport.
    out: Outbox,
    /// Publishes made while not connected; written after the next handshake.
    reconnect_buf: BytesMut,
    /// Bytes taken by `poll_transmit` that the host still holds unsent, as
    /// last reported ([`Connection::handle_unwritten`]).
    unwritten: usize,
    pings: Pings,
    subs: Subscriptions,
    requests: Requests,
    timers: Timers,
    actions: VecDeque<Action>,
    events: VecDeque<Event>,
    stats: Statistics,
    rng: Rng,
    /// Latest `now` seen; time never runs backwards inside the core.
    clock: Clock,
    /// Whether the open transport already runs TLS.
    tls: bool,
    /// Whether the open transport completed a handshake.
    transport_connected: bool,
    /// Whether any handshake completed (`Connected` vs `Reconnected`).
    ever_connected: bool,
    /// Why the core asked the driver to close the transport.
    close_reason: Option<Error>,
    /// The next transport close ends the connection for good.
    terminal: bool,
    /// `close()` was called: the final event carries no error.
    user_closed: bool,
    last_flush: u64,
}

impl Connection {
    /// A new connection; the first `poll_action` asks to connect.
    /// `seed` feeds the jitter and server shuffling (tests pass a fixed one).
    pub fn new(config: Config, now: Instant, seed: u64) -> Result<Self, Error> {
        validate_config(&config)?;
        let mut rng = Rng::new(seed);
        let servers = ServerPool::new(config.servers.clone(), config.randomize, &mut rng);
        let mut conn = Connection {
            config,
            state: State::Connecting,
            phase: Phase::Idle,
            servers,
            choice_due: None,
            parser: Parser::new(ParserLimits::default()),
            info: None,
            out: Outbox::default(),
            reconnect_buf: BytesMut::new(),
            unwritten: 0,
            pings: Pings::default(),
            subs: Subscriptions::default(),
            requests: Requests::default(),
            timers: Timers::default(),
            actions: VecDeque::new(),
            events: VecDeque::new(),
            stats: Statistics::default(),
            rng,
            clock: Clock::new(now),
            tls: false,
            transport_connected: false,
            ever_connected: false,
            close_reason: None,
            terminal: false,
            user_closed: false,
            last_flush: 0,
        };
        conn.schedule_attempt(now, now);
        Ok(conn)
    }

    // ---- getters
    /// Where the connection stands.
    pub fn state(&self) -> State {
        self.state
    }
    /// The latest INFO, kept across reconnects.
    pub fn server_info(&self) -> Option<&ServerInfo> {
        self.info.as_ref()
    }
    /// The counters so far, as a snapshot.
    pub fn statistics(&self) -> Statistics {
        self.stats
    }
    /// Bytes accepted but not yet taken by `poll_transmit` (or buffered while
    /// disconnected); the client applies backpressure on it.
    pub fn pending_bytes(&self) -> usize {
        self.out.len() + self.reconnect_buf.len()
    }
    /// Bytes `poll_transmit` has for the transport now (not those held
    /// for after a reconnect's handshake): what reading more can add to.
    pub fn transmit_bytes(&self) -> usize {
        self.out.len()
    }
    /// [`Config::outgoing_buffer_size`]: the bound publishes meet.
    pub fn outgoing_buffer_size(&self) -> usize {
        self.config.outgoing_buffer_size
    }
    /// The server's max_payload (or a default before the first INFO).
    pub fn max_payload(&self) -> usize {
        match &self.info {
            Some(info) if info.max_payload > 0 => info.max_payload,
            _ => DEFAULT_MAX_PAYLOAD,
        }
    }
    /// A new unique inbox subject (`<prefix>.<22 random base62 characters>`).
    pub fn new_inbox(&mut self) -> String {
        format!("{}.{}", self.config.inbox_prefix, self.rng.token())
    }
    /// The server of the current connection or attempt (or of the last one
    /// while waiting to reconnect); `None` once no server is left.
    pub fn current_server(&self) -> Option<&ServerAddr> {
        self.servers.current()
    }

    /// The servers reconnects choose from, the next to be tried first.
    pub fn server_pool(&self) -> Vec<PoolServer> {
        self.servers.snapshot()
    }

    /// Makes `servers` the pool reconnects choose from (the connection up
    /// now stays): none, or WebSocket ones mixed with others, are refused.
    pub fn set_server_pool(&mut self, servers: Vec<ServerAddr>) -> Result<(), Error> {
        let Some(first) = servers.first() else {
            return Err(Error::InvalidArgument("an empty server pool".into()));
        };
        if servers.iter().any(|s| s.scheme.is_websocket() != first.scheme.is_websocket()) {
            return Err(Error::InvalidArgument("a server pool mixing WebSocket and other servers".into()));
        }
        self.servers.replace(servers);
        Ok(())
    }

    // ---- transport inputs (see lifecycle.rs and inbound.rs)
    /// The transport of `Action::Connect` is open: the handshake starts (or,
    /// for TLS-first servers, an `Action::UpgradeTls`), bounded by
    /// [`Config::connect_timeout`].
    pub fn handle_transport_open(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        self.on_transport_open(now);
    }
    /// The TLS upgrade of `Action::UpgradeTls` is done: the handshake goes on
    /// over it.
    pub fn handle_tls_ready(&mut self, now: Instant) {
        self.clock.advance(now);
        self.on_tls_ready();
    }
    /// The answer of `Action::Authenticate`: CONNECT goes out with it, or
    /// the error closes the connection for good (bad credentials will not
    /// get better on another server). An answer to an attempt since lost is
    /// dropped.
    pub fn handle_auth(&mut self, now: Instant, answer: Result<CallbackAuth, Error>) {
        self.clock.advance(now);
        if self.phase != Phase::AwaitAuth {
            return;
        }
        match answer {
            Ok(answer) => self.send_connect(Some(answer)),
            Err(e) => {
                self.terminal = true;
                self.close_transport(Some(e));
            }
        }
    }
    /// The answer of `Action::ChooseServer`: the pick is tried next, after
    /// its delay (or the usual one); no pick, or one outside the pool, leaves
    /// the usual order; an error closes the connection with it. An answer
    /// while not waiting for one is dropped.
    pub fn handle_server_choice(&mut self, now: Instant, choice: Result<Option<ReconnectToServer>, Error>) {
        let now = self.clock.advance(now);
        if self.phase != Phase::AwaitChoice {
            return;
        }
        self.phase = Phase::Idle;
        let at = match choice {
            Err(error) => return self.finish_close(Some(error)),
            Ok(Some(pick)) if self.servers.prefer(&pick.addr) => pick.delay.map(|delay| now + delay),
            Ok(Some(pick)) => {
                self.events.push_back(Event::Connection(ConnectionEvent::ServerNotInPool { server: pick.addr }));
                None
            }
            Ok(None) => None,
        };
        match at.or(self.choice_due.take()) {
            Some(at) if at > now => self.timers.set(Timer::Reconnect, Some(at)),
            _ => self.start_connect(now),
        }
    }
    /// The transport closed (or could not open). The driver reads the next
    /// transport into a fresh buffer: bytes of this one are worthless.
    pub fn handle_transport_closed(&mut self, now: Instant, error: Option<Error>) {
        let now = self.clock.advance(now);
        self.on_transport_closed(now, error);
    }
    /// The host holds `bytes` of what [`poll_transmit`](Self::poll_transmit)
    /// gave unsent (a wasm host's socket buffer, which a synchronous
    /// publish may fill): they count toward the outgoing bound.
    pub fn handle_unwritten(&mut self, bytes: usize) {
        self.unwritten = bytes;
    }
    /// Bytes read from the transport. Complete operations are taken off the
    /// front of `data`. Protocol errors close the transport and are reported
    /// as events.
    pub fn handle_input(&mut self, now: Instant, data: &mut BytesMut) {
        let now = self.clock.advance(now);
        self.on_input(now, data);
    }
    /// The transport received bytes it cannot hand over yet (a WebSocket
    /// frame still arriving): the link is alive, though nothing is parsed.
    pub fn handle_partial_input(&mut self) {
        self.pings.heard();
    }
    /// How many bytes the input buffer must hold, from its front, before
    /// the next [`handle_input`](Self::handle_input) can take the message
    /// under way (its body; 0 when no body is awaited). A driver that makes
    /// room for exactly the rest gives the message an allocation of its own:
    /// no copy of it as the buffer grows, and none of the next message's
    /// bytes kept alive with it.
    pub fn awaited_input(&self) -> usize {
        self.parser.awaited()
    }
    /// Runs every timer due at `now` (pings, handshake and reconnect
    /// deadlines); call it at [`poll_deadline`](Machine::poll_deadline).
    pub fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        while let Some(timer) = self.timers.pop_expired(now) {
            self.on_timer(now, timer);
        }
    }

    // ---- user commands
    /// Writes a message (the hot path: straight into the output buffer when
    /// connected). While not connected it waits in the bounded reconnect
    /// buffer. Nothing is written when an error is returned.
    pub fn publish(
        &mut self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), Error> {
        self.publish_body(subject, reply, headers, Body::Slice(payload))
    }

    /// [`publish`](Self::publish) of a payload the output shares: a large
    /// one is handed to [`poll_transmit`](Self::poll_transmit) as it is,
    /// never copied.
    pub fn publish_shared(
        &mut self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &Bytes,
    ) -> Result<(), Error> {
        self.publish_body(subject, reply, headers, Body::Shared(payload))
    }

    fn publish_body(
        &mut self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        body: Body<'_>,
    ) -> Result<(), Error> {
        self.check_open()?;
        self.check_publish_subject(subject)?;
        if let Some(reply) = reply {
            self.check_publish_subject(reply)?;
        }
        self.check_message(headers, body.bytes())?;
        self.write_pub(subject, reply, headers, body)
    }

    /// Subscribes to `subject` (wildcards allowed), in queue group `queue` if
    /// given: messages come as [`Event::Message`] with the returned [`Sid`].
    /// The subscription is restored on every reconnect.
    pub fn subscribe(&mut self, subject: &str, queue: Option<&str>) -> Result<Sid, Error> {
        self.check_open()?;
        validate_subscribe_subject(subject)?;
        if let Some(queue) = queue {
            validate_queue(queue)?;
        }
        self.check_control_line(subject, queue)?;
        let sid = self.subs.add(subject, queue);
        if self.sends_subs() {
            proto::encode_sub(self.out.open(), subject, queue, sid);
        }
        Ok(Sid(sid))
    }

    /// `max`: end the subscription after that many messages in total.
    /// Unknown (already ended) sids are ignored.
    pub fn unsubscribe(&mut self, sid: Sid, max: Option<u64>) -> Result<(), Error> {
        self.check_open()?;
        if self.requests.mux_sid() == Some(sid.0) {
            return Err(Error::ApiMisuse("the request inbox cannot be unsubscribed"));
        }
        let draining = self.subs.is_draining(sid.0);
        let ended = match max {
            // A draining subscription's UNSUB is already on its way.
            None if draining => {
                self.end_subscription(sid);
                return Ok(());
            }
            None => self.subs.remove(sid.0),
            Some(max) => match self.subs.limit(sid.0, max) {
                Limit::Unknown => false,
                Limit::Reached => true,
                Limit::Remaining(remaining) => {
                    if self.sends_subs() {
                        proto::encode_unsub(self.out.open(), sid.0, Some(remaining));
                    }
                    false
                }
            },
        };
        if ended {
            if self.sends_subs() {
                proto::encode_unsub(self.out.open(), sid.0, None);
            }
            self.events.push_back(Event::SubscriptionEnded { sid });
        }
        Ok(())
    }

    /// Sends UNSUB for `sid` but keeps delivering what the server sent
    /// before it processed the UNSUB; after a flush, [`unsubscribe`](Self::unsubscribe)
    /// ends it. This is how a drain loses nothing already in flight.
    pub fn drain_subscription(&mut self, sid: Sid) -> Result<(), Error> {
        self.check_open()?;
        if self.subs.drain(sid.0) && self.sends_subs() {
            proto::encode_unsub(self.out.open(), sid.0, None);
        }
        Ok(())
    }

    fn end_subscription(&mut self, sid: Sid) {
        if self.subs.remove(sid.0) {
            self.events.push_back(Event::SubscriptionEnded { sid });
        }
    }

    /// Publishes with a reply on the muxed inbox; the first answer comes back
    /// as [`Event::Response`]. Timeouts are the caller's business.
    pub fn request(&mut self, subject: &str, headers: Option<&HeaderMap>, payload: &[u8]) -> Result<RequestId, Error> {
        self.send_request(subject, headers, Body::Slice(payload), false)
    }

    /// [`request`](Self::request) of a payload the output shares, as
    /// [`publish_shared`](Self::publish_shared).
    pub fn request_shared(
        &mut self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &Bytes,
    ) -> Result<RequestId, Error> {
        self.send_request(subject, headers, Body::Shared(payload), false)
    }

    /// Like [`request`](Self::request), but every reply comes back as an
    /// [`Event::Response`] until [`cancel_request`](Self::cancel_request)
    /// (a scatter-gather request; its end rules are the caller's, see
    /// [`crate::core::request_many::Gather`]).
    pub fn request_many(
        &mut self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<RequestId, Error> {
        self.send_request(subject, headers, Body::Slice(payload), true)
    }

    fn send_request(
        &mut self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: Body<'_>,
        many: bool,
    ) -> Result<RequestId, Error> {
        self.check_open()?;
        self.check_publish_subject(subject)?;
        self.check_message(headers, payload.bytes())?;
        if self.requests.mux_sid().is_none() {
            let prefix = format!("{}.", self.new_inbox());
            let subject = format!("{prefix}*");
            let sid = self.subs.add(&subject, None);
            if self.sends_subs() {
                proto::encode_sub(self.out.open(), &subject, None, sid);
            }
            self.requests.open_mux(sid, prefix);
        }
        let (id, reply) = self.requests.next();
        self.write_pub(subject, Some(&reply), headers, payload)?;
        self.requests.recycle(reply);
        self.requests.track(id, many, subject);
        Ok(id)
    }

    /// Forget a request (its caller gave up); a late answer is dropped.
    pub fn cancel_request(&mut self, id: RequestId) {
        self.requests.cancel(id);
    }

    /// Completes with [`Event::Flushed`] once the server has processed
    /// everything written before it. While not connected, its PING follows
    /// the next handshake and the publishes buffered until then.
    pub fn flush(&mut self) -> Result<FlushId, Error> {
        self.check_open()?;
        self.last_flush += 1;
        let id = FlushId(self.last_flush);
        if self.is_live() {
            self.pings.send(self.out.open(), PingKind::Flush(id));
        } else {
            self.pings.queue_flush(id);
        }
        Ok(id)
    }

    /// Drops the server connection and reconnects as after a loss
    /// (async-nats `force_reconnect`, nats.js `reconnect()`): what was
    /// written goes out first, `Disconnected` and then `Reconnected` are
    /// reported, subscriptions are made again, publishes wait in the
    /// reconnect buffer meanwhile, and the usual server rotation and delay
    /// apply. Reported first as `ForcedReconnect`. Flushes awaiting their
    /// PONG fail with `Disconnected`. Does
    /// nothing while connecting or disconnected: a reconnect is under way.
    pub fn force_reconnect(&mut self, now: Instant) -> Result<(), Error> {
        self.clock.advance(now);
        self.check_open()?;
        if matches!(self.phase, Phase::Connected | Phase::Moving) {
            if let Some(server) = self.servers.current().cloned() {
                self.events.push_back(Event::Connection(ConnectionEvent::ForcedReconnect { server }));
            }
            self.close_transport(None);
        }
        Ok(())
    }

    /// Close for good after writing what was accepted.
    pub fn close(&mut self, now: Instant) {
        self.clock.advance(now);
        self.on_close();
    }

    // ---- outputs
    /// The next thing the driver must do with transports.
    #[must_use]
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }
    /// The next message, response, flush completion or lifecycle event.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }
    /// Bytes to write, coalesced, at most `max` (a byte stream: the cut may
    /// fall inside a message). Nothing while no transport is open.
    #[must_use]
    pub fn poll_transmit(&mut self, max: usize) -> Option<Bytes> {
        let writable = matches!(
            self.phase,
            Phase::AwaitInfo | Phase::AwaitPong | Phase::Connected | Phase::Moving | Phase::Closing
        );
        if !writable || self.out.is_empty() {
            return None;
        }
        self.out.take(max)
    }
    /// Gives back bytes from [`poll_transmit`](Self::poll_transmit) that
    /// the transport did not take (oldest first): they go out before
    /// anything else, so a writer that must wait need not keep them.
    pub fn untransmit(&mut self, pieces: impl DoubleEndedIterator<Item = Bytes>) {
        self.out.untake(pieces);
    }

    // ---- helpers shared by the submodules

    /// Whether writes go straight to the server (otherwise they wait for
    /// the next handshake).
    fn is_live(&self) -> bool {
        self.phase == Phase::Connected
    }

    /// Whether SUB/UNSUB go to the server now: from CONNECT on (the
    /// handshake resubscribed what existed before).
    fn sends_subs(&self) -> bool {
        matches!(self.phase, Phase::AwaitPong | Phase::Connected | Phase::Moving)
    }

    fn check_open(&self) -> Result<(), Error> {
        if self.phase == Phase::Closed || self.terminal { Err(Error::Closed) } else { Ok(()) }
    }

    /// A subject or reply to publish to, checked as
    /// [`Config::skip_subject_validation`] says.
    pub fn check_publish_subject(&self, subject: &str) -> Result<(), Error> {
        validate_publish_subject(subject, self.config.skip_subject_validation)
    }

    /// Headers that can be written, and a size the server accepts.
    fn check_message(&self, headers: Option<&HeaderMap>, payload: &[u8]) -> Result<(), Error> {
        if let Some(headers) = headers {
            proto::validate_headers(headers)?;
        }
        let size = headers.map_or(0, proto::headers_len) + payload.len();
        let max_payload = self.max_payload();
        if size > max_payload {
            return Err(Error::PayloadTooLarge { size, max_payload });
        }
        Ok(())
    }

    /// A PUB or SUB line of `subject` and `other` (reply, queue group)
    /// that fits in the server's control line.
    fn check_control_line(&self, subject: &str, other: Option<&str>) -> Result<(), Error> {
        let len = subject.len() + other.map_or(0, |o| o.len() + 1) + CONTROL_LINE_REST;
        if len > self.config.max_control_line {
            let reason = "too long for the server's control line (max_control_line)";
            return Err(Error::InvalidSubject { subject: subject.to_string(), reason });
        }
        Ok(())
    }

    /// Encodes a validated message into the output, or into the reconnect
    /// buffer while not connected (refused, never dropped, when full).
    fn write_pub(
        &mut self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        body: Body<'_>,
    ) -> Result<(), Error> {
        self.check_control_line(subject, reply)?;
        let payload = body.bytes();
        if self.is_live() {
            // Refused once the bound is reached, so what waits stays under
            // it plus one message.
            if self.out.len().saturating_add(self.unwritten) >= self.config.outgoing_buffer_size {
                return Err(Error::OutgoingBufferFull { capacity: self.config.outgoing_buffer_size });
            }
            match body {
                Body::Shared(shared) if shared.len() >= SHARED_MIN => {
                    proto::encode_pub_head(
                        self.out.room(proto::pub_len(subject, reply, headers, 0)),
                        subject,
                        reply,
                        headers,
                        shared.len(),
                    );
                    self.out.push_shared(shared.clone());
                    self.out.open().extend_from_slice(b"\r\n");
                }
                _ => {
                    let out = self.out.room(proto::pub_len(subject, reply, headers, payload.len()));
                    proto::encode_pub(out, subject, reply, headers, payload);
                }
            }
        } else {
            let before = self.reconnect_buf.len();
            proto::encode_pub(&mut self.reconnect_buf, subject, reply, headers, payload);
            if self.reconnect_buf.len() > self.config.reconnect_buffer_size {
                self.reconnect_buf.truncate(before);
                return Err(Error::ReconnectBufferFull { capacity: self.config.reconnect_buffer_size });
            }
        }
        self.stats.out_messages += 1;
        self.stats.out_bytes += payload.len() as u64;
        Ok(())
    }
}

/// What a control line holds besides its subject and reply: `HPUB `, two
/// sizes of at most 20 digits with their spaces, the CRLF (more than `SUB`'s).
const CONTROL_LINE_REST: usize = 5 + 2 * 21 + 2;

/// Shared payloads of at least this size go to the transport as they are;
/// smaller ones are copied in with what surrounds them.
const SHARED_MIN: usize = 16 * 1024;

/// A message body: copied into the output, or shared with it.
#[derive(Clone, Copy)]
enum Body<'a> {
    Slice(&'a [u8]),
    Shared(&'a Bytes),
}

impl Body<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Body::Slice(bytes) => bytes,
            Body::Shared(bytes) => bytes,
        }
    }
}

/// A prefix inboxes can be made under: a subject without wildcards.
pub(crate) fn validate_inbox_prefix(prefix: &str) -> Result<(), Error> {
    validate_subject(prefix)?;
    if prefix.split('.').any(|t| t == "*" || t == ">") {
        return Err(Error::InvalidSubject { subject: prefix.to_string(), reason: "wildcard in inbox prefix" });
    }
    Ok(())
}

fn validate_config(config: &Config) -> Result<(), Error> {
    if config.servers.is_empty() {
        return Err(Error::InvalidArgument("no server to connect to".into()));
    }
    validate_inbox_prefix(&config.inbox_prefix)?;
    if config.ping_interval.is_zero() {
        return Err(Error::InvalidArgument("ping_interval must be positive".into()));
    }
    if config.max_pings_outstanding == 0 {
        return Err(Error::InvalidArgument("max_pings_outstanding must be at least 1".into()));
    }
    Ok(())
}
