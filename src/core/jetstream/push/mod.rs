//! Sans-IO JetStream push consumer: what arrives on a consumer's
//! `deliver_subject` (ADR-9, ADR-15).
//!
//! The server pushes stream messages and, between them, status messages:
//! 100 `Idle Heartbeat` (with `Nats-Consumer-Stalled` when it waits for a
//! flow-control reply that got lost) and 100 `FlowControl Request` (with a
//! reply subject it waits on before sending more). [`PushInbox`] sorts them,
//! says which empty replies to publish ([`PushInbox::poll_reply`]) once the
//! reader has taken every message that came before the request — so a slow
//! reader holds at most the server's window, never the whole stream — and
//! watches the heartbeats on the caller's clock, whatever the reader's pace. The server never tells a
//! push consumer that it was deleted, so after missed heartbeats it asks the
//! caller to probe (`CONSUMER.INFO`) and ends when the probe says the
//! consumer is gone. It owns no socket, subscription or timer.
//!
//! ```
//! use std::time::Duration;
//! use natsjet::jetstream::push::{PushInbox, PushOptions};
//! use natsjet::machine::Machine;
//! use natsjet::time::Instant;
//!
//! let mut inbox = PushInbox::new(Instant::ZERO, Some(Duration::from_secs(5)), PushOptions::default());
//! // Nothing arrives: two heartbeat intervals later the watchdog fires.
//! let deadline = inbox.poll_deadline().map(|d| d.at).unwrap();
//! assert_eq!(deadline, Instant::from_millis(10_000));
//! inbox.handle_timeout(deadline);
//! assert!(inbox.poll_event().is_some()); // HeartbeatsMissed
//! assert!(inbox.poll_probe()); // ask CONSUMER.INFO whether it still exists
//! ```

use std::collections::VecDeque;
use std::time::Duration;

use super::pull::{ConsumerEvent, Delivery, PullStatus, ResetReason, StatusKind};
use crate::core::error::Error;
use crate::core::machine::{Link, Machine};
use crate::core::message::Message;
use crate::core::time::{Clock, Instant};
use crate::core::timer::{Deadline, TimerKind, TimerTable};

/// Header of an idle heartbeat naming the flow-control subject the server
/// still waits on (`server/stream.go` `JSConsumerStalled`).
pub const CONSUMER_STALLED: &str = "Nats-Consumer-Stalled";

/// Options of a push reader.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushOptions {
    /// When the consumer turns out to be gone, report it
    /// ([`ConsumerEvent::ConsumerGone`]) and keep listening, in case it comes
    /// back, instead of ending with the server's error (nats.js's default).
    pub keep_waiting: bool,
}

/// A flow-control reply held until the reader has taken `after` messages:
/// those that arrived before the server asked.
#[derive(Debug)]
struct FlowReply {
    subject: String,
    after: u64,
}

/// The sans-IO side of one push consumer's deliver subject.
///
/// Inputs: [`handle_input`](Machine::handle_input) for every message on the
/// subject, [`handle_timeout`](Self::handle_timeout) at
/// [`poll_deadline`](Machine::poll_deadline), the connection's
/// disconnects and reconnects, the answer to a probe, and how many
/// messages the reader took ([`handle_taken`](Self::handle_taken)). Outputs, drained in
/// this order after each input: [`poll_reply`](Self::poll_reply),
/// [`poll_probe`](Self::poll_probe), [`poll_event`](Self::poll_event),
/// [`poll_end`](Self::poll_end).
#[derive(Debug)]
pub struct PushInbox {
    idle_heartbeat: Option<Duration>,
    keep_waiting: bool,
    /// When two missed heartbeats are declared: off while disconnected or ended.
    timers: TimerTable<PushTimer>,
    /// The last time anything arrived (or the watch restarted).
    silent_since: Instant,
    clock: Clock,
    /// The flow-control subject to answer. The server waits on one at a
    /// time (`server/consumer.go` `fcid`), so only the latest counts.
    reply: Option<FlowReply>,
    /// Messages handed to the reader so far.
    delivered: u64,
    /// Messages the reader has taken so far.
    taken: u64,
    /// Delivered messages the reader's full buffer refused.
    refused: u64,
    events: VecDeque<ConsumerEvent>,
    /// A probe is wanted and not yet handed out.
    probe_wanted: bool,
    /// What ends the reader, until taken.
    end: Option<Error>,
    finished: bool,
}

