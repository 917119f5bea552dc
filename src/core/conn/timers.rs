//! The connection's timers, kept in the core's one [`TimerTable`].

use crate::core::timer::{TimerKind, TimerTable};

/// A timer of the connection: why it wants to be woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// From transport open to the handshake PONG (`connect_timeout`).
    Handshake,
    /// The next keep-alive PING, which is also when staleness is judged.
    Ping,
    /// The next connect attempt, after the reconnect backoff.
    Reconnect,
    /// Longest wait for the lame-duck PONG before moving anyway.
    LameDuck,
}

impl TimerKind for Timer {
    const ALL: &'static [Timer] = &[Timer::Handshake, Timer::Ping, Timer::Reconnect, Timer::LameDuck];

    fn index(self) -> usize {
        self as usize
    }
}

pub(super) type Timers = TimerTable<Timer>;
