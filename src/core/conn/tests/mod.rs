//! Deterministic tests of the connection: a scripted server on a fake clock,
//! one behaviour area per file. Nothing sleeps and nothing touches a socket.

mod auth;
mod close;
mod force_reconnect;
mod handshake;
mod lame_duck;
mod limits;
mod pings;
mod reconnect;
mod requests;
mod subs;

use std::time::Duration;

use bytes::BytesMut;

use super::{Action, Config, Connection, ConnectionEvent, Event};
use crate::core::addr::ServerAddr;
use crate::core::error::Error;
use crate::core::machine::Machine;
use crate::core::time::Instant;

/// A basic INFO line, as nats-server 2.15 sends it (trimmed).
/// The most deadlines [`FakeServer::advance_to`] fires in one call: far more
/// than any test's hours of pings and reconnects, and a bound on a loop.
const STEP_BOUND: usize = 10_000;

pub(super) const INFO: &str =
    r#"INFO {"server_id":"S1","version":"2.15.0","proto":1,"headers":true,"max_payload":1048576}"#;

/// INFO with extra JSON fields spliced in, e.g. `r#""tls_required":true"#`.
pub(super) fn info_with(extra: &str) -> String {
    format!("{},{extra}}}", INFO.trim_end_matches('}'))
}

/// One operation the client wrote, parsed back from its bytes.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ClientOp {
    Connect(serde_json::Value),
    Pub { subject: String, reply: Option<String>, headers: Option<String>, payload: Vec<u8> },
    Sub { subject: String, queue: Option<String>, sid: u64 },
    Unsub { sid: u64, max: Option<u64> },
    Ping,
    Pong,
}

impl ClientOp {
    pub(super) fn pub_(subject: &str, payload: &str) -> ClientOp {
        ClientOp::Pub { subject: subject.into(), reply: None, headers: None, payload: payload.into() }
    }
    pub(super) fn sub(subject: &str, sid: u64) -> ClientOp {
        ClientOp::Sub { subject: subject.into(), queue: None, sid }
    }
    pub(super) fn unsub(sid: u64, max: Option<u64>) -> ClientOp {
        ClientOp::Unsub { sid, max }
    }
    pub(super) fn is_connect(&self) -> bool {
        matches!(self, ClientOp::Connect(_))
    }
}

/// Parses what a client wrote. Panics on anything malformed: the tests
/// want to know.
pub(super) fn parse_client(mut bytes: &[u8]) -> Vec<ClientOp> {
    let mut ops = Vec::new();
    while !bytes.is_empty() {
        let end = bytes.windows(2).position(|w| w == b"\r\n").expect("a complete line");
        let line = std::str::from_utf8(&bytes[..end]).expect("utf-8 control line");
        bytes = &bytes[end + 2..];
        let (op, args) = line.split_once(' ').unwrap_or((line, ""));
        let args: Vec<&str> = args.split(' ').collect();
        let mut take_body = |len: usize| {
            let body = bytes[..len].to_vec();
            assert_eq!(&bytes[len..len + 2], b"\r\n", "payload ends with CRLF");
            bytes = &bytes[len + 2..];
            body
        };
        let op = match op {
            "CONNECT" => ClientOp::Connect(serde_json::from_str(line.split_once(' ').unwrap().1).unwrap()),
            "PUB" => {
                let (subject, reply, len) = match args.as_slice() {
                    [s, n] => (*s, None, n),
                    [s, r, n] => (*s, Some(r.to_string()), n),
                    _ => panic!("bad PUB {line:?}"),
                };
                let payload = take_body(len.parse().unwrap());
                ClientOp::Pub { subject: subject.into(), reply, headers: None, payload }
            }
            "HPUB" => {
                let (subject, reply, hlen, tlen) = match args.as_slice() {
                    [s, h, t] => (*s, None, h, t),
                    [s, r, h, t] => (*s, Some(r.to_string()), h, t),
                    _ => panic!("bad HPUB {line:?}"),
                };
                let hlen: usize = hlen.parse().unwrap();
                let body = take_body(tlen.parse().unwrap());
                let headers = String::from_utf8(body[..hlen].to_vec()).unwrap();
                ClientOp::Pub { subject: subject.into(), reply, headers: Some(headers), payload: body[hlen..].to_vec() }
            }
            "SUB" => match args.as_slice() {
                [s, sid] => ClientOp::Sub { subject: s.to_string(), queue: None, sid: sid.parse().unwrap() },
                [s, q, sid] => {
                    ClientOp::Sub { subject: s.to_string(), queue: Some(q.to_string()), sid: sid.parse().unwrap() }
                }
                _ => panic!("bad SUB {line:?}"),
            },
            "UNSUB" => match args.as_slice() {
                [sid] => ClientOp::Unsub { sid: sid.parse().unwrap(), max: None },
                [sid, max] => ClientOp::Unsub { sid: sid.parse().unwrap(), max: Some(max.parse().unwrap()) },
                _ => panic!("bad UNSUB {line:?}"),
            },
            "PING" => ClientOp::Ping,
            "PONG" => ClientOp::Pong,
            _ => panic!("unexpected client line {line:?}"),
        };
        ops.push(op);
    }
    ops
}

