//! Ordered readers (ADR-17) run by the session, so they recover whether or
//! not their user polls: the [`OrderedCursor`] judges every message of the
//! current consumer's reader here, so only in-order messages reach the
//! user; a gap, missed heartbeats, a lost consumer or a reconnect retire
//! that reader and send the create of the next consumer (deleting the old
//! one, best effort) through the connection's request path; a failed
//! create waits for the cursor's retry time as a [`Wake::Ordered`]
//! deadline, folded with the others.

use std::sync::Arc;
use std::time::Duration;

use super::{Reader, Session, SessionEvent, Wake};
use crate::core::conn::{Connection, RequestId, Sid};
use crate::core::error::Error;
use crate::core::jetstream::api::{self, ConsumerAction, ConsumerInfo, CreateConsumerRequest};
use crate::core::jetstream::ordered::{OrderedCursor, Verdict, delivery_numbers};
use crate::core::jetstream::pull::{ConsumeOptions, ConsumerEvent, PullConsumer};
use crate::core::jetstream::push::{PushInbox, PushOptions};
use crate::core::jetstream::read_mark::ReadMark;
use crate::core::message::Message;
use crate::core::time::Instant;
use crate::core::timer::Deadline;

/// An ordered reader attached to a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderedId(u64);

/// What the consumers of an ordered read are read with.
pub(crate) enum OrderedMode {
    /// Pull consumers, read continuously.
    Consume(ConsumeOptions),
    /// Push consumers; the user's stream counts what it takes in the mark
    /// (their flow control waits for it).
    Push(Arc<ReadMark>),
}

/// Where an ordered read makes its consumers, and how it reads them.
pub(crate) struct OrderedSpec {
    pub api_prefix: String,
    pub stream: String,
    pub mode: OrderedMode,
    /// How long a create may stay unanswered before it counts as failed.
    pub create_timeout: Duration,
}

pub(super) struct Ordered {
    spec: OrderedSpec,
    cursor: OrderedCursor,
    /// The last consumer made.
    current: Option<ConsumerInfo>,
    phase: Phase,
    /// Messages handed to the user: where a new push reader's count of
    /// taken messages starts.
    delivered: u64,
}

enum Phase {
    Reading(Sid),
    /// The create was sent; past `until` it counts as lost.
    Creating {
        request: RequestId,
        until: Instant,
    },
    /// Retrying the create at this time.
    Waiting(Instant),
    /// Ended with an error; the user's stream ends after what it holds.
    Ended,
}

impl Ordered {
    pub(super) fn deadline(&self) -> Option<Instant> {
        match self.phase {
            Phase::Creating { until, .. } => Some(until),
            Phase::Waiting(at) => Some(at),
            Phase::Reading(_) | Phase::Ended => None,
        }
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
        let id = self.add_ordered(Ordered { spec, cursor, current, phase: Phase::Ended, delivered: 0 });
        if !fresh {
            self.create_ordered(now, id);
        } else if let Err(e) = self.start_ordered_reader(now, id) {
            self.ordered.remove(&id);
            return Err(e);
        }
        Ok(id)
    }

