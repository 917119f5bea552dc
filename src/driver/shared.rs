//! State shared between the user-facing handles (Client, Subscriber) and the
//! driver task: the sans-IO connection plus the waiters for its results.
//! Every user command locks it, calls the connection, and wakes the driver;
//! the driver locks it to feed input and drain output. Nothing here blocks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;

use futures_channel::oneshot;

use super::queue::{self, Queue};
use crate::client::{FirstMessageTimer, GatherKey, GatherSlot};
use crate::conn::{Connection, ConnectionEvent, Event, FlushId, RequestId, Sid, State};
use crate::error::Error;
use crate::id_map::IdMap;
use crate::jetstream::ack::{Ack, AckLedger};
use crate::jetstream::reader::slot::{self, ReaderSlot};
use crate::message::Message;
use crate::time::{Instant, soonest};

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

pub(crate) struct Subscription {
    /// Bounded in messages and bytes; it counts what it drops.
    pub queue: Arc<Queue<Message>>,
}

pub(crate) struct Inner {
    pub conn: Connection,
    pub subs: IdMap<Sid, Subscription>,
    /// JetStream pull and push readers, ticked here so their heartbeats,
    /// refills and flow-control replies never wait on the user.
    pub readers: IdMap<Sid, ReaderSlot>,
    /// Checkpoint ledgers, whose `+WPI`s go out from the driver's clock.
    ledgers: IdMap<u64, AckLedger>,
    next_ledger: u64,
    pub requests: IdMap<RequestId, Answer>,
    /// Answers ready to go out: the driver sends them once it lets go of the
    /// lock, so a requester woken on another thread does not find it held.
    pub answered: Vec<Answered>,
    /// Requests for many replies, whose end rules tick here.
    pub gathers: IdMap<GatherKey, GatherSlot>,
    /// Subscriptions still waiting for their first message under a timeout
    /// (nats.js `SubOpts.timeout`), with the flag their `Subscriber` reads;
    /// a few at most, so a plain list.
    pub first_messages: Vec<(Sid, FirstMessageTimer, Arc<AtomicBool>)>,
    pub flushes: IdMap<FlushId, oneshot::Sender<Result<(), Error>>>,
    /// Resolves `connect()`: the first Connected or Closed.
    pub first_connect: Option<oneshot::Sender<Result<(), Error>>>,
    /// Resolve when the connection is closed for good.
    pub closed_waiters: Vec<oneshot::Sender<()>>,
    /// Publishers waiting for the outgoing buffer to drain.
    pub space_waiters: Vec<Waker>,
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
    pub writes_held: bool,
    /// Output the server waits on (a pull request) is queued: the transport
    /// sends what it holds back at once instead of at the end of the task,
    /// so the server is not left idle while the user works through a batch.
    pub hurry: bool,
    pub callback: Option<EventCallback>,
    /// Events for the callback, delivered by the driver outside the lock.
    pub callback_queue: Vec<ConnectionEvent>,
    /// `Client::drain` was called.
    pub draining: bool,
}

/// Buffered bytes above which publishers wait for the writer.
pub(crate) const HIGH_WATER: usize = 4 * 1024 * 1024;

pub(crate) struct Shared {
    inner: Mutex<Inner>,
}