impl PushInbox {
    /// Watches for heartbeats when the consumer's config has `idle_heartbeat`.
    pub fn new(now: Instant, idle_heartbeat: Option<Duration>, options: PushOptions) -> Self {
        let idle_heartbeat = idle_heartbeat.filter(|hb| !hb.is_zero());
        let mut inbox = PushInbox {
            idle_heartbeat,
            keep_waiting: options.keep_waiting,
            timers: TimerTable::default(),
            silent_since: now,
            clock: Clock::new(now),
            reply: None,
            delivered: 0,
            taken: 0,
            refused: 0,
            events: VecDeque::new(),
            probe_wanted: false,
            end: None,
            finished: false,
        };
        inbox.watch_from(now);
        inbox
    }

    /// Sorts a message from the deliver subject. Only [`Delivery::User`]
    /// messages go to the user.
    fn on_message(&mut self, now: Instant, message: &Message) -> Delivery {
        let now = self.clock.advance(now);
        self.watch_from(now);
        let Some(status) = PullStatus::of(message) else {
            self.delivered += 1;
            return Delivery::User;
        };
        let kind = status.kind;
        match kind {
            StatusKind::FlowControl => self.hold_reply(message.reply.as_deref()),
            StatusKind::IdleHeartbeat => {
                self.hold_reply(message.headers.as_ref().and_then(|h| h.get(CONSUMER_STALLED)).map(|v| v.as_str()));
            }
            StatusKind::ConsumerDeleted | StatusKind::PushBased | StatusKind::RequiredApiLevel => {
                self.finish(Error::ConsumerStatus(status.clone()));
                self.events.push_back(ConsumerEvent::Terminal(status));
            }
            _ => self.events.push_back(ConsumerEvent::Warning(status)),
        }
        Delivery::Status(kind)
    }

