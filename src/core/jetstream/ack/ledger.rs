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
//!
//! Exactly-once: a delivery's work is *applied* once its epoch commits (the
//! caller calls [`AckLedger::commit`] after its checkpoint is durable) and
//! stays so until the server confirms its ack or the ack floor passes it.
//! [`AckLedger::snapshot`] gives what the checkpoint must save with the
//! engine's state; after a crash, [`AckLedger::restore`] takes the union of
//! the saved states, and [`AckLedger::admit`] turns a redelivery of applied
//! work into an ack with the next commit instead of a second application.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Duration;

use super::ranges::SeqRanges;
use super::state::{ConsumerState, LEDGER_STATE_VERSION, LedgerState};
use super::token::AckToken;
use crate::core::error::Error;
use crate::core::id_map::IdMap;
use crate::core::machine::{Link, Machine};
use crate::core::time::{Clock, Instant};
use crate::core::timer::{Deadline, TimerKind, TimerTable};

/// How long an ack floor read from the server waits before the ledger
/// trusts it: nats-server stores a consumer's acks a little after it
/// confirms them (a server killed within tens of milliseconds came back
/// without them).
pub const FLOOR_SETTLED: Duration = Duration::from_secs(1);

/// Something the user should hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerEvent {
    /// The `+WPI` for this delivery could not go out before its ack deadline
    /// (disconnected, or the caller came late): the server may redeliver it,
    /// so its processing may happen twice.
    RedeliveryRisk {
        /// The delivery at risk.
        token: AckToken,
    },
    /// A redelivery that no restored state covers and this ledger did not
    /// nak: the worker that had it before crashed, nak'd it, or (if its
    /// ledger reported [`RedeliveryRisk`](Self::RedeliveryRisk)) still holds it.
    Redelivered {
        /// The redelivered delivery.
        token: AckToken,
    },
}

/// What a ledger has done for exactly-once, since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LedgerCounts {
    /// Redeliveries of applied work, acked instead of handed to the caller.
    pub skipped: u64,
    /// Deliveries nak'd because their epoch was aborted.
    pub aborted: u64,
    /// Held deliveries reported at risk of a second delivery.
    pub at_risk: u64,
    /// Redeliveries admitted that neither a restore nor an abort explains.
    pub redelivered: u64,
}

/// Deliveries waiting for their checkpoint, per consumer, kept alive with `+WPI`.
#[derive(Debug, Default)]
pub struct AckLedger {
    consumers: Consumers,
    /// Epochs at or below this were committed; tracking into them is refused.
    committed: Option<u64>,
    connected: bool,
    clock: Clock,
    /// The next `+WPI` due while connected, the next deadline to report while not.
    timers: TimerTable<LedgerTimer>,
    /// Progress handed to the caller, with the reset time it replaced.
    outbox: Vec<Sent>,
    events: VecDeque<LedgerEvent>,
    counts: LedgerCounts,
    /// The tokens of the messages `admit` passed, oldest first: tracking
    /// them next, in that order (the usual one), reads each ack subject
    /// once, not twice. At most [`ADMITTED_KEPT`].
    admitted: VecDeque<AckToken>,
}

/// Admitted tokens kept for the `track` that follows: a delivered batch's worth.
const ADMITTED_KEPT: usize = 1024;

/// The queues by stream and consumer name, in name order. A ledger serves
/// one consumer or a few, so a sorted list will do (and keeps a B-tree out
/// of the wasm).
#[derive(Debug, Default)]
struct Consumers(Vec<((String, String), Queue)>);

impl Consumers {
    fn get_mut(&mut self, stream: &str, consumer: &str) -> Option<&mut Queue> {
        let at = self.0.binary_search_by(|((s, c), _)| (s.as_str(), c.as_str()).cmp(&(stream, consumer))).ok()?;
        Some(&mut self.0[at].1)
    }

