//! [`Session`]: the connection and the machines attached to it, driven as
//! one. It owns the [`Connection`] and, under ids, the JetStream readers
//! (by the sid of their subscription), the ordered reads over them, the
//! checkpoint ledgers, the requests for many replies and the
//! first-message timers; it routes
//! what the connection reports to them, folds their deadlines once (each
//! with its [`Wake`] reason), and hands everything else on as a
//! [`SessionEvent`] for the driver's waiters.
//!
//! The loop contract is the connection's: feed input
//! ([`handle_input`](Session::handle_input), the transport calls, user
//! commands), then drain [`poll_event`](Session::poll_event), the
//! connection's actions and transmits, and sleep until
//! [`poll_deadline`](Session::poll_deadline). The connection's own
//! commands (publish, subscribe, request…) are reached through `Deref`.

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};

use bytes::BytesMut;

use crate::core::conn::{self, Connection, ConnectionEvent, Event, RequestId, Sid, State};
use crate::core::error::Error;
use crate::core::first_message::FirstMessageTimer;
pub use crate::core::first_message::FirstMessageWait;
use crate::core::header::HeaderMap;
use crate::core::id_map::IdMap;
use crate::core::jetstream::ack::{Ack, AckLedger, AckToken, LedgerEvent, LedgerTimer};
use crate::core::jetstream::pull::{ConsumerEvent, Delivery};
use crate::core::machine::{Link, Machine};
use crate::core::message::Message;
use crate::core::request_many::{Gather, GatherTimer, RequestManyOptions};
use crate::core::time::Instant;
use crate::core::timer::Deadline;

mod ordered;
mod reader;

pub use ordered::{OrderedId, OrderedTimer, RetiredOrdered};
pub(crate) use ordered::{OrderedMode, OrderedSpec};
use reader::Outputs;
pub use reader::{Reader, ReaderTimer};

/// A checkpoint ledger attached to a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LedgerId(u64);

/// Where the replies of a request for many come: the muxed inbox, or a
/// subscription of its own (`no_mux`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GatherKey {
    /// Replies on the muxed inbox, under this request.
    Request(RequestId),
    /// Replies on a subscription of their own (`no_mux`).
    Sub(Sid),
}

/// Why the session wants to be woken: the machine and its timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// A connection timer (pings, handshake, reconnect).
    Connection(conn::Timer),
    /// A reader's timer.
    Reader(Sid, ReaderTimer),
    /// A checkpoint ledger's timer.
    Ledger(LedgerId, LedgerTimer),
    /// A request for many's timer ([`GatherTimer`]).
    Gather(GatherKey, GatherTimer),
    /// A subscription's first message is overdue.
    FirstMessage(Sid, FirstMessageWait),
    /// An ordered read retries its create, or gives up waiting for its answer.
    Ordered(OrderedId, OrderedTimer),
}

/// Which attached machine a routed item comes from: the driver keys the
/// waiters of the machine's user by it and looks no further. A new kind of
/// machine adds a variant here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Route {
    /// A JetStream reader, by the sid of its subscription.
    Reader(Sid),
    /// An ordered read.
    Ordered(OrderedId),
    /// A request for many replies.
    Gather(GatherKey),
    /// A checkpoint ledger.
    Ledger(LedgerId),
    /// A subscription under a first-message timeout.
    FirstMessage(Sid),
}

/// What an attached machine has for its user.
#[derive(Debug)]
pub enum Item {
    /// A message (for a reader, an ordered read or a request for many).
    Message(Message),
    /// A reader's or an ordered read's event, for whoever watches them.
    Consumer(ConsumerEvent),
    /// A checkpoint ledger's event: a held delivery at risk.
    Ledger(LedgerEvent),
    /// The error that ends the machine, after its messages; [`Ended`](Self::Ended) follows.
    Failed(Error),
    /// The machine finished and was retired (for a first-message timeout:
    /// no message came in time, so the subscription must end): its user's
    /// streams end after what they hold.
    Ended,
}

/// What the session has for whoever waits on it.
#[derive(Debug)]
pub enum SessionEvent {
    /// What the connection reported and no attached machine took.
    Connection(Event),
    /// What an attached machine has for its user.
    Routed {
        /// The machine.
        to: Route,
        /// What it has.
        item: Item,
    },
}

