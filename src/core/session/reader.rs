//! The sans-IO half of one JetStream reader attached to a session: the
//! [`PullConsumer`] of a pull reader or the [`PushInbox`] of a push
//! reader, with the subjects it publishes to. The session feeds it every
//! message on its subscription, the clock and the link, so heartbeats,
//! refills and flow-control replies never depend on how fast the user
//! reads; what it has for the user comes out as [`SessionEvent`]s.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{Item, Route, SessionEvent};
use crate::core::conn::{Connection, RequestId, Sid};
use crate::core::error::Error;
use crate::core::id_map::IdMap;
use crate::core::jetstream::api;
use crate::core::jetstream::pull::{self, ConsumerEvent, Delivery, FetchEnd, PullConsumer, PullStatus, StatusKind};
use crate::core::jetstream::push::{PushInbox, PushTimer};
use crate::core::jetstream::read_mark::ReadMark;
use crate::core::machine::{Link, Machine};
use crate::core::message::Message;
use crate::core::time::Instant;
use crate::core::timer::Deadline;

/// Why a reader wants to be woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderTimer {
    /// A pull reader's timer (retry, pull expiry, missed heartbeats).
    Pull(pull::Timer),
    /// A push reader's timer (missed heartbeats).
    Push(PushTimer),
}

/// The machine of a reader and what it publishes to.
pub struct Reader(Kind);

enum Kind {
    Pull {
        /// Boxed, as the push inbox: the map of readers stays small.
        machine: Box<PullConsumer>,
        /// `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`.
        next_subject: String,
        inbox: String,
        /// `$JS.API.CONSUMER.INFO.<stream>.<consumer>`, asked after a pull
        /// met no responders; none for an ordered read (it makes a new consumer).
        info_subject: Option<String>,
        /// The probe in flight.
        probe: Option<RequestId>,
    },
    Push {
        inbox: Box<PushInbox>,
        /// `$JS.API.CONSUMER.INFO.<stream>.<consumer>`, asked after missed
        /// heartbeats; none for a bound consumer.
        info_subject: Option<String>,
        /// The probe in flight.
        probe: Option<RequestId>,
        /// What the user took: the flow-control reply waits for it.
        mark: Arc<ReadMark>,
        /// What the mark had counted before this reader (an ordered read's
        /// earlier consumers).
        base: u64,
    },
}

/// What [`Reader::drive`] did.
pub(super) struct Driven {
    /// A pull request was published: the server waits for it to send more.
    pub pulled: bool,
    /// The reader is finished: its subscription can go.
    pub finished: bool,
}

/// Where a reader's outputs go: the session's event queue and its probes.
pub(super) struct Outputs<'a> {
    pub conn: &'a mut Connection,
    pub events: &'a mut VecDeque<SessionEvent>,
    pub probes: &'a mut IdMap<RequestId, Sid>,
}

impl Reader {
    /// A pull reader whose pulls ask for delivery to `inbox`.
    /// It asks `info_subject`, if any, whether the consumer is gone.
    pub fn pull(machine: PullConsumer, next_subject: String, inbox: String, info_subject: Option<String>) -> Self {
        Reader(Kind::Pull { machine: Box::new(machine), next_subject, inbox, info_subject, probe: None })
    }

    /// A push reader on a consumer's deliver subject, whose user's stream
    /// counts what it takes in `mark`.
    pub(crate) fn push(inbox: PushInbox, info_subject: Option<String>, mark: Arc<ReadMark>) -> Self {
        Reader(Kind::Push { inbox: Box::new(inbox), info_subject, probe: None, mark, base: 0 })
    }

    /// A push reader whose mark counts `taken` messages before its own.
    pub(super) fn counting_from(mut self, taken: u64) -> Self {
        if let Kind::Push { base, .. } = &mut self.0 {
            *base = taken;
        }
        self
    }

