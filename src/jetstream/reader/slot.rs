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

    /// Publishes the machine's pulls and routes its events. Returns whether
    /// the reader is finished (its inbox can be unsubscribed).
    pub fn drive(&mut self, conn: &mut Connection) -> bool {
        while let Some(pull) = self.machine.poll_pull() {
            if let Err(e) = conn.publish(&self.next_subject, Some(&self.inbox), None, &pull.to_json()) {
                let _ = self.items.push(Err(e));
                self.items.close();
                return true;
            }
        }
        while let Some(event) = self.machine.poll_event() {
            match event {
                ConsumerEvent::Terminal(status) => {
                    let _ = self.items.push(Err(status_error(&status)));
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
        self.machine.is_finished() || self.items.is_closed()
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
