//! nats.js's `SubOpts.timeout`: a subscription that has no message within
//! its timeout ends with a timeout error. Sans-IO: the driver ticks its
//! deadline with `now`, so it fires on time even while nobody reads, and
//! drops it at the first message, which disarms it.

use std::time::Duration;

use crate::core::time::Instant;

#[derive(Debug)]
pub(crate) struct FirstMessageTimer {
    /// `None` once the timer fired.
    deadline: Option<Instant>,
    expired: bool,
}

impl FirstMessageTimer {
    pub(crate) fn new(now: Instant, timeout: Duration) -> Self {
        FirstMessageTimer { deadline: Some(now + timeout), expired: false }
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.deadline
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        if self.deadline.is_some_and(|at| at <= now) {
            self.deadline = None;
            self.expired = true;
        }
    }

    /// The timeout passed with no message: the subscription must end.
    pub(crate) fn is_expired(&self) -> bool {
        self.expired
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
        assert_eq!(timer.poll_timeout(), Some(Instant::from_millis(600)));
        timer.handle_timeout(Instant::from_millis(599));
        assert!(!timer.is_expired(), "not before the deadline");
        timer.handle_timeout(Instant::from_millis(600));
        assert!(timer.is_expired());
        assert_eq!(timer.poll_timeout(), None, "fires once");
    }
}
