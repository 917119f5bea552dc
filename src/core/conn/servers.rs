//! The server pool: which server to try next and when.
//!
//! The pool is a rotation: the server being tried (or connected) sits at the
//! back, the next candidate at the front, so a reconnect always prefers a
//! server other than the one just lost. A server tried recently waits
//! `reconnect_delay` plus jitter since its last attempt; a server whose
//! failed attempts since its last success reach `max_reconnects` is dropped.
//! Servers learned from INFO leave the pool when a later INFO no longer
//! lists them (unless connected to); the servers given by the user stay,
//! until the user gives others ([`ServerPool::replace`]).

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::rng::Rng;
use crate::core::addr::ServerAddr;
use crate::core::error::Error;
use crate::core::proto::ServerInfo;
use crate::core::time::Instant;

struct Server {
    addr: ServerAddr,
    /// Attempts that did not reach a complete handshake since the last one that did.
    failures: usize,
    last_attempt: Option<Instant>,
    /// Learned from INFO `connect_urls`, not given by the user.
    discovered: bool,
    /// No longer in the pool: the current server, kept until the next attempt.
    leaving: bool,
    /// A handshake with it completed once.
    did_connect: bool,
}

impl Server {
    fn new(addr: ServerAddr, discovered: bool) -> Self {
        Server { addr, failures: 0, last_attempt: None, discovered, leaving: false, did_connect: false }
    }

    fn view(&self) -> PoolServer {
        PoolServer {
            addr: self.addr.clone(),
            failures: self.failures,
            last_attempt: self.last_attempt,
            discovered: self.discovered,
            did_connect: self.did_connect,
        }
    }
}

/// A server of the pool as a [`ServerChooser`] sees it (nats.js's `Server`).
#[derive(Debug, Clone, PartialEq)]
pub struct PoolServer {
    pub addr: ServerAddr,
    /// Attempts that failed since it last connected.
    pub failures: usize,
    pub last_attempt: Option<Instant>,
    /// Learned from INFO, not given by the user.
    pub discovered: bool,
    pub did_connect: bool,
}

/// Picks the server of each attempt (nats.js's `reconnectToServer`): given
/// the pool, the server the pool would pick first, and the latest INFO, it
/// answers the index of its pick and how long to wait before dialing it,
/// or `None` for the pool's pick. An error closes the connection.
#[derive(Clone)]
pub struct ServerChooser(pub SharedChooseFn);

#[cfg(not(target_arch = "wasm32"))]
type SharedChooseFn = Arc<dyn Fn(&[PoolServer], Option<&ServerInfo>) -> ChooseResult + Send + Sync>;
#[cfg(target_arch = "wasm32")]
type SharedChooseFn = Arc<dyn Fn(&[PoolServer], Option<&ServerInfo>) -> ChooseResult>;
/// What a [`ServerChooser`] answers.
pub type ChooseResult = Result<Option<(usize, Duration)>, Error>;

impl fmt::Debug for ServerChooser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerChooser(..)")
    }
}

/// How an INFO changed the pool (nats.js's `update` status).
#[derive(Debug, Default, PartialEq)]
pub(super) struct PoolChange {
    pub(super) added: Vec<ServerAddr>,
    pub(super) deleted: Vec<ServerAddr>,
}

/// The wait before trying a server again, from its failed attempts since
/// it last connected (async-nats's `reconnect_delay_callback`, nats.js's
/// `reconnectDelayHandler`), in place of the delay and its jitter.
#[derive(Clone)]
pub struct ReconnectDelay(pub SharedDelayFn);

#[cfg(not(target_arch = "wasm32"))]
type SharedDelayFn = Arc<dyn Fn(usize) -> Duration + Send + Sync>;
#[cfg(target_arch = "wasm32")]
type SharedDelayFn = Arc<dyn Fn(usize) -> Duration>;

impl fmt::Debug for ReconnectDelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReconnectDelay(..)")
    }
}

/// How the pool paces and bounds attempts.
pub(super) struct RetryPolicy<'a> {
    pub(super) max_reconnects: Option<usize>,
    pub(super) delay: Duration,
    pub(super) jitter: Duration,
    /// Replaces `delay` and `jitter` when set.
    pub(super) delay_callback: Option<&'a ReconnectDelay>,
    /// Before the first success without `retry_on_initial_connect`: each
    /// server gets exactly one attempt.
    pub(super) initial_only: bool,
}

