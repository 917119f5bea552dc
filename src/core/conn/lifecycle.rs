//! The life of transports: connect, handshake (INFO → TLS → CONNECT → PING
//! → PONG), keep-alive, lame-duck moves, loss, reconnect backoff and the
//! final close.

use super::auth::CallbackAuth;
use super::pings::PingKind;
use super::servers::{PoolChange, RetryPolicy};
use super::timers::Timer;
use super::{Action, Connection, ConnectionEvent, Event, Phase, State};
use crate::core::addr::Scheme;
use crate::core::error::Error;
use crate::core::proto::{self, ConnectInfo, Parser, ParserLimits, ServerInfo};
use crate::core::time::Instant;

/// Room above the server's max_payload for headers the server adds to
/// deliveries (JetStream metadata), so the parser does not refuse them.
const PAYLOAD_SLACK: usize = 64 * 1024;

impl Connection {
    pub(super) fn on_transport_open(&mut self, now: Instant) {
        match self.phase {
            Phase::Opening => {
                self.timers.set(Timer::Handshake, Some(now + self.config.connect_timeout));
                match self.servers.current().cloned().filter(|addr| self.tls_first(addr)) {
                    Some(addr) => {
                        self.phase = Phase::AwaitTls;
                        self.actions.push_back(Action::UpgradeTls { addr });
                    }
                    None => self.phase = Phase::AwaitInfo,
                }
            }
            // Closed while the transport was opening: it is not wanted.
            Phase::Closed => self.actions.push_back(Action::Close),
            _ => {}
        }
    }

    pub(super) fn on_tls_ready(&mut self) {
        if self.phase != Phase::AwaitTls {
            return;
        }
        self.tls = true;
        match self.servers.current().is_some_and(|addr| self.tls_first(addr)) {
            // TLS first: the INFO comes now, over TLS.
            true => self.phase = Phase::AwaitInfo,
            false => self.send_connect(None),
        }
    }

    /// Whether TLS starts the connection to `addr`, before the INFO.
    fn tls_first(&self, addr: &crate::core::addr::ServerAddr) -> bool {
        self.config.tls_first && !addr.scheme.is_websocket()
    }

    /// The first INFO of a transport: TLS upgrade if wanted, then CONNECT.
    pub(super) fn on_handshake_info(&mut self, info: ServerInfo) {
        self.apply_info(info);
        let Some(addr) = self.servers.current().cloned() else { return };
        let (server_requires, server_offers) =
            self.info.as_ref().map_or((false, false), |i| (i.tls_required, i.tls_available));
        let client_wants = addr.scheme == Scheme::Tls || self.config.tls_required;
        // WebSocket TLS lives on the WebSocket layer, never upgraded here.
        if !addr.scheme.is_websocket() && !self.tls && (client_wants || server_requires) {
            if !server_requires && !server_offers {
                self.close_transport(Some(Error::Tls(format!("{addr} does not offer TLS"))));
                return;
            }
            self.phase = Phase::AwaitTls;
            self.actions.push_back(Action::UpgradeTls { addr });
            return;
        }
        self.send_connect(None);
    }

    /// CONNECT, the subscriptions, then the PING whose PONG ends the handshake;
    /// first the driver's answer to the nonce, when it gives it.
    pub(super) fn send_connect(&mut self, answered: Option<CallbackAuth>) {
        let Some(addr) = self.servers.current().cloned() else { return };
        if self.config.auth.deferred && answered.is_none() {
            let nonce = self.info.as_ref().and_then(|i| i.nonce.clone()).unwrap_or_default();
            self.phase = Phase::AwaitAuth;
            self.actions.push_back(Action::Authenticate { nonce: nonce.into_bytes() });
            return;
        }
        let mut connect = ConnectInfo {
            verbose: false,
            pedantic: false,
            tls_required: self.tls || addr.scheme == Scheme::Wss,
            name: self.config.name.clone(),
            lang: self.config.lang.clone(),
            version: self.config.version.clone(),
            protocol: 1,
            echo: self.config.echo,
            headers: true,
            no_responders: true,
            ..ConnectInfo::default()
        };
        let nonce = self.info.as_ref().and_then(|i| i.nonce.as_deref());
        if let Err(e) = self.config.auth.fill_connect(&addr, nonce, answered, &mut connect) {
            // Bad credentials will not get better on another server.
            self.terminal = true;
            self.close_transport(Some(e));
            return;
        }
        proto::encode_connect(self.out.open(), &connect);
        self.subs.resubscribe(self.out.open());
        self.pings.send(self.out.open(), PingKind::Handshake);
        self.phase = Phase::AwaitPong;
    }

