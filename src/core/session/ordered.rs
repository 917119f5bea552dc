//! Ordered readers (ADR-17) run by the session, continuous or one fetched
//! batch, so they recover whether or not their user polls. [`Ordered`] is
//! the sans-IO machine: its
//! [`OrderedCursor`] judges what the current consumer's reader has for the
//! user, so only in-order messages go on; a gap, missed heartbeats, a lost
//! consumer or a reconnect call for the next consumer; a create that failed
//! or went unanswered waits for the cursor's retry time on its own
//! [`OrderedTimer`]s, folded with the session's other deadlines. A fetch
//! ends where its pull does; one that loses its consumer or meets a gap ends
//! early (the next read makes a new consumer), but one whose connection came
//! back fetches the rest of its batch from a new consumer. The
//! session does the I/O it asks for: retiring the reader, sending the
//! create of the next consumer (deleting the old one, best effort) through
//! the connection's request path, starting the next reader.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use super::{Item, Reader, Route, Session, SessionEvent};
use crate::core::conn::{Connection, RequestId, Sid};
use crate::core::error::Error;
use crate::core::jetstream::api::{self, ConsumerAction, ConsumerInfo, CreateConsumerRequest};
use crate::core::jetstream::ordered::{OrderedCursor, Verdict, delivery_numbers};
use crate::core::jetstream::pull::{ConsumeOptions, ConsumerEvent, FetchOptions, PullConsumer};
use crate::core::jetstream::push::{PushInbox, PushOptions};
use crate::core::jetstream::read_mark::ReadMark;
use crate::core::machine::{Link, Machine};
use crate::core::message::Message;
use crate::core::time::{Clock, Instant};
use crate::core::timer::{Deadline, TimerKind, TimerTable};

/// An ordered reader attached to a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderedId(u64);

/// Why an ordered read wants to be woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderedTimer {
    /// Its create went unanswered this long: it counts as failed.
    CreateTimeout,
    /// A failed create is tried again.
    Retry,
}

impl TimerKind for OrderedTimer {
    const ALL: &'static [OrderedTimer] = &[OrderedTimer::CreateTimeout, OrderedTimer::Retry];

    fn index(self) -> usize {
        self as usize
    }
}

/// What the consumers of an ordered read are read with.
pub(crate) enum OrderedMode {
    /// Pull consumers, read continuously.
    Consume(ConsumeOptions),
    /// Push consumers; the user's stream counts what it takes in the mark
    /// (their flow control waits for it).
    Push(Arc<ReadMark>),
    /// One batch, pulled from one consumer or (after a reconnect) the rest
    /// of it from the next.
    Fetch(FetchOptions),
}

/// What the user gets back from an ordered read it stops.
pub struct RetiredOrdered {
    /// Where the read got to.
    pub cursor: OrderedCursor,
    /// The last consumer made, if any.
    pub current: Option<ConsumerInfo>,
    /// The last consumer can serve the next read: a fetch ended with its
    /// pull, nothing left in flight (a consume always pulls ahead).
    pub reusable: bool,
}

/// Where an ordered read makes its consumers, and how it reads them.
pub(crate) struct OrderedSpec {
    pub api_prefix: String,
    pub stream: String,
    pub mode: OrderedMode,
    /// How long a create may stay unanswered before it counts as failed.
    pub create_timeout: Duration,
}

/// The machine of one ordered read.
pub(super) struct Ordered {
    spec: OrderedSpec,
    cursor: OrderedCursor,
    /// The last consumer made.
    current: Option<ConsumerInfo>,
    phase: Phase,
    /// Messages handed to the user: where a new push reader's count of
    /// taken messages starts.
    delivered: u64,
    /// The bytes of those, as the server counts them: what is left of a
    /// fetch's `max_bytes`.
    delivered_bytes: u64,
    /// A fetch ended with its pull.
    fetched: bool,
    clock: Clock,
    timers: TimerTable<OrderedTimer>,
    /// What its timers and the link ask of the session, in order.
    wants: VecDeque<Want>,
}

enum Phase {
    Reading(Sid),
    /// The create was sent; it fails at [`OrderedTimer::CreateTimeout`].
    Creating(RequestId),
    /// Waiting for [`OrderedTimer::Retry`] to send the create again.
    Waiting,
    /// Ended with an error; the user's stream ends after what it holds.
    Ended,
}