/// `MSG` as the server writes it.
pub(super) fn msg(subject: &str, sid: u64, reply: Option<&str>, payload: &str) -> String {
    let reply = reply.map(|r| format!(" {r}")).unwrap_or_default();
    format!("MSG {subject} {sid}{reply} {}\r\n{payload}\r\n", payload.len())
}

/// A header-only status message (`HMSG`), e.g. 503 no responders.
pub(super) fn status_msg(subject: &str, sid: u64, code: u16) -> String {
    let headers = format!("NATS/1.0 {code}\r\n\r\n");
    format!("HMSG {subject} {sid} {} {}\r\n{headers}\r\n", headers.len(), headers.len())
}

pub(super) fn addr(url: &str) -> ServerAddr {
    ServerAddr::parse(url).unwrap()
}

/// `Disconnected` from the server at `url`.
pub(super) fn disconnected(url: &str, error: Option<Error>) -> ConnectionEvent {
    ConnectionEvent::Disconnected { server: addr(url), error }
}

/// A config for tests: servers in the given order, default timings.
pub(super) fn config(servers: &[&str]) -> Config {
    Config { servers: servers.iter().map(|s| addr(s)).collect(), randomize: false, ..Config::default() }
}

/// A scripted server facing one [`Connection`] on a fake clock. It plays
/// the driver too: it collects actions, events and written bytes after
/// every input, and opens/closes transports when told to.
pub(super) struct FakeServer {
    pub(super) conn: Connection,
    pub(super) now: Instant,
    actions: Vec<Action>,
    events: Vec<Event>,
    written: Vec<u8>,
    read_buf: BytesMut,
}

impl FakeServer {
    pub(super) fn new(config: Config) -> Self {
        Self::with_seed(config, 7)
    }

    pub(super) fn with_seed(config: Config, seed: u64) -> Self {
        let conn = Connection::new(config, Instant::ZERO, seed).expect("valid config");
        let mut server = FakeServer {
            conn,
            now: Instant::ZERO,
            actions: vec![],
            events: vec![],
            written: vec![],
            read_buf: BytesMut::new(),
        };
        server.drive();
        server
    }

    /// A connection through a complete handshake with [`INFO`].
    pub(super) fn connected(config: Config) -> Self {
        let mut server = Self::new(config);
        server.handshake(INFO);
        server.take_events();
        server
    }

    /// Collects everything the connection has to say.
    pub(super) fn drive(&mut self) {
        while let Some(a) = self.conn.poll_action() {
            self.actions.push(a);
        }
        while let Some(e) = self.conn.poll_event() {
            self.events.push(e);
        }
        while let Some(b) = self.conn.poll_transmit(usize::MAX) {
            self.written.extend_from_slice(&b);
        }
    }

    pub(super) fn take_actions(&mut self) -> Vec<Action> {
        self.drive();
        std::mem::take(&mut self.actions)
    }

