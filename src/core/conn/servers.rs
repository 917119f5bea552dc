//! The server pool: which server to try next and when.
//!
//! The pool is a rotation: the server being tried (or connected) sits at the
//! back, the next candidate at the front, so a reconnect always prefers a
//! server other than the one just lost. A server tried recently waits
//! `reconnect_delay` plus jitter since its last attempt; a server whose
//! failed attempts since its last success reach `max_reconnects` is dropped.
//! Servers learned from INFO leave the pool when a later INFO no longer
//! lists them (unless connected to); the servers given by the user stay.

use std::collections::VecDeque;
use std::time::Duration;

use super::ReconnectDelay;
use super::rng::Rng;
use crate::core::addr::ServerAddr;
use crate::core::proto::ServerInfo;
use crate::core::time::Instant;

struct Server {
    addr: ServerAddr,
    /// Attempts that did not reach a complete handshake since the last one that did.
    failures: usize,
    last_attempt: Option<Instant>,
    /// Learned from INFO `connect_urls`, not given by the user.
    discovered: bool,
    did_connect: bool,
    last_error: Option<String>,
    /// Left out of a pool set by the user while connected to: dropped when
    /// its turn to be tried comes.
    retired: bool,
}

impl Server {
    fn new(addr: ServerAddr, discovered: bool) -> Self {
        Server {
            addr,
            failures: 0,
            last_attempt: None,
            discovered,
            did_connect: false,
            last_error: None,
            retired: false,
        }
    }
}

/// A server of the pool as [`Connection::server_pool`](super::Connection::server_pool)
/// shows it (async-nats's `Server`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolServer {
    /// Where it listens.
    pub addr: ServerAddr,
    /// Failed attempts since the last connection to it.
    pub failed_attempts: usize,
    /// A handshake with it completed once.
    pub did_connect: bool,
    /// Learned from the cluster's INFO rather than given.
    pub is_discovered: bool,
    /// Why the last attempt on it failed, if it did.
    pub last_error: Option<String>,
}

/// What `Action::ChooseServer` asks about: the pool, next to be tried
/// first, when each was last tried, and the latest INFO (none before a
/// first connection).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerChoice {
    /// The pool, the server the client would try first at the front.
    pub servers: Vec<PoolServer>,
    /// When each of `servers` was last tried, in the same order.
    pub last_attempts: Vec<Option<Instant>>,
    /// The latest INFO; `None` before a first connection.
    pub info: Option<ServerInfo>,
}

/// The server a reconnect-to-server callback picked, and the wait before
/// trying it (`None`: the usual reconnect delay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconnectToServer {
    /// A server of the pool shown to the callback.
    pub addr: ServerAddr,
    /// The wait before dialing it; `None`: the usual reconnect delay.
    pub delay: Option<Duration>,
}

/// How an INFO changed the pool (nats.js's `update` status).
#[derive(Debug, Default, PartialEq)]
pub(super) struct PoolChange {
    pub(super) added: Vec<ServerAddr>,
    pub(super) deleted: Vec<ServerAddr>,
}

/// How the pool paces and bounds attempts.
pub(super) struct RetryPolicy<'a> {
    pub(super) max_reconnects: Option<usize>,
    pub(super) delay: Duration,
    pub(super) jitter: Duration,
    /// The wait before each attempt from the attempts since the last
    /// connection, instead of `delay` and `jitter` per server.
    pub(super) delay_callback: Option<&'a ReconnectDelay>,
    /// nats.js's way with `delay_callback`: the wait before trying a server
    /// again, from its failures, counted from its last attempt.
    pub(super) delay_per_server: bool,
    /// Before the first success without `retry_on_initial_connect`: each
    /// server gets exactly one attempt.
    pub(super) initial_only: bool,
}

pub(super) struct ServerPool {
    servers: VecDeque<Server>,
    /// Whether the back of the rotation is the server of the current attempt.
    has_current: bool,
    /// Attempts since the last one that reached a complete handshake.
    attempts: usize,
}

impl ServerPool {
    pub(super) fn new(addrs: Vec<ServerAddr>, randomize: bool, rng: &mut Rng) -> Self {
        let mut servers: Vec<Server> = addrs.into_iter().map(|addr| Server::new(addr, false)).collect();
        if randomize {
            rng.shuffle(&mut servers);
        }
        ServerPool { servers: servers.into(), has_current: false, attempts: 0 }
    }

    /// The server of the current (or last) attempt.
    pub(super) fn current(&self) -> Option<&ServerAddr> {
        self.current_server().map(|s| &s.addr)
    }

    fn current_server(&self) -> Option<&Server> {
        self.servers.back().filter(|_| self.has_current)
    }

    fn current_mut(&mut self) -> Option<&mut Server> {
        self.servers.back_mut().filter(|_| self.has_current)
    }

    /// When the next attempt may start, after dropping servers that are out
    /// of attempts; `None` when no server is left to try.
    pub(super) fn next_attempt_at(&mut self, now: Instant, policy: &RetryPolicy, rng: &mut Rng) -> Option<Instant> {
        loop {
            let front = self.servers.front()?;
            if policy.initial_only {
                if front.last_attempt.is_some() {
                    return None;
                }
                break;
            }
            match policy.max_reconnects {
                _ if front.retired => {
                    self.servers.pop_front();
                    if self.servers.is_empty() {
                        self.has_current = false;
                    }
                }
                Some(max) if front.failures >= max => {
                    self.servers.pop_front();
                    if self.servers.is_empty() {
                        self.has_current = false;
                    }
                }
                _ => break,
            }
        }
        let front = self.servers.front()?;
        if let Some(delay) = policy.delay_callback.filter(|_| !policy.delay_per_server) {
            return Some(now + (delay.0)(self.attempts + 1));
        }
        Some(match front.last_attempt {
            None => now,
            Some(at) => {
                let wait = match policy.delay_callback {
                    Some(ReconnectDelay(delay)) => delay(front.failures),
                    None => policy.delay + rng.jitter(policy.jitter),
                };
                (at + wait).max(now)
            }
        })
    }