/// What an ordered read is shown: what its reader has for the user, and the
/// answer to its create.
pub(super) enum Seen<'a> {
    Message(&'a Message),
    Event(&'a ConsumerEvent),
    /// The error that ended its reader.
    Failed(Error),
    /// Its reader finished without an error.
    Ended,
    /// Boxed: a consumer's info is most of a kilobyte.
    Created(Result<Box<ConsumerInfo>, Error>),
}

/// What the session does with what the ordered read was shown.
pub(super) enum Step {
    /// Nothing more (an event passed on, a retry armed).
    Pass,
    /// Hand the message to the user.
    Deliver,
    /// Drop the reader and make the next consumer.
    Reset,
    /// The consumer was made: read it.
    Start,
    /// Ended without an error: a fetch's batch is over.
    Finish,
    End(Error),
}

/// What an ordered read's timers and link ask of the session (its events).
pub(super) enum Want {
    /// Forget the create in flight: it counts as failed.
    Forget(RequestId),
    /// Send the create of the cursor's next consumer.
    Create,
    /// Drop the reader and make the next consumer.
    Reset,
    End(Error),
}

impl Ordered {
    fn new(now: Instant, spec: OrderedSpec, cursor: OrderedCursor, current: Option<ConsumerInfo>) -> Self {
        let (clock, timers, wants) = (Clock::new(now), TimerTable::default(), VecDeque::new());
        let phase = Phase::Ended;
        Ordered { spec, cursor, current, phase, delivered: 0, delivered_bytes: 0, fetched: false, clock, timers, wants }
    }

    fn is_fetch(&self) -> bool {
        matches!(self.spec.mode, OrderedMode::Fetch(_))
    }

    /// What a fetch still has to read: its options less what was delivered,
    /// `None` once nothing is left (or for a continuous read).
    fn rest(&self) -> Option<FetchOptions> {
        let OrderedMode::Fetch(options) = &self.spec.mode else { return None };
        let max_messages = options.max_messages.checked_sub(self.delivered).filter(|n| *n > 0)?;
        let max_bytes = match options.max_bytes {
            Some(max) => Some(max.checked_sub(self.delivered_bytes).filter(|n| *n > 0)?),
            None => None,
        };
        Some(FetchOptions { max_messages, max_bytes, ..options.clone() })
    }

    /// The create `request` was sent at `now`.
    fn creating(&mut self, now: Instant, request: RequestId) {
        let now = self.clock.advance(now);
        self.phase = Phase::Creating(request);
        self.timers.stop_all();
        self.timers.set(OrderedTimer::CreateTimeout, Some(now + self.spec.create_timeout));
    }

    /// A create failed at `now`: a retry armed, or the error that ends the read.
    fn create_failed(&mut self, now: Instant, error: Error) -> Step {
        let now = self.clock.advance(now);
        self.timers.stop_all();
        match self.cursor.handle_create_failed(now, error) {
            Ok(at) => {
                self.phase = Phase::Waiting;
                self.timers.set(OrderedTimer::Retry, Some(at));
                Step::Pass
            }
            Err(e) => Step::End(e),
        }
    }

    /// What the cursor makes of what the read was shown.
    fn judge(&mut self, now: Instant, seen: Seen<'_>) -> Step {
        match seen {
            Seen::Message(message) => match delivery_numbers(message).map(|n| self.cursor.handle_delivery(n)) {
                Ok(Verdict::Deliver) => {
                    self.delivered += 1;
                    self.delivered_bytes += message.length as u64;
                    Step::Deliver
                }
                Ok(Verdict::Reset(_)) => Step::Reset,
                Err(e) => Step::End(e),
            },
            Seen::Event(event) => match self.cursor.handle_event(event) {
                Some(_) => Step::Reset,
                None => Step::Pass,
            },
            Seen::Failed(error) => match self.cursor.handle_reader_error(error) {
                Ok(_) => Step::Reset,
                Err(e) => Step::End(e),
            },
            // A fetch's pull ended; a continuous read reads on from a new consumer.
            Seen::Ended if self.is_fetch() => {
                self.fetched = true;
                Step::Finish
            }
            Seen::Ended => Step::Reset,
            Seen::Created(Ok(info)) => {
                self.cursor.handle_created();
                self.timers.stop_all();
                self.current = Some(*info);
                Step::Start
            }
            Seen::Created(Err(e)) => self.create_failed(now, e),
        }
    }

    /// Leaves the current phase: the one it was in, for the session to undo.
    fn leave(&mut self) -> Phase {
        self.timers.stop_all();
        std::mem::replace(&mut self.phase, Phase::Ended)
    }
}

impl Machine for Ordered {
    type Input<'a> = Seen<'a>;
    type Verdict = Step;
    type Event = Want;
    type Timer = OrderedTimer;

    /// A fetch ends early where a continuous read resets: a new consumer
    /// would meet the same trouble for a batch its user already waits on.
    fn handle_input(&mut self, now: Instant, seen: Seen<'_>) -> Step {
        self.clock.advance(now);
        match self.judge(now, seen) {
            Step::Reset if self.is_fetch() => Step::Finish,
            step => step,
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        if self.timers.take_due(OrderedTimer::CreateTimeout, now) {
            if let Phase::Creating(request) = self.phase {
                self.wants.push_back(Want::Forget(request));
            }
            if let Step::End(e) = self.create_failed(now, Error::Timeout) {
                self.wants.push_back(Want::End(e));
            }
        }
        if self.timers.take_due(OrderedTimer::Retry, now) {
            self.wants.push_back(Want::Create);
        }
    }

    /// A create in flight was lost with the connection: it goes again. So
    /// was a fetch's pull, and maybe its memory consumer: the rest of the
    /// batch comes from the next. (A continuous reader's own reset says so.)
    fn handle_link(&mut self, now: Instant, link: Link) {
        self.clock.advance(now);
        match self.phase {
            Phase::Creating(_) if link == Link::Up => self.wants.push_back(Want::Create),
            Phase::Reading(_) if link == Link::Up && self.is_fetch() => self.wants.push_back(Want::Reset),
            _ => {}
        }
    }

    fn poll_event(&mut self) -> Option<Want> {
        self.wants.pop_front()
    }

    fn poll_deadline(&self) -> Option<Deadline<OrderedTimer>> {
        self.timers.next()
    }
}

impl Session {
    /// Starts an ordered read: on `current`, a consumer the cursor made
    /// and nothing read yet (a reader that cannot start on it is refused
    /// here), or else on the cursor's next consumer.
    pub(crate) fn attach_ordered(
        &mut self,
        now: Instant,
        spec: OrderedSpec,
        cursor: OrderedCursor,
        current: Option<ConsumerInfo>,
    ) -> Result<OrderedId, Error> {
        let fresh = current.is_some();
        self.next_ordered += 1;
        let id = OrderedId(self.next_ordered);
        self.ordered.insert(id, Ordered::new(now, spec, cursor, current));
        if !fresh {
            self.create_ordered(now, id);
        } else if let Err(e) = self.start_ordered_reader(now, id) {
            self.ordered.remove(&id);
            return Err(e);
        }
        Ok(id)
    }

    /// The user of ordered read `id` took `msgs` messages of `bytes`.
    pub fn ordered_taken(&mut self, now: Instant, id: OrderedId, msgs: u64, bytes: u64) -> bool {
        match self.ordered.get(&id).map(|o| &o.phase) {
            Some(Phase::Reading(sid)) => {
                let sid = *sid;
                self.reader_taken(now, sid, msgs, bytes)
            }
            _ => false,
        }
    }

    /// The name of the last consumer ordered read `id` made (while the
    /// next is being made, the one it replaces).
    pub fn ordered_consumer_name(&self, id: OrderedId) -> Option<String> {
        self.ordered.get(&id).and_then(|o| o.current.as_ref()).map(|c| c.name.clone())
    }

    /// Detaches ordered read `id` (its user stopped): where it got to, for
    /// the next read.
    pub fn retire_ordered(&mut self, id: OrderedId) -> Option<RetiredOrdered> {
        let mut ordered = self.ordered.remove(&id)?;
        let reusable = ordered.fetched && matches!(ordered.phase, Phase::Ended);
        self.undo_phase(ordered.leave());
        Some(RetiredOrdered { cursor: ordered.cursor, current: ordered.current, reusable })
    }

    /// Does what ordered read `id`'s timers and link asked for.
    pub(super) fn ordered_output(&mut self, now: Instant, id: OrderedId) {
        while let Some(want) = self.ordered.get_mut(&id).and_then(Machine::poll_event) {
            match want {
                Want::Forget(request) => self.conn.cancel_request(request),
                Want::Create => self.create_ordered(now, id),
                Want::Reset => self.reset_ordered(now, id),
                Want::End(e) => self.end_ordered(id, e),
            }
        }
    }

    /// The connection is back: a create in flight was lost with it.
    pub(super) fn ordered_link(&mut self, now: Instant, link: Link) {
        let ids: Vec<OrderedId> = self.ordered.keys().copied().collect();
        for id in ids {
            if let Some(ordered) = self.ordered.get_mut(&id) {
                ordered.handle_link(now, link);
            }
            self.ordered_output(now, id);
        }
    }

    /// The answer to a create, if `request` was one.
    pub(super) fn ordered_answer(&mut self, now: Instant, request: RequestId, result: &Result<Message, Error>) -> bool {
        let Some(id) = self.ordered_by(|phase| matches!(phase, Phase::Creating(r) if *r == request)) else {
            return false;
        };
        let info = match result {
            // The server's error first: the info parser would only say a field is missing.
            Ok(reply) => api::check_response(&reply.payload)
                .and_then(|()| ConsumerInfo::from_json_core(&reply.payload))
                .map(Box::new),
            Err(e) => Err(e.clone()),
        };
        let Some(ordered) = self.ordered.get_mut(&id) else { return true };
        match ordered.handle_input(now, Seen::Created(info)) {
            Step::Start => {
                let name = ordered.current.as_ref().map(|c| c.name.clone()).unwrap_or_default();
                self.events.push_back(SessionEvent::Routed {
                    to: Route::Ordered(id),
                    item: Item::Consumer(ConsumerEvent::OrderedRecreated { name }),
                });
                if let Err(e) = self.start_ordered_reader(now, id) {
                    self.end_ordered(id, e);
                }
            }
            Step::End(e) => self.end_ordered(id, e),
            _ => {}
        }
        true
    }

    /// Judges what a reader had for its user, if the reader is an ordered
    /// read's: only in-order messages and the events go on, as that read's.
    /// Called only while ordered reads are attached.
    pub(super) fn route_ordered(&mut self, now: Instant, event: SessionEvent) -> Option<SessionEvent> {
        let (sid, item) = match event {
            SessionEvent::Routed { to: Route::Reader(sid), item } => (sid, item),
            event => return Some(event),
        };
        let Some(id) = self.ordered_by(|phase| matches!(phase, Phase::Reading(s) if *s == sid)) else {
            return Some(SessionEvent::Routed { to: Route::Reader(sid), item });
        };
        let ordered = self.ordered.get_mut(&id)?;
        let step = match item {
            Item::Message(message) => match ordered.handle_input(now, Seen::Message(&message)) {
                Step::Deliver => {
                    return Some(SessionEvent::Routed { to: Route::Ordered(id), item: Item::Message(message) });
                }
                step => step,
            },
            Item::Failed(error) => ordered.handle_input(now, Seen::Failed(error)),
            Item::Consumer(event) => {
                let step = ordered.handle_input(now, Seen::Event(&event));
                self.events.push_back(SessionEvent::Routed { to: Route::Ordered(id), item: Item::Consumer(event) });
                step
            }
            Item::Ended => ordered.handle_input(now, Seen::Ended),
            // A reader has no ledger events.
            Item::Ledger(_) => Step::Pass,
        };
        match step {
            Step::Reset => self.reset_ordered(now, id),
            Step::Finish => self.finish_ordered(id),
            Step::End(e) => self.end_ordered(id, e),
            Step::Pass | Step::Deliver | Step::Start => {}
        }
        None
    }

    /// The ordered read in `phase` (reading from a sid, or awaiting a
    /// create): a scan, as there are a few at most, which saves the wasm
    /// two maps kept in step with the phases.
    fn ordered_by(&self, phase: impl Fn(&Phase) -> bool) -> Option<OrderedId> {
        self.ordered.iter().find(|(_, o)| phase(&o.phase)).map(|(id, _)| *id)
    }

    /// Drops the current reader and makes the next consumer.
    fn reset_ordered(&mut self, now: Instant, id: OrderedId) {
        let Some(left) = self.ordered.get_mut(&id).map(Ordered::leave) else { return };
        self.undo_phase(left);
        self.create_ordered(now, id);
    }

    /// Retires the reader or forgets the create of a phase left.
    fn undo_phase(&mut self, left: Phase) {
        match left {
            Phase::Reading(sid) => {
                if let Some(reader) = self.readers.remove(&sid) {
                    reader.retire(sid, &mut self.conn, &mut self.probes);
                }
            }
            Phase::Creating(request) => self.conn.cancel_request(request),
            Phase::Waiting | Phase::Ended => {}
        }
    }

    /// Sends the create of the cursor's next consumer, and the delete of the last.
    fn create_ordered(&mut self, now: Instant, id: OrderedId) {
        let Some(ordered) = self.ordered.get_mut(&id) else { return };
        let spec = &ordered.spec;
        if let Some(old) = &ordered.current {
            // Best effort, unanswered: an unread consumer also expires by itself.
            if let Ok(subject) = api::consumer_delete(&spec.api_prefix, &spec.stream, &old.name) {
                if let Ok(request) = self.conn.request(&subject, None, b"") {
                    self.conn.cancel_request(request);
                }
            }
        }
        let config = ordered.cursor.next_consumer();
        let sent = api::consumer_create(&spec.api_prefix, &spec.stream, &config).and_then(|subject| {
            let request =
                CreateConsumerRequest { stream_name: spec.stream.clone(), config, action: ConsumerAction::Create };
            let body =
                serde_json::to_vec(&request).map_err(|_| Error::InvalidArgument("cannot encode request".into()))?;
            self.conn.request(&subject, None, &body)
        });
        let failed = match sent {
            Ok(request) => {
                ordered.creating(now, request);
                return;
            }
            Err(e) => ordered.create_failed(now, e),
        };
        if let Step::End(e) = failed {
            self.end_ordered(id, e);
        }
    }

    /// Ends ordered read `id` with `error`; it stays attached (its cursor
    /// is its user's) until [`retire_ordered`](Self::retire_ordered).
    fn end_ordered(&mut self, id: OrderedId, error: Error) {
        let Some(left) = self.ordered.get_mut(&id).map(Ordered::leave) else { return };
        self.undo_phase(left);
        self.events.push_back(SessionEvent::Routed { to: Route::Ordered(id), item: Item::Failed(error) });
        self.events.push_back(SessionEvent::Routed { to: Route::Ordered(id), item: Item::Ended });
    }

    /// Ends ordered read `id` without an error: a fetch's batch is over.
    fn finish_ordered(&mut self, id: OrderedId) {
        let Some(left) = self.ordered.get_mut(&id).map(Ordered::leave) else { return };
        self.undo_phase(left);
        self.events.push_back(SessionEvent::Routed { to: Route::Ordered(id), item: Item::Ended });
    }

    /// Starts a reader on the current consumer (a fetch with nothing left
    /// to read is over instead).
    fn start_ordered_reader(&mut self, now: Instant, id: OrderedId) -> Result<(), Error> {
        let Some(ordered) = self.ordered.get_mut(&id) else { return Ok(()) };
        let Some(info) = &ordered.current else { return Ok(()) };
        let rest = ordered.rest();
        if ordered.is_fetch() && rest.is_none() {
            self.finish_ordered(id);
            return Ok(());
        }
        let (sid, reader) = subscribe_reader(&mut self.conn, now, (&ordered.spec, rest), info, ordered.delivered)?;
        ordered.phase = Phase::Reading(sid);
        self.readers.insert(sid, reader);
        self.drive_reader(sid);
        Ok(())
    }
}

/// A reader of `info`'s consumer, subscribed to where its messages come.
fn subscribe_reader(
    conn: &mut Connection,
    now: Instant,
    (spec, rest): (&OrderedSpec, Option<FetchOptions>),
    info: &ConsumerInfo,
    delivered: u64,
) -> Result<(Sid, Reader), Error> {
    match &spec.mode {
        OrderedMode::Fetch(options) => {
            let machine = PullConsumer::fetch(now, rest.unwrap_or_else(|| options.clone()))?;
            let next_subject = api::consumer_next(&spec.api_prefix, &spec.stream, &info.name)?;
            let inbox = conn.new_inbox();
            let sid = conn.subscribe(&inbox, None)?;
            Ok((sid, Reader::pull(machine, next_subject, inbox, None)))
        }
        OrderedMode::Consume(options) => {
            let mut machine = PullConsumer::consume(now, options.clone())?;
            machine.track_buffered();
            let next_subject = api::consumer_next(&spec.api_prefix, &spec.stream, &info.name)?;
            let inbox = conn.new_inbox();
            let sid = conn.subscribe(&inbox, None)?;
            Ok((sid, Reader::pull(machine, next_subject, inbox, None)))
        }
        OrderedMode::Push(mark) => {
            let Some(deliver_subject) = info.config.deliver_subject.as_deref() else {
                return Err(Error::InvalidArgument(format!("consumer {:?} is not a push consumer", info.name)));
            };
            let info_subject = api::consumer_info(&spec.api_prefix, &spec.stream, &info.name)?;
            let heartbeat = Some(info.config.idle_heartbeat).filter(|hb| !hb.is_zero());
            let sid = conn.subscribe(deliver_subject, None)?;
            let inbox = PushInbox::new(now, heartbeat, PushOptions::default());
            Ok((sid, Reader::push(inbox, Some(info_subject), mark.clone()).counting_from(delivered)))
        }
    }
}
