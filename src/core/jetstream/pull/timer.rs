//! The pull consumer's timers, kept in the core's one [`TimerTable`].

use crate::core::timer::{TimerKind, TimerTable};

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

impl TimerKind for Timer {
    /// Firing order when several are due at once.
    const ALL: &'static [Timer] = &[Timer::Retry, Timer::PullExpiry, Timer::Heartbeat];

    fn index(self) -> usize {
        self as usize
    }
}

pub(crate) type Timers = TimerTable<Timer>;
