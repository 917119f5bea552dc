//! State shared between the user-facing handles (Client, Subscriber) and the
//! driver task: the sans-IO [`Session`] plus the waiters for its results,
//! keyed by the session's ids. Every user command locks it, calls the
//! session, and wakes the driver; the driver locks it to feed input and
//! drain output. Nothing here blocks.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;

use bytes::Bytes;
use futures_channel::oneshot;

use super::queue::{self, Queue};
use super::readers::{Delivery, ReaderQueues};
use crate::conn::{Connection, ConnectionEvent, Event, FlushId, RequestId, Sid, State};
use crate::core::jetstream::ack::{AckLedger, LedgerEvent};
use crate::core::jetstream::api::ConsumerInfo;
use crate::core::jetstream::ordered::OrderedCursor;
use crate::core::session::{
    GatherKey, LedgerId, OrderedId, OrderedSpec, Reader, RetiredOrdered, Session, SessionEvent,
};
use crate::error::Error;
use crate::header::HeaderMap;
use crate::id_map::IdMap;
use crate::message::Message;
use crate::request_many::RequestManyOptions;
use crate::time::Instant;

/// A user callback for connection events. `Send + Sync` natively; JS
/// callbacks in wasm are neither.
#[cfg(not(target_arch = "wasm32"))]
pub type EventCallback = Arc<dyn Fn(ConnectionEvent) + Send + Sync>;
#[cfg(target_arch = "wasm32")]
pub type EventCallback = Arc<dyn Fn(ConnectionEvent)>;

/// Where the answer to a request goes.
pub(crate) enum Answer {
    /// One waiter ([`ResponseFuture`](crate::client::ResponseFuture)).
    One(oneshot::Sender<Result<Message, Error>>),
    /// A queue shared by many requests (a confirmed ack batch): one wake for
    /// many answers instead of a channel per request.
    Group(Arc<Queue<(RequestId, Result<Message, Error>)>>),
}

impl Answer {
    pub fn send(self, id: RequestId, result: Result<Message, Error>) {
        match self {
            Answer::One(tx) => {
                let _ = tx.send(result);
            }
            Answer::Group(queue) => {
                let _ = queue.push((id, result));
            }
        }
    }
}

/// An answer ready to go out, with the request it answers.
pub(crate) type Answered = (Answer, RequestId, Result<Message, Error>);

struct Subscription {
    /// Bounded in messages and bytes; it counts what it drops.
    queue: Arc<Queue<Message>>,
}

/// What an ordered read starts from: where and how it reads, its cursor,
/// and the consumer to read first if one was just made.
pub(crate) type OrderedStart = (OrderedSpec, OrderedCursor, Option<ConsumerInfo>);

/// The reader of a request for many replies.
pub(crate) type Replies = Arc<Queue<Result<Message, Error>>>;

