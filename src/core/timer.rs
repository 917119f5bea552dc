//! The one timer table every machine keeps: an optional deadline per
//! purpose (a small enum of the machine's own), so the next deadline is a
//! fold that carries its reason, and firing says which timer woke it.

use std::fmt::Debug;

use crate::core::time::Instant;

/// Most timers one machine has (the connection's four).
const MAX_TIMERS: usize = 4;

/// The timers of one machine: a fieldless enum listing them in firing order.
pub trait TimerKind: Copy + Eq + Debug + 'static {
    /// Every timer, in the order they fire when due at the same instant.
    const ALL: &'static [Self];

    /// This timer's place in [`ALL`](Self::ALL).
    fn index(self) -> usize;
}

/// A point in time a machine wants to be woken at, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline<R> {
    /// When to wake.
    pub at: Instant,
    /// Which timer it is.
    pub reason: R,
}

impl<R> Deadline<R> {
    /// The same instant with the reason in the caller's terms (a session
    /// names the machine the deadline belongs to).
    pub fn map<S>(self, f: impl FnOnce(R) -> S) -> Deadline<S> {
        Deadline { at: self.at, reason: f(self.reason) }
    }

    /// The earlier of two optional deadlines (ties keep `a`).
    pub fn soonest(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) if b.at < a.at => Some(b),
            (Some(a), _) => Some(a),
            (None, b) => b,
        }
    }
}

/// One slot per timer of `T`; `None` is off. Also remembers the timer
/// that last fired, for tests and logs that ask why a machine woke.
#[derive(Debug, Clone)]
pub struct TimerTable<T> {
    slots: [Option<Instant>; MAX_TIMERS],
    last_fired: Option<T>,
}

impl<T: TimerKind> Default for TimerTable<T> {
    fn default() -> Self {
        const { assert!(T::ALL.len() <= MAX_TIMERS, "more timers than the table holds") };
        TimerTable { slots: [None; MAX_TIMERS], last_fired: None }
    }
}

impl<T: TimerKind> TimerTable<T> {
    /// When `timer` fires; `None` while it is off.
    pub fn get(&self, timer: T) -> Option<Instant> {
        self.slots[timer.index()]
    }

    /// Arms `timer` at `at`, or disarms it with `None`.
    pub fn set(&mut self, timer: T, at: Option<Instant>) {
        self.slots[timer.index()] = at;
    }

    /// Turns `timer` off.
    pub fn stop(&mut self, timer: T) {
        self.set(timer, None);
    }

    /// Turns every timer off.
    pub fn stop_all(&mut self) {
        self.slots = [None; MAX_TIMERS];
    }

    /// The soonest armed timer (ties in firing order).
    pub fn next(&self) -> Option<Deadline<T>> {
        T::ALL
            .iter()
            .fold(None, |next, &reason| Deadline::soonest(next, self.get(reason).map(|at| Deadline { at, reason })))
    }

    /// Disarms `timer` if it is due at `now`: whether it fired.
    pub fn take_due(&mut self, timer: T, now: Instant) -> bool {
        if self.get(timer).is_none_or(|at| at > now) {
            return false;
        }
        self.stop(timer);
        self.last_fired = Some(timer);
        true
    }

    /// Disarms and returns the earliest timer due at `now` (ties in firing order).
    pub fn pop_expired(&mut self, now: Instant) -> Option<T> {
        let next = self.next().filter(|d| d.at <= now)?;
        self.take_due(next.reason, now);
        Some(next.reason)
    }

    /// The timer that fired last.
    pub fn last_fired(&self) -> Option<T> {
        self.last_fired
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum T {
        A,
        B,
    }

    impl TimerKind for T {
        const ALL: &'static [T] = &[T::A, T::B];
        fn index(self) -> usize {
            self as usize
        }
    }

    const fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    #[test]
    fn next_is_the_soonest_with_its_reason_and_ties_go_in_firing_order() {
        let mut table = TimerTable::<T>::default();
        assert_eq!(table.next(), None);
        table.set(T::B, Some(at(5)));
        table.set(T::A, Some(at(9)));
        assert_eq!(table.next(), Some(Deadline { at: at(5), reason: T::B }));
        table.set(T::A, Some(at(5)));
        assert_eq!(table.next(), Some(Deadline { at: at(5), reason: T::A }));
    }

    #[test]
    fn firing_disarms_and_remembers_the_reason() {
        let mut table = TimerTable::<T>::default();
        table.set(T::A, Some(at(9)));
        table.set(T::B, Some(at(5)));
        assert_eq!(table.pop_expired(at(4)), None);
        assert_eq!(table.pop_expired(at(9)), Some(T::B));
        assert_eq!(table.last_fired(), Some(T::B));
        assert!(!table.take_due(T::B, at(9)), "fired once");
        assert!(table.take_due(T::A, at(9)));
        assert_eq!((table.next(), table.last_fired()), (None, Some(T::A)));
    }

    #[test]
    fn stop_all_disarms_every_timer() {
        let mut table = TimerTable::<T>::default();
        table.set(T::A, Some(at(1)));
        table.set(T::B, Some(at(2)));
        table.stop_all();
        assert_eq!(table.pop_expired(at(10)), None);
    }
}
