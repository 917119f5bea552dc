//! Strict order per partition with several partitions in flight: the
//! member's consumer may deliver many messages at once (up to its
//! `max_ack_pending`), and this gate hands them to the application so that
//! a partition's next message comes out only after the previous one was
//! settled (acked or terminated) — messages of the member's other
//! partitions flow meanwhile.
//!
//! Per partition the gate keeps the message out (handed to the
//! application, not settled yet) and a queue of held messages in stream
//! order. The cases the server's redelivery brings:
//!
//! - the message out is delivered again (its ack wait ran out, or it was
//!   nak'd): the new delivery is handed out again, still before the
//!   partition's next message (as with `max_ack_pending` 1);
//! - a held message is delivered again: the newer delivery replaces it in
//!   the queue, in its place;
//! - a message this instance already settled comes again (the ack was
//!   lost): it is not handed out; the caller acks it again. Only what was
//!   settled here (in the last twice `ack_wait`, the last
//!   [`SETTLED_KEPT`] of a partition) or is at or below the application's
//!   checkpoint ([`resume`](PartitionGate::resume)) counts: an older message
//!   of a partition that comes after a newer one was settled is handed out,
//!   never acked unseen (at least once, even when the order could not hold);
//! - held messages are kept alive: every half `ack_wait` the caller sends
//!   `+WPI` for those still held (the server would redeliver them
//!   otherwise, and count a delivery the application never saw);
//! - a held message whose ack wait ran out before it was kept alive (the
//!   process was stopped, or starved) is dropped with the partition's held
//!   messages after it: the server delivers them again, maybe to another
//!   instance that took over, which must not be overtaken;
//! - a message out that is neither settled, in progress nor delivered again
//!   within twice `ack_wait` (plus a nak's delay) is given up, so that a
//!   message the server stopped redelivering (`max_deliver`) does not hold
//!   its partition for ever.
//!
//! A **takeover** keeps the order when the pin moves with more than one
//! message in flight. The instance that just got the pin (a standby taking
//! over from a killed or stalled one, or after a step-down) is delivered
//! the partitions' *new* messages at once, while those the lost instance
//! had taken and not acked are still pending on the server until their ack
//! wait runs out, and come back one by one in the order their timers run
//! out (the lost instance's `+WPI`s pushed older ones past newer ones). So
//! from the pin on ([`pinned`](PartitionGate::pinned)) nothing is handed
//! out until the consumer's state shows nothing pending elsewhere
//! ([`consumer_state`](PartitionGate::consumer_state), from a consumer info
//! the caller asks for when [`takeover_due`](PartitionGate::takeover_due)
//! says so): its ack-pending count is no more than what this instance
//! holds, or its ack floor reached the last sequence delivered before the
//! pin (just below the first message delivered for the first time since,
//! [`delivered_first`](PartitionGate::delivered_first): the server hands
//! out new messages in stream order). Then the held messages go, each
//! partition's in stream order, redeliveries included. Held messages are
//! kept alive meanwhile; after twice `ack_wait` they go regardless (as a
//! message out is given up after that long).
//!
//! The instance that **lost the pin** and lives on (a step-down) gives its
//! held messages back to be nak'd when it learns it
//! ([`pin_lost`](PartitionGate::pin_lost)): they go at once to the pinned
//! instance, whose takeover puts them before the newer ones.
//!
//! Nothing here performs I/O; time comes in as [`Instant`]s.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use crate::core::time::Instant;

/// A message handed out: its partition, stream sequence, and which hand-out
/// it was (a redelivery handed out again gets a new one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    /// The partition.
    pub partition: u32,
    /// The message's stream sequence.
    pub sequence: u64,
    hand_out: u64,
}

/// What the application did with a message handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// Acked or terminated: the partition's next message may go.
    Done,
    /// Nak'd: the partition waits for the redelivery (after the delay, if any).
    Redeliver(Option<Duration>),
    /// In progress: still working on it.
    Progress,
}

/// What became of a delivered message.
#[derive(Debug, PartialEq, Eq)]
pub enum Offered<T> {
    /// Held, or ready to be handed out.
    Taken,
    /// This instance settled it already (a redelivery after a lost ack): ack it again, do not hand it out.
    Settled(T),
}

#[derive(Debug)]
struct Out {
    sequence: u64,
    hand_out: u64,
    deadline: Instant,
}

#[derive(Debug)]
struct Held<T> {
    sequence: u64,
    item: T,
    /// When the next `+WPI` is due.
    refresh: Instant,
}

#[derive(Debug)]
struct Lane<T> {
    out: Option<Out>,
    queue: VecDeque<Held<T>>,
    /// The application's checkpoint: everything up to it is done.
    resumed: u64,
    /// Sequences settled as done here, and when, in sequence order: a
    /// redelivery of one came because its ack was lost.
    settled: VecDeque<(u64, Instant)>,
}

