//! State shared between the user-facing handles (Client, Subscriber) and the
//! driver task: the sans-IO [`Session`] plus the waiters for its results.
//! Subscriptions, requests and flushes are keyed by the connection's ids;
//! every machine attached to the session by its [`Route`], with one
//! [`Waiter`] each. Every user command locks it, runs the session command
//! ([`command`](Inner::command), or [`write`](Inner::write) for output
//! only) and wakes the driver; the driver locks it to feed input and drain
//! output. Nothing here blocks.

use crate::core::machine::Machine;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;

use futures_channel::oneshot;

use super::queue;
use super::readers::ReaderQueues;
pub(crate) use super::waiters::{Answer, Answered, Replies};
use super::waiters::{Taken, Waiter};
use super::wake::DriverWake;
use crate::core::conn::{Connection, ConnectionEvent, Event, FlushId, RequestId, Sid, State};
use crate::core::error::Error;
use crate::core::header::HeaderMap;
use crate::core::id_map::IdMap;
use crate::core::jetstream::ack::{AckLedger, LedgerEvent};
use crate::core::jetstream::api::ConsumerInfo;
use crate::core::jetstream::ordered::OrderedCursor;
use crate::core::request_many::RequestManyOptions;
use crate::core::session::{
    GatherKey, LedgerId, OrderedId, OrderedSpec, Reader, RetiredOrdered, Route, Session, SessionEvent,
};
use crate::core::time::Instant;
pub(crate) use room::HIGH_WATER;
use subs::Subscription;

mod room;
mod subs;

/// A user callback for connection events. `Send + Sync` natively; JS
/// callbacks in wasm are neither.
#[cfg(not(target_arch = "wasm32"))]
pub type EventCallback = Arc<dyn Fn(ConnectionEvent) + Send + Sync>;
#[cfg(target_arch = "wasm32")]
pub type EventCallback = Arc<dyn Fn(ConnectionEvent)>;

/// What an ordered read starts from: where and how it reads, its cursor,
/// and the consumer to read first if one was just made.
pub(crate) type OrderedStart = (OrderedSpec, OrderedCursor, Option<ConsumerInfo>);

pub(crate) struct Inner {
    /// The session: the connection and the machines attached to it (its
    /// commands are the connection's).
    pub(super) session: Session,
    subs: IdMap<Sid, Subscription>,
    /// The waiters of the machines attached to the session.
    waiters: IdMap<Route, Waiter>,
    requests: IdMap<RequestId, Answer>,
    /// Answers ready to go out: the driver sends them once it lets go of the
    /// lock, so a requester woken on another thread does not find it held.
    pub(super) answered: Vec<Answered>,
    flushes: IdMap<FlushId, oneshot::Sender<Result<(), Error>>>,
    /// Resolves `connect()`: the first Connected or Closed.
    first_connect: Option<oneshot::Sender<Result<(), Error>>>,
    /// Resolve when the connection is closed for good.
    closed_waiters: Vec<oneshot::Sender<()>>,
    /// Publishers waiting for the outgoing buffer to drain.
    space_waiters: Vec<Waker>,
    pub(super) wake: DriverWake,
    /// The transport holds writes back and will wake the driver to flush
    /// them (wasm: at the end of the JS task), so new output needs no wake.
    pub(super) writes_held: bool,
    /// Output the server waits on (a pull request) is queued: the transport
    /// sends what it holds back at once instead of at the end of the task,
    /// so the server is not left idle while the user works through a batch.
    pub(super) hurry: bool,
    pub(super) callback: Option<EventCallback>,
    /// Events for the callback, delivered by the driver outside the lock.
    pub(super) callback_queue: Vec<ConnectionEvent>,
    /// The open transport (the last one opened), for [`spill`](Self::spill).
    #[cfg(target_arch = "wasm32")]
    pub(super) host: Option<crate::transport::HostSink>,
}

pub(crate) struct Shared {
    inner: Mutex<Inner>,
}

impl Shared {
    // In wasm the event callback is a JS function (not Send); there is one thread.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    pub fn new(conn: Connection, callback: Option<EventCallback>) -> (Arc<Self>, oneshot::Receiver<Result<(), Error>>) {
        let (tx, rx) = oneshot::channel();
        let inner = Inner {
            session: Session::new(conn),
            subs: IdMap::default(),
            waiters: IdMap::default(),
            requests: IdMap::default(),
            answered: Vec::new(),
            flushes: IdMap::default(),
            first_connect: Some(tx),
            closed_waiters: Vec::new(),
            space_waiters: Vec::new(),
            wake: DriverWake::default(),
            writes_held: false,
            hurry: false,
            callback,
            callback_queue: Vec::new(),
            #[cfg(target_arch = "wasm32")]
            host: None,
        };
        (Arc::new(Shared { inner: Mutex::new(inner) }), rx)
    }

    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        queue::lock(&self.inner)
    }
}

impl Inner {
    /// Wakes the driver after a command left work for it.
    pub fn wake_driver(&mut self) {
        self.wake.wake();
    }