/// Whether the session drives JetStream machines (readers, ordered reads,
/// ledgers). Always natively; in the npm package's core NATS tier (cargo
/// feature `wasm-runtime` without `wasm-jetstream`) nothing attaches them, so
/// the session skips them and the linker leaves their code out of that wasm.
const JETSTREAM: bool = !cfg!(all(feature = "wasm-runtime", not(feature = "wasm-jetstream")));

/// The connection with its attached machines: JetStream readers, ordered
/// reads, checkpoint ledgers, requests for many replies and first-message
/// timers, driven as one (see the [`session`](crate::session) module).
pub struct Session {
    conn: Connection,
    readers: IdMap<Sid, Reader>,
    /// The push readers' probes in flight, by request.
    probes: IdMap<RequestId, Sid>,
    /// A reader published a pull since [`take_pulled`](Session::take_pulled).
    pulled: bool,
    ledgers: IdMap<LedgerId, AckLedger>,
    next_ledger: u64,
    gathers: IdMap<GatherKey, Gather>,
    /// Subscriptions still waiting for their first message under a
    /// timeout (nats.js `SubOpts.timeout`); a few at most, so a list.
    first_messages: Vec<(Sid, FirstMessageTimer)>,
    ordered: IdMap<OrderedId, ordered::Ordered>,
    next_ordered: u64,
    events: VecDeque<SessionEvent>,
    /// The client is draining: its subscriptions were drained and it closes
    /// after their last messages, so it must not reconnect meanwhile.
    draining: bool,
}

impl Deref for Session {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl DerefMut for Session {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

impl Session {
    /// A session around `conn`, with nothing attached yet.
    pub fn new(conn: Connection) -> Self {
        Session {
            conn,
            readers: IdMap::default(),
            probes: IdMap::default(),
            pulled: false,
            ledgers: IdMap::default(),
            next_ledger: 0,
            gathers: IdMap::default(),
            first_messages: Vec::new(),
            ordered: IdMap::default(),
            next_ordered: 0,
            events: VecDeque::new(),
            draining: false,
        }
    }

    // ---- inputs

    /// Bytes from the server; what they mean comes out of [`poll_event`](Self::poll_event).
    pub fn handle_input(&mut self, now: Instant, data: &mut BytesMut) {
        self.conn.handle_input(now, data);
    }

    /// The transport received bytes it cannot hand over yet (a WebSocket
    /// frame still arriving): the link is alive, though nothing is parsed.
    pub fn handle_partial_input(&mut self) {
        self.conn.handle_partial_input();
    }

    /// Fires what is due at `now` in every machine, in a fixed order, then
    /// does what each asked for.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.conn.poll_deadline().is_some_and(|d| d.at <= now) {
            self.conn.handle_timeout(now);
        }
        if JETSTREAM {
            for sid in fire_due(self.readers.iter_mut(), now) {
                self.drive_reader(sid);
            }
            for id in fire_due(self.ordered.iter_mut(), now) {
                self.ordered_output(now, id);
            }
            fire_due(self.ledgers.iter_mut(), now);
            self.ledgers_output();
        }
        for key in fire_due(self.gathers.iter_mut(), now) {
            self.retire_gather_if_finished(key);
        }
        fire_due(self.first_messages.iter_mut().map(|(sid, timer)| (&*sid, timer)), now);
        let events = &mut self.events;
        self.first_messages.retain_mut(|(sid, timer)| {
            let missed = timer.poll_event().is_some();
            if missed {
                events.push_back(SessionEvent::Routed { to: Route::FirstMessage(*sid), item: Item::Ended });
            }
            !missed
        });
    }

    // ---- user commands

    /// Drains subscriptions `sids` (their UNSUBs go now, their messages
    /// in flight still come) and marks the session draining for good.
    pub fn drain(&mut self, sids: &[Sid]) -> Result<(), Error> {
        self.draining = true;
        sids.iter().try_for_each(|sid| self.conn.drain_subscription(*sid))
    }

    /// Whether [`drain`](Self::drain) was called (it stays so once closed).
    pub fn is_draining(&self) -> bool {
        self.draining
    }

    /// Drops the server connection and reconnects; refused while draining
    /// (as nats.js), where it would fail the drain's flush.
    pub fn force_reconnect(&mut self, now: Instant) -> Result<(), Error> {
        if self.draining && self.conn.state() != State::Closed {
            return Err(Error::ApiMisuse("the connection is draining"));
        }
        self.conn.force_reconnect(now)
    }

