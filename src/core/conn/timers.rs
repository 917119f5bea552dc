//! The connection's timer table: one optional deadline per purpose, so
//! `poll_timeout` is a fold and `handle_timeout` dispatches by name.

use crate::core::time::{Instant, soonest};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Timer {
    /// From transport open to the handshake PONG (`connect_timeout`).
    Handshake,
    /// The next keep-alive PING, which is also when staleness is judged.
    Ping,
    /// The next connect attempt, after the reconnect backoff.
    Reconnect,
    /// Longest wait for the lame-duck PONG before moving anyway.
    LameDuck,
}

const TIMERS: [Timer; 4] = [Timer::Handshake, Timer::Ping, Timer::Reconnect, Timer::LameDuck];

#[derive(Debug, Default)]
pub(super) struct Timers([Option<Instant>; TIMERS.len()]);

impl Timers {
    pub(super) fn set(&mut self, timer: Timer, at: Instant) {
        self.0[timer as usize] = Some(at);
    }

    pub(super) fn stop(&mut self, timer: Timer) {
        self.0[timer as usize] = None;
    }

    pub(super) fn stop_all(&mut self) {
        self.0 = Default::default();
    }

    pub(super) fn next(&self) -> Option<Instant> {
        self.0.iter().fold(None, |acc, t| soonest(acc, *t))
    }

    /// Disarms and returns the earliest timer due at `now` (ties in enum order).
    pub(super) fn pop_expired(&mut self, now: Instant) -> Option<Timer> {
        let due = TIMERS
            .into_iter()
            .filter(|t| self.0[*t as usize].is_some_and(|at| at <= now))
            .min_by_key(|t| self.0[*t as usize])?;
        self.stop(due);
        Some(due)
    }
}