    pub(super) fn take_events(&mut self) -> Vec<Event> {
        self.drive();
        std::mem::take(&mut self.events)
    }

    /// Connection events only, in order.
    pub(super) fn take_conn_events(&mut self) -> Vec<ConnectionEvent> {
        self.take_events()
            .into_iter()
            .filter_map(|e| match e {
                Event::Connection(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    /// What the client wrote since the last call (commands called on
    /// `conn` directly are collected here too).
    pub(super) fn take_ops(&mut self) -> Vec<ClientOp> {
        self.drive();
        parse_client(&std::mem::take(&mut self.written))
    }

    /// Asserts the only pending action is `Connect` and returns its server.
    pub(super) fn expect_connect(&mut self) -> String {
        match self.take_actions().as_slice() {
            [Action::Connect { addr }] => addr.to_string(),
            other => panic!("expected one Connect, got {other:?}"),
        }
    }

    pub(super) fn expect_close(&mut self) {
        assert_eq!(self.take_actions(), [Action::Close]);
    }

    pub(super) fn open(&mut self) {
        self.read_buf.clear();
        self.conn.handle_transport_open(self.now);
        self.drive();
    }

    /// The transport closed (or failed to open).
    pub(super) fn lose(&mut self, error: Option<Error>) {
        self.conn.handle_transport_closed(self.now, error);
        self.drive();
    }

    pub(super) fn send(&mut self, text: &str) {
        self.send_bytes(text.as_bytes());
    }

    /// Server bytes, as one read. Lines given without CRLF get one.
    pub(super) fn send_bytes(&mut self, bytes: &[u8]) {
        self.read_buf.extend_from_slice(bytes);
        if !bytes.ends_with(b"\r\n") {
            self.read_buf.extend_from_slice(b"\r\n");
        }
        self.conn.handle_input(self.now, &mut self.read_buf);
        self.drive();
    }

    /// Server bytes, as one read, as they are (a message cut mid-body).
    pub(super) fn send_partial(&mut self, bytes: &[u8]) {
        self.read_buf.extend_from_slice(bytes);
        self.conn.handle_input(self.now, &mut self.read_buf);
        self.drive();
    }

    /// Moves the clock forward, firing every timer on its own deadline.
    pub(super) fn advance(&mut self, ms: u64) {
        self.advance_to(self.now + Duration::from_millis(ms));
    }

    /// Fires every deadline up to `until`, in order; panics past
    /// [`STEP_BOUND`] of them, so a timer that keeps itself due fails the
    /// test instead of hanging it.
    pub(super) fn advance_to(&mut self, until: Instant) {
        let mut steps = 0;
        while let Some(at) = self.conn.poll_deadline().map(|d| d.at).filter(|at| *at <= until) {
            steps += 1;
            assert!(steps <= STEP_BOUND, "more than {STEP_BOUND} timeouts before {until:?}: one keeps firing");
            self.now = self.now.max(at);
            self.conn.handle_timeout(self.now);
            self.drive();
        }
        self.now = until;
    }

    /// Loses the transport, waits out the reconnect delay (2 s + at most
    /// 100 ms of jitter by default) and goes through a handshake again.
    /// What was written to the old transport is discarded.
    pub(super) fn reconnect(&mut self) -> Vec<ClientOp> {
        self.take_ops();
        self.lose(None);
        self.advance(2100);
        self.handshake(INFO)
    }

    /// Connect action → open → `info` → CONNECT, SUBs, PING → PONG.
    /// Returns what the client wrote during the handshake (before the PONG).
    pub(super) fn handshake(&mut self, info: &str) -> Vec<ClientOp> {
        self.expect_connect();
        self.open();
        assert!(self.take_ops().is_empty(), "nothing is written before INFO");
        self.send(info);
        let ops = self.take_ops();
        assert!(ops.first().is_some_and(ClientOp::is_connect), "CONNECT first: {ops:?}");
        assert_eq!(ops.last(), Some(&ClientOp::Ping), "PING last: {ops:?}");
        self.send("PONG");
        ops
    }
}
