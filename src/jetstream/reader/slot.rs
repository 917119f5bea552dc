//! The driver's side of one JetStream reader: a sans-IO machine (the
//! [`PullConsumer`] of a pull reader, the [`PushInbox`] of a push reader),
//! its subscription and the queues the user reads from. The connection's
//! driver task feeds it every message on the subscription, the clock and
//! reconnects, so heartbeats and refills never depend on how fast the user
//! reads. Flow control does, on purpose: a push reader answers the server's
//! flow-control request once the user has taken what came before it
//! ([`FlowGate`]), so a slow reader holds the server back instead of
//! buffering without bound.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::conn::{Connection, RequestId, Sid};
use crate::driver::queue::Queue;
use crate::error::Error;
use crate::jetstream::api;
use crate::jetstream::pull::{ConsumerEvent, Delivery, FetchEnd, PullConsumer, PullStatus, StatusKind};
use crate::jetstream::push::PushInbox;
use crate::message::Message;
use crate::time::Instant;

/// What the user's stream yields: messages, then maybe the error that ended it.
pub(crate) type Item = Result<Message, Error>;

/// Events kept for users who watch them; past this, new ones are dropped.
pub(crate) const EVENT_CAPACITY: usize = 256;

/// What [`ReaderSlot::drive`] did.
pub(crate) struct Driven {
    /// A pull request was published: the server waits for it to send more.
    pub pulled: bool,
    /// The reader is finished: its subscription can be removed.
    pub finished: bool,
}

pub(crate) struct ReaderSlot {
    machine: Machine,
    items: Arc<Queue<Item>>,
    events: Arc<Queue<ConsumerEvent>>,
}

enum Machine {
    Pull {
        /// Boxed: many times the size of a push inbox.
        machine: Box<PullConsumer>,
        /// `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`.
        next_subject: String,
        inbox: String,
    },
    Push {
        /// Boxed: many times the size of the rest.
        inbox: Box<PushInbox>,
        /// `$JS.API.CONSUMER.INFO.<stream>.<consumer>`, asked after missed
        /// heartbeats; none for a bound consumer.
        info_subject: Option<String>,
        /// The probe in flight.
        probe: Option<RequestId>,
        flow: FlowReply,
    },
}

/// What a push reader's user has taken, shared with the driver: the
/// flow-control reply that waits for it goes out once the count reaches
/// [`wanted`](Self::wanted).
#[derive(Debug)]
pub(crate) struct FlowGate {
    taken: AtomicU64,
    /// The count a held reply waits for; `u64::MAX` when none waits.
    wanted: AtomicU64,
}

impl FlowGate {
    pub fn new() -> Arc<Self> {
        Arc::new(FlowGate { taken: AtomicU64::new(0), wanted: AtomicU64::new(u64::MAX) })
    }

    /// The user took one more message: whether a held reply is now due
    /// (the caller then drives the reader under the lock).
    pub fn take(&self) -> bool {
        let taken = self.taken.fetch_add(1, Ordering::SeqCst) + 1;
        taken >= self.wanted.load(Ordering::SeqCst)
    }
}

/// A push reader's flow control: messages handed to the user's queue, and
/// the reply held until the user has taken them.
struct FlowReply {
    gate: Arc<FlowGate>,
    pushed: u64,
    /// The reply subject and the count of messages that came before it.
    held: Option<(String, u64)>,
}

impl FlowReply {
    /// The server asks for a reply on `subject`; asked again for the one
    /// held (a heartbeat saying it is stalled), it keeps its place.
    fn hold(&mut self, subject: String) {
        match &self.held {
            Some((held, _)) if *held == subject => {}
            _ => self.held = Some((subject, self.pushed)),
        }
    }

    /// The held reply if the user has taken what came before it. The gate
    /// is told what to wait for before the count is read again, so a take
    /// in between is seen by one side or the other.
    fn due(&mut self) -> Option<String> {
        let at = self.held.as_ref()?.1;
        self.gate.wanted.store(at, Ordering::SeqCst);
        if self.gate.taken.load(Ordering::SeqCst) < at {
            return None;
        }
        self.gate.wanted.store(u64::MAX, Ordering::SeqCst);
        self.held.take().map(|(subject, _)| subject)
    }
}

impl ReaderSlot {
    /// A pull reader whose pulls ask for delivery to `inbox`.
    pub fn pull(
        machine: PullConsumer,
        next_subject: String,
        inbox: String,
        items: Arc<Queue<Item>>,
        events: Arc<Queue<ConsumerEvent>>,
    ) -> Self {
        ReaderSlot { machine: Machine::Pull { machine: Box::new(machine), next_subject, inbox }, items, events }
    }

    /// A push reader on a consumer's deliver subject, whose user counts
    /// what it takes on `gate`.
    pub fn push(
        inbox: PushInbox,
        info_subject: Option<String>,
        gate: Arc<FlowGate>,
        items: Arc<Queue<Item>>,
        events: Arc<Queue<ConsumerEvent>>,
    ) -> Self {
        let flow = FlowReply { gate, pushed: 0, held: None };
        let inbox = Box::new(inbox);
        ReaderSlot { machine: Machine::Push { inbox, info_subject, probe: None, flow }, items, events }
    }

