//! When the driver task is woken: once per burst of commands, and never
//! while it is already in its poll (it runs another round instead).

use std::task::Waker;

#[derive(Default)]
pub(crate) struct DriverWake {
    waker: Option<Waker>,
    /// Set once the driver has been woken and has not run since: saves a
    /// wake per publish on the hot path.
    pending: bool,
    /// The driver is in its poll, from [`register`](Self::register) to
    /// [`end_poll`](Self::end_poll): a wake is only noted (`rerun`), and the
    /// driver runs another round before it returns (checked under the lock
    /// it returns with, so none is lost). A requester on another thread then
    /// does not schedule the running task again, which would wake a second
    /// worker thread to poll it.
    polling: bool,
    /// Work came while the driver was polling.
    rerun: bool,
}

impl DriverWake {
    /// Wakes the driver after a command left work for it.
    #[inline]
    pub fn wake(&mut self) {
        if self.polling {
            self.rerun = true;
            return;
        }
        if !self.pending {
            if let Some(w) = &self.waker {
                self.pending = true;
                w.wake_by_ref();
            }
        }
    }

    /// Called by the driver at the start of each poll.
    pub fn register(&mut self, waker: &Waker) {
        self.pending = false;
        self.polling = true;
        match &self.waker {
            Some(w) if w.will_wake(waker) => {}
            _ => self.waker = Some(waker.clone()),
        }
    }

    /// Whether work came while the driver polled: it runs another round
    /// before it returns.
    pub fn take_rerun(&mut self) -> bool {
        std::mem::take(&mut self.rerun)
    }

    /// The driver returns from its poll now: wakes go to its waker again.
    pub fn end_poll(&mut self) {
        self.polling = false;
        self.rerun = false;
    }
}