impl Shared {
    // In wasm the event callback is a JS function (not Send); there is one thread.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    pub fn new(conn: Connection, callback: Option<EventCallback>) -> (Arc<Self>, oneshot::Receiver<Result<(), Error>>) {
        let (tx, rx) = oneshot::channel();
        let inner = Inner {
            conn,
            subs: IdMap::default(),
            readers: IdMap::default(),
            ledgers: IdMap::default(),
            next_ledger: 0,
            requests: IdMap::default(),
            answered: Vec::new(),
            gathers: IdMap::default(),
            first_messages: Vec::new(),
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
            draining: false,
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
    pub fn publishers_wait(&self) -> bool {
        let high_water = HIGH_WATER.min(self.conn.outgoing_buffer_size());
        self.conn.state() == State::Connected && self.conn.pending_bytes() >= high_water
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
        while let Some(event) = self.conn.poll_event() {
            match event {
                Event::Message { sid, message } => match self.readers.get_mut(&sid) {
                    Some(reader) => {
                        if let Some(dropped) = reader.handle_message(now, message) {
                            self.notify(ConnectionEvent::SlowConsumer { sid: sid.0, dropped });
                        }
                        self.drive_reader(sid);
                    }
                    None => match self.gathers.get_mut(&GatherKey::Sub(sid)) {
                        Some(gather) => {
                            gather.handle_sub_message(now, message);
                            self.retire_gather_if_finished(GatherKey::Sub(sid));
                        }
                        None => self.deliver(sid, message),
                    },
                },
                Event::SubscriptionEnded { sid } => {
                    if let Some(sub) = self.subs.remove(&sid) {
                        sub.queue.close();
                    }
                }
                Event::Response { id, result } => {
                    if let Some(gather) = self.gathers.get_mut(&GatherKey::Request(id)) {
                        gather.handle(now, result);
                        self.retire_gather_if_finished(GatherKey::Request(id));
                    } else if let Some(answer) = self.requests.remove(&id) {
                        self.answered.push((answer, id, result));
                    } else {
                        self.answer_probe(id, &result);
                    }
                }
                Event::Flushed { id, result } => {
                    if let Some(tx) = self.flushes.remove(&id) {
                        let _ = tx.send(result);
                    }
                }
                Event::Connection(event) => self.on_connection_event(now, event),
            }
        }
        if !self.publishers_wait() {
            for w in self.space_waiters.drain(..) {
                w.wake();
            }
        }
    }

    /// Publishes what a reader asks for; retires it when it is done.
    pub fn drive_reader(&mut self, sid: Sid) {
        let Some(reader) = self.readers.get_mut(&sid) else { return };
        let driven = reader.drive(&mut self.conn);
        self.hurry |= driven.pulled;
        if driven.finished {
            self.retire_reader(sid);
        }
    }

    /// Removes a reader and its subscription, ending its streams.
    pub fn retire_reader(&mut self, sid: Sid) {
        if let Some(reader) = self.readers.remove(&sid) {
            reader.close();
            slot::retire(&mut self.conn, sid, &reader);
        }
    }

    /// Hands an answer nobody else waits for to the push reader that
    /// probed its consumer (rare: only after missed heartbeats).
    fn answer_probe(&mut self, id: RequestId, result: &Result<Message, Error>) {
        let Some(sid) = self.readers.iter_mut().find_map(|(sid, r)| r.handle_response(id, result).then_some(*sid))
        else {
            return;
        };
        self.drive_reader(sid);
    }

    /// Forgets a request for many replies once its end rules ended it.
    fn retire_gather_if_finished(&mut self, key: GatherKey) {
        if self.gathers.get(&key).is_some_and(GatherSlot::is_finished) {
            self.gathers.remove(&key);
            self.forget_gather(key);
        }
    }

    /// Stops the replies of a request for many that ended.
    pub fn forget_gather(&mut self, key: GatherKey) {
        match key {
            GatherKey::Request(id) => self.conn.cancel_request(id),
            GatherKey::Sub(sid) => {
                let _ = self.conn.unsubscribe(sid, None);
            }
        }
    }

    pub fn add_ledger(&mut self, ledger: AckLedger) -> u64 {
        self.next_ledger += 1;
        self.ledgers.insert(self.next_ledger, ledger);
        self.next_ledger
    }

    pub fn ledger_mut(&mut self, id: u64) -> Option<&mut AckLedger> {
        self.ledgers.get_mut(&id)
    }

    pub fn remove_ledger(&mut self, id: u64) {
        self.ledgers.remove(&id);
    }

    /// Publishes the `+WPI`s the ledgers have due.
    fn send_progress(&mut self) {
        let body = Ack::Progress.body();
        for ledger in self.ledgers.values_mut() {
            while let Some(tokens) = ledger.poll_progress() {
                for token in tokens {
                    let _ = self.conn.publish(token.subject(), None, None, &body);
                }
            }
        }
    }

    /// The soonest deadline of the connection, readers and ledgers.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let at = self.readers.values().fold(self.conn.poll_timeout(), |at, r| soonest(at, r.poll_timeout()));
        let at = self.ledgers.values().fold(at, |at, ledger| soonest(at, ledger.poll_timeout()));
        let at = self.first_messages.iter().fold(at, |at, (_, timer, _)| soonest(at, timer.poll_timeout()));
        self.gathers.values().fold(at, |at, gather| soonest(at, gather.poll_timeout()))
    }

