//! A bounded single-consumer queue from the driver to one receiver
//! (a subscriber). The driver pushes many messages under one lock per read,
//! the receiver pops them as a `Stream`; when full (in items, or in bytes
//! for a queue made [`with_bytes`](Queue::with_bytes)), the push is refused
//! and counted so the driver can report a slow consumer instead of growing
//! without bound.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crate::core::error::Error;

struct State<T> {
    items: VecDeque<T>,
    /// What the items waiting weigh, for a queue bounded in bytes.
    bytes: usize,
    /// Items accepted since the queue was made.
    pushed: u64,
    /// Items refused because the queue was full.
    dropped: u64,
    /// Why it was closed, when something went wrong.
    reason: Option<Error>,
    closed: bool,
    waker: Option<Waker>,
}

/// A bound in bytes and what an item weighs.
type ByteBound<T> = (usize, fn(&T) -> usize);

/// The shared queue; the driver holds one `Arc`, the receiver another.
pub(crate) struct Queue<T> {
    state: Mutex<State<T>>,
    capacity: usize,
    /// The bound in bytes, with what an item weighs; `None`: items only.
    max_bytes: Option<ByteBound<T>>,
    /// `state.closed`, readable without the lock (the driver asks after
    /// every message it routes to a reader).
    closed: AtomicBool,
}

impl<T> Queue<T> {
    pub(crate) fn new(capacity: usize) -> Arc<Self> {
        Self::bounded(capacity, None)
    }

    /// A queue also bounded by what its items `weigh` in bytes: one item
    /// larger than `max_bytes` is still taken when the queue is empty.
    pub(crate) fn with_bytes(capacity: usize, max_bytes: usize, weigh: fn(&T) -> usize) -> Arc<Self> {
        Self::bounded(capacity, Some((max_bytes, weigh)))
    }

    fn bounded(capacity: usize, max_bytes: Option<ByteBound<T>>) -> Arc<Self> {
        let state =
            State { items: VecDeque::new(), bytes: 0, pushed: 0, dropped: 0, reason: None, closed: false, waker: None };
        Arc::new(Queue {
            state: Mutex::new(state),
            capacity: capacity.max(1),
            max_bytes,
            closed: AtomicBool::new(false),
        })
    }

    /// Adds `item`; gives it back when the queue is closed, or full (then
    /// counted in [`dropped`](Self::dropped)).
    pub(crate) fn push(&self, item: T) -> Result<(), T> {
        let mut state = lock(&self.state);
        if state.closed {
            return Err(item);
        }
        let weight = self.max_bytes.map_or(0, |(_, weigh)| weigh(&item));
        let over_bytes = self.max_bytes.is_some_and(|(max, _)| state.bytes + weight > max && !state.items.is_empty());
        if state.items.len() >= self.capacity || over_bytes {
            state.dropped += 1;
            return Err(item);
        }
        state.items.push_back(item);
        state.bytes += weight;
        state.pushed += 1;
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
        Ok(())
    }

    /// [`close`](Self::close), saying what went wrong.
    pub(crate) fn close_with(&self, reason: Error) {
        lock(&self.state).reason.get_or_insert(reason);
        self.close();
    }

    /// What went wrong, if the queue was [closed with](Self::close_with) a reason.
    pub(crate) fn close_reason(&self) -> Option<Error> {
        lock(&self.state).reason.clone()
    }

    /// [`close_reason`](Self::close_reason), taken: for a receiver that
    /// yields it once, as its last item.
    pub(crate) fn take_close_reason(&self) -> Option<Error> {
        lock(&self.state).reason.take()
    }