    /// Makes the front server the current one and returns its address.
    pub(super) fn begin_attempt(&mut self, now: Instant) -> Option<ServerAddr> {
        let mut server = self.servers.pop_front()?;
        server.last_attempt = Some(now);
        self.attempts += 1;
        let addr = server.addr.clone();
        self.servers.push_back(server);
        self.has_current = true;
        Some(addr)
    }

    pub(super) fn attempt_failed(&mut self, error: Option<&crate::core::error::Error>) {
        if let Some(s) = self.current_mut() {
            s.failures += 1;
            s.last_error = error.map(ToString::to_string);
        }
    }

    pub(super) fn attempt_succeeded(&mut self) {
        self.attempts = 0;
        if let Some(s) = self.current_mut() {
            s.failures = 0;
            s.did_connect = true;
        }
    }

    /// The servers, next to be tried first.
    pub(super) fn snapshot(&self) -> Vec<PoolServer> {
        let live = self.servers.iter().filter(|s| !s.retired);
        live.map(|s| PoolServer {
            addr: s.addr.clone(),
            failed_attempts: s.failures,
            did_connect: s.did_connect,
            is_discovered: s.discovered,
            last_error: s.last_error.clone(),
        })
        .collect()
    }

    /// What a reconnect-to-server callback is shown: the servers, next to
    /// be tried first, and `info`.
    pub(super) fn choice(&self, info: Option<ServerInfo>) -> ServerChoice {
        let live = self.servers.iter().filter(|s| !s.retired);
        ServerChoice { servers: self.snapshot(), last_attempts: live.map(|s| s.last_attempt).collect(), info }
    }

    /// Puts the server at `addr` first in line; whether the pool has it.
    pub(super) fn prefer(&mut self, addr: &ServerAddr) -> bool {
        let Some(i) = self.servers.iter().position(|s| !s.retired && s.addr.same_endpoint(addr)) else {
            return false;
        };
        if self.has_current && i + 1 == self.servers.len() {
            self.has_current = false;
        }
        if let Some(server) = self.servers.remove(i) {
            self.servers.push_front(server);
        }
        true
    }

    /// Makes `addrs` the pool, in order, keeping what is known of servers
    /// already in it; the server of the current connection, when left out,
    /// stays until its turn to be tried again comes.
    pub(super) fn replace(&mut self, addrs: Vec<ServerAddr>) {
        let current = if self.has_current { self.servers.pop_back() } else { None };
        let mut old: Vec<Server> = self.servers.drain(..).collect();
        for addr in addrs {
            let server = match old.iter().position(|s| s.addr.same_endpoint(&addr)) {
                Some(i) => Server { addr, discovered: false, retired: false, ..old.swap_remove(i) },
                None => Server::new(addr, false),
            };
            self.servers.push_back(server);
        }
        if let Some(mut current) = current {
            let kept = self.servers.iter().position(|s| s.addr.same_endpoint(&current.addr));
            current.retired = kept.is_none();
            if let Some(i) = kept {
                current = Server { addr: self.servers[i].addr.clone(), discovered: false, ..current };
                self.servers.remove(i);
            }
            self.servers.push_back(current);
        }
    }

    /// Counts the current server as just tried, so coming back to it waits
    /// the full delay (lame duck: it is about to go away).
    pub(super) fn hold_current(&mut self, now: Instant) {
        if let Some(s) = self.current_mut() {
            s.last_attempt = Some(now);
        }
    }

    /// Takes in INFO `connect_urls` (`host:port`), reached like `like`
    /// (scheme, path, credentials): unknown endpoints join the pool before
    /// the current server in the rotation, and discovered servers no longer
    /// listed leave it (the current one excepted).
    pub(super) fn discover(&mut self, urls: &[String], like: &ServerAddr, shuffle: bool, rng: &mut Rng) -> PoolChange {
        let listed: Vec<ServerAddr> = urls
            .iter()
            .filter_map(|url| ServerAddr::parse(url).ok())
            .map(|mut addr| {
                addr.scheme = like.scheme;
                addr.path.clone_from(&like.path);
                addr.user.clone_from(&like.user);
                addr.pass.clone_from(&like.pass);
                addr
            })
            .collect();
        let mut change = PoolChange::default();
        let current = if self.has_current { self.servers.len().checked_sub(1) } else { None };
        let mut index = 0;
        self.servers.retain(|s| {
            let gone = s.discovered && Some(index) != current && !listed.iter().any(|a| a.same_endpoint(&s.addr));
            index += 1;
            if gone {
                change.deleted.push(s.addr.clone());
            }
            !gone
        });
        let mut found: Vec<Server> = Vec::new();
        for addr in listed {
            let known = self.servers.iter().chain(&found).any(|s| s.addr.same_endpoint(&addr));
            if !known {
                change.added.push(addr.clone());
                found.push(Server::new(addr, true));
            }
        }
        if shuffle {
            rng.shuffle(&mut found);
        }
        let at = if self.has_current { self.servers.len() - 1 } else { self.servers.len() };
        for (i, server) in found.into_iter().enumerate() {
            self.servers.insert(at + i, server);
        }
        change
    }
}