    /// Attaches `reader` to subscription `sid` (made for it) and lets it
    /// send its first pull.
    pub fn attach_reader(&mut self, sid: Sid, reader: Reader) {
        self.readers.insert(sid, reader);
        self.drive_reader(sid);
    }

    /// The user of reader `sid` took `msgs` messages of `bytes`.
    pub fn reader_taken(&mut self, now: Instant, sid: Sid, msgs: u64, bytes: u64) -> bool {
        let Some(reader) = self.readers.get_mut(&sid) else { return false };
        reader.handle_taken(now, msgs, bytes);
        self.drive_reader(sid);
        true
    }

    /// The user's buffer of reader `sid` was full and dropped a message: it
    /// is not acked (a consumer with acks redelivers it after `ack_wait`)
    /// and no flow-control reply waits for it.
    pub fn reader_refused(&mut self, sid: Sid) {
        let Some(reader) = self.readers.get_mut(&sid) else { return };
        reader.handle_refused();
        self.drive_reader(sid);
    }

    /// Detaches reader `sid` (its user stopped) and ends its subscription.
    pub fn retire_reader(&mut self, sid: Sid) -> bool {
        let Some(reader) = self.readers.remove(&sid).filter(|_| JETSTREAM) else { return false };
        reader.retire(sid, &mut self.conn, &mut self.probes);
        true
    }

    /// Whether a reader published a pull since the last call: the server
    /// waits on it, so held-back writes should go now.
    pub fn take_pulled(&mut self) -> bool {
        std::mem::take(&mut self.pulled)
    }

    /// Attaches a checkpoint ledger: the session sends its `+WPI`s on its
    /// deadlines and hands out its events as [`Item::Ledger`].
    pub fn add_ledger(&mut self, ledger: AckLedger) -> LedgerId {
        self.next_ledger += 1;
        let id = LedgerId(self.next_ledger);
        self.ledgers.insert(id, ledger);
        id
    }

    /// Ledger `id` holds `token`, received at `now`, until `epoch` commits.
    pub fn ledger_track(&mut self, now: Instant, id: LedgerId, token: AckToken, epoch: u64) -> Result<(), Error> {
        let ledger = self.ledgers.get_mut(&id).ok_or(Error::Closed)?;
        ledger.handle_input(now, (token, epoch))
    }

    /// Ledger `id`, for calls beyond tracking (commit, snapshot, restore,
    /// abort); its events still come as [`Item::Ledger`] unless
    /// the caller takes them with `poll_event`.
    pub fn ledger_mut(&mut self, id: LedgerId) -> Option<&mut AckLedger> {
        self.ledgers.get_mut(&id)
    }

    /// The deliveries ledger `id` holds; `None` if it is not attached.
    pub fn ledger_len(&self, id: LedgerId) -> Option<usize> {
        self.ledgers.get(&id).map(AckLedger::len)
    }

    /// Detaches ledger `id`, dropping what it holds; nothing happens if it is
    /// not attached.
    pub fn remove_ledger(&mut self, id: LedgerId) {
        self.ledgers.remove(&id);
    }

    /// Sends a request for many replies: on the muxed inbox, or (`no_mux`)
    /// on a subscription of its own.
    pub fn request_many(
        &mut self,
        now: Instant,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        options: &RequestManyOptions,
    ) -> Result<GatherKey, Error> {
        let gather = Gather::new(now, options)?;
        let key = if options.no_mux {
            let inbox = self.conn.new_inbox();
            let sid = self.conn.subscribe(&inbox, None)?;
            if let Err(e) = self.conn.publish(subject, Some(&inbox), headers, payload) {
                let _ = self.conn.unsubscribe(sid, None);
                return Err(e);
            }
            GatherKey::Sub(sid)
        } else {
            GatherKey::Request(self.conn.request_many(subject, headers, payload)?)
        };
        self.gathers.insert(key, gather);
        Ok(key)
    }

    /// The reader of a request for many stopped: its replies stop.
    pub fn stop_gather(&mut self, key: GatherKey) -> bool {
        let stopped = self.gathers.remove(&key).is_some();
        if stopped {
            self.forget_gather(key);
        }
        stopped
    }

    /// Ends subscription `sid` if no message comes within `timeout` of
    /// `now` (replacing an earlier timer of it).
    pub fn expect_first_message(&mut self, now: Instant, sid: Sid, timeout: std::time::Duration) {
        self.first_messages.retain(|(id, _)| *id != sid);
        self.first_messages.push((sid, FirstMessageTimer::new(now, timeout)));
    }