    /// Fires the heartbeat watchdog if it is due at `now`: an event, a
    /// probe (one still unanswered is taken as lost), and the next watch
    /// two intervals later.
    pub fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        let Some(hb) = self.idle_heartbeat else { return };
        if !self.timers.take_due(PushTimer::Heartbeat, now) {
            return;
        }
        let silent = now.saturating_duration_since(self.silent_since);
        let count = u32::try_from(silent.as_nanos() / hb.as_nanos()).unwrap_or(u32::MAX);
        self.events.push_back(ConsumerEvent::HeartbeatsMissed { count });
        self.probe_wanted = true;
        self.timers.set(PushTimer::Heartbeat, Some(now + 2 * hb));
    }

    /// The answer to a probe: a consumer or stream that is gone is an
    /// event and, unless keeping waiting, ends the reader with the server's
    /// error; anything else keeps watching.
    pub fn handle_probe(&mut self, result: Result<(), Error>) {
        match result {
            Err(Error::JetStream(e)) if e.err_code.is_missing_consumer() => {
                self.events.push_back(ConsumerEvent::ConsumerGone(e.clone()));
                if !self.keep_waiting {
                    self.finish(Error::JetStream(e));
                }
            }
            _ => {}
        }
    }

    /// The connection dropped: nothing can arrive, so the watchdog pauses.
    fn link_down(&mut self, now: Instant) {
        self.clock.advance(now);
        self.timers.stop(PushTimer::Heartbeat);
    }

    /// The connection is back (the subscription with it): watch afresh, and
    /// say so ([`ResetReason::Reconnected`]): an ordered reader replaces its
    /// consumer, which may be gone with a restarted server's memory.
    fn link_up(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        if !self.finished {
            self.watch_from(now);
            self.events.push_back(ConsumerEvent::Reset(ResetReason::Reconnected));
        }
    }

    /// The reader's buffer refused a delivered message (it was full): it
    /// will never be taken, so no flow-control reply waits for it. Counted
    /// apart, since the reply held back may already count it.
    pub fn handle_refused(&mut self) {
        self.refused += 1;
    }

    /// The reader has taken `total` messages since it started.
    pub fn handle_taken(&mut self, total: u64) {
        self.taken = self.taken.max(total);
    }

    /// A subject to publish an empty message to (a flow-control reply),
    /// once the reader has taken what came before the server asked.
    #[must_use]
    pub fn poll_reply(&mut self) -> Option<String> {
        match &self.reply {
            Some(reply) if reply.after <= self.taken + self.refused => self.reply.take().map(|reply| reply.subject),
            _ => None,
        }
    }

    /// How many taken messages the flow-control reply held back waits for:
    /// the reader's side calls [`handle_taken`](Self::handle_taken) when it
    /// gets there.
    pub fn reply_after(&self) -> Option<u64> {
        self.reply.as_ref().map(|reply| reply.after.saturating_sub(self.refused))
    }

    /// Whether to ask the server (`CONSUMER.INFO`) if the consumer still
    /// exists; answer with [`handle_probe`](Self::handle_probe).
    #[must_use]
    pub fn poll_probe(&mut self) -> bool {
        std::mem::take(&mut self.probe_wanted) && !self.finished
    }

    /// The next thing the user may want to know about (heartbeats missed,
    /// a reset, a warning status, a vanished consumer).
    #[must_use]
    pub fn poll_event(&mut self) -> Option<ConsumerEvent> {
        self.events.pop_front()
    }

    /// The error that ended the reader, once.
    #[must_use]
    pub fn poll_end(&mut self) -> Option<Error> {
        self.end.take()
    }

    /// No more messages will be delivered.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The server waits on `subject` (a request, or a stalled heartbeat
    /// naming one whose request was lost): answer it once what was
    /// delivered before it is taken.
    fn hold_reply(&mut self, subject: Option<&str>) {
        let Some(subject) = subject else { return };
        let after = match &self.reply {
            Some(held) if held.subject == subject => held.after,
            _ => self.delivered,
        };
        self.reply = Some(FlowReply { subject: subject.to_string(), after });
    }

    fn watch_from(&mut self, now: Instant) {
        self.silent_since = now;
        self.timers.set(PushTimer::Heartbeat, self.idle_heartbeat.map(|hb| now + 2 * hb));
    }

    fn finish(&mut self, error: Error) {
        self.finished = true;
        self.end = Some(error);
        self.timers.stop_all();
        self.reply = None;
    }
}

/// The push inbox's one timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushTimer {
    /// Two idle-heartbeat intervals without anything from the server.
    Heartbeat,
}

impl TimerKind for PushTimer {
    const ALL: &'static [PushTimer] = &[PushTimer::Heartbeat];

    fn index(self) -> usize {
        self as usize
    }
}

impl Machine for PushInbox {
    type Input<'a> = &'a Message;
    type Verdict = Delivery;
    type Event = ConsumerEvent;
    type Timer = PushTimer;

    fn handle_input(&mut self, now: Instant, message: &Message) -> Delivery {
        self.on_message(now, message)
    }

    fn handle_timeout(&mut self, now: Instant) {
        PushInbox::handle_timeout(self, now);
    }

    fn handle_link(&mut self, now: Instant, link: Link) {
        match link {
            Link::Up => self.link_up(now),
            Link::Down => self.link_down(now),
        }
    }

    fn poll_event(&mut self) -> Option<ConsumerEvent> {
        PushInbox::poll_event(self)
    }

    fn poll_deadline(&self) -> Option<Deadline<PushTimer>> {
        self.timers.next()
    }
}

#[cfg(test)]
mod tests;
