//! The pull consumer state machine: one inbox, its pulls, their accounting.

use std::collections::VecDeque;
use std::time::Duration;

use super::event::{ConsumerEvent, Delivery, FetchEnd, ResetReason};
use super::options::{ConsumeOptions, ConsumePlan, FetchOptions, PriorityOptions, check_priority};
use super::pending::Pending;
use super::request::PullRequest;
use super::status::{Effect, PullStatus, StatusKind, returned_pending};
use super::timer::{Timer, Timers};
use crate::core::error::Error;
use crate::core::machine::{Link, Machine};
use crate::core::message::Message;
use crate::core::time::{Clock, Instant};
use crate::core::timer::{Deadline, TimerKind};

/// Header carrying the pin id of a pinned-client priority group (ADR-42).
pub const PIN_ID_HEADER: &str = "Nats-Pin-Id";

/// First delay before pulling again after a refused pull; doubles up to [`RETRY_MAX`].
const RETRY_MIN: Duration = Duration::from_millis(250);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// Consume: how many `CONSUMER.INFO` answers in a row must say the consumer
/// (or its stream) is gone, after pulls met no responders (503), before the
/// reader ends; a few, so a restart or a leader election is not taken for a deletion.
pub const GONE_CHECKS: u32 = 3;

/// How long after `expires` the client gives up on a pull: a tenth of it,
/// at least a second, so the server's own 408 normally wins the race.
fn expiry_margin(expires: Duration) -> Duration {
    (expires / 10).max(Duration::from_secs(1))
}

/// A sans-IO pull consumer for one subscription (inbox) of one consumer.
///
/// The caller owns the subscription and the clock. The loop contract:
///
/// 1. feed inputs: [`handle_input`](Machine::handle_input) for everything
///    that arrives on the inbox, [`handle_timeout`](Self::handle_timeout) when
///    [`poll_deadline`](Machine::poll_deadline) passes,
///    [`handle_link`](Machine::handle_link) when the connection
///    drops or comes back, [`stop`](Self::stop);
/// 2. drain outputs in this order: [`poll_pull`](Self::poll_pull) (publish
///    each to `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>` with the inbox
///    as reply), [`poll_event`](Self::poll_event), then re-read
///    [`poll_deadline`](Machine::poll_deadline).
///
/// Time only moves through `now` arguments (a clock running backwards is
/// clamped), so the heartbeat watchdog measures the server's silence, never
/// the user's processing. Nothing here panics on any input.
#[derive(Debug)]
pub struct PullConsumer {
    mode: Mode,
    expires: Duration,
    idle_heartbeat: Option<Duration>,
    priority: Option<PriorityOptions>,
    pin_id: Option<String>,
    pending: Pending,
    /// Delivered to the caller's buffer and not yet taken by the user; counts
    /// against the refill threshold so a slow reader never makes the client
    /// pull without bound. `None` when the caller does not buffer.
    buffered: Option<Pending>,
    /// What the newest pull added to pending, released if the server refuses it.
    last_pull: Option<(u64, u64)>,
    connected: bool,
    phase: Phase,
    clock: Clock,
    /// Last time anything came from the server (or the connection came back).
    silent_since: Instant,
    /// Start of the heartbeat watchdog: the later of `silent_since` and the last pull.
    watch_from: Instant,
    retry_delay: Duration,
    /// The heartbeat slot says whether the watchdog runs; its instant may
    /// lag behind `watch_from` (see [`next_deadline`](Self::next_deadline)).
    timers: Timers,
    pulls: VecDeque<PullRequest>,
    events: VecDeque<ConsumerEvent>,
    /// A pull met no responders: ask `CONSUMER.INFO` whether the consumer is gone.
    probe_wanted: bool,
    /// Probe answers in a row that said the consumer is gone.
    gone: u32,
    /// What ends the reader, until taken.
    end: Option<Error>,
}

