//! The core's own notion of time.
//!
//! The sans-IO core never reads a clock: every entry point takes `now` as an
//! [`Instant`], a monotonic offset from an arbitrary origin chosen by the
//! driver. Tests build instants from plain numbers and move them forward at
//! will, so timers are exercised without sleeping.

use std::ops::{Add, AddAssign};
use std::time::Duration;

/// A point on a monotonic clock, measured from an origin the driver picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(Duration);

impl Instant {
    /// The origin of the clock.
    pub const ZERO: Instant = Instant(Duration::ZERO);

    /// An instant `offset` after the origin.
    pub const fn from_offset(offset: Duration) -> Self {
        Instant(offset)
    }

    /// An instant `ms` milliseconds after the origin.
    pub const fn from_millis(ms: u64) -> Self {
        Instant(Duration::from_millis(ms))
    }

    /// Time since the origin.
    pub const fn offset(self) -> Duration {
        self.0
    }

    /// Time elapsed since `earlier`, or zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant(self.0.saturating_add(rhs))
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        self.0 = self.0.saturating_add(rhs);
    }
}

/// The latest `now` a machine was given: time that runs backwards (a
/// driver's clock stepped back, two threads racing) counts as standing
/// still, so no deadline already passed comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock(Instant);

impl Clock {
    /// A clock that starts at `now`.
    pub const fn new(now: Instant) -> Self {
        Clock(now)
    }

    /// Moves to `now` unless it is earlier; the time to act on.
    pub fn advance(&mut self, now: Instant) -> Instant {
        self.0 = self.0.max(now);
        self.0
    }

    /// The latest time seen.
    pub const fn now(self) -> Instant {
        self.0
    }
}

/// The earlier of two optional deadlines; `None` means "no deadline".
pub fn soonest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn soonest_prefers_the_earlier_and_ignores_none() {
        let a = Instant::from_millis(5);
        let b = Instant::from_millis(9);
        assert_eq!(soonest(Some(a), Some(b)), Some(a));
        assert_eq!(soonest(None, Some(b)), Some(b));
        assert_eq!(soonest(Some(a), None), Some(a));
        assert_eq!(soonest(None, None), None);
    }

    #[test]
    fn a_clock_never_goes_back() {
        let mut clock = Clock::new(Instant::from_millis(5));
        assert_eq!(clock.advance(Instant::from_millis(9)), Instant::from_millis(9));
        assert_eq!(clock.advance(Instant::from_millis(3)), Instant::from_millis(9));
        assert_eq!(clock.now(), Instant::from_millis(9));
    }

    #[test]
    fn durations_never_go_negative() {
        let a = Instant::from_millis(5);
        let b = Instant::from_millis(9);
        assert_eq!(b.saturating_duration_since(a), Duration::from_millis(4));
        assert_eq!(a.saturating_duration_since(b), Duration::ZERO);
    }
}
