//! Writes held back within one JS task and sent together at its end
//! ([`HeldWrites`]), shared by the WebSocket and the socket transport.

use std::cell::RefCell;
use std::io;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

use bytes::BytesMut;

use crate::runtime::js_task::{after_task, end_of_task_is_microtask};

/// Writes made within one JS task that leave together when it is over: a
/// frame or a socket write costs the host far more than its bytes (one per
/// message made publishing and acking slow). Where the end of a task is
/// cheap to catch (`process.nextTick` in Node) every write waits for it;
/// elsewhere (a `MessageChannel` message in browsers, one task later) the
/// first write of a task leaves at once, for latency, and the rest wait,
/// unless the transport said they answer a burst of received data
/// ([`HeldWrites::received`]): then acks, replies and pulls all wait.
/// At the end of the task the driver is woken: its next flush sends what
/// was held back, including what it had not handed over yet.
/// Clones share the writes held back (a [`HostSink`](super::HostSink) sends them first).
#[derive(Clone, Default)]
pub(crate) struct HeldWrites {
    state: Rc<RefCell<Held>>,
}

#[derive(Default)]
struct Held {
    outbox: BytesMut,
    /// The allocation of the outbox sent last, for the next one: a put's
    /// chunks then go through two buffers, not a fresh one grown by
    /// doubling for every send.
    spare: BytesMut,
    /// Writes wait in `outbox`; the end of the task is scheduled.
    holding: bool,
    /// The task ended: the next flush sends `outbox`.
    task_ended: bool,
    /// Data came in since the last end of a task (see [`HeldWrites::received`]).
    answering: bool,
    /// The driver, woken when the task ends.
    waker: Option<Waker>,
}

/// Writes held back within one task are sent in pieces of about this size.
const MAX_HELD: usize = 256 * 1024;

impl HeldWrites {
    /// Takes `data`: sends it at once through `send`, or holds it back.
    /// `send` hands bytes to the host, which copies them during the call:
    /// their buffer is used again.
    pub(crate) fn write(
        &self,
        cx: &mut Context<'_>,
        data: &[u8],
        send: impl Fn(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let full = {
            let mut held = self.state.borrow_mut();
            held.register(cx);
            if !held.holding {
                held.holding = true;
                schedule_task_end(Rc::downgrade(&self.state));
                if !held.answering && !end_of_task_is_microtask() {
                    drop(held);
                    return send(data);
                }
            }
            let full = (!held.outbox.is_empty() && held.outbox.len() + data.len() > MAX_HELD).then(|| held.take());
            held.outbox.extend_from_slice(data);
            full
        };
        // No borrow is held across a JS call.
        full.map_or(Ok(()), |bytes| self.send(bytes, send))
    }

    /// Sends `bytes` (the host copies them during the call), then keeps
    /// their allocation for the next outbox.
    fn send(&self, bytes: BytesMut, send: impl Fn(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let sent = send(&bytes);
        self.state.borrow_mut().spare = bytes;
        sent
    }

    /// Sends what was held back once the task has ended (pending until
    /// then; the end of the task wakes the flusher). Holding goes on into
    /// the next task when there was something to send.
    pub(crate) fn poll_flush(
        &self,
        cx: &mut Context<'_>,
        send: impl Fn(&[u8]) -> io::Result<()>,
    ) -> Poll<io::Result<()>> {
        let bytes = {
            let mut held = self.state.borrow_mut();
            held.register(cx);
            if !held.task_ended {
                return if held.outbox.is_empty() { Poll::Ready(Ok(())) } else { Poll::Pending };
            }
            held.task_ended = false;
            if held.outbox.is_empty() {
                held.holding = false;
                return Poll::Ready(Ok(()));
            }
            schedule_task_end(Rc::downgrade(&self.state));
            held.take()
        };
        Poll::Ready(self.send(bytes, send))
    }

    /// Sends what is held back now through `send`; holding goes on.
    pub(crate) fn send_now(&self, send: impl Fn(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let bytes = self.state.borrow_mut().take();
        if bytes.is_empty() { Ok(()) } else { self.send(bytes, send) }
    }

    /// A burst of data was read: writes until the next end of a task are
    /// held back even where the first one would leave at once.
    pub(crate) fn received(&self) {
        self.state.borrow_mut().answering = true;
    }

    /// Whether writes are held back until a flush at the end of this task.
    pub(crate) fn holding(&self) -> bool {
        let held = self.state.borrow();
        held.holding && !held.task_ended
    }

    /// What is held back, for a transport about to close.
    pub(crate) fn take(&self) -> BytesMut {
        std::mem::take(&mut self.state.borrow_mut().outbox)
    }
}

impl Held {
    /// The outbox to send, the spare allocation (emptied) taking its place.
    fn take(&mut self) -> BytesMut {
        self.spare.clear();
        std::mem::replace(&mut self.outbox, std::mem::take(&mut self.spare))
    }

    fn register(&mut self, cx: &Context<'_>) {
        match &self.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            _ => self.waker = Some(cx.waker().clone()),
        }
    }
}

fn schedule_task_end(state: Weak<RefCell<Held>>) {
    after_task(move || {
        // A transport dropped since has nothing left to send.
        let Some(state) = state.upgrade() else { return };
        let waker = {
            let mut held = state.borrow_mut();
            held.task_ended = true;
            held.answering = false;
            held.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    });
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::HashSet;
    use std::task::Waker;

    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn writes_past_the_limit_leave_in_order_through_two_buffers_used_again() {
        let held = HeldWrites::default();
        let sent = RefCell::new((Vec::new(), Vec::new()));
        let send = |bytes: &[u8]| {
            let mut sent = sent.borrow_mut();
            sent.0.extend_from_slice(bytes);
            sent.1.push((bytes.as_ptr() as usize, bytes.len()));
            Ok(())
        };
        let mut cx = Context::from_waker(Waker::noop());
        let mut written = Vec::new();
        for i in 0..40u8 {
            let piece = vec![i; 100_000];
            held.write(&mut cx, &piece, send).unwrap();
            written.extend_from_slice(&piece);
        }
        held.send_now(send).unwrap();
        let (bytes, sends) = sent.into_inner();
        assert_eq!(bytes, written);
        assert!(sends.iter().all(|&(_, len)| len <= MAX_HELD));
        // Sends of held writes (a first write may leave at once, as it is),
        // once both buffers have grown to their size.
        let buffers: HashSet<usize> =
            sends.iter().filter(|&&(_, len)| len > 100_000).skip(4).map(|&(at, _)| at).collect();
        assert_eq!(buffers.len(), 2, "{sends:?}");
    }
}
