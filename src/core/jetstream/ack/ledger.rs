//! The checkpoint ack ledger: deliveries held until their checkpoint commits,
//! kept alive meanwhile with `+WPI`.
//!
//! A stream processor acks only after a checkpoint makes the work durable,
//! which can take longer than the consumer's `ack_wait`. Each `+WPI` restarts
//! the server's ack timer, so the ledger sends one at half of `ack_wait`
//! after delivery and again every half `ack_wait` after the last one, leaving
//! half an `ack_wait` for latency and a late caller.
//!
//! Time: a delivery's clock starts at the `now` the caller passes to
//! [`AckLedger::track`], the moment it received the message. The timestamp in
//! the ack subject is the server's clock and would bring clock skew in; the
//! receipt time is a little later than the server's start, by the network
//! delay, which the half-`ack_wait` margin absorbs.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet, VecDeque};
use std::time::Duration;

use super::token::AckToken;
use crate::core::error::Error;
use crate::core::machine::{Link, Machine};
use crate::core::time::{Clock, Instant};
use crate::core::timer::{Deadline, TimerKind, TimerTable};

/// Something the user should hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerEvent {
    /// The `+WPI` for this delivery could not go out before its ack deadline
    /// (disconnected, or the caller came late): the server may redeliver it,
    /// so its processing may happen twice.
    RedeliveryRisk { token: AckToken },
}

/// Deliveries waiting for their checkpoint, per consumer, kept alive with `+WPI`.
#[derive(Debug, Default)]
pub struct AckLedger {
    consumers: Consumers,
    tracked: HashSet<String>,
    /// Epochs at or below this were committed; tracking into them is refused.
    committed: Option<u64>,
    connected: bool,
    clock: Clock,
    /// The next `+WPI` due while connected, the next deadline to report while not.
    timers: TimerTable<LedgerTimer>,
    /// Progress handed to the caller, with the reset time it replaced.
    outbox: Vec<Sent>,
    events: VecDeque<LedgerEvent>,
}

/// The queues by stream and consumer name, in name order. A ledger serves
/// one consumer or a few, so a sorted list will do (and keeps a B-tree out
/// of the wasm).
#[derive(Debug, Default)]
struct Consumers(Vec<((String, String), Queue)>);

impl Consumers {
    fn get_mut(&mut self, key: &(String, String)) -> Option<&mut Queue> {
        let at = self.0.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
        Some(&mut self.0[at].1)
    }

    fn queues(&self) -> impl Iterator<Item = &Queue> {
        self.0.iter().map(|(_, queue)| queue)
    }

    fn queues_mut(&mut self) -> impl Iterator<Item = &mut Queue> {
        self.0.iter_mut().map(|(_, queue)| queue)
    }
}

/// One consumer's deliveries, oldest timer first: tracking and `+WPI` both
/// append at the latest `now`, so the front is always the next one due.
#[derive(Debug)]
struct Queue {
    ack_wait: Duration,
    items: VecDeque<Tracked>,
    /// While disconnected: how many front items were already reported at risk.
    reported: usize,
}

#[derive(Debug)]
struct Tracked {
    token: AckToken,
    epoch: u64,
    /// When the server's ack timer last started (delivery or last `+WPI`).
    reset_at: Instant,
}

#[derive(Debug)]
struct Sent {
    key: (String, String),
    token: AckToken,
    previous: Instant,
}

/// A committed delivery, ordered by consumer sequence alone. `commit` sorts
/// these with a `BinaryHeap`: in the wasm, a slice sort of its own costs
/// 1.1 KB more (gzip).
struct Committed(AckToken);

impl Committed {
    fn sequence(&self) -> u64 {
        self.0.metadata().consumer_sequence
    }
}

impl Ord for Committed {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sequence().cmp(&other.sequence())
    }
}

impl PartialOrd for Committed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Committed {
    fn eq(&self, other: &Self) -> bool {
        self.sequence() == other.sequence()
    }
}

impl Eq for Committed {}

impl Queue {
    fn due(&self, item: &Tracked) -> Instant {
        item.reset_at + self.ack_wait / 2
    }