pub(crate) struct Inner {
    /// The session: the connection and the machines attached to it (its
    /// commands are the connection's).
    pub(super) session: Session,
    subs: IdMap<Sid, Subscription>,
    /// The queues of the JetStream readers attached to the session.
    readers: IdMap<Sid, ReaderQueues>,
    /// The queues of the ordered reads the session runs.
    ordered: IdMap<OrderedId, ReaderQueues>,
    requests: IdMap<RequestId, Answer>,
    /// Answers ready to go out: the driver sends them once it lets go of the
    /// lock, so a requester woken on another thread does not find it held.
    pub(super) answered: Vec<Answered>,
    /// The readers of requests for many replies.
    gathers: IdMap<GatherKey, Replies>,
    /// The events of the checkpoint ledgers attached to the session, until
    /// their users ask (they never wait on one).
    ledgers: IdMap<LedgerId, VecDeque<LedgerEvent>>,
    /// The flags the `Subscriber`s under a first-message timeout read; a
    /// few at most, so a plain list.
    timed_out: Vec<(Sid, Arc<AtomicBool>)>,
    flushes: IdMap<FlushId, oneshot::Sender<Result<(), Error>>>,
    /// Resolves `connect()`: the first Connected or Closed.
    first_connect: Option<oneshot::Sender<Result<(), Error>>>,
    /// Resolve when the connection is closed for good.
    closed_waiters: Vec<oneshot::Sender<()>>,
    /// Publishers waiting for the outgoing buffer to drain.
    space_waiters: Vec<Waker>,
    driver_waker: Option<Waker>,
    /// Set once the driver has been woken and has not run since: saves a
    /// wake per publish on the hot path.
    wake_pending: bool,
    /// The driver is in its poll, from [`register_driver`](Self::register_driver)
    /// to [`end_driver_poll`](Self::end_driver_poll): a wake is only noted
    /// (`rerun`), and the driver runs another round before it returns
    /// (checked under the lock it returns with, so none is lost). A
    /// requester on another thread then does not schedule the running task
    /// again, which would wake a second worker thread to poll it.
    driver_polling: bool,
    /// Work came while the driver was polling.
    rerun: bool,
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

/// Buffered bytes above which publishers wait for the writer.
pub(crate) const HIGH_WATER: usize = 4 * 1024 * 1024;
/// wasm: bytes waiting past which a publish that cannot wait hands them to the host first.
#[cfg(target_arch = "wasm32")]
const SPILL: usize = 8 * 1024 * 1024;

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
            readers: IdMap::default(),
            ordered: IdMap::default(),
            requests: IdMap::default(),
            answered: Vec::new(),
            gathers: IdMap::default(),
            ledgers: IdMap::default(),
            timed_out: Vec::new(),
            flushes: IdMap::default(),
            first_connect: Some(tx),
            closed_waiters: Vec::new(),
            space_waiters: Vec::new(),
            driver_waker: None,
            wake_pending: false,
            driver_polling: false,
            rerun: false,
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
    /// Whether publishers that can wait should: the outgoing buffer is past
    /// the high water mark (or the smaller bound set for it), so they wait
    /// instead of meeting `OutgoingBufferFull`.
    #[inline]
    fn publishers_wait(&self) -> bool {
        let high_water = HIGH_WATER.min(self.session.outgoing_buffer_size());
        self.session.state() == State::Connected && self.session.pending_bytes() >= high_water
    }

    /// Wakes the driver after a command left work for it.
    pub fn wake_driver(&mut self) {
        if self.driver_polling {
            self.rerun = true;
            return;
        }
        if !self.wake_pending {
            if let Some(w) = &self.driver_waker {
                self.wake_pending = true;
                w.wake_by_ref();
            }
        }
    }

    /// Wakes the driver for output only (publishes, acks, requests): not
    /// while the transport holds writes back, since they would wait for its
    /// flush anyway and the transport wakes the driver for that. In wasm
    /// this saves a driver poll per ack and per publish made in a loop.
    pub fn wake_writer(&mut self) {
        if !self.writes_held {
            self.wake_driver();
        }
    }

    /// Called by the driver at the start of each poll.
    pub fn register_driver(&mut self, waker: &Waker) {
        self.wake_pending = false;
        self.driver_polling = true;
        match &self.driver_waker {
            Some(w) if w.will_wake(waker) => {}
            _ => self.driver_waker = Some(waker.clone()),
        }
    }

    /// Whether work came while the driver polled: it runs another round
    /// before it returns.
    pub fn take_rerun(&mut self) -> bool {
        std::mem::take(&mut self.rerun)
    }

    /// The driver returns from its poll now: wakes go to its waker again.
    pub fn end_driver_poll(&mut self) {
        self.driver_polling = false;
        self.rerun = false;
    }