    // ---- outputs

    /// The next thing to hand on. Replies of requests for many go to their
    /// machines first, so only what they let through comes out.
    pub fn poll_event(&mut self, now: Instant) -> Option<SessionEvent> {
        loop {
            if let Some(event) = self.events.pop_front() {
                if !JETSTREAM || self.ordered.is_empty() {
                    return Some(event);
                }
                match self.route_ordered(now, event) {
                    Some(event) => return Some(event),
                    None => continue,
                }
            }
            match self.conn.poll_event()? {
                Event::Message { sid, message } => {
                    if let Some(reader) = self.readers.get_mut(&sid).filter(|_| JETSTREAM) {
                        let delivery = reader.handle_input(now, &message);
                        if reader.needs_drive() {
                            // What the drive has for the user comes after the message.
                            let out =
                                Outputs { conn: &mut self.conn, events: &mut self.events, probes: &mut self.probes };
                            let driven = reader.drive(sid, out);
                            self.after_drive(sid, driven);
                        }
                        if delivery == Delivery::User {
                            // The message goes straight out unless ordered reads may judge it.
                            if self.ordered.is_empty() {
                                return Some(SessionEvent::Routed {
                                    to: Route::Reader(sid),
                                    item: Item::Message(message),
                                });
                            }
                            match self.route_ordered(
                                now,
                                SessionEvent::Routed { to: Route::Reader(sid), item: Item::Message(message) },
                            ) {
                                Some(event) => return Some(event),
                                None => continue,
                            }
                        }
                        continue;
                    }
                    if !self.first_messages.is_empty() {
                        // The first message disarms the timeout: its work is done.
                        self.first_messages.retain(|(id, _)| *id != sid);
                    }
                    let key = GatherKey::Sub(sid);
                    if self.gathers.is_empty() || self.gathers.get(&key).is_none() {
                        return Some(SessionEvent::Connection(Event::Message { sid, message }));
                    }
                    self.feed_gather(now, key, message.into_answer());
                }
                Event::Response { id, result } => {
                    let key = GatherKey::Request(id);
                    if self.gathers.get(&key).is_some() {
                        self.feed_gather(now, key, result);
                    } else if JETSTREAM && self.ordered_answer(now, id, &result) {
                        continue;
                    } else if let Some(sid) = self.probes.remove(&id).filter(|_| JETSTREAM) {
                        if let Some(reader) = self.readers.get_mut(&sid) {
                            reader.handle_probe(&result);
                        }
                        self.drive_reader(sid);
                    } else {
                        return Some(SessionEvent::Connection(Event::Response { id, result }));
                    }
                }
                Event::Connection(event) => {
                    self.on_connection_event(now, &event);
                    return Some(SessionEvent::Connection(Event::Connection(event)));
                }
                other => return Some(SessionEvent::Connection(other)),
            }
        }
    }

    /// The soonest deadline of the connection and every attached machine,
    /// and why: the one fold of them all, which a driver sleeps until.
    pub fn poll_deadline(&self) -> Option<Deadline<Wake>> {
        let next = self.conn.poll_deadline().map(|d| d.map(Wake::Connection));
        let next = if JETSTREAM {
            let next = fold(next, self.readers.iter(), Wake::Reader);
            let next = fold(next, self.ordered.iter(), Wake::Ordered);
            fold(next, self.ledgers.iter(), Wake::Ledger)
        } else {
            next
        };
        let next = fold(next, self.gathers.iter(), Wake::Gather);
        fold(next, self.first_messages.iter().map(|(sid, timer)| (sid, timer)), Wake::FirstMessage)
    }

    // ---- internals

    fn on_connection_event(&mut self, now: Instant, event: &ConnectionEvent) {
        match event {
            ConnectionEvent::Disconnected { .. } => self.link(now, Link::Down),
            ConnectionEvent::Reconnected { .. } => self.link(now, Link::Up),
            ConnectionEvent::Closed { .. } => {
                // Their readers are ended by whoever waits on them.
                self.readers = IdMap::default();
                self.probes = IdMap::default();
                self.gathers = IdMap::default();
                self.first_messages.clear();
                self.ordered = IdMap::default();
            }
            _ => {}
        }
    }