    /// Whether the consumer of `key` holds consumer sequence `cseq`.
    fn holds(&self, (stream, consumer): &(String, String), cseq: u64) -> bool {
        let at = self.0.binary_search_by(|((s, c), _)| (s, c).cmp(&(stream, consumer)));
        at.is_ok_and(|at| self.0[at].1.held.contains(cseq))
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
    /// Stream sequences whose work is durable (committed here, or restored)
    /// and whose ack the server has not confirmed.
    applied: SeqRanges,
    /// Redeliveries of applied work, acked with the next commit.
    skipped: Vec<AckToken>,
    /// Stream sequences this ledger nak'd on abort: their redelivery is expected.
    naked: SeqRanges,
    /// Ack floors read and when, oldest first, until they are settled.
    floors: VecDeque<(Instant, u64)>,
    /// The consumer sequences of `items`: a delivery is held once.
    held: SeqRanges,
    /// Committed deliveries whose acks are out, until [`AckLedger::settle`]:
    /// stream sequence, last reset and whether at risk, to hold again what
    /// the server did not confirm.
    acking: IdMap<u64, (Instant, bool)>,
}

#[derive(Debug)]
struct Tracked {
    token: AckToken,
    epoch: u64,
    /// When the server's ack timer last started (delivery or last `+WPI`).
    reset_at: Instant,
    /// Reported in a [`LedgerEvent::RedeliveryRisk`]: its epoch must not commit.
    at_risk: bool,
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
struct Committed(Tracked);

impl Committed {
    fn sequence(&self) -> u64 {
        self.0.token.consumer_sequence()
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
    fn new(ack_wait: Duration) -> Self {
        Queue {
            ack_wait,
            items: VecDeque::new(),
            reported: 0,
            applied: SeqRanges::new(),
            skipped: Vec::new(),
            naked: SeqRanges::new(),
            floors: VecDeque::new(),
            held: SeqRanges::new(),
            acking: IdMap::default(),
        }
    }

    /// Adds `item` where its timer puts it: the front stays the next one
    /// due. Not among the front items already reported while disconnected
    /// (all past their deadline, so due no later than it): after them.
    fn insert(&mut self, item: Tracked) {
        // Most often the latest (tracked in the order received): no search.
        if self.items.back().is_none_or(|t| t.reset_at <= item.reset_at) {
            self.items.push_back(item);
            return;
        }
        let at = self.items.partition_point(|t| t.reset_at <= item.reset_at).max(self.reported);
        self.items.insert(at, item);
    }

    /// Removes the items `take` picks and returns them, keeping the count of
    /// front items already reported right.
    fn take_items(&mut self, mut take: impl FnMut(&Tracked) -> bool) -> Vec<Tracked> {
        let mut taken = Vec::new();
        let mut kept = VecDeque::with_capacity(self.items.len());
        let mut reported = 0;
        for (i, item) in self.items.drain(..).enumerate() {
            if take(&item) {
                taken.push(item);
            } else {
                reported += usize::from(i < self.reported);
                kept.push_back(item);
            }
        }
        self.items = kept;
        self.reported = reported;
        taken
    }

    fn due(&self, item: &Tracked) -> Instant {
        item.reset_at + self.ack_wait / 2
    }

    fn deadline(&self, item: &Tracked) -> Instant {
        item.reset_at + self.ack_wait
    }
}

impl AckLedger {
    /// An empty ledger; give each consumer's `ack_wait` with
    /// [`set_ack_wait`](Self::set_ack_wait) before tracking its messages.
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
            Err(at) => self.consumers.0.insert(at, (key, Queue::new(ack_wait))),
        }
        self.rearm();
        Ok(())
    }

    /// Holds `token`, received at `now`, until `epoch` commits.
    pub fn track(&mut self, now: Instant, token: AckToken, epoch: u64) -> Result<(), Error> {
        self.track_received(now, now, token, epoch)
    }

    /// [`track_received`](Self::track_received) of the message with ack
    /// subject `subject`: the token [`admit`](Self::admit) made of it when
    /// it is among the last messages admitted, else one read now.
    pub fn track_subject(&mut self, now: Instant, received: Instant, subject: &str, epoch: u64) -> Result<(), Error> {
        // Messages admitted before this one and not tracked are passed over.
        let at = self.admitted.iter().position(|token| token.subject() == subject);
        let token = match at.and_then(|at| self.admitted.drain(..=at).next_back()) {
            Some(token) => token,
            None => AckToken::new(subject)?,
        };
        self.track_received(now, received, token, epoch)
    }

