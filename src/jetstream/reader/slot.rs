//! The driver's side of one JetStream reader: a sans-IO machine (the
//! [`PullConsumer`] of a pull reader, the [`PushInbox`] of a push reader),
//! its subscription and the queues the user reads from. The connection's
//! driver task feeds it every message on the subscription, the clock and
//! reconnects, so heartbeats and probes never depend on how fast the user
//! reads; refills and flow-control replies wait for what the user took,
//! which bounds what is buffered.

use std::sync::Arc;

use super::read_mark::ReadMark;
use crate::conn::{Connection, RequestId, Sid};
use crate::error::Error;
use crate::jetstream::api;
use crate::jetstream::pull::{ConsumerEvent, Delivery, FetchEnd, PullConsumer, PullStatus, StatusKind};
use crate::jetstream::push::PushInbox;
use crate::message::Message;
use crate::runtime::queue::Queue;
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
        /// Boxed, as the push inbox: the slots stay small.
        machine: Box<PullConsumer>,
        /// `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`.
        next_subject: String,
        inbox: String,
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
    },
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

    /// A push reader on a consumer's deliver subject, whose user's stream
    /// counts what it takes in `mark`.
    pub fn push(
        inbox: PushInbox,
        info_subject: Option<String>,
        mark: Arc<ReadMark>,
        items: Arc<Queue<Item>>,
        events: Arc<Queue<ConsumerEvent>>,
    ) -> Self {
        let machine = Machine::Push { inbox: Box::new(inbox), info_subject, probe: None, mark };
        ReaderSlot { machine, items, events }
    }

    fn pull_mut(&mut self) -> Option<&mut PullConsumer> {
        match &mut self.machine {
            Machine::Pull { machine, .. } => Some(machine),
            Machine::Push { .. } => None,
        }
    }

    /// Sorts a message from the subscription; `Some(count)` when the
    /// reader's full buffer dropped it, to report (the first drop, then
    /// every 1000th). Only a push reader's buffer fills (a pull reader's
    /// pulls bound what comes): the dropped message is not acked, so a
    /// consumer with acks redelivers it after `ack_wait`; an ack-none
    /// consumer's is lost (an ordered reader sees the gap and starts over
    /// from it).
    pub fn handle_message(&mut self, now: Instant, message: Message) -> Option<u64> {
        let delivery = match &mut self.machine {
            Machine::Pull { machine, .. } => machine.handle_message(now, &message),
            Machine::Push { inbox, .. } => inbox.handle_message(now, &message),
        };
        // Refused after the reader went away: the message will be redelivered.
        if delivery != Delivery::User || self.items.push(Ok(message)).is_ok() || self.items.is_closed() {
            return None;
        }
        if let Machine::Push { inbox, .. } = &mut self.machine {
            // Never taken: the flow-control reply must not wait for it.
            inbox.handle_refused();
        }
        let dropped = self.items.dropped();
        (dropped == 1 || dropped % 1000 == 0).then_some(dropped)
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
            Machine::Push { inbox, info_subject, probe, mark } => {
                (false, drive_push(inbox, info_subject.as_deref(), probe, mark, items, events, conn))
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
    mark: &ReadMark,
    items: &Queue<Item>,
    events: &Queue<ConsumerEvent>,
    conn: &mut Connection,
) -> bool {
    // Say what is waited for before reading what was taken (see ReadMark).
    mark.want(inbox.reply_after());
    inbox.handle_taken(mark.taken());
    if let Some(subject) = inbox.poll_reply() {
        // Lost with the connection: the server asks again in its next heartbeat.
        let _ = conn.publish(&subject, None, None, b"");
    }
    mark.want(inbox.reply_after());
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
        items.push_past_bounds(Err(error));
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
        _ => Error::ConsumerStatus(status.clone()),
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
