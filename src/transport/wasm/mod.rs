//! The wasm [`Transport`]: the host's WebSocket for `ws://` and `wss://`, a
//! socket from the JS socket factory for `nats://` and `tls://` (Node.js).
//! Both are chosen per address at connect time and share the connect timeout.

use std::cell::RefCell;
use std::future::poll_fn;
use std::io;
use std::pin::pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::BytesMut;
use futures_util::future::{Either, select};
use wasm_bindgen::prelude::*;

use super::TlsOptions;
use super::node_socket::SocketTransport;
use super::ws_web::WebSocketTransport;
use crate::addr::ServerAddr;
use crate::driver::{Runtime, WasmRuntime};
use crate::error::Error;

/// One connection to a server. See the [module docs](super) for the contract.
pub struct Transport {
    inner: Inner,
}

enum Inner {
    WebSocket(WebSocketTransport),
    Socket(SocketTransport),
}

impl Transport {
    /// Opens a WebSocket (`ws://`, `wss://`) or a JS socket (`nats://`,
    /// `tls://`; TLS comes later from [`Transport::upgrade_tls`]). Fails with
    /// [`Error::Timeout`] after `timeout`.
    pub async fn connect(addr: &ServerAddr, _tls: &TlsOptions, timeout: Duration) -> Result<Transport, Error> {
        let inner = if addr.scheme.is_websocket() {
            Inner::WebSocket(WebSocketTransport::open(addr)?)
        } else {
            Inner::Socket(SocketTransport::open(addr)?)
        };
        let transport = Transport { inner };
        let opened = {
            let opened = pin!(poll_fn(|cx| transport.poll_open(cx)));
            match select(opened, WasmRuntime::sleep(timeout)).await {
                Either::Left((result, _)) => result,
                Either::Right(_) => Err(Error::Timeout),
            }
        };
        opened.map(|()| transport)
    }

    /// Wraps a JS socket in TLS, verifying the certificate for `addr.host`.
    /// WebSocket TLS is the host's: use `wss://` instead.
    pub async fn upgrade_tls(self, addr: &ServerAddr, tls: &TlsOptions) -> Result<Transport, Error> {
        match self.inner {
            Inner::Socket(socket) => Ok(Transport { inner: Inner::Socket(socket.upgrade_tls(addr, tls).await?) }),
            Inner::WebSocket(_) => Err(Error::Tls("not supported: use a wss:// URL in wasm".into())),
        }
    }

    pub fn is_tls(&self) -> bool {
        match &self.inner {
            Inner::WebSocket(t) => t.is_tls(),
            Inner::Socket(t) => t.is_tls(),
        }
    }

    /// Appends what was received so far to `buf`; `Ok(0)` once closed.
    pub fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut BytesMut) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Inner::WebSocket(t) => t.poll_read(cx, buf),
            Inner::Socket(t) => t.poll_read(cx, buf),
        }
    }

    /// Takes all of `data`, or waits while the host's send buffer is full.
    pub fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Inner::WebSocket(t) => t.poll_write(cx, data),
            Inner::Socket(t) => t.poll_write(cx, data),
        }
    }

    /// Sends the writes held back in this JS task once the task is over
    /// (see [`HeldWrites`]); otherwise the host sends on its own.
    pub fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Inner::WebSocket(t) => t.poll_flush(cx),
            Inner::Socket(t) => t.poll_flush(cx),
        }
    }

    /// Sends what this JS task held back now, not at its end: the server
    /// waits for it. Later writes of the task are held back again.
    pub fn hurry(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::WebSocket(t) => t.hurry(),
            Inner::Socket(t) => t.hurry(),
        }
    }

    /// Whether writes are being held back until the end of this JS task,
    /// when the transport wakes the driver to flush: until then, waking the
    /// driver only to hand it more bytes to write gains nothing.
    pub fn holds_writes(&self) -> bool {
        match &self.inner {
            Inner::WebSocket(t) => t.holds_writes(),
            Inner::Socket(t) => t.holds_writes(),
        }
    }

    pub fn poll_close(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(match &mut self.inner {
            Inner::WebSocket(t) => t.close(),
            Inner::Socket(t) => t.close(),
        })
    }

    fn poll_open(&self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        match &self.inner {
            Inner::WebSocket(t) => t.poll_open(cx),
            Inner::Socket(t) => t.poll_open(cx),
        }
    }
}

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
#[derive(Default)]
pub(super) struct HeldWrites {
    state: Rc<RefCell<Held>>,
}