    /// Wakes the driver for output only (publishes, acks, requests): not
    /// while the transport holds writes back, since they would wait for its
    /// flush anyway and the transport wakes the driver for that. In wasm
    /// this saves a driver poll per ack and per publish made in a loop.
    #[inline]
    pub fn wake_writer(&mut self) {
        if !self.writes_held {
            self.wake.wake();
        }
    }

    /// Runs a session command, then wakes the driver: it writes what the
    /// command queued and learns the deadlines it moved. A pull the command
    /// published hurries held-back writes out.
    pub fn command<T>(&mut self, f: impl FnOnce(&mut Session) -> T) -> T {
        let out = f(&mut self.session);
        self.hurry |= self.session.take_pulled();
        self.wake.wake();
        out
    }

    /// Runs a session command that only writes (a publish, an ack): the
    /// writer is woken if it went through.
    #[inline]
    pub fn write<T>(&mut self, f: impl FnOnce(&mut Session) -> Result<T, Error>) -> Result<T, Error> {
        let out = f(&mut self.session)?;
        self.wake_writer();
        Ok(out)
    }

    /// Routes everything the session has to report to its waiters.
    pub fn dispatch_events(&mut self, now: Instant) {
        while let Some(event) = self.session.poll_event(now) {
            match event {
                SessionEvent::Connection(event) => self.on_event(event),
                SessionEvent::Routed { to: Route::FirstMessage(sid), .. } => self.end_silent_subscription(sid),
                SessionEvent::Routed { to, item } => {
                    let Some(waiter) = self.waiters.get_mut(&to) else { continue };
                    match waiter.take(now, item) {
                        Taken::Kept => {}
                        Taken::Ended => {
                            if let Some(waiter) = self.waiters.remove(&to) {
                                waiter.close();
                            }
                        }
                        // An ordered read's queue refuses only once its user stopped reading long ago.
                        Taken::Refused { closed, dropped } => {
                            let Route::Reader(sid) = to else { continue };
                            if closed {
                                // Its user went away: the message will be redelivered.
                                self.retire(to);
                            } else {
                                self.session.reader_refused(sid);
                                self.slow_consumer(sid, dropped);
                            }
                        }
                    }
                }
            }
        }
        self.hurry |= self.session.take_pulled();
        if !self.publishers_wait() {
            for w in self.space_waiters.drain(..) {
                w.wake();
            }
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Message { sid, message } => self.deliver(sid, message),
            Event::SubscriptionEnded { sid } => {
                if let Some(sub) = self.subs.remove(&sid) {
                    sub.queue.close();
                }
            }
            Event::Response { id, result } => {
                if let Some(answer) = self.requests.remove(&id) {
                    self.answered.push((answer, id, result));
                }
            }
            Event::Flushed { id, result } => {
                if let Some(tx) = self.flushes.remove(&id) {
                    let _ = tx.send(result);
                }
            }
            Event::Connection(event) => self.on_connection_event(event),
        }
    }

    // ---- commands of the API that keep a waiter (the others are `command`s)

    /// The session, to read its state (commands go through `Inner`).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Sends a request on the muxed inbox (`send`, a session command); its
    /// answer goes to `answer`.
    pub fn request(
        &mut self,
        send: impl FnOnce(&mut Session) -> Result<RequestId, Error>,
        answer: Answer,
    ) -> Result<RequestId, Error> {
        let id = self.write(send)?;
        self.requests.insert(id, answer);
        Ok(id)
    }

    /// Forgets request `id`: its answer is no longer awaited.
    pub fn forget_request(&mut self, id: RequestId) {
        self.session.cancel_request(id);
        self.requests.remove(&id);
    }

    /// Sends a PING; the receiver resolves on its PONG.
    pub fn flush(&mut self) -> Result<oneshot::Receiver<Result<(), Error>>, Error> {
        let (tx, rx) = oneshot::channel();
        let id = self.command(|s| s.flush())?;
        self.flushes.insert(id, tx);
        Ok(rx)
    }

