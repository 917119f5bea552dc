//! The pull consumer's timers, one slot each (quinn's timer table).

use crate::core::time::Instant;

/// A timer of the pull consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// Back off before pulling again after a refused pull.
    Retry,
    /// Fetch: client-side end of the request. Consume: every pull sent has
    /// expired on the server, so pending counts are void.
    PullExpiry,
    /// Two idle-heartbeat intervals without anything from the server.
    Heartbeat,
}

impl Timer {
    /// Firing order when several are due at once.
    pub(crate) const ALL: [Timer; 3] = [Timer::Retry, Timer::PullExpiry, Timer::Heartbeat];
}

/// Deadlines by timer; `None` is off.
#[derive(Debug, Clone, Default)]
pub(crate) struct Timers([Option<Instant>; 3]);

impl Timers {
    pub fn get(&self, timer: Timer) -> Option<Instant> {
        self.0[timer as usize]
    }

    pub fn set(&mut self, timer: Timer, at: Option<Instant>) {
        self.0[timer as usize] = at;
    }

    pub fn clear(&mut self) {
        self.0 = [None; 3];
    }

    /// The next deadline.
    pub fn next(&self) -> Option<Instant> {
        self.0.iter().flatten().min().copied()
    }

    /// Whether `timer` is set and due at `now`.
    pub fn is_due(&self, timer: Timer, now: Instant) -> bool {
        self.get(timer).is_some_and(|at| at <= now)
    }
}