    /// The handshake PONG: connected. Buffered publishes, then queued flushes.
    pub(super) fn on_handshake_done(&mut self, now: Instant) {
        let Some(server) = self.servers.current().cloned() else { return };
        self.phase = Phase::Connected;
        self.state = State::Connected;
        self.transport_connected = true;
        self.timers.stop(Timer::Handshake);
        self.timers.set(Timer::Ping, Some(now + self.config.ping_interval));
        self.servers.attempt_succeeded();
        self.out.room(self.reconnect_buf.len()).extend_from_slice(&self.reconnect_buf);
        self.reconnect_buf.clear();
        self.pings.send_queued(self.out.open());
        let event = if self.ever_connected {
            self.stats.reconnects += 1;
            ConnectionEvent::Reconnected { server }
        } else {
            ConnectionEvent::Connected { server }
        };
        self.ever_connected = true;
        self.events.push_back(Event::Connection(event));
    }

    /// Any INFO: remember it, bound the parser, learn cluster servers.
    pub(super) fn apply_info(&mut self, info: ServerInfo) {
        if info.max_payload > 0 {
            self.parser.set_max_payload(info.max_payload.saturating_add(PAYLOAD_SLACK));
        }
        if self.config.discover_servers {
            // The server lists the ports of the client's kind (its websocket
            // ports for WebSocket clients) in `connect_urls`.
            if let Some(current) = self.servers.current().cloned() {
                let PoolChange { added, deleted } =
                    self.servers.discover(&info.connect_urls, &current, self.config.randomize, &mut self.rng);
                if !added.is_empty() || !deleted.is_empty() {
                    self.events.push_back(Event::Connection(ConnectionEvent::ClusterUpdate { added, deleted }));
                }
            }
        }
        self.info = Some(info);
    }

    /// Lame duck: announce, then PING so all written before is processed,
    /// and move once the PONG arrives (or the wait runs out).
    pub(super) fn start_move(&mut self, now: Instant) {
        let Some(server) = self.servers.current().cloned() else { return };
        self.events.push_back(Event::Connection(ConnectionEvent::LameDuck { server }));
        self.phase = Phase::Moving;
        self.pings.send(self.out.open(), PingKind::LameDuck);
        self.timers.stop(Timer::Ping);
        self.timers.set(Timer::LameDuck, Some(now + self.config.connect_timeout));
    }

    pub(super) fn finish_move(&mut self, now: Instant) {
        self.servers.hold_current(now);
        self.close_transport(None);
    }

    pub(super) fn on_timer(&mut self, now: Instant, timer: Timer) {
        match timer {
            Timer::Handshake => {
                if matches!(self.phase, Phase::AwaitInfo | Phase::AwaitTls | Phase::AwaitAuth | Phase::AwaitPong) {
                    self.close_transport(Some(Error::Timeout));
                }
            }
            Timer::Ping => self.keep_alive(now),
            Timer::Reconnect => {
                if self.phase == Phase::Idle {
                    self.start_connect(now);
                }
            }
            Timer::LameDuck => {
                if self.phase == Phase::Moving {
                    self.finish_move(now);
                }
            }
        }
    }

    /// A keep-alive PING, unless too many are unanswered already: then the
    /// connection is stale (its loss reported as `Timeout`) and is replaced.
    /// Server bytes that arrived since the last tick prove the link alive
    /// while the PINGs wait: on a slow link their PONGs queue behind a backlog
    /// (a large message coming in a little at a time), and calling that
    /// connection stale would start over with the same backlog, for ever.
    fn keep_alive(&mut self, now: Instant) {
        if self.phase != Phase::Connected {
            return;
        }
        let heard = self.pings.take_heard();
        if self.pings.keepalives_unanswered() >= self.config.max_pings_outstanding {
            if heard {
                self.timers.set(Timer::Ping, Some(now + self.config.ping_interval));
                return;
            }
            if let Some(server) = self.servers.current().cloned() {
                self.events.push_back(Event::Connection(ConnectionEvent::StaleConnection { server }));
            }
            self.close_transport(Some(Error::Timeout));
            return;
        }
        self.pings.send(self.out.open(), PingKind::KeepAlive);
        let pending_pings = self.pings.keepalives_unanswered();
        self.events.push_back(Event::Connection(ConnectionEvent::Ping { pending_pings }));
        self.timers.set(Timer::Ping, Some(now + self.config.ping_interval));
    }

    /// Asks the driver to close the transport; `reason` is reported when it has.
    pub(super) fn close_transport(&mut self, reason: Option<Error>) {
        if matches!(self.phase, Phase::Closing | Phase::Closed | Phase::Idle | Phase::AwaitChoice | Phase::Opening) {
            return;
        }
        self.close_reason = reason;
        self.phase = Phase::Closing;
        self.timers.stop_all();
        self.actions.push_back(Action::Close);
    }

    pub(super) fn start_connect(&mut self, now: Instant) {
        let Some(addr) = self.servers.begin_attempt(now) else {
            self.finish_close(None);
            return;
        };
        // Every attempt but the very first follows a loss or a failure.
        if self.state == State::Disconnected {
            self.events.push_back(Event::Connection(ConnectionEvent::Reconnecting { server: addr.clone() }));
        }
        self.phase = Phase::Opening;
        self.state = State::Connecting;
        self.actions.push_back(Action::Connect { addr });
    }

