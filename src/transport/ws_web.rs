//! `ws://` and `wss://` in wasm: the host's `WebSocket` (browsers, Node 22+,
//! or whatever the user put on `globalThis.WebSocket` in older Node) through
//! web-sys. JS callbacks push into a queue shared with [`WebSocketTransport`],
//! which the driver drains from `poll_read`; TLS is the host's business.
//! Writes made within one JS task leave as one frame (see `poll_write`).

use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use bytes::BytesMut;
use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::convert::FromWasmAbi;
use wasm_bindgen::prelude::*;
use web_sys::{BinaryType, CloseEvent, Event, MessageEvent, WebSocket};

use super::wasm::{js_message, js_to_io, take_received};
use crate::addr::{Scheme, ServerAddr};
use crate::driver::{BoxFuture, Runtime, WasmRuntime};
use crate::error::Error;

/// Above this many bytes queued in the socket, writes wait.
const MAX_BUFFERED: u32 = 8 << 20;
/// Writes held back within one JS task are sent as one frame of at most
/// about this size (more goes out in more frames, under the same
/// [`MAX_BUFFERED`] back-pressure).
const MAX_FRAME: usize = 256 * 1024;
/// How often a waiting write looks at the queue again (the socket has no
/// "drained" event).
const DRAIN_RECHECK: Duration = Duration::from_millis(10);

/// One WebSocket to a server.
pub(super) struct WebSocketTransport {
    socket: WebSocket,
    shared: Rc<RefCell<Shared>>,
    tls: bool,
    /// Kept alive for as long as the socket may call them; cleared on drop.
    _callbacks: Callbacks,
    drain_wait: Option<BoxFuture<()>>,
}

#[derive(Default)]
struct Shared {
    state: State,
    inbox: BytesMut,
    waker: Option<Waker>,
    /// Writes held back until the end of the current JS task (one frame).
    outbox: BytesMut,
    /// A frame went out in this task: later writes wait in `outbox`.
    coalescing: bool,
    /// A deferred send failed; the next write reports it.
    send_error: Option<String>,
}

#[derive(Default)]
enum State {
    #[default]
    Connecting,
    Open,
    /// An `error` event before `open`; a `close` event follows.
    Failed,
    Closed {
        code: u16,
        reason: String,
    },
}

struct Callbacks {
    _open: Closure<dyn FnMut(Event)>,
    _message: Closure<dyn FnMut(MessageEvent)>,
    _error: Closure<dyn FnMut(Event)>,
    _close: Closure<dyn FnMut(CloseEvent)>,
}

impl WebSocketTransport {
    /// Starts opening a WebSocket to a `ws://` or `wss://` address; see
    /// [`WebSocketTransport::poll_open`].
    pub(super) fn open(addr: &ServerAddr) -> Result<Self, Error> {
        let socket = WebSocket::new(&addr.url_without_credentials())
            .map_err(|e| Error::InvalidArgument(format!("{addr}: {}", js_message(&e))))?;
        socket.set_binary_type(BinaryType::Arraybuffer);
        let shared = Rc::new(RefCell::new(Shared::default()));
        let callbacks = Callbacks::install(&socket, &shared);
        Ok(Self { socket, shared, tls: addr.scheme == Scheme::Wss, _callbacks: callbacks, drain_wait: None })
    }