    /// The answer to this reader's probe.
    pub(super) fn handle_probe(&mut self, result: &Result<Message, Error>) {
        let answer = match result {
            Ok(reply) => api::check_response(&reply.payload),
            Err(e) => Err(e.clone()),
        };
        match &mut self.0 {
            Kind::Pull { machine, probe, .. } => {
                *probe = None;
                machine.handle_probe(answer);
            }
            Kind::Push { inbox, probe, .. } => {
                *probe = None;
                inbox.handle_probe(answer);
            }
        }
    }

    /// The user's full buffer refused a message (only a push reader's fills:
    /// a pull reader's pulls bound what comes).
    pub(super) fn handle_refused(&mut self) {
        if let Kind::Push { inbox, .. } = &mut self.0 {
            inbox.handle_refused();
        }
    }

    /// The user took `msgs` messages of `bytes` (pull readers refill by it).
    pub(super) fn handle_taken(&mut self, now: Instant, msgs: u64, bytes: u64) {
        if let Kind::Pull { machine, .. } = &mut self.0 {
            machine.handle_taken(now, msgs, bytes);
        }
    }

    /// Whether [`drive`](Self::drive) has anything to do after a message:
    /// a pull reader only when its machine has output, a push reader always
    /// (its flow-control reply waits on what the user took).
    pub(super) fn needs_drive(&self) -> bool {
        match &self.0 {
            Kind::Pull { machine, .. } => machine.has_output(),
            Kind::Push { .. } => true,
        }
    }

    /// Publishes what the machine asks for (pulls; flow-control replies and
    /// probes) and hands on its events.
    pub(super) fn drive(&mut self, sid: Sid, mut out: Outputs<'_>) -> Driven {
        match &mut self.0 {
            Kind::Pull { machine, next_subject, inbox, info_subject, probe } => {
                if let Some(info_subject) = info_subject.as_deref().filter(|_| machine.poll_probe()) {
                    send_probe(info_subject, probe, sid, &mut out);
                }
                drive_pull(machine, next_subject, inbox, sid, out)
            }
            Kind::Push { inbox, info_subject, probe, mark, base } => {
                let finished = drive_push(inbox, info_subject.as_deref(), probe, (mark, *base), sid, out);
                Driven { pulled: false, finished }
            }
        }
    }

    /// Unsubscribes a reader that is gone and forgets its probe.
    pub(super) fn retire(&self, sid: Sid, conn: &mut Connection, probes: &mut IdMap<RequestId, Sid>) {
        let _ = conn.unsubscribe(sid, None);
        if let Kind::Push { probe: Some(id), .. } | Kind::Pull { probe: Some(id), .. } = &self.0 {
            conn.cancel_request(*id);
            probes.remove(id);
        }
    }
}

/// Its input is every message on its subscription, its events the
/// consumer's (which the session hands on as it drives the reader).
impl Machine for Reader {
    type Input<'a> = &'a Message;
    type Verdict = Delivery;
    type Event = ConsumerEvent;
    type Timer = ReaderTimer;