    fn pull_mut(&mut self) -> Option<&mut PullConsumer> {
        match &mut self.machine {
            Machine::Pull { machine, .. } => Some(machine),
            Machine::Push { .. } => None,
        }
    }

    pub fn handle_message(&mut self, now: Instant, message: Message) {
        let delivery = match &mut self.machine {
            Machine::Pull { machine, .. } => machine.handle_message(now, &message),
            Machine::Push { inbox, flow, .. } => {
                let delivery = inbox.handle_message(now, &message);
                flow.pushed += u64::from(delivery == Delivery::User);
                delivery
            }
        };
        if delivery == Delivery::User && self.items.push(Ok(message)).is_err() {
            // Only after the reader went away: the message will be redelivered.
        }
    }

    /// The answer to request `id`, if it is this reader's probe.
    pub fn handle_response(&mut self, id: RequestId, result: &Result<Message, Error>) -> bool {
        let Machine::Push { inbox, probe, .. } = &mut self.machine else { return false };
        if *probe != Some(id) {
            return false;
        }
        *probe = None;
        inbox.handle_probe(match result {
            Ok(reply) => api::check_response(&reply.payload),
            Err(e) => Err(e.clone()),
        });
        true
    }

    /// The user took `msgs` messages of `bytes` (pull readers refill by it).
    pub fn handle_taken(&mut self, now: Instant, msgs: u64, bytes: u64) {
        if let Some(machine) = self.pull_mut() {
            machine.handle_taken(now, msgs, bytes);
        }
    }

    pub fn handle_timeout(&mut self, now: Instant) {
        match &mut self.machine {
            Machine::Pull { machine, .. } => machine.handle_timeout(now),
            Machine::Push { inbox, .. } => inbox.handle_timeout(now),
        }
    }

    pub fn handle_disconnected(&mut self, now: Instant) {
        match &mut self.machine {
            Machine::Pull { machine, .. } => machine.handle_disconnected(now),
            Machine::Push { inbox, .. } => inbox.handle_disconnected(now),
        }
    }

    pub fn handle_reconnected(&mut self, now: Instant) {
        match &mut self.machine {
            Machine::Pull { machine, .. } => machine.handle_reconnected(now),
            Machine::Push { inbox, .. } => inbox.handle_reconnected(now),
        }
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        match &self.machine {
            Machine::Pull { machine, .. } => machine.poll_timeout(),
            Machine::Push { inbox, .. } => inbox.poll_timeout(),
        }
    }

    /// Publishes what the machine asks for (pulls; flow-control replies and
    /// probes) and routes its events.
    pub fn drive(&mut self, conn: &mut Connection) -> Driven {
        let (items, events) = (&self.items, &self.events);
        let (pulled, finished) = match &mut self.machine {
            Machine::Pull { machine, next_subject, inbox } => {
                drive_pull(machine, next_subject, inbox, items, events, conn)
            }
            Machine::Push { inbox, info_subject, probe, flow } => {
                (false, drive_push(inbox, info_subject.as_deref(), probe, flow, items, events, conn))
            }
        };
        if finished {
            self.close();
        }
        Driven { pulled, finished: finished || self.items.is_closed() }
    }

    /// The reader is gone or stopped: end the user's streams.
    pub fn close(&self) {
        self.items.close();
        self.events.close();
    }
}

/// Publishes a pull reader's pulls and routes its events; whether it
/// pulled and whether it finished.
fn drive_pull(
    machine: &mut PullConsumer,
    next_subject: &str,
    inbox: &str,
    items: &Queue<Item>,
    events: &Queue<ConsumerEvent>,
    conn: &mut Connection,
) -> (bool, bool) {
    let mut pulled = false;
    while let Some(pull) = machine.poll_pull() {
        if let Err(e) = conn.publish(next_subject, Some(inbox), None, &pull.to_json()) {
            let _ = items.push(Err(e));
            return (pulled, true);
        }
        pulled = true;
    }
    while let Some(event) = machine.poll_event() {
        match event {
            ConsumerEvent::Terminal(status) => {
                // A reader that keeps waiting reports it as an event only.
                if machine.is_finished() {
                    let _ = items.push(Err(status_error(&status)));
                }
                let _ = events.push(ConsumerEvent::Terminal(status));
            }
            ConsumerEvent::FetchDone(FetchEnd::Status(status)) if !is_quiet_end(&status) => {
                let _ = items.push(Err(status_error(&status)));
            }
            ConsumerEvent::FetchDone(FetchEnd::HeartbeatsMissed) => {
                let _ = items.push(Err(Error::Timeout));
            }
            other => {
                let _ = events.push(other);
            }
        }
    }
    (pulled, machine.is_finished())
}