impl<T> Default for Lane<T> {
    fn default() -> Self {
        Lane { out: None, queue: VecDeque::new(), resumed: 0, settled: VecDeque::new() }
    }
}

/// The pin just moved here: what was delivered before may still be pending elsewhere.
#[derive(Debug)]
struct Takeover {
    /// The last stream sequence delivered before the pin moved (`None`
    /// until the first message delivered for the first time since comes).
    before: Option<u64>,
    /// When the consumer's state is wanted next (`None` while asked).
    due: Option<Instant>,
    /// When the held messages go regardless.
    until: Instant,
}

/// Messages per partition, one out at a time per partition (see the module docs).
#[derive(Debug)]
pub struct PartitionGate<T> {
    ack_wait: Duration,
    lanes: BTreeMap<u32, Lane<T>>,
    /// `(sequence, partition)` of each queue front whose partition has nothing out.
    ready: BTreeSet<(u64, u32)>,
    hand_outs: u64,
    held: usize,
    takeover: Option<Takeover>,
}

impl<T> PartitionGate<T> {
    /// A gate for a consumer with this `ack_wait`.
    pub fn new(ack_wait: Duration) -> Self {
        PartitionGate {
            ack_wait,
            lanes: BTreeMap::new(),
            ready: BTreeSet::new(),
            hand_outs: 0,
            held: 0,
            takeover: None,
        }
    }

    /// This instance was just pinned (a new pin id): nothing is handed out
    /// until what was delivered before is settled or back here (see the
    /// module docs); the consumer's state is due at once. A takeover under
    /// way goes on.
    pub fn pinned(&mut self, now: Instant) {
        if self.takeover.is_none() {
            let until = now + self.ack_wait * 2;
            self.takeover = Some(Takeover { before: None, due: Some(now), until });
        }
    }

    /// A message delivered for the first time (delivery count 1): during a
    /// takeover the first one marks what was delivered before the pin.
    pub fn delivered_first(&mut self, sequence: u64) {
        if let Some(takeover) = self.takeover.as_mut().filter(|t| t.before.is_none()) {
            takeover.before = Some(sequence.saturating_sub(1));
        }
    }

    /// This instance lost the pin (the server answered its pull with 423,
    /// e.g. after a step-down): it gives back every held message, in
    /// stream order, for the caller to nak (`give_back`), and keeps no
    /// takeover. A nak rather than letting them lapse: the server delivers
    /// a nak'd message at once to the instance pinned now, which holds
    /// everything it gets until the consumer's ack-pending count shows
    /// nothing pending elsewhere (see the module docs), so the order holds
    /// either way and the naks spare it waiting up to an `ack_wait` (or
    /// twice, past which it hands out regardless) for each. The messages
    /// out stay with the application, which settles them as usual; what was
    /// settled here stays known.
    pub fn pin_lost(&mut self, mut give_back: impl FnMut(T)) {
        let mut held: Vec<Held<T>> = Vec::with_capacity(self.held);
        for lane in self.lanes.values_mut() {
            held.extend(lane.queue.drain(..));
        }
        held.sort_by_key(|h| h.sequence);
        self.ready.clear();
        self.held = 0;
        self.takeover = None;
        for h in held {
            give_back(h.item);
        }
    }

    /// Whether this instance settled `sequence` of `partition` (or its
    /// checkpoint covers it): a redelivery of it is acked, not handed out.
    pub fn was_settled(&self, partition: u32, sequence: u64) -> bool {
        self.lanes.get(&partition).is_some_and(|lane| {
            sequence <= lane.resumed || lane.settled.binary_search_by_key(&sequence, |s| s.0).is_ok()
        })
    }

    /// Whether messages are held for a takeover.
    #[cfg(test)]
    pub fn is_taking_over(&self) -> bool {
        self.takeover.is_some()
    }

    /// When the takeover wants the consumer's state, or lets the held
    /// messages go regardless: call [`takeover_asked`](Self::takeover_asked) then.
    pub fn takeover_due(&self) -> Option<Instant> {
        let takeover = self.takeover.as_ref()?;
        Some(takeover.due.map_or(takeover.until, |due| due.min(takeover.until)))
    }

    /// `true` when the consumer's state should be asked for now (it is not
    /// asked again until answered, by [`consumer_state`](Self::consumer_state)
    /// or [`consumer_state_unknown`](Self::consumer_state_unknown)); past
    /// twice `ack_wait` the takeover ends.
    pub fn takeover_asked(&mut self, now: Instant) -> bool {
        let Some(takeover) = self.takeover.as_mut() else { return false };
        if takeover.until <= now {
            self.takeover = None;
            return false;
        }
        if takeover.due.is_some_and(|due| due <= now) {
            takeover.due = None;
            return true;
        }
        false
    }