    /// Holds `token`, received at `received` (before `now` when it waited
    /// in a buffer), until `epoch` commits. The server's ack timer started
    /// when it sent the message, so `+WPI` and the at-risk check count from
    /// `received`, not from when the worker got to it.
    pub fn track_received(
        &mut self,
        now: Instant,
        received: Instant,
        token: AckToken,
        epoch: u64,
    ) -> Result<(), Error> {
        let now = self.clock.advance(now);
        let received = received.min(now);
        if self.committed.is_some_and(|c| epoch <= c) {
            return Err(Error::InvalidArgument(format!("epoch {epoch} was already committed")));
        }
        let Some(queue) = self.consumers.get_mut(token.stream(), token.consumer()) else {
            return Err(Error::InvalidArgument(format!(
                "no ack_wait known for consumer {} of stream {}: call set_ack_wait first",
                token.consumer(),
                token.stream()
            )));
        };
        let cseq = token.consumer_sequence();
        if queue.held.contains(cseq) {
            return Err(Error::InvalidArgument(format!("{} is already tracked", token.subject())));
        }
        queue.held.insert(cseq);
        // A redelivery gets its first +WPI at once: nats-server restarted
        // between the redelivery and that +WPI hands the message out again.
        let reset_at = match token.delivered() > 1 {
            true => Instant::from_offset(received.offset().saturating_sub(queue.ack_wait / 2)),
            false => received,
        };
        // Behind a front item, it leaves the next timer as it was.
        let front_stays = queue.items.back().is_some_and(|t| t.reset_at <= reset_at) && queue.reported == 0;
        queue.insert(Tracked { token, epoch, reset_at, at_risk: false });
        if !front_stays {
            self.rearm();
        }
        Ok(())
    }

    /// Removes and returns every delivery of epochs up to `epoch`, by stream,
    /// consumer and consumer sequence, for the caller to ack in one
    /// `AckBatch`, followed by each consumer's skipped redeliveries. Call it
    /// once the checkpoint is durable: their work counts as applied from now
    /// until the ack floor passes it ([`prune`](Self::prune)).
    pub fn commit(&mut self, epoch: u64) -> Vec<AckToken> {
        self.committed = self.committed.max(Some(epoch));
        let mut done = Vec::with_capacity(self.len());
        for queue in self.consumers.queues_mut() {
            // Consumers come in name order; within one, by consumer sequence.
            let mut committed = queue.take_items(|item| item.epoch <= epoch);
            // Most often in that order already (held by arrival); a heap
            // sort (in the wasm already) otherwise.
            if !committed.is_sorted_by_key(|item| item.token.consumer_sequence()) {
                let heap: BinaryHeap<Committed> = committed.into_iter().map(Committed).collect();
                committed = heap.into_sorted_vec().into_iter().map(|Committed(item)| item).collect();
            }
            for item in committed {
                queue.held.remove(item.token.consumer_sequence());
                let seq = item.token.stream_sequence();
                queue.applied.insert(seq);
                queue.acking.insert(seq, (item.reset_at, item.at_risk));
                done.push(item.token);
            }
            done.append(&mut queue.skipped);
        }
        self.forget_progress();
        self.rearm();
        done
    }

    /// The acks [`commit`](Self::commit) handed out that the server did
    /// not confirm (no answer, safe to resend): held again, kept alive with
    /// `+WPI`, and acked with the next commit, so the server does not hand
    /// them to another worker meanwhile. Confirmed ones stay applied until
    /// the ack floor passes them ([`prune`](Self::prune)): a server killed
    /// right after confirming can come back without the ack.
    pub fn settle(&mut self, unconfirmed: &[AckToken]) {
        let committed = self.committed.unwrap_or(0);
        for ((stream, consumer), queue) in &mut self.consumers.0 {
            let acking = std::mem::take(&mut queue.acking);
            for token in unconfirmed.iter().filter(|t| t.stream() == stream && t.consumer() == consumer) {
                match acking.get(&token.stream_sequence()) {
                    // Held again under the committed epoch: the next commit takes it.
                    Some(&(reset_at, at_risk)) if !queue.held.contains(token.consumer_sequence()) => {
                        queue.held.insert(token.consumer_sequence());
                        queue.insert(Tracked { token: token.clone(), epoch: committed, reset_at, at_risk });
                    }
                    Some(_) => {}
                    // A skipped redelivery: acked again with the next commit.
                    None => queue.skipped.push(token.clone()),
                }
            }
        }
        self.rearm();
    }