#[derive(Debug)]
enum Mode {
    /// One pull; `max_bytes` is 0 when unlimited.
    Fetch {
        max_bytes: u64,
        no_wait: bool,
    },
    Consume(ConsumePlan),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    /// `stop()` was called on a consume: no new pulls, wait for the old ones to end.
    Draining,
    Finished,
}

impl PullConsumer {
    /// A machine for one `fetch`; its pull is ready in [`poll_pull`](Self::poll_pull).
    pub fn fetch(now: Instant, options: FetchOptions) -> Result<Self, Error> {
        let idle_heartbeat = options.heartbeat()?;
        check_priority(options.priority.as_ref())?;
        let mode = Mode::Fetch { max_bytes: options.max_bytes.unwrap_or(0), no_wait: options.no_wait };
        let mut this = Self::new(now, mode, options.expires, idle_heartbeat, options.priority);
        this.issue_pull(now, options.max_messages, options.max_bytes.unwrap_or(0));
        this.timers.set(Timer::PullExpiry, Some(now + options.expires + expiry_margin(options.expires)));
        this.arm_heartbeat();
        Ok(this)
    }

    /// A machine for a `consume`; its first pull is ready in [`poll_pull`](Self::poll_pull).
    pub fn consume(now: Instant, options: ConsumeOptions) -> Result<Self, Error> {
        let plan = options.plan()?;
        check_priority(options.priority.as_ref())?;
        let (expires, hb) = (plan.expires, plan.idle_heartbeat);
        let mut this = Self::new(now, Mode::Consume(plan), expires, Some(hb), options.priority);
        this.refill(now);
        this.arm_heartbeat();
        Ok(this)
    }

    fn new(
        now: Instant,
        mode: Mode,
        expires: Duration,
        idle_heartbeat: Option<Duration>,
        mut priority: Option<PriorityOptions>,
    ) -> Self {
        let pin_id = priority.as_mut().and_then(|p| p.pin_id.take());
        PullConsumer {
            mode,
            expires,
            idle_heartbeat,
            priority,
            pin_id,
            pending: Pending::default(),
            buffered: None,
            last_pull: None,
            connected: true,
            phase: Phase::Running,
            clock: Clock::new(now),
            silent_since: now,
            watch_from: now,
            retry_delay: RETRY_MIN,
            timers: Timers::default(),
            pulls: VecDeque::new(),
            events: VecDeque::new(),
            probe_wanted: false,
            gone: 0,
            end: None,
        }
    }

    // ---- getters ----

    /// Messages the pulls sent may still deliver.
    pub fn pending_messages(&self) -> u64 {
        self.pending.msgs
    }

    /// Bytes the pulls sent may still deliver.
    pub fn pending_bytes(&self) -> u64 {
        self.pending.bytes
    }

    /// The pin id of a pinned-client group, echoed in every pull.
    pub fn pin_id(&self) -> Option<&str> {
        self.pin_id.as_deref()
    }

    /// Whether the machine is done: fetch ended, consume drained or terminated.
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// The timer behind the last [`handle_timeout`](Self::handle_timeout) that did something.
    pub fn last_timeout_reason(&self) -> Option<Timer> {
        self.timers.last_fired()
    }

    // ---- inputs ----

    /// Feeds a message that arrived on the inbox.
    fn on_message(&mut self, now: Instant, message: &Message) -> Delivery {
        let now = self.clock.advance(now);
        self.silent_since = now;
        self.watch_from = now;
        let delivery = match PullStatus::of(message) {
            None => {
                self.on_user_message(now, message);
                Delivery::User
            }
            Some(status) => {
                let kind = status.kind;
                self.on_status(now, status, message);
                Delivery::Status(kind)
            }
        };
        // Every message moves `watch_from`, not the timer: the watchdog's
        // deadline is brought up to date when polled or fired instead.
        if self.timers.get(Timer::Heartbeat).is_some() != self.watchdog_runs() {
            self.arm_heartbeat();
        }
        delivery
    }