    fn deadline(&self, item: &Tracked) -> Instant {
        item.reset_at + self.ack_wait
    }
}

impl AckLedger {
    pub fn new() -> Self {
        AckLedger { connected: true, ..Self::default() }
    }

    /// The consumer's `ack_wait` (from its info); needed before tracking its messages.
    pub fn set_ack_wait(&mut self, stream: &str, consumer: &str, ack_wait: Duration) -> Result<(), Error> {
        if ack_wait < Duration::from_millis(2) {
            let ms = ack_wait.as_millis() as u64; // Not a Duration's Debug: no float formatting in the wasm.
            return Err(Error::InvalidArgument(format!("ack_wait of {ms}ms is too short to keep alive")));
        }
        let key = (stream.to_string(), consumer.to_string());
        match self.consumers.0.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(at) => self.consumers.0[at].1.ack_wait = ack_wait,
            Err(at) => self.consumers.0.insert(at, (key, Queue { ack_wait, items: VecDeque::new(), reported: 0 })),
        }
        self.rearm();
        Ok(())
    }

    /// Holds `token`, received at `now`, until `epoch` commits.
    pub fn track(&mut self, now: Instant, token: AckToken, epoch: u64) -> Result<(), Error> {
        let now = self.clock.advance(now);
        if self.committed.is_some_and(|c| epoch <= c) {
            return Err(Error::InvalidArgument(format!("epoch {epoch} was already committed")));
        }
        if self.tracked.contains(token.subject()) {
            return Err(Error::InvalidArgument(format!("{} is already tracked", token.subject())));
        }
        let key = (token.stream().to_string(), token.consumer().to_string());
        let Some(queue) = self.consumers.get_mut(&key) else {
            return Err(Error::InvalidArgument(format!(
                "no ack_wait known for consumer {} of stream {}: call set_ack_wait first",
                key.1, key.0
            )));
        };
        self.tracked.insert(token.subject().to_string());
        queue.items.push_back(Tracked { token, epoch, reset_at: now });
        self.rearm();
        Ok(())
    }

    /// Removes and returns every delivery of epochs up to `epoch`, by stream,
    /// consumer and consumer sequence, for the caller to ack in one `AckBatch`.
    pub fn commit(&mut self, epoch: u64) -> Vec<AckToken> {
        self.committed = self.committed.max(Some(epoch));
        let mut done = Vec::new();
        for queue in self.consumers.queues_mut() {
            let mut committed = BinaryHeap::new();
            let mut kept = VecDeque::with_capacity(queue.items.len());
            let mut reported = 0;
            for (i, item) in queue.items.drain(..).enumerate() {
                if item.epoch <= epoch {
                    committed.push(Committed(item.token));
                } else {
                    reported += usize::from(i < queue.reported);
                    kept.push_back(item);
                }
            }
            queue.items = kept;
            queue.reported = reported;
            // Consumers come in name order; within one, by consumer sequence.
            done.extend(committed.into_sorted_vec().into_iter().map(|Committed(token)| token));
        }
        for token in &done {
            self.tracked.remove(token.subject());
        }
        self.outbox.retain(|sent| self.tracked.contains(sent.token.subject()));
        self.rearm();
        done
    }

    /// Deliveries held.
    pub fn len(&self) -> usize {
        self.tracked.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tracked.is_empty()
    }

    /// Queues the `+WPI`s due at `now`; while disconnected, reports the
    /// deliveries whose deadline passes.
    pub fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        if self.timers.take_due(LedgerTimer::Progress, now) {
            self.send_due(now);
        }
        if self.timers.take_due(LedgerTimer::Missed, now) {
            self.report_missed(now);
        }
        self.rearm();
    }

    /// Progress handed out but not yet polled was never sent: take it back.
    pub fn handle_disconnected(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        for sent in self.outbox.drain(..).rev() {
            let Some(queue) = self.consumers.get_mut(&sent.key) else {
                continue;
            };
            let at = queue.items.iter().rposition(|t| t.token == sent.token);
            if let Some(mut item) = at.and_then(|at| queue.items.remove(at)) {
                item.reset_at = sent.previous;
                queue.items.push_front(item);
            }
        }
        self.connected = false;
        self.report_missed(now);
        self.rearm();
    }

    /// Back online: report what expired meanwhile, then send every due `+WPI` at once.
    pub fn handle_reconnected(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        self.report_missed(now);
        self.connected = true;
        self.send_due(now);
        self.rearm();
    }

    /// Tokens to publish `+WPI` to, now.
    #[must_use]
    pub fn poll_progress(&mut self) -> Option<Vec<AckToken>> {
        if self.outbox.is_empty() {
            return None;
        }
        Some(self.outbox.drain(..).map(|sent| sent.token).collect())
    }

    #[must_use]
    pub fn poll_event(&mut self) -> Option<LedgerEvent> {
        self.events.pop_front()
    }

    /// Next `+WPI` due; while disconnected, the next deadline to report.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.next().map(|d| d.at)
    }

    /// Arms the timer the link calls for at the soonest of the queues'.
    fn rearm(&mut self) {
        let connected = self.connected;
        let next = |q: &Queue| {
            if connected { q.items.front().map(|t| q.due(t)) } else { q.items.get(q.reported).map(|t| q.deadline(t)) }
        };
        let at = self.consumers.queues().filter_map(next).min();
        self.timers.stop_all();
        self.timers.set(if connected { LedgerTimer::Progress } else { LedgerTimer::Missed }, at);
    }

    /// Moves every due delivery to the back with a fresh timer and hands out
    /// its `+WPI`. Ones past their deadline are reported, unless that was done
    /// while disconnected.
    fn send_due(&mut self, now: Instant) {
        for (key, queue) in &mut self.consumers.0 {
            let reported = std::mem::take(&mut queue.reported);
            // Bounded: each item moves at most once per call.
            for i in 0..queue.items.len() {
                let Some(front) = queue.items.front() else {
                    break;
                };
                if queue.due(front) > now {
                    break;
                }
                if i >= reported && queue.deadline(front) <= now {
                    self.events.push_back(LedgerEvent::RedeliveryRisk { token: front.token.clone() });
                }
                let Some(mut item) = queue.items.pop_front() else {
                    break;
                };
                self.outbox.push(Sent { key: key.clone(), token: item.token.clone(), previous: item.reset_at });
                item.reset_at = now;
                queue.items.push_back(item);
            }
        }
    }

    fn report_missed(&mut self, now: Instant) {
        for queue in self.consumers.queues_mut() {
            while let Some(item) = queue.items.get(queue.reported) {
                if queue.deadline(item) > now {
                    break;
                }
                self.events.push_back(LedgerEvent::RedeliveryRisk { token: item.token.clone() });
                queue.reported += 1;
            }
        }
    }
}
/// Why a ledger wants to be woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerTimer {
    /// A `+WPI` is due (connected).
    Progress,
    /// A delivery's ack deadline passes while disconnected: report it.
    Missed,
}

impl TimerKind for LedgerTimer {
    const ALL: &'static [LedgerTimer] = &[LedgerTimer::Progress, LedgerTimer::Missed];

    fn index(self) -> usize {
        self as usize
    }
}

/// The ledger's input is what the checkpoint tracks:
/// [`track`](AckLedger::track)'s token and epoch.
impl Machine for AckLedger {
    type Input<'a> = (AckToken, u64);
    type Verdict = Result<(), Error>;
    type Event = LedgerEvent;
    type Timer = LedgerTimer;

    fn handle_input(&mut self, now: Instant, (token, epoch): (AckToken, u64)) -> Result<(), Error> {
        self.track(now, token, epoch)
    }

    fn handle_timeout(&mut self, now: Instant) {
        AckLedger::handle_timeout(self, now);
    }

    fn handle_link(&mut self, now: Instant, link: Link) {
        match link {
            Link::Up => self.handle_reconnected(now),
            Link::Down => self.handle_disconnected(now),
        }
    }

    fn poll_event(&mut self) -> Option<LedgerEvent> {
        AckLedger::poll_event(self)
    }

    fn poll_deadline(&self) -> Option<Deadline<LedgerTimer>> {
        self.timers.next()
    }
}