    /// Closes after writing what was accepted, with a receiver resolving
    /// once closed; `None` if it already is.
    pub fn close_waited(&mut self, now: Instant) -> Option<oneshot::Receiver<()>> {
        if self.session.state() == State::Closed {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        self.closed_waiters.push(tx);
        self.command(|s| s.close(now));
        Some(rx)
    }

    /// Attaches the machine `attach` makes (a session command), whose user
    /// reads `waiter`.
    fn attach<K>(
        &mut self,
        attach: impl FnOnce(&mut Session) -> Result<K, Error>,
        route: fn(K) -> Route,
        waiter: Waiter,
    ) -> Result<K, Error>
    where
        K: Copy,
    {
        let key = self.command(attach)?;
        self.waiters.insert(route(key), waiter);
        Ok(key)
    }

    /// Subscribes to `subject` for `reader`, whose user reads `queues`.
    pub fn start_reader(
        &mut self,
        subject: &str,
        group: Option<&str>,
        reader: Reader,
        queues: ReaderQueues,
    ) -> Result<Sid, Error> {
        let sid = self.session.subscribe(subject, group)?;
        self.waiters.insert(Route::Reader(sid), Waiter::Reader(queues));
        self.command(|s| s.attach_reader(sid, reader));
        Ok(sid)
    }

    pub fn has_reader(&self, sid: Sid) -> bool {
        self.waiters.get(&Route::Reader(sid)).is_some()
    }

    /// Starts an ordered read in the session, whose user reads `queues`.
    pub fn start_ordered(
        &mut self,
        now: Instant,
        start: OrderedStart,
        queues: ReaderQueues,
    ) -> Result<OrderedId, Error> {
        let (spec, cursor, current) = start;
        let attach = |s: &mut Session| s.attach_ordered(now, spec, cursor, current);
        self.attach(attach, Route::Ordered, Waiter::Reader(queues))
    }

    /// Sends a request for many replies, read from `replies`.
    pub fn request_many(
        &mut self,
        now: Instant,
        request: (&str, Option<&HeaderMap>, &[u8]),
        options: &RequestManyOptions,
        replies: Replies,
    ) -> Result<GatherKey, Error> {
        let (subject, headers, payload) = request;
        // The driver must learn the new deadline, not only write: a command.
        let attach = |s: &mut Session| s.request_many(now, subject, headers, payload, options);
        self.attach(attach, Route::Gather, Waiter::Replies(replies))
    }

    /// Attaches a checkpoint ledger; [`ledger_event`](Self::ledger_event) hands out its events.
    pub fn add_ledger(&mut self, ledger: AckLedger) -> LedgerId {
        let id = self.session.add_ledger(ledger);
        self.waiters.insert(Route::Ledger(id), Waiter::Ledger(Default::default()));
        id
    }

    /// Detaches the machine of `route` (its user stopped), ending its
    /// user's streams after what they hold: where an ordered read got to,
    /// unless the connection closed.
    pub fn retire(&mut self, route: Route) -> Option<RetiredOrdered> {
        if let Some(waiter) = self.waiters.remove(&route) {
            waiter.close();
        }
        match route {
            Route::Reader(sid) => {
                self.session.retire_reader(sid);
            }
            Route::Ordered(id) => return self.command(|s| s.retire_ordered(id)),
            Route::Gather(key) => {
                self.command(|s| s.stop_gather(key));
            }
            Route::Ledger(id) => self.session.remove_ledger(id),
            Route::FirstMessage(_) => {}
        }
        None
    }

    /// The next event of ledger `id`, if one came.
    pub fn ledger_event(&mut self, id: LedgerId) -> Option<LedgerEvent> {
        match self.waiters.get_mut(&Route::Ledger(id))? {
            Waiter::Ledger(events) => events.pop_front(),
            _ => None,
        }
    }

    /// Runs `f` on ledger `id` (`Closed` once detached) and hands on the
    /// events it raised; wakes the driver when the ledger's deadline moved.
    pub fn with_ledger<R>(&mut self, id: LedgerId, f: impl FnOnce(&mut AckLedger) -> R) -> Result<R, Error> {
        let ledger = self.session.ledger_mut(id).ok_or(Error::Closed)?;
        let deadline = ledger.poll_deadline().map(|d| d.at);
        let result = f(ledger);
        let moved = ledger.poll_deadline().map(|d| d.at) != deadline;
        if let Some(Waiter::Ledger(events)) = self.waiters.get_mut(&Route::Ledger(id)) {
            events.extend(std::iter::from_fn(|| AckLedger::poll_event(ledger)));
        }
        if moved {
            self.wake_driver();
        }
        Ok(result)
    }

    fn on_connection_event(&mut self, event: ConnectionEvent) {
        match &event {
            ConnectionEvent::Connected { .. } => {
                if let Some(tx) = self.first_connect.take() {
                    let _ = tx.send(Ok(()));
                }
            }
            ConnectionEvent::Closed { error } => {
                let why = error.clone().unwrap_or(Error::Closed);
                if let Some(tx) = self.first_connect.take() {
                    let _ = tx.send(Err(why.clone()));
                }
                // Subscribers learn why (`Subscriber::closed_reason`).
                for (_, sub) in self.subs.drain() {
                    sub.queue.close_with(why.clone());
                }
                self.fail_all(Error::Closed);
            }
            _ => {}
        }
        self.notify(event);
    }

    /// Ends every waiter: the connection is gone for good. (Ledgers keep
    /// theirs: a ledger stays attached until its user detaches it.)
    fn fail_all(&mut self, error: Error) {
        self.waiters.retain(|_, waiter| {
            waiter.close();
            matches!(waiter, Waiter::Ledger(_))
        });
        for (id, answer) in self.requests.drain() {
            answer.send(id, Err(error.clone()));
        }
        for (_, tx) in self.flushes.drain() {
            let _ = tx.send(Err(error.clone()));
        }
        for tx in self.closed_waiters.drain(..) {
            let _ = tx.send(());
        }
    }

    fn notify(&mut self, event: ConnectionEvent) {
        if self.callback.is_some() {
            self.callback_queue.push(event);
        }
    }
}