    /// No more items will come; the receiver ends after what is queued.
    pub(crate) fn close(&self) {
        let mut state = lock(&self.state);
        state.closed = true;
        self.closed.store(true, Ordering::Release);
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    /// Items accepted since the queue was made (refused ones aside).
    pub(crate) fn pushed(&self) -> u64 {
        lock(&self.state).pushed
    }

    /// Items refused because the queue was full, since it was made.
    pub(crate) fn dropped(&self) -> u64 {
        lock(&self.state).dropped
    }

    /// Takes the front item off `state`, no longer weighing on the bound.
    fn pop_front(&self, state: &mut State<T>) -> Option<T> {
        let item = state.items.pop_front()?;
        if let Some((_, weigh)) = self.max_bytes {
            state.bytes -= weigh(&item);
        }
        Some(item)
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The next item if one is waiting.
    pub(crate) fn try_pop(&self) -> Option<T> {
        self.pop_front(&mut lock(&self.state))
    }

    pub(crate) fn is_empty(&self) -> bool {
        lock(&self.state).items.is_empty()
    }

    /// Items waiting to be popped.
    pub(crate) fn len(&self) -> usize {
        lock(&self.state).items.len()
    }

    /// Next item, `None` once closed and empty.
    pub(crate) fn poll_pop(&self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut state = lock(&self.state);
        if let Some(item) = self.pop_front(&mut state) {
            return Poll::Ready(Some(item));
        }
        if state.closed {
            return Poll::Ready(None);
        }
        match &state.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// Every waiting item, swapped whole into `into` (which must be empty)
    /// under one lock: `Ready(false)` once closed and empty. Items moved out
    /// no longer count against the capacity, so only a receiver whose sender
    /// bounds what is in flight batches.
    pub(crate) fn poll_pop_all(&self, cx: &mut Context<'_>, into: &mut VecDeque<T>) -> Poll<bool> {
        debug_assert!(into.is_empty(), "poll_pop_all into a non-empty buffer");
        let mut state = lock(&self.state);
        if !state.items.is_empty() {
            std::mem::swap(&mut state.items, into);
            state.bytes = 0;
            return Poll::Ready(true);
        }
        if state.closed {
            return Poll::Ready(false);
        }
        match &state.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

/// Locks, ignoring poisoning: the data stays consistent because no code
/// panics while holding these locks.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::task::noop_waker;

    #[test]
    fn bounded_then_drains_after_close() {
        let q = Queue::new(2);
        assert!(q.push(1).is_ok());
        assert!(q.push(2).is_ok());
        assert_eq!(q.push(3), Err(3));
        q.close();
        assert_eq!(q.push(4), Err(4));
        assert_eq!(q.pushed(), 2, "refused items are not counted");
        assert_eq!(q.dropped(), 1, "only those refused for want of room are dropped");
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert_eq!(q.poll_pop(&mut cx), Poll::Ready(Some(1)));
        assert_eq!(q.poll_pop(&mut cx), Poll::Ready(Some(2)));
        assert_eq!(q.poll_pop(&mut cx), Poll::Ready(None));
    }

    #[test]
    fn bounded_in_bytes_too_and_room_comes_back_as_items_are_popped() {
        let q = Queue::with_bytes(100, 10, |item: &Vec<u8>| item.len());
        assert!(q.push(vec![0; 6]).is_ok());
        assert!(q.push(vec![1; 4]).is_ok());
        assert_eq!(q.push(vec![2; 1]), Err(vec![2; 1]), "over 10 bytes");
        assert_eq!(q.dropped(), 1);
        assert_eq!(q.try_pop(), Some(vec![0; 6]));
        assert!(q.push(vec![3; 6]).is_ok(), "the popped bytes made room");
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut all = VecDeque::new();
        assert_eq!(q.poll_pop_all(&mut cx, &mut all), Poll::Ready(true));
        assert_eq!(all.len(), 2);
        assert!(q.push(vec![4; 50]).is_ok(), "an item over the bound alone in the queue is taken");
        assert_eq!(q.push(vec![5; 1]), Err(vec![5; 1]));
        assert_eq!((q.pushed(), q.dropped()), (4, 2));
    }

    #[test]
    fn pop_all_moves_what_waits_then_ends_after_close() {
        let q = Queue::new(4);
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut taken = VecDeque::new();
        assert_eq!(q.poll_pop_all(&mut cx, &mut taken), Poll::Pending);
        q.push(1).unwrap();
        q.push(2).unwrap();
        assert_eq!(q.poll_pop_all(&mut cx, &mut taken), Poll::Ready(true));
        assert_eq!(taken, [1, 2]);
        assert!(q.is_empty());
        taken.clear();
        q.push(3).unwrap();
        q.close();
        assert!(q.is_closed());
        assert_eq!(q.poll_pop_all(&mut cx, &mut taken), Poll::Ready(true), "what came before the close");
        assert_eq!(taken, [3]);
        taken.clear();
        assert_eq!(q.poll_pop_all(&mut cx, &mut taken), Poll::Ready(false));
    }

    #[test]
    fn pending_until_pushed() {
        let q = Queue::<u8>::new(4);
        let waker = noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert_eq!(q.poll_pop(&mut cx), Poll::Pending);
        q.push(7).unwrap();
        assert_eq!(q.poll_pop(&mut cx), Poll::Ready(Some(7)));
    }
}