pub(super) struct ServerPool {
    servers: VecDeque<Server>,
    /// Whether the back of the rotation is the server of the current attempt.
    has_current: bool,
    /// A chooser picked the front server and asked to wait: the next
    /// attempt dials it without asking again.
    chosen: bool,
}

impl ServerPool {
    pub(super) fn new(addrs: Vec<ServerAddr>, randomize: bool, rng: &mut Rng) -> Self {
        let mut servers: Vec<Server> = addrs.into_iter().map(|addr| Server::new(addr, false)).collect();
        if randomize {
            rng.shuffle(&mut servers);
        }
        ServerPool { servers: servers.into(), has_current: false, chosen: false }
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
        if self.current_server().is_some_and(|s| s.leaving) {
            self.servers.pop_back();
        }
        let mut server = self.servers.pop_front()?;
        server.last_attempt = Some(now);
        let addr = server.addr.clone();
        self.servers.push_back(server);
        self.has_current = true;
        Some(addr)
    }

    pub(super) fn attempt_failed(&mut self) {
        if let Some(s) = self.current_mut() {
            s.failures += 1;
        }
    }

    pub(super) fn attempt_succeeded(&mut self) {
        if let Some(s) = self.current_mut() {
            s.failures = 0;
            s.did_connect = true;
        }
    }

    /// Asks `chooser` which server the next attempt dials and moves it to
    /// the front; `Some(wait)` when it asked to wait before dialing (the
    /// attempt after the wait asks no more).
    pub(super) fn choose(
        &mut self,
        chooser: &ServerChooser,
        info: Option<&ServerInfo>,
    ) -> Result<Option<Duration>, Error> {
        if std::mem::take(&mut self.chosen) {
            return Ok(None);
        }
        // A leaving current server is no candidate.
        let candidates = self.servers.len() - usize::from(self.current_server().is_some_and(|s| s.leaving));
        let pool: Vec<PoolServer> = self.servers.iter().take(candidates).map(Server::view).collect();
        let Some((index, wait)) = (chooser.0)(&pool, info)? else { return Ok(None) };
        let Some(server) = (index < candidates).then(|| self.servers.remove(index)).flatten() else {
            return Err(Error::InvalidArgument("the server chosen to connect to is not in the pool".into()));
        };
        self.servers.push_front(server);
        self.chosen = !wait.is_zero();
        Ok(self.chosen.then_some(wait))
    }

    /// Counts the current server as just tried, so coming back to it waits
    /// the full delay (lame duck: it is about to go away).
    pub(super) fn hold_current(&mut self, now: Instant) {
        if let Some(s) = self.current_mut() {
            s.last_attempt = Some(now);
        }
    }

    /// Makes `addrs` the pool (nats.js's `setServers`, async-nats's
    /// `set_server_pool`), in a random order if `randomize`: a server
    /// already in it keeps its attempts, now as one the user gave. The
    /// current server stays current (its connection is not dropped) and,
    /// when not among `addrs`, leaves at the next attempt.
    pub(super) fn replace(&mut self, addrs: Vec<ServerAddr>, randomize: bool, rng: &mut Rng) {
        let current = if self.has_current { self.servers.pop_back() } else { None };
        let mut old: Vec<Server> = self.servers.drain(..).collect();
        let mut servers: Vec<Server> = addrs
            .into_iter()
            .map(|addr| match old.iter().position(|s| s.addr.same_endpoint(&addr)) {
                Some(i) => Server { addr, discovered: false, leaving: false, ..old.swap_remove(i) },
                None => Server::new(addr, false),
            })
            .collect();
        if randomize {
            rng.shuffle(&mut servers);
        }
        if let Some(mut current) = current {
            // It stays at the back of the rotation, tried after the others.
            match servers.iter().position(|s| s.addr.same_endpoint(&current.addr)) {
                Some(i) => {
                    current.addr = servers.remove(i).addr;
                    current.discovered = false;
                }
                None => current.leaving = true,
            }
            servers.push(current);
        }
        self.servers = servers.into();
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