    /// The consumer's ack floor read at `now` is `floor`. Nothing at or
    /// below it comes back once the server has stored it, which a server
    /// killed at once may not have: the ledger drops applied sequences only
    /// below a floor read [`FLOOR_SETTLED`] or longer ago.
    pub fn prune(&mut self, now: Instant, stream: &str, consumer: &str, floor: u64) {
        let now = self.clock.advance(now);
        let Some(queue) = self.consumers.get_mut(stream, consumer) else { return };
        if queue.floors.back().is_none_or(|&(_, last)| floor > last) {
            queue.floors.push_back((now, floor));
        }
        let mut settled = None;
        while let Some(&(_, floor)) = queue.floors.front().filter(|(at, _)| *at + FLOOR_SETTLED <= now) {
            settled = Some(floor);
            queue.floors.pop_front();
        }
        if let Some(floor) = settled {
            queue.applied.remove_through(floor);
            queue.naked.remove_through(floor);
        }
    }

    /// Gives up epoch `epoch` and every later one (their checkpoint failed):
    /// removes their deliveries and returns those to nak, so they are
    /// redelivered now rather than after `ack_wait`. One at risk is dropped
    /// without a nak: the server may have handed it to another worker, and a
    /// nak (which names the stream sequence) would take it from that worker.
    pub fn abort(&mut self, now: Instant, epoch: u64) -> Vec<AckToken> {
        let now = self.clock.advance(now);
        let mut aborted = Vec::new();
        let mut dropped = 0;
        for queue in self.consumers.queues_mut() {
            for item in queue.take_items(|item| item.epoch >= epoch) {
                queue.held.remove(item.token.consumer_sequence());
                if item.at_risk || queue.deadline(&item) <= now {
                    dropped += 1;
                    continue;
                }
                queue.naked.insert(item.token.stream_sequence());
                aborted.push(item.token);
            }
        }
        self.counts.aborted += (aborted.len() + dropped) as u64;
        self.forget_progress();
        self.rearm();
        aborted
    }

    /// Whether the caller should process `token`'s message: `false` for a
    /// redelivery of work already applied, which is acked with the next
    /// commit instead. A redelivery nothing here explains is processed and
    /// reported as [`LedgerEvent::Redelivered`].
    pub fn admit(&mut self, subject: &str) -> Result<bool, Error> {
        // Read once: kept for the `track_subject` that usually follows.
        let token = AckToken::new(subject)?;
        let Some(queue) = self.consumers.get_mut(token.stream(), token.consumer()) else {
            return Err(unknown_consumer(token.stream(), token.consumer()));
        };
        let seq = token.stream_sequence();
        if queue.applied.contains(seq) {
            // One ack per message: a later delivery replaces an earlier one.
            match queue.skipped.iter_mut().find(|t| t.stream_sequence() == seq) {
                Some(skipped) => *skipped = token,
                None => queue.skipped.push(token),
            }
            self.counts.skipped += 1;
            return Ok(false);
        }
        if queue.naked.contains(seq) {
            queue.naked.remove(seq);
        } else if token.delivered() > 1 {
            self.counts.redelivered += 1;
            self.events.push_back(LedgerEvent::Redelivered { token: token.clone() });
        }
        if self.admitted.len() == ADMITTED_KEPT {
            self.admitted.pop_front();
        }
        self.admitted.push_back(token);
        Ok(true)
    }