    /// The consumer's state, asked during a takeover: the stream sequence
    /// of its ack floor and how many messages are delivered and not acked.
    /// When nothing of before the pin is pending elsewhere the takeover
    /// ends; otherwise the state is asked again a little later.
    pub fn consumer_state(&mut self, ack_floor: u64, ack_pending: u64, now: Instant) {
        let mine = self.held + self.lanes.values().filter(|l| l.out.is_some()).count();
        let interval = self.poll_interval();
        let Some(takeover) = self.takeover.as_mut() else { return };
        if ack_pending <= mine as u64 || takeover.before.is_some_and(|before| ack_floor >= before) {
            self.takeover = None;
        } else {
            takeover.due = Some(now + interval);
        }
    }

    /// Asking for the consumer's state failed: ask again a little later.
    pub fn consumer_state_unknown(&mut self, now: Instant) {
        let interval = self.poll_interval();
        if let Some(takeover) = self.takeover.as_mut() {
            takeover.due = Some(now + interval);
        }
    }

    fn poll_interval(&self) -> Duration {
        (self.ack_wait / 16).clamp(Duration::from_millis(20), Duration::from_millis(100))
    }

    /// Messages held or ready, not handed out.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.held
    }

    /// Whether `partition` has a message out now.
    #[cfg(test)]
    pub fn is_out(&self, partition: u32) -> bool {
        self.lanes.get(&partition).is_some_and(|l| l.out.is_some())
    }

    /// A message delivered by the consumer, received at `now` (the server's
    /// ack timer for it runs from then).
    pub fn offer(&mut self, partition: u32, sequence: u64, item: T, now: Instant) -> Offered<T> {
        let refresh = now + self.ack_wait / 2;
        if self.was_settled(partition, sequence) {
            return Offered::Settled(item);
        }
        let lane = self.lanes.entry(partition).or_default();
        if lane.out.as_ref().is_some_and(|o| o.sequence == sequence) {
            // Delivered again while out (ack wait over, or nak'd): hand it out again first.
            lane.out = None;
        }
        if let Some(front) = lane.queue.front() {
            self.ready.remove(&(front.sequence, partition));
        }
        match lane.queue.binary_search_by_key(&sequence, |h| h.sequence) {
            Ok(at) => lane.queue[at] = Held { sequence, item, refresh },
            Err(at) => {
                lane.queue.insert(at, Held { sequence, item, refresh });
                self.held += 1;
            }
        }
        if lane.out.is_none() {
            self.ready.insert((lane.queue[0].sequence, partition));
        }
        Offered::Taken
    }

    /// The application's checkpoint says `partition` is done up to `done`
    /// (exactly-once across restarts and members): its messages at or below
    /// are not handed out, as if settled here. Call before offering them.
    pub fn resume(&mut self, partition: u32, done: u64) {
        let lane = self.lanes.entry(partition).or_default();
        lane.resumed = lane.resumed.max(done);
    }

    /// The next message to hand out: the lowest sequence among the
    /// partitions with nothing out.
    pub fn next(&mut self, now: Instant) -> Option<(Ticket, T)> {
        if self.takeover.is_some() {
            // The pin just moved here: wait for what is pending elsewhere.
            return None;
        }
        let (held, partition) = loop {
            let (_, partition) = self.ready.pop_first()?;
            let lane = self.lanes.get_mut(&partition)?;
            self.held -= expire(lane, now, self.ack_wait);
            if let Some(held) = lane.queue.pop_front() {
                break (held, partition);
            }
        };
        let lane = self.lanes.get_mut(&partition)?;
        self.held -= 1;
        self.hand_outs += 1;
        let hand_out = self.hand_outs;
        lane.out = Some(Out { sequence: held.sequence, hand_out, deadline: now + self.ack_wait * 2 });
        Some((Ticket { partition, sequence: held.sequence, hand_out }, held.item))
    }

    /// The application settled (or touched) a message handed out. A stale
    /// ticket (the message was handed out again since) only records a done.
    pub fn settle(&mut self, ticket: Ticket, settle: Settle, now: Instant) {
        let Some(lane) = self.lanes.get_mut(&ticket.partition) else { return };
        if settle == Settle::Done {
            match lane.settled.binary_search_by_key(&ticket.sequence, |s| s.0) {
                Ok(at) => lane.settled[at].1 = now,
                Err(at) => lane.settled.insert(at, (ticket.sequence, now)),
            }
            forget_settled(lane, now, self.ack_wait);
        }
        let Some(out) = lane.out.as_mut().filter(|o| o.hand_out == ticket.hand_out) else { return };
        match settle {
            Settle::Done => {
                lane.out = None;
                // A held delivery of what is now done goes.
                if let Ok(at) = lane.queue.binary_search_by_key(&ticket.sequence, |h| h.sequence) {
                    lane.queue.remove(at);
                    self.held -= 1;
                }
                if let Some(front) = lane.queue.front() {
                    self.ready.insert((front.sequence, ticket.partition));
                }
            }
            Settle::Redeliver(delay) => out.deadline = now + delay.unwrap_or_default() + self.ack_wait * 2,
            Settle::Progress => out.deadline = now + self.ack_wait * 2,
        }
    }

    /// Held messages due a `+WPI` (`keep` is called for each, and their
    /// next one is due half an `ack_wait` later); messages out past their
    /// deadline are given up. Call when [`deadline`](Self::deadline) passed.
    pub fn keep_alive(&mut self, now: Instant, mut keep: impl FnMut(&T)) {
        let next = now + self.ack_wait / 2;
        for (partition, lane) in &mut self.lanes {
            let expired = expire(lane, now, self.ack_wait);
            if expired > 0 {
                self.held -= expired;
                self.ready.retain(|(_, p)| p != partition);
            }
            for held in lane.queue.iter_mut().filter(|h| h.refresh <= now) {
                keep(&held.item);
                held.refresh = next;
            }
            if lane.out.as_ref().is_some_and(|o| o.deadline <= now) {
                lane.out = None;
            }
            if lane.out.is_none()
                && let Some(front) = lane.queue.front()
            {
                self.ready.insert((front.sequence, *partition));
            }
        }
    }

    /// When [`keep_alive`](Self::keep_alive) has something to do next
    /// (the takeover has its own, [`takeover_due`](Self::takeover_due)).
    pub fn deadline(&self) -> Option<Instant> {
        let mut soonest: Option<Instant> = None;
        for lane in self.lanes.values() {
            let times = lane.queue.iter().map(|h| h.refresh).chain(lane.out.as_ref().map(|o| o.deadline));
            for t in times {
                soonest = Some(soonest.map_or(t, |s| s.min(t)));
            }
        }
        soonest
    }

    /// The consumer was re-made: what was held and out belonged to the old
    /// one (the new one delivers it again); what was settled stays known.
    pub fn reset(&mut self) {
        for lane in self.lanes.values_mut() {
            lane.out = None;
            lane.queue.clear();
        }
        self.ready.clear();
        self.held = 0;
        self.takeover = None;
    }
}

