//! Scatter-gather requests (ADR-47, nats.js `requestMany`): one request,
//! every reply until an end rule says stop. This module is the end rules
//! only, sans-IO: [`Gather`] is fed replies and `now`, and says which
//! replies the user sees, when it must be woken next and why it ended. The
//! driver routes the replies (muxed inbox, or the request's own
//! subscription with `no_mux`) to it and ticks its timer,
//! so the rules never depend on how fast the user reads.
//!
//! The rules, as in nats.js v3 (`RequestManyOptions`):
//! - every strategy ends at `max_wait` after the request (default 1 s),
//!   and with an error on a no-responders status (503) or a closed
//!   connection; replies that came before stay delivered;
//! - `Timer`: only `max_wait`;
//! - `Count`: after `max_messages` replies (`None` or 0: only `max_wait`);
//! - `Stall`: once `stall` (default 300 ms) passes after a reply with no
//!   other reply; before the first reply only `max_wait` applies, and the
//!   stall never extends the request past `max_wait` (ADR-47);
//! - `Sentinel`: at the first reply with an empty payload, which is
//!   delivered (nats.js yields it too) and is the last.
//!
//! ```
//! use std::time::Duration;
//! use natsjet::request_many::{Gather, RequestManyOptions, RequestStrategy};
//! use natsjet::{Message, machine::Machine, time::Instant};
//!
//! let options = RequestManyOptions { strategy: RequestStrategy::Stall, ..RequestManyOptions::default() };
//! let mut gather = Gather::new(Instant::ZERO, &options)?;
//! assert_eq!(gather.poll_deadline().map(|d| d.at), Some(Instant::from_millis(1000)));
//! let reply = Message {
//!     subject: "_INBOX.x".into(), reply: None, payload: "hi".into(),
//!     headers: None, status: None, description: None, length: 10,
//! };
//! assert!(gather.handle_input(Instant::from_millis(10), &reply));
//! assert_eq!(gather.poll_deadline().map(|d| d.at), Some(Instant::from_millis(310)));
//! gather.handle_timeout(Instant::from_millis(310));
//! assert!(gather.is_finished());
//! # Ok::<(), natsjet::Error>(())
//! ```

use std::time::Duration;

use crate::core::error::Error;
use crate::core::machine::{Link, Machine};
use crate::core::message::Message;
use crate::core::time::{Clock, Instant};
use crate::core::timer::{Deadline, TimerKind, TimerTable};

/// Why a request for many replies wants to be woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GatherTimer {
    /// `max_wait` from the request.
    MaxWait,
    /// No reply within the stall interval.
    Stall,
}

impl TimerKind for GatherTimer {
    /// `max_wait` first: at the same instant it is the end that counts.
    const ALL: &'static [GatherTimer] = &[GatherTimer::MaxWait, GatherTimer::Stall];

    fn index(self) -> usize {
        self as usize
    }
}

/// Replies are its input; the verdict says whether the user gets each.
/// It has no events (its end is [`Gather::end`]) and no link: the
/// connection fails it ([`Gather::handle_failure`]) when it closes.
impl Machine for Gather {
    type Input<'a> = &'a Message;
    type Verdict = bool;
    type Event = std::convert::Infallible;
    type Timer = GatherTimer;

    fn handle_input(&mut self, now: Instant, message: &Message) -> bool {
        self.on_message(now, message)
    }

    fn handle_timeout(&mut self, now: Instant) {
        Gather::handle_timeout(self, now);
    }

    fn handle_link(&mut self, now: Instant, _: Link) {
        self.clock.advance(now);
    }

    fn poll_event(&mut self) -> Option<std::convert::Infallible> {
        None
    }

    fn poll_deadline(&self) -> Option<Deadline<GatherTimer>> {
        self.timers.next()
    }
}

#[cfg(test)]
mod tests;

/// How a request for many replies decides it has them all (nats.js
/// `RequestStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RequestStrategy {
    /// Every reply until `max_wait`.
    #[default]
    Timer,
    /// Until `max_messages` replies, or `max_wait`.
    Count,
    /// Until no reply came for `stall` after the last one, or `max_wait`.
    Stall,
    /// Until a reply with an empty payload (delivered, last), or `max_wait`.
    Sentinel,
}