/// Publishes a push reader's flow-control replies and probe and routes
/// its events; whether it finished.
fn drive_push(
    inbox: &mut PushInbox,
    info_subject: Option<&str>,
    probe: &mut Option<RequestId>,
    flow: &mut FlowReply,
    items: &Queue<Item>,
    events: &Queue<ConsumerEvent>,
    conn: &mut Connection,
) -> bool {
    if let Some(subject) = inbox.poll_reply() {
        flow.hold(subject);
    }
    if let Some(subject) = flow.due() {
        // Lost with the connection: the server asks again in its next heartbeat.
        let _ = conn.publish(&subject, None, None, b"");
    }
    if let Some(info_subject) = info_subject.filter(|_| inbox.poll_probe()) {
        // A probe still unanswered is taken as lost.
        if let Some(old) = probe.take() {
            conn.cancel_request(old);
        }
        *probe = conn.request(info_subject, None, b"").ok();
    }
    while let Some(event) = inbox.poll_event() {
        let _ = events.push(event);
    }
    if let Some(error) = inbox.poll_end() {
        let _ = items.push(Err(error));
    }
    inbox.is_finished()
}

/// Fetch ends that are normal outcomes, not errors.
fn is_quiet_end(status: &PullStatus) -> bool {
    matches!(status.kind, StatusKind::NoMessages | StatusKind::RequestTimeout | StatusKind::BatchCompleted)
}

fn status_error(status: &PullStatus) -> Error {
    match status.kind {
        StatusKind::NoResponders => Error::NoResponders,
        _ => Error::ConsumerStatus { code: status.code.0, description: status.description.clone() },
    }
}

/// Unsubscribes a finished reader and forgets its probe.
pub(crate) fn retire(conn: &mut Connection, sid: Sid, slot: &ReaderSlot) {
    let _ = conn.unsubscribe(sid, None);
    if let Machine::Push { probe: Some(id), .. } = slot.machine {
        conn.cancel_request(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::addr::ServerAddr;
    use crate::conn::Config;
    use crate::jetstream::pull::ConsumeOptions;

    fn message(status: Option<u16>, reply: &str) -> Message {
        Message {
            subject: "deliver.1".into(),
            reply: Some(reply.into()),
            payload: Default::default(),
            headers: None,
            status: status.map(crate::header::StatusCode),
            description: status.map(|_| "FlowControl Request".into()),
            length: 0,
        }
    }

    /// A flow-control reply waits until the user took what came before it.
    #[test]
    fn push_flow_control_is_answered_as_the_user_reads() {
        let servers = vec![ServerAddr::parse("nats://localhost:4222").expect("a server address")];
        let mut conn =
            Connection::new(Config { servers, ..Config::default() }, Instant::ZERO, 1).expect("valid config");
        let gate = FlowGate::new();
        let inbox = PushInbox::new(Instant::ZERO, None, Default::default());
        let (items, events) = (Queue::new(8), Queue::new(8));
        let mut slot = ReaderSlot::push(inbox, None, gate.clone(), items.clone(), events);
        for seq in 1..=2 {
            slot.handle_message(Instant::ZERO, message(None, &format!("$JS.ACK.S.C.1.{seq}.{seq}.0.0")));
        }
        slot.handle_message(Instant::ZERO, message(Some(100), "$JS.FC.S.C.1"));
        let before = conn.pending_bytes();
        slot.drive(&mut conn);
        assert_eq!(conn.pending_bytes(), before, "held: nothing was read yet");

        assert!(!gate.take(), "one of two taken");
        slot.drive(&mut conn);
        assert_eq!(conn.pending_bytes(), before);
        assert!(gate.take(), "both taken: the reply is due");
        slot.drive(&mut conn);
        assert!(conn.pending_bytes() > before, "the reply went out");
        let sent = conn.pending_bytes();
        slot.drive(&mut conn);
        assert_eq!(conn.pending_bytes(), sent, "once");

        // Nothing pending before the request: answered at once.
        slot.handle_message(Instant::ZERO, message(Some(100), "$JS.FC.S.C.2"));
        slot.drive(&mut conn);
        assert!(conn.pending_bytes() > sent);
    }

    /// The driver hurries held-back writes only when a pull went out.
    #[test]
    fn drive_reports_whether_it_published_a_pull() {
        let servers = vec![ServerAddr::parse("nats://localhost:4222").expect("a server address")];
        let mut conn =
            Connection::new(Config { servers, ..Config::default() }, Instant::ZERO, 1).expect("valid config");
        let options = ConsumeOptions { max_messages: Some(10), ..ConsumeOptions::default() };
        let machine = PullConsumer::consume(Instant::ZERO, options).expect("valid options");
        let (items, events) = (Queue::new(4), Queue::new(4));
        let mut slot =
            ReaderSlot::pull(machine, "$JS.API.CONSUMER.MSG.NEXT.S.C".into(), "_INBOX.x".into(), items, events);

        let first = slot.drive(&mut conn);
        assert!(first.pulled && !first.finished, "the first pull goes out");
        let again = slot.drive(&mut conn);
        assert!(!again.pulled && !again.finished, "nothing new to pull");

        slot.pull_mut().expect("a pull reader").stop();
        assert!(!slot.drive(&mut conn).pulled);
    }
}