/// How many settled sequences a partition remembers at most: a redelivery
/// of an older one (its ack lost long ago) is handed out again.
pub const SETTLED_KEPT: usize = 1024;

/// Forgets the settled sequences whose lost ack's redelivery would have
/// come by now (the server redelivers within `ack_wait`), and those beyond
/// [`SETTLED_KEPT`].
fn forget_settled<T>(lane: &mut Lane<T>, now: Instant, ack_wait: Duration) {
    while let Some(&(_, at)) = lane.settled.front() {
        if lane.settled.len() <= SETTLED_KEPT && at + ack_wait * 2 > now {
            break;
        }
        lane.settled.pop_front();
    }
}

/// Drops the lane's first held message whose ack wait ran out unrefreshed
/// (half an `ack_wait` past its `+WPI` due time) and all held after it;
/// returns how many went.
fn expire<T>(lane: &mut Lane<T>, now: Instant, ack_wait: Duration) -> usize {
    let Some(at) = lane.queue.iter().position(|h| h.refresh + ack_wait / 2 <= now) else { return 0 };
    let gone = lane.queue.len() - at;
    lane.queue.truncate(at);
    gone
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const ACK_WAIT: Duration = Duration::from_secs(10);

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// A gate fed `(partition, sequence)` deliveries; items name their delivery.
    fn fed(deliveries: &[(u32, u64)]) -> PartitionGate<String> {
        let mut gate = PartitionGate::new(ACK_WAIT);
        for &(p, s) in deliveries {
            assert_eq!(gate.offer(p, s, format!("{p}/{s}"), at(0)), Offered::Taken);
        }
        gate
    }

    fn drain(gate: &mut PartitionGate<String>, now: Instant) -> Vec<(Ticket, String)> {
        std::iter::from_fn(|| gate.next(now)).collect()
    }

    /// Everything the gate hands out at `now`, each settled as done at once, per partition.
    fn drain_settling(gate: &mut PartitionGate<String>, now: Instant) -> BTreeMap<u32, Vec<String>> {
        let mut seen: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        loop {
            let out = drain(gate, now);
            if out.is_empty() {
                return seen;
            }
            for (ticket, item) in out {
                seen.entry(ticket.partition).or_default().push(item);
                gate.settle(ticket, Settle::Done, now);
            }
        }
    }

    fn items(out: &[(Ticket, String)]) -> Vec<&str> {
        out.iter().map(|(_, s)| s.as_str()).collect()
    }

    #[test]
    fn one_message_per_partition_out_others_flow() {
        let mut gate = fed(&[(0, 1), (0, 2), (1, 3), (0, 4), (2, 5), (1, 6)]);
        let first = drain(&mut gate, at(0));
        assert_eq!(items(&first), ["0/1", "1/3", "2/5"]);
        assert_eq!(gate.held(), 3);
        // Partition 1 settles: its next goes; partition 0 still waits.
        gate.settle(first[1].0, Settle::Done, at(1));
        let second = drain(&mut gate, at(1));
        assert_eq!(items(&second), ["1/6"]);
        gate.settle(first[0].0, Settle::Done, at(2));
        let third = drain(&mut gate, at(2));
        assert_eq!(items(&third), ["0/2"]);
        gate.settle(third[0].0, Settle::Done, at(3));
        assert_eq!(items(&drain(&mut gate, at(3))), ["0/4"]);
        assert_eq!(gate.held(), 0);
    }

    #[test]
    fn every_partition_comes_out_in_stream_order_whatever_the_settling_order() {
        // 4 partitions, 40 messages interleaved; settle the out ones in a
        // scrambled order each round, and check each partition's sequence.
        let deliveries: Vec<(u32, u64)> = (1..=40u64).map(|s| (((s * 7) % 4) as u32, s)).collect();
        let mut gate = fed(&deliveries);
        let mut seen: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        let mut now = 0;
        let mut out = Vec::new();
        while seen.values().map(Vec::len).sum::<usize>() < 40 {
            now += 1;
            out.extend(drain(&mut gate, at(now)));
            let partitions: BTreeSet<u32> = out.iter().map(|(t, _)| t.partition).collect();
            assert_eq!(partitions.len(), out.len(), "two messages of one partition out at once");
            // Settle the latest one handed out first.
            let (ticket, _) = out.pop().unwrap();
            seen.entry(ticket.partition).or_default().push(ticket.sequence);
            gate.settle(ticket, Settle::Done, at(now));
        }
        for (p, sequences) in seen {
            let expected: Vec<u64> = deliveries.iter().filter(|d| d.0 == p).map(|d| d.1).collect();
            assert_eq!(sequences, expected, "partition {p}");
        }
    }

    #[test]
    fn a_redelivery_of_the_message_out_goes_out_again_before_the_next() {
        let mut gate = fed(&[(0, 1), (0, 2)]);
        let (old, _) = gate.next(at(0)).unwrap();
        assert!(gate.next(at(0)).is_none());
        // Ack wait over: the server delivers 1 again (2 was kept alive).
        gate.keep_alive(at(5_000), |_| {});
        assert_eq!(gate.offer(0, 1, "0/1 again".into(), at(10_000)), Offered::Taken);
        let (again, item) = gate.next(at(10_000)).unwrap();
        assert_eq!((again.sequence, item.as_str()), (1, "0/1 again"));
        assert!(gate.next(at(10_000)).is_none());
        // The first hand-out's late ack records 1 done but does not let 2 go
        // while the second hand-out is being worked on.
        gate.settle(old, Settle::Done, at(10_001));
        assert!(gate.next(at(10_001)).is_none());
        gate.settle(again, Settle::Done, at(10_002));
        assert_eq!(gate.next(at(10_002)).unwrap().1, "0/2");
    }

    #[test]
    fn a_nak_holds_the_partition_until_the_redelivery() {
        let mut gate = fed(&[(3, 1), (3, 2), (4, 3)]);
        let out = drain(&mut gate, at(0));
        assert_eq!(items(&out), ["3/1", "4/3"]);
        gate.settle(out[0].0, Settle::Redeliver(None), at(1));
        assert!(gate.next(at(1)).is_none(), "3/2 must wait for 3/1's redelivery");
        gate.offer(3, 1, "3/1 again".into(), at(2));
        let (ticket, item) = gate.next(at(2)).unwrap();
        assert_eq!(item, "3/1 again");
        gate.settle(ticket, Settle::Done, at(3));
        assert_eq!(gate.next(at(3)).unwrap().1, "3/2");
    }

    #[test]
    fn a_held_message_delivered_again_keeps_its_place_with_the_new_delivery() {
        let mut gate = fed(&[(0, 1), (0, 2), (0, 3)]);
        let (first, _) = gate.next(at(0)).unwrap();
        gate.offer(0, 2, "0/2 again".into(), at(5));
        assert_eq!(gate.held(), 2);
        gate.settle(first, Settle::Done, at(6));
        let out = std::iter::from_fn(|| {
            let (t, item) = gate.next(at(7))?;
            gate.settle(t, Settle::Done, at(7));
            Some(item)
        })
        .collect::<Vec<_>>();
        assert_eq!(out, ["0/2 again", "0/3"]);
    }

    #[test]
    fn a_message_settled_here_that_comes_again_is_not_handed_out() {
        let mut gate = fed(&[(0, 1), (0, 2)]);
        let (t, _) = gate.next(at(0)).unwrap();
        gate.settle(t, Settle::Done, at(1));
        assert_eq!(gate.offer(0, 1, "0/1 again".into(), at(2)), Offered::Settled("0/1 again".into()));
        assert_eq!(gate.next(at(2)).unwrap().1, "0/2");
    }

    /// An older message of a partition that comes after a newer one was
    /// settled here (it was out of order) was never seen: handed out, not
    /// acked unseen; a settled one coming again is acked again only while
    /// its lost ack's redelivery could still come.
    #[test]
    fn only_what_was_settled_here_is_acked_again_unseen() {
        let mut gate = fed(&[(0, 5)]);
        let (t, _) = gate.next(at(0)).unwrap();
        gate.settle(t, Settle::Done, at(1));
        assert_eq!(gate.offer(0, 3, "0/3".into(), at(2)), Offered::Taken);
        let (t, item) = gate.next(at(2)).unwrap();
        assert_eq!(item, "0/3");
        gate.settle(t, Settle::Done, at(3));
        assert_eq!(gate.offer(0, 5, "0/5 again".into(), at(4)), Offered::Settled("0/5 again".into()));
        // Twice ack_wait after 3 was settled, a later settle forgets 3 and 5.
        gate.offer(0, 9, "0/9".into(), at(20_003));
        let (t, _) = gate.next(at(20_003)).unwrap();
        gate.settle(t, Settle::Done, at(20_003));
        assert_eq!(gate.offer(0, 3, "0/3 again".into(), at(20_004)), Offered::Taken, "handed out again, not lost");
        assert_eq!(gate.offer(0, 9, "0/9 again".into(), at(20_004)), Offered::Settled("0/9 again".into()));
    }

    #[test]
    fn a_partition_remembers_at_most_settled_kept_sequences() {
        let mut gate = PartitionGate::new(ACK_WAIT);
        let total = SETTLED_KEPT as u64 + 10;
        for s in 1..=total {
            gate.offer(0, s, s, at(0));
            let (t, _) = gate.next(at(0)).unwrap();
            gate.settle(t, Settle::Done, at(0));
        }
        assert!(matches!(gate.offer(0, 10, 10, at(1)), Offered::Taken), "forgotten: handed out again");
        assert!(matches!(gate.offer(0, 11, 11, at(1)), Offered::Settled(_)));
    }

    #[test]
    fn held_messages_are_kept_alive_every_half_ack_wait() {
        let mut gate = fed(&[(0, 1), (0, 2), (0, 3)]);
        let (out, _) = gate.next(at(0)).unwrap();
        assert_eq!(gate.deadline(), Some(at(5_000)));
        let mut kept = Vec::new();
        gate.keep_alive(at(4_999), |i| kept.push(i.clone()));
        assert!(kept.is_empty());
        gate.keep_alive(at(5_000), |i| kept.push(i.clone()));
        assert_eq!(kept, ["0/2", "0/3"]);
        assert_eq!(gate.deadline(), Some(at(10_000)));
        // In progress pushes the message out's give-up back.
        gate.settle(out, Settle::Progress, at(9_000));
        for t in [10_000, 15_000, 20_000] {
            kept.clear();
            gate.keep_alive(at(t), |i| kept.push(i.clone()));
            assert_eq!(kept, ["0/2", "0/3"]);
        }
        assert!(gate.next(at(20_000)).is_none(), "1 is still out (in progress at 9 s)");
    }

    #[test]
    fn held_messages_whose_ack_wait_ran_out_unrefreshed_are_dropped_not_handed_out() {
        let mut gate = fed(&[(0, 1), (0, 2), (1, 3)]);
        gate.offer(0, 4, "0/4".into(), at(4_000));
        let out = drain(&mut gate, at(0));
        assert_eq!(items(&out), ["0/1", "1/3"]);
        // Stopped for 12 s: no `+WPI` went; 2's ack wait ran out (4's not yet),
        // so the server delivers 2 again (maybe elsewhere): 4 must not overtake it.
        gate.settle(out[0].0, Settle::Done, at(12_000));
        assert!(gate.next(at(12_000)).is_none());
        assert_eq!(gate.held(), 0);
        gate.offer(0, 2, "0/2 again".into(), at(12_001));
        assert_eq!(gate.next(at(12_001)).unwrap().1, "0/2 again");
        // The timer path drops them as well, without keeping them alive.
        let mut gate = fed(&[(0, 1), (0, 2)]);
        let (first, _) = gate.next(at(0)).unwrap();
        let mut kept = Vec::new();
        gate.keep_alive(at(10_000), |i| kept.push(i.clone()));
        assert!(kept.is_empty());
        gate.settle(first, Settle::Done, at(10_001));
        assert!(gate.next(at(10_001)).is_none());
    }

    #[test]
    fn a_message_out_never_settled_nor_redelivered_is_given_up() {
        let mut gate = fed(&[(0, 1), (0, 2)]);
        let (out, _) = gate.next(at(0)).unwrap();
        gate.settle(out, Settle::Redeliver(Some(Duration::from_secs(1))), at(0));
        for t in [5_000, 10_000, 15_000, 20_000, 20_999] {
            gate.keep_alive(at(t), |_| {});
        }
        assert!(gate.next(at(20_999)).is_none());
        // max_deliver reached: the server sends 1 no more.
        gate.keep_alive(at(21_000), |_| {});
        assert_eq!(gate.next(at(21_000)).unwrap().1, "0/2");
    }

    #[test]
    fn a_resumed_partition_hands_out_only_what_comes_after_its_checkpoint() {
        let mut gate = PartitionGate::new(Duration::from_secs(2));
        gate.resume(1, 11);
        gate.resume(1, 7); // never lowers
        for (partition, sequence) in [(1, 10), (1, 11), (2, 11), (1, 12)] {
            match gate.offer(partition, sequence, format!("{partition}:{sequence}"), at(0)) {
                Offered::Settled(item) => assert!(sequence <= 11 && partition == 1, "{item}"),
                Offered::Taken => assert!(sequence > 11 || partition == 2),
            }
        }
        assert_eq!(items(&drain(&mut gate, at(0))), ["2:11", "1:12"]);
    }

    #[test]
    fn a_reset_drops_held_and_out_but_remembers_what_was_done() {
        let mut gate = fed(&[(0, 1), (0, 2), (1, 3)]);
        let out = drain(&mut gate, at(0));
        gate.settle(out[0].0, Settle::Done, at(1));
        gate.reset();
        assert_eq!(gate.held(), 0);
        assert!(gate.next(at(2)).is_none());
        // The new consumer delivers 2 and 3 again; 1 (done) comes back too.
        assert!(matches!(gate.offer(0, 1, "0/1".into(), at(3)), Offered::Settled(_)));
        gate.offer(0, 2, "0/2".into(), at(3));
        gate.offer(1, 3, "1/3".into(), at(3));
        assert_eq!(items(&drain(&mut gate, at(3))), ["0/2", "1/3"]);
        // The old consumer's hand-out of 3, settled late, does not free partition 1.
        gate.settle(out[1].0, Settle::Done, at(4));
        assert!(gate.is_out(1));
    }

    /// A standby pinned while the lost instance had 1..=3 pending: new
    /// messages 4.. come first, then the old ones in the order their ack
    /// waits ran out; all go out in order once none is pending elsewhere.
    #[test]
    fn a_takeover_holds_everything_until_nothing_is_pending_elsewhere() {
        let mut gate = PartitionGate::new(ACK_WAIT);
        gate.pinned(at(0));
        assert_eq!(gate.takeover_due(), Some(at(0)));
        assert!(gate.takeover_asked(at(0)));
        assert!(!gate.takeover_asked(at(0)), "asked once until answered");
        for (p, s) in [(0, 4), (1, 5), (0, 6)] {
            gate.delivered_first(s);
            gate.offer(p, s, format!("{p}/{s}"), at(1));
        }
        assert!(gate.next(at(1)).is_none(), "4.. were delivered after the pin moved");
        // 3 pending with the lost instance besides the 3 held here.
        gate.consumer_state(0, 6, at(2));
        assert!(gate.next(at(2)).is_none());
        assert_eq!(gate.takeover_due(), Some(at(102)));
        // 3 comes back first (1 was kept alive longer), then 2: none goes yet.
        gate.offer(0, 3, "0/3 again".into(), at(900));
        gate.offer(1, 2, "1/2 again".into(), at(950));
        assert!(gate.takeover_asked(at(1_002)));
        gate.consumer_state(0, 6, at(1_010));
        assert!(gate.next(at(1_010)).is_none());
        gate.offer(0, 1, "0/1 again".into(), at(1_100));
        assert!(gate.takeover_asked(at(2_010)));
        gate.consumer_state(0, 6, at(2_020));
        assert!(!gate.is_taking_over());
        let seen = drain_settling(&mut gate, at(2_020));
        assert_eq!(seen[&0], ["0/1 again", "0/3 again", "0/4", "0/6"]);
        assert_eq!(seen[&1], ["1/2 again", "1/5"]);
    }

    /// A step-down moves the pin from `old` (0/1 out, 0/2, 1/3, 0/4 held)
    /// to `new`, which gets 5.. first. `old` learns it (a 423) and gives its
    /// held messages back to be nak'd, in stream order, stops keeping them
    /// alive and hands nothing more out; its message out is settled as
    /// usual. `new` gets the naks at once, and with 0/1 acked nothing is
    /// pending elsewhere: every partition goes out in stream order.
    #[test]
    fn a_lost_pin_gives_back_what_is_held_and_the_new_pin_keeps_the_order() {
        let mut old = fed(&[(0, 1), (0, 2), (1, 3), (0, 4)]);
        let out = drain(&mut old, at(0));
        assert_eq!(items(&out), ["0/1", "1/3"]);
        old.settle(out[1].0, Settle::Done, at(1));
        let mut new = PartitionGate::new(ACK_WAIT);
        new.pinned(at(10));
        assert!(new.takeover_asked(at(10)));
        for (p, s) in [(0, 5), (1, 6)] {
            new.delivered_first(s);
            new.offer(p, s, format!("{p}/{s}"), at(11));
        }
        // 0/1 out and 0/2, 0/4 held at the old instance, besides the 2 here.
        new.consumer_state(3, 5, at(12));
        assert!(new.next(at(12)).is_none());

        let mut nak = Vec::new();
        old.pin_lost(|item| nak.push(item));
        assert_eq!(nak, ["0/2", "0/4"], "the held messages, in stream order");
        assert_eq!(old.held(), 0);
        assert!(old.next(at(20)).is_none(), "nothing more handed out");
        assert!(old.is_out(0), "the message out stays with the application");
        let mut kept = 0;
        old.keep_alive(at(6_000), |_| kept += 1);
        assert_eq!(kept, 0, "no +WPI for what was given back");
        assert!(old.was_settled(1, 3) && !old.was_settled(0, 2));

        // The naks come to the new pin at once: 0/1 is still pending there.
        for (i, item) in nak.into_iter().enumerate() {
            let (p, s) = item.split_once('/').unwrap();
            let (p, s) = (p.parse().unwrap(), s.parse().unwrap());
            new.offer(p, s, format!("{item} again"), at(30 + i as u64));
        }
        assert!(new.takeover_asked(at(112)));
        new.consumer_state(3, 5, at(112));
        assert!(new.next(at(112)).is_none(), "0/1 is still out at the old instance");
        old.settle(out[0].0, Settle::Done, at(150));
        assert!(new.takeover_asked(at(212)));
        new.consumer_state(3, 4, at(212));
        let seen = drain_settling(&mut new, at(212));
        assert_eq!(seen[&0], ["0/2 again", "0/4 again", "0/5"]);
        assert_eq!(seen[&1], ["1/6"]);
    }

    #[test]
    fn a_takeover_ends_when_the_ack_floor_reached_what_was_delivered_before() {
        let mut gate = PartitionGate::new(ACK_WAIT);
        gate.pinned(at(0));
        gate.offer(0, 3, "0/3 again".into(), at(0));
        gate.delivered_first(10);
        gate.offer(0, 10, "0/10".into(), at(0));
        gate.offer(1, 11, "1/11".into(), at(0));
        assert!(gate.takeover_asked(at(0)));
        // Some of the ones delivered here are not received yet; the floor is below 9.
        gate.consumer_state(8, 5, at(1));
        assert!(gate.next(at(1)).is_none());
        // Asking fails: it is asked again later.
        assert!(gate.takeover_asked(at(1_001)));
        gate.consumer_state_unknown(at(1_010));
        assert!(!gate.takeover_asked(at(1_010)));
        assert!(gate.takeover_asked(at(2_010)));
        gate.consumer_state(9, 5, at(2_011));
        assert_eq!(items(&drain(&mut gate, at(2_011))), ["0/3 again", "1/11"]);
    }

    #[test]
    fn a_takeover_with_nothing_pending_elsewhere_ends_at_the_first_state() {
        let mut gate = PartitionGate::new(ACK_WAIT);
        gate.pinned(at(0));
        gate.delivered_first(10);
        gate.offer(0, 10, "0/10".into(), at(0));
        gate.offer(1, 11, "1/11".into(), at(0));
        assert!(gate.next(at(0)).is_none());
        assert!(gate.takeover_asked(at(0)));
        // A new consumer's floor lies below its first message, but all pending are here.
        gate.consumer_state(0, 2, at(1));
        assert_eq!(items(&drain(&mut gate, at(1))), ["0/10", "1/11"]);
        // Pinned again while nothing waits: the same.
        gate.pinned(at(2));
        assert!(gate.takeover_asked(at(2)));
        gate.consumer_state(11, 2, at(3));
        assert!(!gate.is_taking_over());
    }

    #[test]
    fn a_takeover_gives_up_after_twice_ack_wait_and_a_reset_ends_it() {
        let mut gate = PartitionGate::new(ACK_WAIT);
        gate.pinned(at(0));
        gate.delivered_first(5);
        gate.offer(0, 5, "0/5".into(), at(0));
        let mut now = 0;
        while gate.takeover_due().is_some_and(|d| d < at(20_000)) {
            now = gate.takeover_due().unwrap().offset().as_millis() as u64;
            assert!(gate.takeover_asked(at(now)));
            gate.consumer_state(0, 9, at(now));
            gate.keep_alive(at(now), |_| {});
            assert!(gate.next(at(now)).is_none());
        }
        assert!(now > 18_000 && now < 20_000, "{now}");
        assert!(!gate.takeover_asked(at(20_000)));
        assert_eq!(items(&drain(&mut gate, at(20_000))), ["0/5"]);
        gate.pinned(at(20_001));
        gate.offer(1, 6, "1/6".into(), at(20_001));
        gate.reset();
        assert!(!gate.is_taking_over());
    }
}