#[derive(Default)]
struct Held {
    outbox: BytesMut,
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
    pub(super) fn write(
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
            let full = (!held.outbox.is_empty() && held.outbox.len() + data.len() > MAX_HELD)
                .then(|| std::mem::take(&mut held.outbox));
            held.outbox.extend_from_slice(data);
            full
        };
        // No borrow is held across a JS call.
        full.map_or(Ok(()), |bytes| send(&bytes))
    }

    /// Sends what was held back once the task has ended (pending until
    /// then; the end of the task wakes the flusher). Holding goes on into
    /// the next task when there was something to send.
    pub(super) fn poll_flush(
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
            std::mem::take(&mut held.outbox)
        };
        Poll::Ready(send(&bytes))
    }

    /// Sends what is held back now through `send`; holding goes on.
    pub(super) fn send_now(&self, send: impl Fn(&[u8]) -> io::Result<()>) -> io::Result<()> {
        let bytes = std::mem::take(&mut self.state.borrow_mut().outbox);
        if bytes.is_empty() { Ok(()) } else { send(&bytes) }
    }

    /// A burst of data was read: writes until the next end of a task are
    /// held back even where the first one would leave at once.
    pub(super) fn received(&self) {
        self.state.borrow_mut().answering = true;
    }

    /// Whether writes are held back until a flush at the end of this task.
    pub(super) fn holding(&self) -> bool {
        let held = self.state.borrow();
        held.holding && !held.task_ended
    }

    /// What is held back, for a transport about to close.
    pub(super) fn take(&self) -> BytesMut {
        std::mem::take(&mut self.state.borrow_mut().outbox)
    }
}

impl Held {
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

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, millis: i32) -> JsValue;

    /// `globalThis.process`, in Node, Deno and Bun.
    #[wasm_bindgen(thread_local_v2, js_name = process)]
    static PROCESS: Option<js_sys::Object>;
}

/// How the end of the current task is caught on this host.
struct EndOfTask {
    schedule: Box<dyn Fn()>,
    /// It comes right after the task's microtasks, before any other task.
    is_microtask: bool,
}

thread_local! {
    /// Callbacks waiting for the end of the current task, run in order.
    static AFTER_TASK: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
    /// Schedules `run_after_task`: `process.nextTick` (Node, Deno, Bun: after
    /// the microtasks of the current callback, before any I/O), or a
    /// `MessageChannel` message (browsers, workers: the next task, without
    /// timer clamping), or else `setTimeout(0)`.
    static END_OF_TASK: EndOfTask = end_of_task();
}

fn end_of_task() -> EndOfTask {
    let run = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| run_after_task()).into_js_value();
    let get = |target: &JsValue, key: &str| js_sys::Reflect::get(target, &key.into()).ok().filter(JsValue::is_object);
    // Node's own `process` (also Deno's and Bun's), not a bundler's browser
    // stand-in, whose `nextTick` may be a timer or a microtask.
    let process = PROCESS.with(|p| p.clone().map(JsValue::from)).filter(JsValue::is_object);
    let node = process
        .as_ref()
        .and_then(|p| get(p, "versions"))
        .is_some_and(|v| js_sys::Reflect::get(&v, &"node".into()).is_ok_and(|node| node.is_string()));
    let next_tick = process
        .filter(|_| node)
        .and_then(|process| js_sys::Reflect::get(&process, &"nextTick".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(next_tick) = next_tick {
        return EndOfTask {
            schedule: Box::new(move || {
                let _ = next_tick.call1(&JsValue::UNDEFINED, &run);
            }),
            is_microtask: true,
        };
    }
    if let Ok(channel) = web_sys::MessageChannel::new() {
        channel.port1().set_onmessage(Some(run.unchecked_ref()));
        let port = channel.port2();
        return EndOfTask {
            schedule: Box::new(move || {
                let _ = port.post_message(&JsValue::NULL);
            }),
            is_microtask: false,
        };
    }
    let run: js_sys::Function = run.unchecked_into();
    EndOfTask {
        schedule: Box::new(move || {
            set_timeout(&run, 0);
        }),
        is_microtask: false,
    }
}

/// Whether the end of a task comes right after its microtasks (Node), not
/// in a later task (browsers).
pub(super) fn end_of_task_is_microtask() -> bool {
    END_OF_TASK.with(|end| end.is_microtask)
}

/// Runs `f` once the current JS task and its microtasks are done.
pub(super) fn after_task(f: impl FnOnce() + 'static) {
    let first = AFTER_TASK.with(|q| {
        let mut q = q.borrow_mut();
        q.push(Box::new(f));
        q.len() == 1
    });
    if first {
        END_OF_TASK.with(|end| (end.schedule)());
    }
}

fn run_after_task() {
    let callbacks = AFTER_TASK.with(|q| std::mem::take(&mut *q.borrow_mut()));
    for f in callbacks {
        f();
    }
}

/// Moves what a JS callback queued in `inbox` to the driver's `buf`, giving
/// the byte count, or `None` when nothing is waiting.
pub(super) fn take_received(inbox: &mut BytesMut, buf: &mut BytesMut) -> Option<usize> {
    if inbox.is_empty() {
        return None;
    }
    let n = inbox.len();
    buf.extend_from_slice(inbox);
    inbox.clear();
    Some(n)
}

/// The message of a thrown JS value: an `Error`'s message, a string, its
/// JSON, or its type. (Not its `Debug` form, whose JS helper the glue would carry.)
pub(super) fn js_message(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .or_else(|| js_sys::JSON::stringify(value).ok()?.as_string())
        .or_else(|| value.js_typeof().as_string())
        .unwrap_or_default()
}

pub(super) fn js_to_io(value: JsValue) -> io::Error {
    io::Error::other(js_message(&value))
}