    /// Tells every machine the link went down or came back, then does what
    /// each asked for. (Requests for many and first-message timers run on
    /// their own clocks, whatever the link.)
    fn link(&mut self, now: Instant, link: Link) {
        if !JETSTREAM {
            return;
        }
        let sids: Vec<Sid> = self.readers.keys().copied().collect();
        for sid in sids {
            if let Some(reader) = self.readers.get_mut(&sid) {
                reader.handle_link(now, link);
            }
            self.drive_reader(sid);
        }
        self.ledgers.values_mut().for_each(|l| l.handle_link(now, link));
        self.ledgers_output();
        self.ordered_link(now, link);
    }

    /// Publishes what reader `sid` asks for; retires it when it is done.
    fn drive_reader(&mut self, sid: Sid) {
        let Some(reader) = self.readers.get_mut(&sid).filter(|_| JETSTREAM) else { return };
        let out = Outputs { conn: &mut self.conn, events: &mut self.events, probes: &mut self.probes };
        let driven = reader.drive(sid, out);
        self.after_drive(sid, driven);
    }

    /// Notes a pull reader `sid` published; retires it when it is done.
    fn after_drive(&mut self, sid: Sid, driven: reader::Driven) {
        self.pulled |= driven.pulled;
        if driven.finished {
            self.retire_reader(sid);
            self.events.push_back(SessionEvent::Routed { to: Route::Reader(sid), item: Item::Ended });
        }
    }

    /// Routes one reply of a request for many (or the error that ends it).
    fn feed_gather(&mut self, now: Instant, key: GatherKey, result: Result<Message, Error>) {
        let Some(gather) = self.gathers.get_mut(&key) else { return };
        match result {
            Ok(message) => {
                if gather.handle_input(now, &message) {
                    self.events
                        .push_back(SessionEvent::Routed { to: Route::Gather(key), item: Item::Message(message) });
                }
            }
            Err(error) => {
                if !gather.is_finished() {
                    gather.handle_failure();
                    self.events.push_back(SessionEvent::Routed { to: Route::Gather(key), item: Item::Failed(error) });
                }
            }
        }
        self.retire_gather_if_finished(key);
    }

    fn retire_gather_if_finished(&mut self, key: GatherKey) {
        if self.gathers.get(&key).is_some_and(Gather::is_finished) {
            self.gathers.remove(&key);
            self.forget_gather(key);
            self.events.push_back(SessionEvent::Routed { to: Route::Gather(key), item: Item::Ended });
        }
    }

    /// Stops the replies of a request for many that ended.
    fn forget_gather(&mut self, key: GatherKey) {
        match key {
            GatherKey::Request(id) => self.conn.cancel_request(id),
            GatherKey::Sub(sid) => {
                let _ = self.conn.unsubscribe(sid, None);
            }
        }
    }

    /// Publishes the `+WPI`s the ledgers have due and hands on their events.
    fn ledgers_output(&mut self) {
        let body = Ack::Progress.body();
        for (id, ledger) in self.ledgers.iter_mut() {
            while let Some(tokens) = ledger.poll_progress() {
                for token in tokens {
                    let _ = self.conn.publish(token.subject(), None, None, &body);
                }
            }
            while let Some(event) = Machine::poll_event(ledger) {
                self.events.push_back(SessionEvent::Routed { to: Route::Ledger(*id), item: Item::Ledger(event) });
            }
        }
    }
}

/// `next`, or the soonest deadline of `machines` if sooner, with its
/// reason as the session names it.
fn fold<'a, K: Copy + 'a, M: Machine + 'a>(
    next: Option<Deadline<Wake>>,
    machines: impl Iterator<Item = (&'a K, &'a M)>,
    wake: fn(K, M::Timer) -> Wake,
) -> Option<Deadline<Wake>> {
    machines.fold(next, |next, (key, machine)| {
        Deadline::soonest(next, machine.poll_deadline().map(|d| d.map(|timer| wake(*key, timer))))
    })
}

/// Fires those of `machines` due at `now`: their keys, for what follows.
fn fire_due<'a, K: Copy + 'a, M: Machine + 'a>(
    machines: impl Iterator<Item = (&'a K, &'a mut M)>,
    now: Instant,
) -> Vec<K> {
    let mut fired = Vec::new();
    for (key, machine) in machines {
        if machine.poll_deadline().is_some_and(|d| d.at <= now) {
            machine.handle_timeout(now);
            fired.push(*key);
        }
    }
    fired
}

#[cfg(test)]
mod tests;