    fn handle_input(&mut self, now: Instant, message: &Message) -> Delivery {
        match &mut self.0 {
            Kind::Pull { machine, .. } => machine.handle_input(now, message),
            Kind::Push { inbox, .. } => inbox.handle_input(now, message),
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        match &mut self.0 {
            Kind::Pull { machine, .. } => Machine::handle_timeout(machine.as_mut(), now),
            Kind::Push { inbox, .. } => Machine::handle_timeout(inbox.as_mut(), now),
        }
    }

    fn handle_link(&mut self, now: Instant, link: Link) {
        match &mut self.0 {
            Kind::Pull { machine, .. } => machine.handle_link(now, link),
            Kind::Push { inbox, .. } => inbox.handle_link(now, link),
        }
    }

    fn poll_event(&mut self) -> Option<ConsumerEvent> {
        match &mut self.0 {
            Kind::Pull { machine, .. } => Machine::poll_event(machine.as_mut()),
            Kind::Push { inbox, .. } => Machine::poll_event(inbox.as_mut()),
        }
    }

    fn poll_deadline(&self) -> Option<Deadline<ReaderTimer>> {
        match &self.0 {
            Kind::Pull { machine, .. } => machine.poll_deadline().map(|d| d.map(ReaderTimer::Pull)),
            Kind::Push { inbox, .. } => inbox.poll_deadline().map(|d| d.map(ReaderTimer::Push)),
        }
    }
}

fn drive_pull(machine: &mut PullConsumer, next_subject: &str, inbox: &str, sid: Sid, out: Outputs<'_>) -> Driven {
    let mut pulled = false;
    let failed = |error| SessionEvent::Routed { to: Route::Reader(sid), item: Item::Failed(error) };
    while let Some(pull) = machine.poll_pull() {
        if let Err(e) = out.conn.publish(next_subject, Some(inbox), None, &pull.to_json()) {
            out.events.push_back(failed(e));
            return Driven { pulled, finished: true };
        }
        pulled = true;
    }
    while let Some(event) = machine.poll_event() {
        match event {
            ConsumerEvent::Terminal(status) => {
                // A reader that keeps waiting reports it as an event only.
                if machine.is_finished() {
                    out.events.push_back(failed(status_error(&status)));
                }
                out.events.push_back(SessionEvent::Routed {
                    to: Route::Reader(sid),
                    item: Item::Consumer(ConsumerEvent::Terminal(status)),
                });
            }
            ConsumerEvent::FetchDone(FetchEnd::Status(status)) if !is_quiet_end(&status) => {
                out.events.push_back(failed(status_error(&status)));
            }
            ConsumerEvent::FetchDone(FetchEnd::HeartbeatsMissed) => out.events.push_back(failed(Error::Timeout)),
            event => out.events.push_back(SessionEvent::Routed { to: Route::Reader(sid), item: Item::Consumer(event) }),
        }
    }
    // The end is set only when the machine finishes: no Option<Error> to drop per message.
    let finished = machine.is_finished();
    if finished {
        if let Some(error) = machine.poll_end() {
            out.events.push_back(failed(error));
        }
    }
    Driven { pulled, finished }
}

/// Whether the push reader finished.
fn drive_push(
    inbox: &mut PushInbox,
    info_subject: Option<&str>,
    probe: &mut Option<RequestId>,
    (mark, base): (&ReadMark, u64),
    sid: Sid,
    mut out: Outputs<'_>,
) -> bool {
    let want = |inbox: &PushInbox| mark.want(inbox.reply_after().map(|n| n.saturating_add(base)));
    // Say what is waited for before reading what was taken (see ReadMark).
    want(inbox);
    inbox.handle_taken(mark.taken().saturating_sub(base));
    if let Some(subject) = inbox.poll_reply() {
        // Lost with the connection: the server asks again in its next heartbeat.
        let _ = out.conn.publish(&subject, None, None, b"");
    }
    want(inbox);
    if let Some(info_subject) = info_subject.filter(|_| inbox.poll_probe()) {
        send_probe(info_subject, probe, sid, &mut out);
    }
    while let Some(event) = inbox.poll_event() {
        out.events.push_back(SessionEvent::Routed { to: Route::Reader(sid), item: Item::Consumer(event) });
    }
    if let Some(error) = inbox.poll_end() {
        out.events.push_back(SessionEvent::Routed { to: Route::Reader(sid), item: Item::Failed(error) });
    }
    inbox.is_finished()
}

/// Asks `CONSUMER.INFO` whether reader `sid`'s consumer still exists; a
/// probe still unanswered is taken as lost.
fn send_probe(info_subject: &str, probe: &mut Option<RequestId>, sid: Sid, out: &mut Outputs<'_>) {
    if let Some(old) = probe.take() {
        out.conn.cancel_request(old);
        out.probes.remove(&old);
    }
    *probe = out.conn.request(info_subject, None, b"").ok();
    if let Some(id) = *probe {
        out.probes.insert(id, sid);
    }
}

/// Fetch ends that are normal outcomes, not errors.
fn is_quiet_end(status: &PullStatus) -> bool {
    matches!(status.kind, StatusKind::NoMessages | StatusKind::RequestTimeout | StatusKind::BatchCompleted)
}

fn status_error(status: &PullStatus) -> Error {
    match status.kind {
        StatusKind::NoResponders => Error::NoResponders,
        _ => Error::ConsumerStatus(status.clone()),
    }
}