    /// Fires what is due at `now`, in the connection and in readers.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.conn.poll_timeout().is_some_and(|at| at <= now) {
            self.conn.handle_timeout(now);
        }
        let due: Vec<Sid> = self
            .readers
            .iter()
            .filter(|(_, p)| p.poll_timeout().is_some_and(|at| at <= now))
            .map(|(sid, _)| *sid)
            .collect();
        for sid in due {
            if let Some(reader) = self.readers.get_mut(&sid) {
                reader.handle_timeout(now);
            }
            self.drive_reader(sid);
        }
        for ledger in self.ledgers.values_mut() {
            if ledger.poll_timeout().is_some_and(|at| at <= now) {
                ledger.handle_timeout(now);
            }
        }
        self.send_progress();
        let due: Vec<GatherKey> = self
            .gathers
            .iter()
            .filter(|(_, g)| g.poll_timeout().is_some_and(|at| at <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            if let Some(gather) = self.gathers.get_mut(&id) {
                gather.handle_timeout(now);
            }
            self.retire_gather_if_finished(id);
        }
        self.end_silent_subscriptions(now);
    }

    /// Ends the subscriptions whose first message did not come in time.
    fn end_silent_subscriptions(&mut self, now: Instant) {
        let mut i = 0;
        while let Some((sid, timer, timed_out)) = self.first_messages.get_mut(i) {
            timer.handle_timeout(now);
            if !timer.is_expired() {
                i += 1;
                continue;
            }
            let (sid, timed_out) = (*sid, timed_out.clone());
            self.first_messages.swap_remove(i);
            // Gone meanwhile (unsubscribed, ended by the server): nothing to end.
            if let Some(sub) = self.subs.remove(&sid) {
                timed_out.store(true, Ordering::Release);
                sub.queue.close();
                let _ = self.conn.unsubscribe(sid, None);
            }
        }
    }

    fn deliver(&mut self, sid: Sid, message: Message) {
        let Some(sub) = self.subs.get_mut(&sid) else { return };
        if !self.first_messages.is_empty() {
            // The first message disarms the timeout.
            self.first_messages.retain(|(id, ..)| *id != sid);
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

    fn on_connection_event(&mut self, now: Instant, event: ConnectionEvent) {
        match &event {
            ConnectionEvent::Disconnected { .. } => {
                self.readers_each(|r| r.handle_disconnected(now));
                self.ledgers.values_mut().for_each(|l| l.handle_disconnected(now));
            }
            ConnectionEvent::Reconnected { .. } => {
                self.readers_each(|r| r.handle_reconnected(now));
                self.ledgers.values_mut().for_each(|l| l.handle_reconnected(now));
                self.send_progress();
            }
            _ => {}
        }
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

    fn readers_each(&mut self, mut f: impl FnMut(&mut ReaderSlot)) {
        let sids: Vec<Sid> = self.readers.keys().copied().collect();
        for sid in sids {
            if let Some(reader) = self.readers.get_mut(&sid) {
                f(reader);
            }
            self.drive_reader(sid);
        }
    }

    /// Ends every waiter: the connection is gone for good.
    fn fail_all(&mut self, error: Error) {
        for (_, sub) in self.subs.drain() {
            sub.queue.close();
        }
        for (_, reader) in self.readers.drain() {
            reader.close();
        }
        for (_, gather) in self.gathers.drain() {
            gather.close();
        }
        self.first_messages.clear();
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
