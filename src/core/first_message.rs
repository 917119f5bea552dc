//! nats.js's `SubOpts.timeout`: a subscription that has no message within
//! its timeout ends with a timeout error. Sans-IO: the session fires its
//! deadline with `now`, so it fires on time even while nobody reads, and
//! the first message (its input) disarms it.

use std::time::Duration;

use crate::core::machine::{Link, Machine};
use crate::core::time::{Clock, Instant};
use crate::core::timer::{Deadline, TimerKind, TimerTable};

/// The first-message timer's one timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstMessageWait {
    /// The timeout from the subscribe, with no message yet.
    Timeout,
}

impl TimerKind for FirstMessageWait {
    const ALL: &'static [FirstMessageWait] = &[FirstMessageWait::Timeout];

    fn index(self) -> usize {
        self as usize
    }
}

/// The timeout passed with no message: the subscription must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missed;

#[derive(Debug)]
pub(crate) struct FirstMessageTimer {
    timers: TimerTable<FirstMessageWait>,
    clock: Clock,
    missed: bool,
}

impl FirstMessageTimer {
    pub(crate) fn new(now: Instant, timeout: Duration) -> Self {
        let mut timers = TimerTable::default();
        timers.set(FirstMessageWait::Timeout, Some(now + timeout));
        FirstMessageTimer { timers, clock: Clock::new(now), missed: false }
    }
}

/// A message on the subscription is its input: it disarms the timer. The
/// link does not matter: the timeout runs on the caller's clock.
impl Machine for FirstMessageTimer {
    type Input<'a> = ();
    type Verdict = ();
    type Event = Missed;
    type Timer = FirstMessageWait;

    fn handle_input(&mut self, now: Instant, (): ()) {
        self.clock.advance(now);
        self.timers.stop_all();
    }

    fn handle_timeout(&mut self, now: Instant) {
        let now = self.clock.advance(now);
        self.missed |= self.timers.take_due(FirstMessageWait::Timeout, now);
    }

    fn handle_link(&mut self, now: Instant, _: Link) {
        self.clock.advance(now);
    }

    fn poll_event(&mut self) -> Option<Missed> {
        std::mem::take(&mut self.missed).then_some(Missed)
    }

    fn poll_deadline(&self) -> Option<Deadline<FirstMessageWait>> {
        self.timers.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const T: Duration = Duration::from_millis(500);

    #[test]
    fn fires_when_no_message_came_in_time() {
        let mut timer = FirstMessageTimer::new(Instant::from_millis(100), T);
        let deadline = Deadline { at: Instant::from_millis(600), reason: FirstMessageWait::Timeout };
        assert_eq!(timer.poll_deadline(), Some(deadline));
        timer.handle_timeout(Instant::from_millis(599));
        assert_eq!(timer.poll_event(), None, "not before the deadline");
        timer.handle_timeout(Instant::from_millis(600));
        assert_eq!((timer.poll_event(), timer.poll_event()), (Some(Missed), None), "once");
        assert_eq!(timer.poll_deadline(), None, "fires once");
    }

    #[test]
    fn a_message_disarms_it() {
        let mut timer = FirstMessageTimer::new(Instant::ZERO, T);
        timer.handle_input(Instant::from_millis(10), ());
        timer.handle_timeout(Instant::from_millis(600));
        assert_eq!((timer.poll_deadline(), timer.poll_event()), (None, None));
    }
}