    fn add_ordered(&mut self, ordered: Ordered) -> OrderedId {
        self.next_ordered += 1;
        let id = OrderedId(self.next_ordered);
        self.ordered.insert(id, ordered);
        id
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

    /// Detaches ordered read `id` (its user stopped): its cursor and last
    /// consumer, for the next read.
    pub fn retire_ordered(&mut self, id: OrderedId) -> Option<(OrderedCursor, Option<ConsumerInfo>)> {
        let mut ordered = self.ordered.remove(&id)?;
        self.leave_phase(&mut ordered);
        Some((ordered.cursor, ordered.current))
    }

    pub(super) fn ordered_deadlines(&self, mut next: Option<Deadline<Wake>>) -> Option<Deadline<Wake>> {
        for (id, ordered) in self.ordered.iter() {
            let at = ordered.deadline().map(|at| Deadline { at, reason: Wake::Ordered(*id) });
            next = Deadline::soonest(next, at);
        }
        next
    }

    /// Retries the creates due at `now`; a create unanswered by then failed.
    pub(super) fn ordered_timeouts(&mut self, now: Instant) {
        let due: Vec<OrderedId> =
            self.ordered.iter().filter(|(_, o)| o.deadline().is_some_and(|at| at <= now)).map(|(id, _)| *id).collect();
        for id in due {
            let Some(ordered) = self.ordered.get_mut(&id) else { continue };
            match ordered.phase {
                Phase::Creating { request, .. } => {
                    self.conn.cancel_request(request);
                    self.create_failed(now, id, Error::Timeout);
                }
                _ => self.create_ordered(now, id),
            }
        }
    }

    /// The connection is back: a create in flight was lost with it.
    pub(super) fn ordered_reconnected(&mut self, now: Instant) {
        let lost: Vec<OrderedId> =
            self.ordered.iter().filter(|(_, o)| matches!(o.phase, Phase::Creating { .. })).map(|(id, _)| *id).collect();
        for id in lost {
            self.create_ordered(now, id);
        }
    }

    /// The answer to a create, if `request` was one.
    pub(super) fn ordered_answer(&mut self, now: Instant, request: RequestId, result: &Result<Message, Error>) -> bool {
        let Some(id) = self.ordered_by(|phase| matches!(phase, Phase::Creating { request: r, .. } if *r == request))
        else {
            return false;
        };
        let info = match result {
            // The server's error first: the info parser would only say a field is missing.
            Ok(reply) => {
                api::check_response(&reply.payload).and_then(|()| ConsumerInfo::from_json_core(&reply.payload))
            }
            Err(e) => Err(e.clone()),
        };
        match info {
            Ok(info) => {
                let Some(ordered) = self.ordered.get_mut(&id) else { return true };
                ordered.cursor.handle_created();
                let name = info.name.clone();
                ordered.current = Some(info);
                self.events
                    .push_back(SessionEvent::OrderedEvent { id, event: ConsumerEvent::OrderedRecreated { name } });
                if let Err(e) = self.start_ordered_reader(now, id) {
                    self.end_ordered(id, e);
                }
            }
            Err(e) => self.create_failed(now, id, e),
        }
        true
    }

    /// Judges what a reader had for its user, if the reader is an ordered
    /// read's: only in-order messages and the events go on, as that read's.
    /// Called only while ordered reads are attached.
    pub(super) fn route_ordered(&mut self, now: Instant, event: SessionEvent) -> Option<SessionEvent> {
        let sid = match &event {
            SessionEvent::ReaderMessage { sid, .. }
            | SessionEvent::ReaderFailed { sid, .. }
            | SessionEvent::ReaderEvent { sid, .. }
            | SessionEvent::ReaderEnded { sid } => *sid,
            _ => return Some(event),
        };
        let Some(id) = self.ordered_by(|phase| matches!(phase, Phase::Reading(s) if *s == sid)) else {
            return Some(event);
        };
        let ordered = self.ordered.get_mut(&id)?;
        match event {
            SessionEvent::ReaderMessage { message, .. } => {
                let verdict = delivery_numbers(&message).map(|numbers| ordered.cursor.handle_delivery(numbers));
                match verdict {
                    Ok(Verdict::Deliver) => {
                        ordered.delivered += 1;
                        return Some(SessionEvent::OrderedMessage { id, message });
                    }
                    Ok(Verdict::Reset(_)) => self.reset_ordered(now, id),
                    Err(e) => self.end_ordered(id, e),
                }
            }
            SessionEvent::ReaderFailed { error, .. } => match ordered.cursor.handle_reader_error(error) {
                Ok(_) => self.reset_ordered(now, id),
                Err(e) => self.end_ordered(id, e),
            },
            SessionEvent::ReaderEvent { event, .. } => {
                let cause = ordered.cursor.handle_event(&event);
                self.events.push_back(SessionEvent::OrderedEvent { id, event });
                if cause.is_some() {
                    self.reset_ordered(now, id);
                }
            }
            // Finished without an error to judge: read on from a new consumer.
            _ => self.reset_ordered(now, id),
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
        let Some(mut ordered) = self.ordered.remove(&id) else { return };
        self.leave_phase(&mut ordered);
        self.ordered.insert(id, ordered);
        self.create_ordered(now, id);
    }

    /// Retires the reader or forgets the create of the phase left.
    fn leave_phase(&mut self, ordered: &mut Ordered) {
        match std::mem::replace(&mut ordered.phase, Phase::Ended) {
            Phase::Reading(sid) => {
                if let Some(reader) = self.readers.remove(&sid) {
                    reader.retire(sid, &mut self.conn, &mut self.probes);
                }
            }
            Phase::Creating { request, .. } => self.conn.cancel_request(request),
            Phase::Waiting(_) | Phase::Ended => {}
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
        match sent {
            Ok(request) => {
                ordered.phase = Phase::Creating { request, until: now + ordered.spec.create_timeout };
            }
            Err(e) => self.create_failed(now, id, e),
        }
    }

    fn create_failed(&mut self, now: Instant, id: OrderedId, error: Error) {
        let Some(ordered) = self.ordered.get_mut(&id) else { return };
        match ordered.cursor.handle_create_failed(now, error) {
            Ok(at) => ordered.phase = Phase::Waiting(at),
            Err(e) => self.end_ordered(id, e),
        }
    }

    /// Ends ordered read `id` with `error`; it stays attached (its cursor
    /// is its user's) until [`retire_ordered`](Self::retire_ordered).
    fn end_ordered(&mut self, id: OrderedId, error: Error) {
        let Some(mut ordered) = self.ordered.remove(&id) else { return };
        self.leave_phase(&mut ordered);
        self.ordered.insert(id, ordered);
        self.events.push_back(SessionEvent::OrderedFailed { id, error });
        self.events.push_back(SessionEvent::OrderedEnded { id });
    }

    /// Starts a reader on the current consumer.
    fn start_ordered_reader(&mut self, now: Instant, id: OrderedId) -> Result<(), Error> {
        let Some(ordered) = self.ordered.get_mut(&id) else { return Ok(()) };
        let Some(info) = &ordered.current else { return Ok(()) };
        let (sid, reader) = subscribe_reader(&mut self.conn, now, &ordered.spec, info, ordered.delivered)?;
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
    spec: &OrderedSpec,
    info: &ConsumerInfo,
    delivered: u64,
) -> Result<(Sid, Reader), Error> {
    match &spec.mode {
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