    /// Ready once the socket's `open` event came, or failed before it.
    pub(super) fn poll_open(&self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        let mut shared = self.shared.borrow_mut();
        let refused = |message: String| Error::Io { kind: io::ErrorKind::ConnectionRefused, message };
        match &shared.state {
            State::Open => Poll::Ready(Ok(())),
            State::Failed => Poll::Ready(Err(refused("websocket error before open".into()))),
            State::Closed { code, reason } => {
                Poll::Ready(Err(refused(format!("websocket closed before open: {code} {reason}"))))
            }
            State::Connecting => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    pub(super) fn is_tls(&self) -> bool {
        self.tls
    }

    /// Appends every frame received so far to `buf`; `Ok(0)` once closed.
    pub(super) fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut BytesMut) -> Poll<io::Result<usize>> {
        let mut shared = self.shared.borrow_mut();
        if let Some(n) = take_received(&mut shared.inbox, buf) {
            return Poll::Ready(Ok(n));
        }
        match shared.state {
            State::Failed | State::Closed { .. } => Poll::Ready(Ok(0)),
            State::Connecting | State::Open => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Takes all of `data`, waiting while the socket already holds more than
    /// [`MAX_BUFFERED`] unsent bytes. The first write of a JS task is sent at
    /// once; later ones in the same task are sent together as one frame when
    /// the task is done (a frame costs the host far more than its bytes: one
    /// frame per message made publishing and acking slow in browsers).
    pub(super) fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        if !matches!(self.shared.borrow().state, State::Open) {
            return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
        }
        if data.is_empty() {
            return Poll::Ready(Ok(0));
        }
        while self.socket.buffered_amount() > MAX_BUFFERED {
            let wait = self.drain_wait.get_or_insert_with(|| WasmRuntime::sleep(DRAIN_RECHECK));
            ready!(wait.as_mut().poll(cx));
            self.drain_wait = None;
        }
        // No borrow of `shared` is held across a JS call.
        let (coalescing, error) = {
            let mut shared = self.shared.borrow_mut();
            (shared.coalescing, shared.send_error.take())
        };
        if let Some(error) = error {
            return Poll::Ready(Err(io::Error::other(error)));
        }
        if coalescing {
            // Not the first write of this task: one frame at its end (or
            // now, when it would grow past MAX_FRAME).
            let full = {
                let mut shared = self.shared.borrow_mut();
                let full = (!shared.outbox.is_empty() && shared.outbox.len() + data.len() > MAX_FRAME)
                    .then(|| std::mem::take(&mut shared.outbox));
                shared.outbox.extend_from_slice(data);
                full
            };
            if let Some(frame) = full {
                self.socket.send_with_u8_array(&frame).map_err(js_to_io)?;
            }
        } else {
            // The first write goes out at once (no added latency); what
            // follows in the same task is sent as one frame after it.
            self.socket.send_with_u8_array(data).map_err(js_to_io)?;
            self.shared.borrow_mut().coalescing = true;
            let (socket, shared) = (self.socket.clone(), Rc::clone(&self.shared));
            after_task(move || send_outbox(&socket, &shared));
        }
        Poll::Ready(Ok(data.len()))
    }

    pub(super) fn close(&mut self) -> io::Result<()> {
        // What this task held back goes first.
        let frame = std::mem::take(&mut self.shared.borrow_mut().outbox);
        if !frame.is_empty() {
            self.socket.send_with_u8_array(&frame).map_err(js_to_io)?;
        }
        self.socket.close().map_err(js_to_io)
    }
}

impl Callbacks {
    fn install(socket: &WebSocket, shared: &Rc<RefCell<Shared>>) -> Callbacks {
        let on_open = update(shared, |s, _: Event| s.state = State::Open);
        let on_message = update(shared, |s, event: MessageEvent| append(&mut s.inbox, &event.data()));
        let on_error = update(shared, |s, _: Event| {
            if matches!(s.state, State::Connecting) {
                s.state = State::Failed;
            }
        });
        let on_close = update(shared, |s, event: CloseEvent| {
            s.state = State::Closed { code: event.code(), reason: event.reason() };
        });
        socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        socket.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Callbacks { _open: on_open, _message: on_message, _error: on_error, _close: on_close }
    }
}

/// A JS callback that applies `f` to the shared state, then wakes the reader.
fn update<E: FromWasmAbi + 'static>(
    shared: &Rc<RefCell<Shared>>,
    mut f: impl FnMut(&mut Shared, E) + 'static,
) -> Closure<dyn FnMut(E)> {
    let shared = Rc::clone(shared);
    Closure::new(move |event: E| {
        let waker = {
            let mut s = shared.borrow_mut();
            f(&mut s, event);
            s.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    })
}

/// Appends a frame: an `ArrayBuffer` for binary frames, a string for text.
fn append(inbox: &mut BytesMut, data: &JsValue) {
    if let Some(buffer) = data.dyn_ref::<ArrayBuffer>() {
        let bytes = Uint8Array::new(buffer);
        let start = inbox.len();
        inbox.resize(start + bytes.length() as usize, 0);
        bytes.copy_to(&mut inbox[start..]);
    } else if let Some(text) = data.as_string() {
        inbox.extend_from_slice(text.as_bytes());
    }
}

/// At the end of a task: sends what was held back as one frame, and keeps
/// coalescing through the next task while writes keep coming.
fn send_outbox(socket: &WebSocket, shared: &Rc<RefCell<Shared>>) {
    let (frame, open) = {
        let mut s = shared.borrow_mut();
        if s.outbox.is_empty() {
            s.coalescing = false;
            return;
        }
        (std::mem::take(&mut s.outbox), matches!(s.state, State::Open))
    };
    // A dropped transport closed its socket: what it held back goes nowhere.
    if open && socket.ready_state() == WebSocket::OPEN {
        if let Err(e) = socket.send_with_u8_array(&frame) {
            let waker = {
                let mut s = shared.borrow_mut();
                s.send_error = Some(js_message(&e));
                s.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
    let (socket, shared) = (socket.clone(), Rc::clone(shared));
    after_task(move || send_outbox(&socket, &shared));
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(thread_local_v2, js_namespace = globalThis, js_name = setImmediate)]
    static SET_IMMEDIATE: JsValue;
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &js_sys::Function, millis: i32) -> JsValue;
}

thread_local! {
    /// Callbacks waiting for the end of the current task, run in order.
    static AFTER_TASK: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
    /// Schedules `run_after_task` as a new task: `setImmediate` (Node), or a
    /// `MessageChannel` message (browsers, workers; no 4 ms timer clamping),
    /// or else `setTimeout(0)`.
    static SCHEDULE: Box<dyn Fn()> = scheduler();
}

fn scheduler() -> Box<dyn Fn()> {
    let run = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| run_after_task()).into_js_value();
    let set_immediate = SET_IMMEDIATE.with(JsValue::clone);
    if let Some(set_immediate) = set_immediate.dyn_ref::<js_sys::Function>() {
        let set_immediate = set_immediate.clone();
        return Box::new(move || {
            let _ = set_immediate.call1(&JsValue::UNDEFINED, &run);
        });
    }
    if let Ok(channel) = web_sys::MessageChannel::new() {
        channel.port1().set_onmessage(Some(run.unchecked_ref()));
        let port = channel.port2();
        return Box::new(move || {
            let _ = port.post_message(&JsValue::NULL);
        });
    }
    let run: js_sys::Function = run.unchecked_into();
    Box::new(move || {
        set_timeout(&run, 0);
    })
}

/// Runs `f` once the current JS task and its microtasks are done.
fn after_task(f: impl FnOnce() + 'static) {
    let first = AFTER_TASK.with(|q| {
        let mut q = q.borrow_mut();
        q.push(Box::new(f));
        q.len() == 1
    });
    if first {
        SCHEDULE.with(|schedule| schedule());
    }
}

fn run_after_task() {
    let callbacks = AFTER_TASK.with(|q| std::mem::take(&mut *q.borrow_mut()));
    for f in callbacks {
        f();
    }
}

impl Drop for WebSocketTransport {
    /// Detaches the callbacks before they are freed, then closes the socket.
    fn drop(&mut self) {
        self.socket.set_onopen(None);
        self.socket.set_onmessage(None);
        self.socket.set_onerror(None);
        self.socket.set_onclose(None);
        let _ = self.socket.close();
    }
}