    pub(super) fn on_transport_closed(&mut self, now: Instant, error: Option<Error>) {
        if matches!(self.phase, Phase::Idle | Phase::AwaitChoice | Phase::Closed) {
            return;
        }
        // Closed by the server, not asked for: say so, rather than nothing.
        let hung_up = (self.phase != Phase::Closing).then(|| Error::Io {
            kind: std::io::ErrorKind::UnexpectedEof,
            message: "the server closed the connection".into(),
        });
        let reason = self.close_reason.take().or(error).or(hung_up);
        let was_connected = std::mem::take(&mut self.transport_connected);
        if !was_connected && (self.ever_connected || !self.config.wait_on_first_connect) {
            self.servers.attempt_failed(reason.as_ref());
        }
        self.tls = false;
        self.out.clear();
        self.unwritten = 0;
        self.parser = Parser::new(ParserLimits::default());
        self.timers.stop_all();
        let flush_error = if self.terminal { Error::Closed } else { Error::Disconnected };
        for id in self.pings.take_sent_flushes() {
            self.events.push_back(Event::Flushed { id, result: Err(flush_error.clone()) });
        }
        // Reported when a connection that was up goes down, or when the
        // server refused or garbled the handshake (auth errors, non-NATS peer);
        // not when the user closed it, which `Closed` says (as nats.js and
        // async-nats report a close).
        let lost = was_connected && !self.user_closed;
        if lost || matches!(reason, Some(Error::Server(_) | Error::Protocol(_))) {
            if let Some(server) = self.servers.current().cloned() {
                let error = reason.clone();
                self.events.push_back(Event::Connection(ConnectionEvent::Disconnected { server, error }));
            }
        }
        if self.terminal {
            self.finish_close(if self.user_closed { None } else { reason });
            return;
        }
        self.state = State::Disconnected;
        self.phase = Phase::Idle;
        let policy = RetryPolicy {
            max_reconnects: self.config.max_reconnects,
            delay: self.config.reconnect_delay,
            jitter: self.config.reconnect_jitter,
            delay_callback: self.config.reconnect_delay_callback.as_ref(),
            delay_per_server: self.config.reconnect_delay_per_server,
            initial_only: !(self.ever_connected
                || self.config.retry_on_initial_connect
                || self.config.wait_on_first_connect),
        };
        match self.servers.next_attempt_at(now, &policy, &mut self.rng) {
            None => self.finish_close(reason),
            Some(at) => self.schedule_attempt(now, at),
        }
    }

    /// Starts the next attempt at `at`; with a reconnect-to-server callback,
    /// first asks it which server that attempt goes to.
    pub(super) fn schedule_attempt(&mut self, now: Instant, at: Instant) {
        if self.config.choose_server {
            self.phase = Phase::AwaitChoice;
            self.choice_due = Some(at);
            self.actions.push_back(Action::ChooseServer(Box::new(self.servers.choice(self.info.clone()))));
        } else if at <= now {
            self.start_connect(now);
        } else {
            self.timers.set(Timer::Reconnect, Some(at));
        }
    }

    pub(super) fn on_close(&mut self) {
        match self.phase {
            Phase::Closed => {}
            Phase::Idle | Phase::AwaitChoice | Phase::Opening => self.finish_close(None),
            Phase::Closing => {
                self.terminal = true;
                self.user_closed = true;
            }
            Phase::AwaitInfo
            | Phase::AwaitTls
            | Phase::AwaitAuth
            | Phase::AwaitPong
            | Phase::Connected
            | Phase::Moving => {
                // Best effort for what waited for this server: CONNECT is out.
                if matches!(self.phase, Phase::AwaitPong | Phase::Moving) {
                    self.out.room(self.reconnect_buf.len()).extend_from_slice(&self.reconnect_buf);
                    self.reconnect_buf.clear();
                }
                self.terminal = true;
                self.user_closed = true;
                self.close_transport(None);
            }
        }
    }

    /// Closed for good: pending requests fail with `error`, what closed it
    /// (a protocol error, a refused handshake), or with `Closed`; flushes
    /// with `Closed`.
    pub(super) fn finish_close(&mut self, error: Option<Error>) {
        // A transport the driver has not started opening is not wanted.
        self.actions.retain(|a| !matches!(a, Action::Connect { .. }));
        self.phase = Phase::Closed;
        self.state = State::Closed;
        self.terminal = true;
        self.timers.stop_all();
        self.out.clear();
        self.reconnect_buf.clear();
        let cause = error.clone().unwrap_or(Error::Closed);
        for id in self.requests.take_pending() {
            self.events.push_back(Event::Response { id, result: Err(cause.clone()) });
        }
        let flushes = self.pings.take_sent_flushes().into_iter().chain(self.pings.take_queued_flushes());
        for id in flushes.collect::<Vec<_>>() {
            self.events.push_back(Event::Flushed { id, result: Err(Error::Closed) });
        }
        self.events.push_back(Event::Connection(ConnectionEvent::Closed { error }));
    }
}
