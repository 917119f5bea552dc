//! The window of publishes awaiting their ack: a small async semaphore over
//! std and wakers only (no tokio), so it builds for wasm too. Publishers
//! wait in line, first come first served; a permit gives its room back when
//! dropped.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::runtime::queue::lock;

/// Counts acks outstanding against a limit; clones share the count.
#[derive(Clone)]
pub(crate) struct AckWindow {
    state: Arc<Mutex<State>>,
}

struct State {
    limit: usize,
    in_flight: usize,
    /// Publishers waiting for room, each with its id, oldest first.
    waiters: VecDeque<(u64, Waker)>,
    last_waiter: u64,
}

impl State {
    /// The waiter to wake when there is room; it takes the room when it runs.
    fn take_waiter(&mut self) -> Option<Waker> {
        if self.in_flight < self.limit { self.waiters.pop_front().map(|(_, waker)| waker) } else { None }
    }
}

impl fmt::Debug for AckWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("AckWindow").field("limit", &state.limit).field("in_flight", &state.in_flight).finish()
    }
}

impl AckWindow {
    pub(crate) fn new(limit: usize) -> Self {
        let state = State { limit: limit.max(1), in_flight: 0, waiters: VecDeque::new(), last_waiter: 0 };
        AckWindow { state: Arc::new(Mutex::new(state)) }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub(crate) fn limit(&self) -> usize {
        self.lock().limit
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.lock().in_flight
    }

    /// A new limit (at least 1). Lowering it lets the acks in flight finish;
    /// raising it lets waiting publishers go at once.
    pub(crate) fn set_limit(&self, limit: usize) {
        let woken: Vec<Waker> = {
            let mut state = self.lock();
            state.limit = limit.max(1);
            let room = state.limit.saturating_sub(state.in_flight);
            let n = room.min(state.waiters.len());
            state.waiters.drain(..n).map(|(_, waker)| waker).collect()
        };
        woken.into_iter().for_each(Waker::wake);
    }

    /// Room now, if there is some and nobody waits for it.
    pub(crate) fn try_acquire(&self) -> Option<Permit> {
        let mut state = self.lock();
        if state.in_flight >= state.limit || !state.waiters.is_empty() {
            return None;
        }
        state.in_flight += 1;
        drop(state);
        Some(Permit { window: self.clone() })
    }

    /// Waits for room and takes it.
    pub(crate) fn acquire(&self) -> Acquire {
        Acquire { window: self.clone(), waiter: None }
    }

    fn release(&self) {
        let waker = {
            let mut state = self.lock();
            state.in_flight -= 1;
            state.take_waiter()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The future of [`AckWindow::acquire`].
pub(crate) struct Acquire {
    window: AckWindow,
    /// Our place in line, once we had to wait.
    waiter: Option<u64>,
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let this = &mut *self;
        let mut state = this.window.lock();
        if state.in_flight < state.limit {
            if let Some(id) = this.waiter.take() {
                state.waiters.retain(|(waiter, _)| *waiter != id);
            }
            state.in_flight += 1;
            drop(state);
            return Poll::Ready(Permit { window: this.window.clone() });
        }
        match this.waiter {
            Some(id) => match state.waiters.iter_mut().find(|(waiter, _)| *waiter == id) {
                Some((_, waker)) => waker.clone_from(cx.waker()),
                // Woken, but a newcomer took the room first: keep our turn.
                None => state.waiters.push_front((id, cx.waker().clone())),
            },
            None => {
                state.last_waiter += 1;
                let id = state.last_waiter;
                state.waiters.push_back((id, cx.waker().clone()));
                this.waiter = Some(id);
            }
        }
        Poll::Pending
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        let Some(id) = self.waiter else { return };
        let waker = {
            let mut state = self.window.lock();
            match state.waiters.iter().position(|(waiter, _)| *waiter == id) {
                Some(i) => {
                    state.waiters.remove(i);
                    None
                }
                // We were woken for room we will not take: pass the turn on.
                None => state.take_waiter(),
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// One ack's room in the window, given back on drop.
pub(crate) struct Permit {
    window: AckWindow,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.window.release();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;

    #[derive(Default)]
    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn waker() -> (Arc<CountingWaker>, Waker) {
        let counter = Arc::new(CountingWaker::default());
        (counter.clone(), Waker::from(counter))
    }

    fn poll(acquire: &mut Acquire, waker: &Waker) -> Poll<Permit> {
        Pin::new(acquire).poll(&mut Context::from_waker(waker))
    }

    fn woken(counter: &CountingWaker) -> usize {
        counter.0.load(Ordering::SeqCst)
    }

    #[test]
    fn try_acquire_takes_free_room_only() {
        let window = AckWindow::new(1);
        let held = window.try_acquire().expect("room");
        assert!(window.try_acquire().is_none(), "full");
        drop(held);
        assert!(window.try_acquire().is_some());
    }

    #[test]
    fn waits_when_full_and_wakes_in_order() {
        let window = AckWindow::new(2);
        let (_, w) = waker();
        let p1 = poll(&mut window.acquire(), &w);
        let p2 = poll(&mut window.acquire(), &w);
        assert!(p1.is_ready() && p2.is_ready());
        assert_eq!(window.in_flight(), 2);

        let (c3, w3) = waker();
        let (c4, w4) = waker();
        let (mut a3, mut a4) = (window.acquire(), window.acquire());
        assert!(poll(&mut a3, &w3).is_pending());
        assert!(poll(&mut a4, &w4).is_pending());

        drop(p1);
        assert_eq!((woken(&c3), woken(&c4)), (1, 0));
        let p3 = poll(&mut a3, &w3);
        assert!(p3.is_ready());
        assert!(poll(&mut a4, &w4).is_pending());
        drop(p2);
        assert_eq!(woken(&c4), 1);
        let p4 = poll(&mut a4, &w4);
        assert!(p4.is_ready());
        assert_eq!(window.in_flight(), 2);
        drop((p3, p4));
        assert_eq!(window.in_flight(), 0);
    }

    #[test]
    fn a_dropped_waiter_passes_its_wake_on() {
        let window = AckWindow::new(1);
        let (_, w) = waker();
        let Poll::Ready(permit) = poll(&mut window.acquire(), &w) else { panic!() };
        let (c2, w2) = waker();
        let (c3, w3) = waker();
        let (mut a2, mut a3) = (window.acquire(), window.acquire());
        assert!(poll(&mut a2, &w2).is_pending());
        assert!(poll(&mut a3, &w3).is_pending());
        drop(permit);
        assert_eq!(woken(&c2), 1);
        drop(a2);
        assert_eq!(woken(&c3), 1);
        assert!(poll(&mut a3, &w3).is_ready());
    }

    #[test]
    fn a_dropped_waiter_leaves_the_line() {
        let window = AckWindow::new(1);
        let (_, w) = waker();
        let Poll::Ready(permit) = poll(&mut window.acquire(), &w) else { panic!() };
        let (c2, w2) = waker();
        let mut a2 = window.acquire();
        assert!(poll(&mut a2, &w2).is_pending());
        drop(a2);
        drop(permit);
        assert_eq!((woken(&c2), window.in_flight()), (0, 0));
    }

    #[test]
    fn a_woken_waiter_keeps_its_turn_after_a_newcomer_barges_in() {
        let window = AckWindow::new(1);
        let (_, w) = waker();
        let Poll::Ready(first) = poll(&mut window.acquire(), &w) else { panic!() };
        let (c2, w2) = waker();
        let (c3, w3) = waker();
        let (mut a2, mut a3) = (window.acquire(), window.acquire());
        assert!(poll(&mut a2, &w2).is_pending());
        assert!(poll(&mut a3, &w3).is_pending());
        drop(first);
        let Poll::Ready(barged) = poll(&mut window.acquire(), &w) else { panic!() };
        assert!(poll(&mut a2, &w2).is_pending());
        drop(barged);
        assert_eq!((woken(&c2), woken(&c3)), (2, 0));
        assert!(poll(&mut a2, &w2).is_ready());
    }

    #[test]
    fn raising_the_limit_wakes_waiters() {
        let window = AckWindow::new(1);
        let (_, w) = waker();
        let Poll::Ready(_permit) = poll(&mut window.acquire(), &w) else { panic!() };
        let (c2, w2) = waker();
        let (c3, w3) = waker();
        let (mut a2, mut a3) = (window.acquire(), window.acquire());
        assert!(poll(&mut a2, &w2).is_pending());
        assert!(poll(&mut a3, &w3).is_pending());
        window.set_limit(2);
        assert_eq!((woken(&c2), woken(&c3)), (1, 0));
        window.set_limit(3);
        assert_eq!(woken(&c3), 1);
        let permits = (poll(&mut a2, &w2), poll(&mut a3, &w3));
        assert!(permits.0.is_ready() && permits.1.is_ready());
        assert_eq!((window.in_flight(), window.limit()), (3, 3));
        window.set_limit(0);
        assert_eq!(window.limit(), 1);
    }
}
