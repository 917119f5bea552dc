//! The driver's side of one pull consumer reader: the sans-IO
//! [`PullConsumer`] machine, its inbox and the queue the user reads from.
//! The connection's driver task feeds it every message on the inbox, the
//! clock and reconnects, so heartbeats and refills never depend on how fast
//! the user reads.

use std::sync::Arc;

use crate::conn::{Connection, Sid};
use crate::driver::queue::Queue;
use crate::error::Error;
use crate::jetstream::pull::{ConsumerEvent, Delivery, FetchEnd, PullConsumer, PullStatus, StatusKind};
use crate::message::Message;
use crate::time::Instant;

/// What the user's stream yields: messages, then maybe the error that ended it.
pub(crate) type Item = Result<Message, Error>;

/// Events kept for users who watch them; past this, new ones are dropped.
pub(crate) const EVENT_CAPACITY: usize = 256;

/// What [`PullSlot::drive`] did.
pub(crate) struct Driven {
    /// A pull request was published: the server waits for it to send more.
    pub pulled: bool,
    /// The reader is finished: its inbox can be unsubscribed.
    pub finished: bool,
}

pub(crate) struct PullSlot {
    machine: PullConsumer,
    /// `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`.
    next_subject: String,
    inbox: String,
    items: Arc<Queue<Item>>,
    events: Arc<Queue<ConsumerEvent>>,
}

impl PullSlot {
    pub fn new(
        machine: PullConsumer,
        next_subject: String,
        inbox: String,
        items: Arc<Queue<Item>>,
        events: Arc<Queue<ConsumerEvent>>,
    ) -> Self {
        PullSlot { machine, next_subject, inbox, items, events }
    }

    pub fn machine_mut(&mut self) -> &mut PullConsumer {
        &mut self.machine
    }

    pub fn handle_message(&mut self, now: Instant, message: Message) {
        if self.machine.handle_message(now, &message) == Delivery::User && self.items.push(Ok(message)).is_err() {
            // Only after the reader went away: the message will be redelivered.
        }
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        self.machine.poll_timeout()
    }

    /// Publishes the machine's pulls and routes its events.
    pub fn drive(&mut self, conn: &mut Connection) -> Driven {
        let mut pulled = false;
        while let Some(pull) = self.machine.poll_pull() {
            if let Err(e) = conn.publish(&self.next_subject, Some(&self.inbox), None, &pull.to_json()) {
                let _ = self.items.push(Err(e));
                self.items.close();
                return Driven { pulled, finished: true };
            }
            pulled = true;
        }
        while let Some(event) = self.machine.poll_event() {
            match event {
                ConsumerEvent::Terminal(status) => {
                    // A reader that keeps waiting reports it as an event only.
                    if self.machine.is_finished() {
                        let _ = self.items.push(Err(status_error(&status)));
                    }
                    let _ = self.events.push(ConsumerEvent::Terminal(status));
                }
                ConsumerEvent::FetchDone(FetchEnd::Status(status)) if !is_quiet_end(&status) => {
                    let _ = self.items.push(Err(status_error(&status)));
                }
                ConsumerEvent::FetchDone(FetchEnd::HeartbeatsMissed) => {
                    let _ = self.items.push(Err(Error::Timeout));
                }
                other => {
                    let _ = self.events.push(other);
                }
            }
        }
        if self.machine.is_finished() {
            self.items.close();
            self.events.close();
        }
        Driven { pulled, finished: self.machine.is_finished() || self.items.is_closed() }
    }

    /// The reader is gone or stopped: end the user's streams.
    pub fn close(&self) {
        self.items.close();
        self.events.close();
    }
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

/// Unsubscribes a finished reader's inbox.
pub(crate) fn retire(conn: &mut Connection, sid: Sid) {
    let _ = conn.unsubscribe(sid, None);
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
        let mut slot = PullSlot::new(machine, "$JS.API.CONSUMER.MSG.NEXT.S.C".into(), "_INBOX.x".into(), items, events);

        let first = slot.drive(&mut conn);
        assert!(first.pulled && !first.finished, "the first pull goes out");
        let again = slot.drive(&mut conn);
        assert!(!again.pulled && !again.finished, "nothing new to pull");

        slot.machine_mut().stop();
        assert!(!slot.drive(&mut conn).pulled);
    }
}