    /// Fires the timers due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        self.arm_heartbeat();
        for &timer in Timer::ALL {
            if !self.timers.take_due(timer, now) {
                continue;
            }
            match timer {
                Timer::Retry => self.refill(now),
                Timer::PullExpiry => self.on_pulls_expired(now),
                Timer::Heartbeat => self.on_heartbeats_missed(now),
            }
        }
        self.arm_heartbeat();
    }

    /// The connection dropped: pause the watchdog, hold back pulls (ADR-37).
    fn link_down(&mut self, now: Instant) {
        self.clock.advance(now);
        self.connected = false;
        self.unqueue_pulls();
        self.timers.set(Timer::Retry, None);
        if matches!(self.mode, Mode::Consume(_)) && self.phase == Phase::Running {
            // Reconnecting voids every pull anyway.
            self.timers.set(Timer::PullExpiry, None);
        }
        self.arm_heartbeat();
    }

    /// The connection is back. A consume forgets its pulls and pulls at once,
    /// without asking for consumer info (ADR-37 rev. 2).
    fn link_up(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        self.connected = true;
        self.silent_since = now;
        self.watch_from = now;
        if matches!(self.mode, Mode::Consume(_)) && self.phase == Phase::Running {
            self.reset_pending();
            self.events.push_back(ConsumerEvent::Reset(ResetReason::Reconnected));
            self.refill(now);
        }
        self.arm_heartbeat();
    }

    /// From now on, user messages count as buffered until the caller reports
    /// them taken with [`handle_taken`](Self::handle_taken); buffered
    /// messages count against the refill threshold like pending ones.
    pub fn track_buffered(&mut self) {
        self.buffered.get_or_insert_with(Pending::default);
    }

    /// The user took `msgs` messages (`bytes` in all) from the caller's buffer.
    pub fn handle_taken(&mut self, now: Instant, msgs: u64, bytes: u64) {
        let now = self.clock.advance(now);
        if let Some(buffered) = self.buffered.as_mut() {
            buffered.sub(msgs, bytes);
            self.refill(now);
            self.arm_heartbeat();
        }
    }

    /// Messages (and bytes) buffered and not yet taken.
    pub fn buffered(&self) -> (u64, u64) {
        self.buffered.map(|b| (b.msgs, b.bytes)).unwrap_or_default()
    }

    /// Stops pulling. A fetch ends at once; a consume drains: it counts what
    /// its pulls still deliver and raises [`ConsumerEvent::Drained`] when
    /// they have all ended.
    pub fn stop(&mut self) {
        match self.mode {
            Mode::Fetch { .. } => self.finish_fetch(FetchEnd::Stopped),
            Mode::Consume(_) if self.phase == Phase::Running => {
                self.phase = Phase::Draining;
                self.unqueue_pulls();
                self.timers.set(Timer::Retry, None);
                self.check_drained();
                self.arm_heartbeat();
            }
            Mode::Consume(_) => {}
        }
    }

    /// The answer to a probe ([`poll_probe`](Self::poll_probe)): a consumer
    /// or stream that is gone is a [`ConsumerEvent::ConsumerGone`] and, after
    /// [`GONE_CHECKS`] such answers in a row and unless keeping waiting, ends
    /// the consume with the server's error; a consumer that exists clears
    /// the count; anything else (a timeout, no JetStream) proves nothing.
    pub fn handle_probe(&mut self, result: Result<(), Error>) {
        if self.phase == Phase::Finished {
            return;
        }
        match result {
            Err(Error::JetStream(e)) if e.err_code.is_missing_consumer() => {
                self.gone += 1;
                self.events.push_back(ConsumerEvent::ConsumerGone(e.clone()));
                let keep_waiting = matches!(&self.mode, Mode::Consume(plan) if plan.keep_waiting);
                if !keep_waiting && self.gone >= GONE_CHECKS {
                    self.end = Some(Error::JetStream(e));
                    self.finish();
                }
            }
            Ok(()) => self.gone = 0,
            Err(_) => {}
        }
    }

    // ---- outputs ----

    /// Whether to ask the server (`CONSUMER.INFO`) if the consumer still
    /// exists; answer with [`handle_probe`](Self::handle_probe).
    #[must_use]
    pub fn poll_probe(&mut self) -> bool {
        std::mem::take(&mut self.probe_wanted) && self.phase != Phase::Finished
    }

    /// The error that ended the reader, once.
    #[must_use]
    pub fn poll_end(&mut self) -> Option<Error> {
        self.end.take()
    }

    /// Whether a poll has anything to give: a pull, an event, a probe or
    /// the end. Most messages leave nothing, so a caller that asks first
    /// skips the polls (a drain refills about once per half a pull).
    pub fn has_output(&self) -> bool {
        !self.pulls.is_empty() || !self.events.is_empty() || self.probe_wanted || self.phase == Phase::Finished
    }

    /// The next pull request to publish.
    #[must_use]
    pub fn poll_pull(&mut self) -> Option<PullRequest> {
        self.pulls.pop_front()
    }

    /// The next event for the user or the driver.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<ConsumerEvent> {
        self.events.pop_front()
    }

    /// The soonest timer, the watchdog's at the deadline the messages
    /// since it was armed have moved it to.
    fn next_deadline(&self) -> Option<Deadline<Timer>> {
        let mut timers = self.timers.clone();
        if timers.get(Timer::Heartbeat).is_some() {
            timers.set(Timer::Heartbeat, self.heartbeat_deadline());
        }
        timers.next()
    }

    // ---- internals ----

    fn on_user_message(&mut self, now: Instant, message: &Message) {
        self.pending.sub(1, message.length as u64);
        if let Some(buffered) = self.buffered.as_mut() {
            buffered.add(1, message.length as u64);
        }
        self.retry_delay = RETRY_MIN;
        self.gone = 0;
        let pin = message.headers.as_ref().and_then(|h| h.get(PIN_ID_HEADER));
        if let Some(id) = pin.filter(|id| self.pin_id.as_deref() != Some(*id)) {
            self.pin_id = Some(id.to_string());
            self.events.push_back(ConsumerEvent::Pinned { id: id.to_string() });
        }
        match self.mode {
            Mode::Fetch { max_bytes, .. } => {
                if max_bytes > 0 && self.pending.bytes == 0 {
                    self.finish_fetch(FetchEnd::MaxBytesReached);
                } else if self.pending.msgs == 0 {
                    self.finish_fetch(FetchEnd::BatchComplete);
                }
            }
            Mode::Consume(ref plan) => {
                // A pull whose byte budget is spent ends whatever its batch said.
                if plan.max_bytes > 0 && self.pending.bytes == 0 {
                    self.pending.msgs = 0;
                }
                self.check_drained();
                self.refill(now);
            }
        }
    }

    fn on_status(&mut self, now: Instant, status: PullStatus, message: &Message) {
        let effect = status.kind.effect();
        if self.phase == Phase::Finished || effect == Effect::Activity {
            return;
        }
        let returned = returned_pending(message);
        if let Some((msgs, bytes)) = returned {
            self.pending.sub(msgs, bytes);
        }
        let effect = self.default_bytes_effect(&status, returned, effect);
        match effect {
            Effect::Terminal | Effect::Fatal => self.events.push_back(ConsumerEvent::Terminal(status.clone())),
            Effect::Rejected | Effect::PullEndedWarn | Effect::Notice => {
                self.events.push_back(ConsumerEvent::Warning(status.clone()))
            }
            Effect::PinRejected => {
                self.pin_id = None;
                self.events.push_back(ConsumerEvent::PinIdMismatch);
            }
            Effect::Activity | Effect::PullEnded | Effect::Reset => {}
        }
        let keep_waiting = match &self.mode {
            Mode::Fetch { .. } => {
                let end = match status.kind {
                    StatusKind::NoMessages => FetchEnd::NoMessages,
                    StatusKind::RequestTimeout => FetchEnd::Expired,
                    _ => FetchEnd::Status(status),
                };
                return self.finish_fetch(end);
            }
            Mode::Consume(plan) => plan.keep_waiting,
        };
        // A refused pull delivers nothing: give back what it added.
        let release = matches!(effect, Effect::Rejected | Effect::PinRejected | Effect::Terminal | Effect::Fatal);
        if release && returned.is_none() {
            if let Some((msgs, bytes)) = self.last_pull.take() {
                self.pending.sub(msgs, bytes);
            }
        }
        match effect {
            Effect::Reset => {
                self.reset_pending();
                self.events.push_back(ConsumerEvent::Reset(ResetReason::LeadershipChange));
            }
            Effect::Rejected => {
                // No responders: the consumer may be gone, and no heartbeat will say so.
                self.probe_wanted |= status.kind == StatusKind::NoResponders;
                self.schedule_retry(now)
            }
            // Nothing else outstanding means a full-size pull failed: don't spin.
            Effect::PullEndedWarn if self.pending.msgs == 0 => self.schedule_retry(now),
            Effect::Terminal if keep_waiting => self.schedule_retry(now),
            Effect::Terminal | Effect::Fatal => return self.finish(),
            _ => {}
        }
        self.check_drained();
        self.refill(now);
    }

    /// Under the default bytes bound a pull ending on its budget is the
    /// usual end, not a warning; one that delivered nothing (a message
    /// larger than its whole budget) doubles the budget, then pulls again.
    fn default_bytes_effect(&mut self, status: &PullStatus, returned: Option<(u64, u64)>, effect: Effect) -> Effect {
        let Mode::Consume(plan) = &mut self.mode else { return effect };
        if status.kind != StatusKind::MessageSizeExceedsMaxBytes || plan.bound_bytes == 0 {
            return effect;
        }
        let nothing_delivered = returned.is_some_and(|(_, bytes)| bytes >= plan.pull_bytes());
        if nothing_delivered && !plan.grow_pull_bytes() { effect } else { Effect::PullEnded }
    }

    fn on_pulls_expired(&mut self, now: Instant) {
        match self.phase {
            Phase::Finished => {}
            _ if matches!(self.mode, Mode::Fetch { .. }) => self.finish_fetch(FetchEnd::TimedOut),
            Phase::Draining => {
                self.reset_pending();
                self.check_drained();
            }
            Phase::Running => {
                if self.pending != Pending::default() {
                    self.reset_pending();
                    self.events.push_back(ConsumerEvent::Reset(ResetReason::PullsExpired));
                }
                self.refill(now);
            }
        }
    }

    fn on_heartbeats_missed(&mut self, now: Instant) {
        let Some(hb) = self.idle_heartbeat else {
            return;
        };
        let silent = now.saturating_duration_since(self.silent_since);
        let count = u32::try_from(silent.as_nanos() / hb.as_nanos().max(1)).unwrap_or(u32::MAX);
        self.events.push_back(ConsumerEvent::HeartbeatsMissed { count });
        match self.mode {
            Mode::Fetch { .. } => self.finish_fetch(FetchEnd::HeartbeatsMissed),
            Mode::Consume(_) => {
                self.reset_pending();
                self.timers.set(Timer::Retry, None);
                self.watch_from = now;
                self.refill(now);
            }
        }
    }

    /// Consume: pull when pending fell to a threshold, asking for what fills the buffer.
    fn refill(&mut self, now: Instant) {
        let Mode::Consume(plan) = &self.mode else {
            return;
        };
        if !self.connected || self.phase != Phase::Running || self.timers.get(Timer::Retry).is_some() {
            return;
        }
        let mut held = self.pending;
        if let Some(buffered) = self.buffered {
            held.add(buffered.msgs, buffered.bytes);
        }
        let (batch, max_bytes) = match (plan.threshold_messages, plan.threshold_bytes) {
            // The default bytes bound: a pull only while its budget fits.
            (Some(_), _) if plan.bound_bytes > 0 && held.bytes.saturating_add(plan.pull_bytes()) > plan.bound_bytes => {
                return;
            }
            (Some(threshold), _) if held.msgs <= threshold => {
                (plan.max_messages.saturating_sub(held.msgs), plan.pull_bytes())
            }
            (_, Some(threshold)) if held.bytes <= threshold => {
                (plan.max_messages, plan.max_bytes.saturating_sub(held.bytes))
            }
            _ => return,
        };
        if batch == 0 || (plan.max_bytes > 0 && max_bytes == 0) {
            return;
        }
        self.issue_pull(now, batch, max_bytes);
        self.timers.set(Timer::PullExpiry, Some(now + self.expires + expiry_margin(self.expires)));
    }

    fn issue_pull(&mut self, now: Instant, batch: u64, max_bytes: u64) {
        let no_wait = matches!(self.mode, Mode::Fetch { no_wait: true, .. });
        let priority = self.priority.as_ref();
        self.pulls.push_back(PullRequest {
            batch,
            expires: (!no_wait).then_some(self.expires),
            max_bytes,
            no_wait,
            idle_heartbeat: self.idle_heartbeat,
            group: priority.map(|p| p.group.clone()),
            min_pending: priority.and_then(|p| p.min_pending),
            min_ack_pending: priority.and_then(|p| p.min_ack_pending),
            id: self.pin_id.clone(),
            priority: priority.and_then(|p| p.priority),
        });
        self.pending.add(batch, max_bytes);
        self.last_pull = Some((batch, max_bytes));
        self.watch_from = self.watch_from.max(now);
    }

    /// Drops pulls not yet handed out, and what they added to pending.
    fn unqueue_pulls(&mut self) {
        for pull in self.pulls.drain(..) {
            self.pending.sub(pull.batch, pull.max_bytes);
        }
    }

    fn reset_pending(&mut self) {
        self.pending.reset();
        self.last_pull = None;
    }

    fn schedule_retry(&mut self, now: Instant) {
        self.timers.set(Timer::Retry, Some(now + self.retry_delay));
        self.retry_delay = (self.retry_delay * 2).min(RETRY_MAX);
    }

    /// The watchdog runs while connected and a pull may be waiting on the server.
    fn watchdog_runs(&self) -> bool {
        let waiting = match self.mode {
            Mode::Fetch { .. } => self.phase == Phase::Running,
            Mode::Consume(_) => self.phase == Phase::Running && self.pending.msgs > 0,
        };
        self.idle_heartbeat.is_some() && self.connected && waiting
    }

    /// Two heartbeat intervals after `watch_from`, while the watchdog runs.
    fn heartbeat_deadline(&self) -> Option<Instant> {
        match self.idle_heartbeat {
            Some(hb) if self.watchdog_runs() => Some(self.watch_from + hb * 2),
            _ => None,
        }
    }

    fn arm_heartbeat(&mut self) {
        self.timers.set(Timer::Heartbeat, self.heartbeat_deadline());
    }

    fn check_drained(&mut self) {
        if self.phase == Phase::Draining && self.pending.msgs == 0 {
            self.events.push_back(ConsumerEvent::Drained);
            self.finish();
        }
    }

    fn finish_fetch(&mut self, end: FetchEnd) {
        if self.phase != Phase::Finished {
            self.events.push_back(ConsumerEvent::FetchDone(end));
            self.finish();
        }
    }

    fn finish(&mut self) {
        self.phase = Phase::Finished;
        self.pulls.clear();
        self.timers.stop_all();
    }
}
impl Machine for PullConsumer {
    type Input<'a> = &'a Message;
    type Verdict = Delivery;
    type Event = ConsumerEvent;
    type Timer = Timer;

    fn handle_input(&mut self, now: Instant, message: &Message) -> Delivery {
        self.on_message(now, message)
    }

    fn handle_timeout(&mut self, now: Instant) {
        PullConsumer::handle_timeout(self, now);
    }

    fn handle_link(&mut self, now: Instant, link: Link) {
        match link {
            Link::Up => self.link_up(now),
            Link::Down => self.link_down(now),
        }
    }

    fn poll_event(&mut self) -> Option<ConsumerEvent> {
        PullConsumer::poll_event(self)
    }

    fn poll_deadline(&self) -> Option<Deadline<Timer>> {
        self.next_deadline()
    }
}