/// Options of a request for many replies, as nats.js `RequestManyOptions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestManyOptions {
    /// When the request ends (default [`RequestStrategy::Timer`]).
    pub strategy: RequestStrategy,
    /// The upper bound of the whole request (default 1 s; must be positive).
    pub max_wait: Duration,
    /// `Count`: the replies to wait for (`None` or 0: only `max_wait`).
    pub max_messages: Option<u64>,
    /// `Stall`: the quiet time after a reply that ends the request
    /// (`None` or zero: 300 ms).
    pub stall: Option<Duration>,
    /// Replies come to a subscription of their own instead of the shared
    /// request inbox (nats.js `noMux`); the end rules are the same, but a
    /// closed connection ends the replies quietly, as in nats.js.
    pub no_mux: bool,
}

/// nats.js's default stall.
pub const DEFAULT_STALL: Duration = Duration::from_millis(300);

impl Default for RequestManyOptions {
    fn default() -> Self {
        RequestManyOptions {
            strategy: RequestStrategy::Timer,
            max_wait: Duration::from_secs(1),
            max_messages: None,
            stall: None,
            no_mux: false,
        }
    }
}

/// Why a request for many replies ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// `max_wait` passed.
    MaxWait,
    /// `max_messages` replies came (`Count`).
    MaxMessages,
    /// No reply came for `stall` after the last one (`Stall`).
    Stall,
    /// A reply with an empty payload came (`Sentinel`).
    Sentinel,
    /// No responders, or the connection closed: the request failed.
    Failed,
    /// The user stopped reading.
    Cancelled,
}

/// The end rules of one request for many replies.
#[derive(Debug, Clone)]
pub struct Gather {
    strategy: RequestStrategy,
    /// `Count` with a positive count only.
    max_messages: Option<u64>,
    stall: Duration,
    /// `max_wait` from the request and, after a reply (`Stall`), the stall:
    /// all off once ended.
    timers: TimerTable<GatherTimer>,
    clock: Clock,
    received: u64,
    end: Option<End>,
}

impl Gather {
    /// Starts the clock of a request sent at `now`.
    pub fn new(now: Instant, options: &RequestManyOptions) -> Result<Gather, Error> {
        if options.max_wait.is_zero() {
            return Err(Error::InvalidArgument("max_wait must be greater than 0".into()));
        }
        let max_messages = match options.strategy {
            RequestStrategy::Count => options.max_messages.filter(|&n| n > 0),
            _ => None,
        };
        let stall = options.stall.filter(|s| !s.is_zero()).unwrap_or(DEFAULT_STALL);
        let mut timers = TimerTable::default();
        timers.set(GatherTimer::MaxWait, Some(now + options.max_wait));
        Ok(Gather {
            strategy: options.strategy,
            max_messages,
            stall,
            timers,
            clock: Clock::new(now),
            received: 0,
            end: None,
        })
    }

    // ---- getters
    /// Why the request ended, once it has.
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// Whether the request has ended.
    pub fn is_finished(&self) -> bool {
        self.end.is_some()
    }

    /// Replies delivered so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    // ---- inputs
    /// A reply arrived at `now`: `true` if the user gets it. Replies after
    /// the end (or past `max_wait`, before the timer fired) are dropped.
    fn on_message(&mut self, now: Instant, message: &Message) -> bool {
        self.clock.advance(now);
        if self.end.is_some() {
            return false;
        }
        if self.timers.get(GatherTimer::MaxWait).is_some_and(|at| self.clock.now() >= at) {
            self.finish(End::MaxWait);
            return false;
        }
        self.received += 1;
        match self.strategy {
            RequestStrategy::Timer => {}
            RequestStrategy::Count => {
                if self.max_messages.is_some_and(|max| self.received >= max) {
                    self.finish(End::MaxMessages);
                }
            }
            RequestStrategy::Stall => self.timers.set(GatherTimer::Stall, Some(self.clock.now() + self.stall)),
            RequestStrategy::Sentinel => {
                if message.payload.is_empty() {
                    self.finish(End::Sentinel);
                }
            }
        }
        true
    }

    /// The request failed (no responders, connection closed): it ends.
    pub fn handle_failure(&mut self) {
        self.finish(End::Failed);
    }

    /// The user stopped reading: it ends.
    pub fn cancel(&mut self) {
        self.finish(End::Cancelled);
    }

    /// Fires what is due at `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        // Past `max_wait`, that is the end, whatever else is due.
        if self.timers.take_due(GatherTimer::MaxWait, now) {
            self.finish(End::MaxWait);
        } else if self.timers.take_due(GatherTimer::Stall, now) {
            self.finish(End::Stall);
        }
    }

    // ---- outputs

    /// Ends with `end`, unless it already ended.
    fn finish(&mut self, end: End) {
        self.end.get_or_insert(end);
        self.timers.stop_all();
    }
}