    /// What a checkpoint of epoch `epoch` saves: per consumer, the sequences
    /// tracked in epochs up to it plus the applied ones not yet confirmed.
    /// [`Error::AtRisk`] when one of those deliveries may have reached
    /// another worker (its ack deadline passed without a `+WPI`): the epoch
    /// must not commit; [`abort`](Self::abort) it.
    pub fn snapshot(&mut self, now: Instant, epoch: u64) -> Result<LedgerState, Error> {
        let now = self.clock.advance(now);
        // Acks held again after a commit belong to epochs already applied:
        // aborting the open one would not help them.
        let open = self.committed.map_or(0, |c| c + 1);
        let mut at_risk = Vec::new();
        let mut consumers = Vec::with_capacity(self.consumers.0.len());
        for ((stream, consumer), queue) in &self.consumers.0 {
            // Items come about in arrival order, so mostly ascending: no sort
            // needed (and none in the wasm).
            let mut ranges: SeqRanges = queue
                .items
                .iter()
                .filter(|item| item.epoch <= epoch)
                .inspect(|item| {
                    if item.epoch >= open && (item.at_risk || queue.deadline(item) <= now) {
                        at_risk.push(item.token.stream_sequence());
                    }
                })
                .map(|item| item.token.stream_sequence())
                .collect();
            ranges.extend(&queue.applied);
            consumers.push(ConsumerState {
                stream: stream.clone(),
                consumer: consumer.clone(),
                ranges: ranges.ranges().to_vec(),
            });
        }
        if !at_risk.is_empty() {
            return Err(Error::AtRisk { sequences: BinaryHeap::from(at_risk).into_sorted_vec() });
        }
        Ok(LedgerState { version: LEDGER_STATE_VERSION, consumers })
    }

    /// Adds the states a checkpoint saved (of every worker: their union) to
    /// the applied work. Every consumer they name must be known here.
    pub fn restore(&mut self, states: &[LedgerState]) -> Result<(), Error> {
        for state in states {
            state.validate()?;
            for c in &state.consumers {
                if self.consumers.get_mut(&c.stream, &c.consumer).is_none() {
                    return Err(unknown_consumer(&c.stream, &c.consumer));
                }
            }
        }
        for c in states.iter().flat_map(|state| &state.consumers) {
            if let Some(queue) = self.consumers.get_mut(&c.stream, &c.consumer) {
                queue.applied.extend(&c.to_ranges());
            }
        }
        Ok(())
    }

    /// Applied sequences awaiting confirmation or the ack floor, over all consumers.
    pub fn applied_len(&self) -> u64 {
        self.consumers.queues().map(|q| q.applied.count()).sum()
    }

    /// What the ledger has done so far.
    pub fn counts(&self) -> LedgerCounts {
        self.counts
    }

    /// Deliveries held.
    pub fn len(&self) -> usize {
        self.consumers.queues().map(|q| q.items.len()).sum()
    }

    /// Whether the ledger holds no delivery.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Progress handed out for deliveries no longer held is not sent.
    fn forget_progress(&mut self) {
        let consumers = &self.consumers;
        self.outbox.retain(|sent| consumers.holds(&sent.key, sent.token.consumer_sequence()));
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
    fn link_down(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        for sent in self.outbox.drain(..).rev() {
            let Some(queue) = self.consumers.get_mut(&sent.key.0, &sent.key.1) else {
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
    fn link_up(&mut self, now: Instant) {
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

    /// The next thing the user should hear about.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<LedgerEvent> {
        self.events.pop_front()
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
                let missed = i >= reported && queue.deadline(front) <= now;
                let Some(mut item) = queue.items.pop_front() else {
                    break;
                };
                if missed {
                    item.at_risk = true;
                    self.counts.at_risk += 1;
                    self.events.push_back(LedgerEvent::RedeliveryRisk { token: item.token.clone() });
                }
                self.outbox.push(Sent { key: key.clone(), token: item.token.clone(), previous: item.reset_at });
                item.reset_at = now;
                queue.items.push_back(item);
            }
        }
    }

    fn report_missed(&mut self, now: Instant) {
        for queue in self.consumers.queues_mut() {
            let ack_wait = queue.ack_wait;
            while let Some(item) = queue.items.get_mut(queue.reported) {
                if item.reset_at + ack_wait > now {
                    break;
                }
                item.at_risk = true;
                self.counts.at_risk += 1;
                self.events.push_back(LedgerEvent::RedeliveryRisk { token: item.token.clone() });
                queue.reported += 1;
            }
        }
    }
}
fn unknown_consumer(stream: &str, consumer: &str) -> Error {
    Error::InvalidArgument(format!("this ledger does not serve consumer {consumer} of stream {stream}"))
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
            Link::Up => self.link_up(now),
            Link::Down => self.link_down(now),
        }
    }

    fn poll_event(&mut self) -> Option<LedgerEvent> {
        AckLedger::poll_event(self)
    }

    fn poll_deadline(&self) -> Option<Deadline<LedgerTimer>> {
        self.timers.next()
    }
}