    /// Routes everything the connection has to report to its waiters.
    pub fn dispatch_events(&mut self, now: Instant) {
        while let Some(event) = self.session.poll_event(now) {
            match event {
                SessionEvent::Connection(event) => self.on_event(event),
                SessionEvent::ReaderMessage { sid, message } => {
                    let Some(queues) = self.readers.get(&sid) else { continue };
                    if queues.items.push(Delivery { message, received: now }).is_err() {
                        if queues.items.is_closed() {
                            // Its user went away: the message will be redelivered.
                            self.retire_reader(sid);
                        } else {
                            let dropped = queues.items.dropped();
                            self.session.reader_refused(sid);
                            if dropped == 1 || dropped % 1000 == 0 {
                                self.notify(ConnectionEvent::SlowConsumer { sid: sid.0, dropped });
                            }
                        }
                    }
                }
                SessionEvent::ReaderFailed { sid, error } => {
                    // The user's stream yields it after the messages it holds, whatever the bound.
                    if let Some(queues) = self.readers.get(&sid) {
                        queues.items.close_with(error);
                    }
                }
                SessionEvent::ReaderEvent { sid, event } => {
                    if let Some(queues) = self.readers.get(&sid) {
                        let _ = queues.events.push(event);
                    }
                }
                SessionEvent::ReaderEnded { sid } => {
                    if let Some(queues) = self.readers.remove(&sid) {
                        queues.close();
                    }
                }
                SessionEvent::OrderedMessage { id, message } => {
                    if let Some(queues) = self.ordered.get(&id) {
                        // Full only if the user stopped reading long ago.
                        let _ = queues.items.push(Delivery { message, received: now });
                    }
                }
                SessionEvent::OrderedFailed { id, error } => {
                    if let Some(queues) = self.ordered.get(&id) {
                        queues.items.close_with(error);
                    }
                }
                SessionEvent::OrderedEvent { id, event } => {
                    if let Some(queues) = self.ordered.get(&id) {
                        let _ = queues.events.push(event);
                    }
                }
                SessionEvent::OrderedEnded { id } => {
                    if let Some(queues) = self.ordered.get(&id) {
                        queues.close();
                    }
                }
                SessionEvent::Reply { key, message } => {
                    if let Some(replies) = self.gathers.get(&key) {
                        // A full queue means the user stopped reading long ago.
                        let _ = replies.push(Ok(message));
                    }
                }
                SessionEvent::GatherFailed { key, error } => {
                    if let Some(replies) = self.gathers.get(&key) {
                        let _ = replies.push(Err(error));
                    }
                }
                SessionEvent::GatherEnded { key } => {
                    if let Some(replies) = self.gathers.remove(&key) {
                        replies.close();
                    }
                }
                SessionEvent::FirstMessageMissed { sid } => self.end_silent_subscription(sid),
                SessionEvent::LedgerEvent { id, event } => {
                    // Unbounded, as the ledger's own list was: one per held delivery and deadline.
                    if let Some(events) = self.ledgers.get_mut(&id) {
                        events.push_back(event);
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

    // ---- commands of the API: each calls the session and keeps its waiter

    /// The session, to read its state (commands go through `Inner`).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Publishes `payload`; the driver writes it out.
    pub fn publish(
        &mut self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), Error> {
        self.session.publish(subject, reply, headers, payload)?;
        self.wake_writer();
        Ok(())
    }

    /// Before a publish from a caller that cannot wait (JavaScript's
    /// `publish` and acks): in wasm a loop of them never lets the driver
    /// write, so once more than `SPILL` bytes wait they go to the host
    /// first. Natively such callers meet the outgoing bound.
    pub fn make_room_now(&mut self) {
        #[cfg(target_arch = "wasm32")]
        if self.session.transmit_bytes() >= SPILL {
            self.spill();
        }
    }

    /// Hands every byte waiting to the open transport's host, whatever it
    /// already holds: a burst then lies in its socket buffer, outside wasm
    /// memory (as nats.js's writes do), and leaves while the loop runs
    /// where the host writes at once (Node). What the host holds counts
    /// toward the outgoing bound; should it refuse (out of memory),
    /// publishes are refused until the driver looks again.
    #[cfg(target_arch = "wasm32")]
    fn spill(&mut self) {
        let Some(host) = &self.host else { return };
        while let Some(piece) = self.session.poll_transmit(super::task::MAX_WRITE) {
            if host.send(&piece).is_err() {
                self.session.untransmit(std::iter::once(piece));
                self.session.handle_unwritten(usize::MAX);
                return;
            }
        }
        self.session.handle_unwritten(host.buffered());
    }

    /// wasm: tells the connection what the host still holds unsent.
    #[cfg(target_arch = "wasm32")]
    pub(super) fn look_at_host(&mut self) {
        if let Some(host) = &self.host {
            self.session.handle_unwritten(host.buffered());
        }
    }

    /// [`publish`](Self::publish) of a payload written out as it is (never copied).
    pub fn publish_shared(
        &mut self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &Bytes,
    ) -> Result<(), Error> {
        self.session.publish_shared(subject, reply, headers, payload)?;
        self.wake_writer();
        Ok(())
    }

    /// Whether a publisher must wait for room in the outgoing buffer: if
    /// so it is woken once there is. Inlined: every publish and ack asks.
    #[inline]
    pub fn wait_for_room(&mut self, waker: &Waker) -> bool {
        if !self.publishers_wait() {
            return false;
        }
        self.space_waiters.push(waker.clone());
        self.wake_driver();
        true
    }

    /// Sends a request on the muxed inbox; its answer goes to `answer`.
    pub fn request(
        &mut self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        answer: Answer,
    ) -> Result<RequestId, Error> {
        let id = self.session.request(subject, headers, payload);
        self.await_answer(id, answer)
    }

    /// [`request`](Self::request) of a payload written out as it is (never copied).
    pub fn request_shared(
        &mut self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &Bytes,
        answer: Answer,
    ) -> Result<RequestId, Error> {
        let id = self.session.request_shared(subject, headers, payload);
        self.await_answer(id, answer)
    }

    fn await_answer(&mut self, id: Result<RequestId, Error>, answer: Answer) -> Result<RequestId, Error> {
        let id = id?;
        self.requests.insert(id, answer);
        self.wake_writer();
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
        let id = self.session.flush()?;
        self.flushes.insert(id, tx);
        self.wake_driver();
        Ok(rx)
    }

    /// A unique subject under the client's inbox prefix.
    pub fn new_inbox(&mut self) -> String {
        self.session.new_inbox()
    }

    /// Subscribes; the messages go to `messages`.
    pub fn subscribe(
        &mut self,
        subject: &str,
        queue: Option<&str>,
        messages: Arc<Queue<Message>>,
    ) -> Result<Sid, Error> {
        let sid = self.session.subscribe(subject, queue)?;
        self.subs.insert(sid, Subscription { queue: messages });
        self.wake_driver();
        Ok(sid)
    }

    /// Whether subscription `sid` still delivers to its queue.
    pub fn has_subscription(&self, sid: Sid) -> bool {
        self.subs.get(&sid).is_some()
    }

    /// Ends subscription `sid` now; its stream ends after what it holds.
    pub fn unsubscribe(&mut self, sid: Sid) -> Result<(), Error> {
        if let Some(sub) = self.subs.remove(&sid) {
            sub.queue.close();
            self.session.unsubscribe(sid, None)?;
            self.wake_driver();
        }
        Ok(())
    }

    /// Ends subscription `sid` after `max` messages in total.
    pub fn unsubscribe_after(&mut self, sid: Sid, max: u64) -> Result<(), Error> {
        self.session.unsubscribe(sid, Some(max))?;
        self.wake_driver();
        Ok(())
    }

    /// The user of subscription `sid` went away.
    pub fn forget_subscription(&mut self, sid: Sid) {
        if self.subs.remove(&sid).is_some() && self.session.state() != State::Closed {
            let _ = self.session.unsubscribe(sid, None);
            self.wake_driver();
        }
    }

    /// Drains subscription `sid` (UNSUB now, what is in flight still
    /// comes): the receiver resolves on the PONG after it, `None` if the
    /// subscription already ended.
    pub fn drain_subscription(&mut self, sid: Sid) -> Result<Option<oneshot::Receiver<Result<(), Error>>>, Error> {
        if !self.has_subscription(sid) {
            return Ok(None);
        }
        self.session.drain_subscription(sid)?;
        self.flush().map(Some)
    }

    /// Ends drained subscription `sid`, if it did not end meanwhile.
    pub fn end_drained(&mut self, sid: Sid) {
        if self.has_subscription(sid) {
            let _ = self.session.unsubscribe(sid, None);
            self.wake_driver();
        }
    }

    /// Drains every subscription ([`Client::drain`](crate::Client::drain)),
    /// returning them to be ended once drained.
    pub fn drain(&mut self) -> Result<Vec<Sid>, Error> {
        let sids: Vec<Sid> = self.subs.keys().copied().collect();
        let drained = self.session.drain(&sids);
        self.notify(ConnectionEvent::Draining);
        self.wake_driver();
        drained.map(|()| sids)
    }

    /// Replaces the pool reconnects choose from ([`Client::set_server_pool`](crate::Client::set_server_pool)).
    pub fn set_server_pool(&mut self, servers: Vec<crate::ServerAddr>) -> Result<(), Error> {
        self.session.set_server_pool(servers)
    }

    /// Drops the server connection and reconnects.
    pub fn force_reconnect(&mut self, now: Instant) -> Result<(), Error> {
        self.session.force_reconnect(now)?;
        self.wake_driver();
        Ok(())
    }

    /// Closes after writing what was accepted.
    pub fn close(&mut self, now: Instant) {
        self.session.close(now);
        self.wake_driver();
    }

    /// [`close`](Self::close), with a receiver resolving once closed;
    /// `None` if it already is.
    pub fn close_waited(&mut self, now: Instant) -> Option<oneshot::Receiver<()>> {
        if self.session.state() == State::Closed {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        self.closed_waiters.push(tx);
        self.close(now);
        Some(rx)
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
        self.readers.insert(sid, queues);
        self.session.attach_reader(sid, reader);
        self.hurry |= self.session.take_pulled();
        self.wake_driver();
        Ok(sid)
    }

    pub fn has_reader(&self, sid: Sid) -> bool {
        self.readers.get(&sid).is_some()
    }

    /// The user of reader `sid` took `msgs` messages of `bytes`.
    pub fn reader_taken(&mut self, now: Instant, sid: Sid, msgs: u64, bytes: u64) {
        if self.session.reader_taken(now, sid, msgs, bytes) {
            self.hurry |= self.session.take_pulled();
            self.wake_driver();
        }
    }

    /// Removes a reader and its subscription, ending its streams.
    pub fn retire_reader(&mut self, sid: Sid) {
        if let Some(queues) = self.readers.remove(&sid) {
            queues.close();
        }
        self.session.retire_reader(sid);
    }

    /// Starts an ordered read in the session, whose user reads `queues`.
    pub fn start_ordered(
        &mut self,
        now: Instant,
        start: OrderedStart,
        queues: ReaderQueues,
    ) -> Result<OrderedId, Error> {
        let (spec, cursor, current) = start;
        let id = self.session.attach_ordered(now, spec, cursor, current)?;
        self.ordered.insert(id, queues);
        self.hurry |= self.session.take_pulled();
        self.wake_driver();
        Ok(id)
    }

    /// The user of ordered read `id` took `msgs` messages of `bytes`.
    pub fn ordered_taken(&mut self, now: Instant, id: OrderedId, msgs: u64, bytes: u64) {
        if self.session.ordered_taken(now, id, msgs, bytes) {
            self.hurry |= self.session.take_pulled();
            self.wake_driver();
        }
    }

    /// Ends ordered read `id`, its streams ending after what they hold:
    /// where it got to, unless the connection closed.
    pub fn retire_ordered(&mut self, id: OrderedId) -> Option<RetiredOrdered> {
        if let Some(queues) = self.ordered.remove(&id) {
            queues.close();
        }
        let retired = self.session.retire_ordered(id);
        self.wake_driver();
        retired
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
        let key = self.session.request_many(now, subject, headers, payload, options)?;
        self.gathers.insert(key, replies);
        // The driver must learn the new deadline, not only write.
        self.wake_driver();
        Ok(key)
    }

    /// The reader of a request for many stopped reading.
    pub fn stop_gather(&mut self, key: GatherKey) {
        if let Some(replies) = self.gathers.remove(&key) {
            replies.close();
            self.session.stop_gather(key);
            self.wake_driver();
        }
    }

    /// Ends subscription `sid` unless a message comes within `timeout`;
    /// `timed_out` is set if it ends so.
    pub fn expect_first_message(
        &mut self,
        now: Instant,
        sid: Sid,
        timeout: std::time::Duration,
        timed_out: Arc<AtomicBool>,
    ) {
        self.session.expect_first_message(now, sid, timeout);
        self.timed_out.retain(|(id, _)| *id != sid);
        self.timed_out.push((sid, timed_out));
        // The driver must learn the new deadline.
        self.wake_driver();
    }

    /// Attaches a checkpoint ledger; [`ledger_event`](Self::ledger_event) hands out its events.
    pub fn add_ledger(&mut self, ledger: AckLedger) -> LedgerId {
        let id = self.session.add_ledger(ledger);
        self.ledgers.insert(id, VecDeque::new());
        id
    }

    /// The next event of ledger `id`, if one came.
    pub fn ledger_event(&mut self, id: LedgerId) -> Option<LedgerEvent> {
        self.ledgers.get_mut(&id)?.pop_front()
    }

    /// Runs `f` on ledger `id` (`Closed` once detached) and hands on the
    /// events it raised; wakes the driver when the ledger's deadline moved.
    pub fn with_ledger<R>(&mut self, id: LedgerId, f: impl FnOnce(&mut AckLedger) -> R) -> Result<R, Error> {
        let ledger = self.session.ledger_mut(id).ok_or(Error::Closed)?;
        let deadline = ledger.poll_timeout();
        let result = f(ledger);
        let moved = ledger.poll_timeout() != deadline;
        if let Some(events) = self.ledgers.get_mut(&id) {
            events.extend(std::iter::from_fn(|| AckLedger::poll_event(ledger)));
        }
        if moved {
            self.wake_driver();
        }
        Ok(result)
    }

    pub fn remove_ledger(&mut self, id: LedgerId) {
        self.session.remove_ledger(id);
        self.ledgers.remove(&id);
    }

    /// The soonest deadline of the session.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.session.poll_deadline().map(|d| d.at)
    }

    /// Fires what is due at `now`, in the connection and in readers.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.session.handle_timeout(now);
        self.hurry |= self.session.take_pulled();
    }

    /// Ends a subscription whose first message did not come in time.
    fn end_silent_subscription(&mut self, sid: Sid) {
        let Some(at) = self.timed_out.iter().position(|(id, _)| *id == sid) else { return };
        let (_, timed_out) = self.timed_out.swap_remove(at);
        // Gone meanwhile (unsubscribed, ended by the server): nothing to end.
        if let Some(sub) = self.subs.remove(&sid) {
            timed_out.store(true, Ordering::Release);
            sub.queue.close();
            let _ = self.session.unsubscribe(sid, None);
        }
    }

    fn deliver(&mut self, sid: Sid, message: Message) {
        let Some(sub) = self.subs.get_mut(&sid) else { return };
        if !self.timed_out.is_empty() {
            // The first message disarmed the timeout.
            self.timed_out.retain(|(id, _)| *id != sid);
        }
        if sub.queue.push(message).is_err() {
            if sub.queue.is_closed() {
                return;
            }
            let dropped = sub.queue.dropped();
            // Report the first drop and then every 1000th, not every message.
            if dropped == 1 || dropped % 1000 == 0 {
                self.notify(ConnectionEvent::SlowConsumer { sid: sid.0, dropped });
            }
        }
    }

    fn on_connection_event(&mut self, event: ConnectionEvent) {
        match &event {
            ConnectionEvent::Connected { .. } => {
                if let Some(tx) = self.first_connect.take() {
                    let _ = tx.send(Ok(()));
                }
            }
            ConnectionEvent::Closed { error } => {
                if let Some(tx) = self.first_connect.take() {
                    let _ = tx.send(Err(error.clone().unwrap_or(Error::Closed)));
                }
                // Subscribers learn why (`Subscriber::closed_reason`).
                let why = error.clone().unwrap_or(Error::Closed);
                for (_, sub) in self.subs.drain() {
                    sub.queue.close_with(why.clone());
                }
                self.fail_all(Error::Closed);
            }
            _ => {}
        }
        self.notify(event);
    }

    /// Ends every waiter: the connection is gone for good.
    fn fail_all(&mut self, error: Error) {
        for (_, sub) in self.subs.drain() {
            sub.queue.close();
        }
        let ordered = self.ordered.drain().map(|(_, queues)| queues);
        for reader in self.readers.drain().map(|(_, queues)| queues).chain(ordered) {
            reader.close();
        }
        for (_, replies) in self.gathers.drain() {
            replies.close();
        }
        self.timed_out.clear();
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
