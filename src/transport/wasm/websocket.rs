//! `ws://` and `wss://` in wasm: the host's `WebSocket` (browsers, Node 22+,
//! or whatever the user put on `globalThis.WebSocket` in older Node) through
//! web-sys. JS callbacks push into a queue shared with [`WebSocketTransport`],
//! which the driver drains from `poll_read`; TLS is the host's business.
//! Writes made within one JS task leave together ([`HeldWrites`]).

use std::cell::RefCell;
use std::io;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker, ready};
use std::time::Duration;

use bytes::BytesMut;
use js_sys::{ArrayBuffer, Uint8Array};
use wasm_bindgen::convert::FromWasmAbi;
use wasm_bindgen::prelude::*;
use web_sys::{BinaryType, CloseEvent, Event, MessageEvent, WebSocket};

use super::held::HeldWrites;
use super::js_io::{Received, js_message, js_to_io};
use crate::core::addr::{Scheme, ServerAddr};
use crate::core::error::Error;
use crate::runtime::js_task::{after_task, end_of_task_is_microtask};
use crate::runtime::{BoxFuture, Runtime, WasmRuntime};

/// Above this many bytes queued in the socket, writes wait.
const MAX_BUFFERED: u32 = 8 << 20;
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
    held: HeldWrites,
}

#[derive(Default)]
struct Shared {
    state: State,
    inbox: Received,
    waker: Option<Waker>,
    /// Browsers: a frame came since the last end of a task (see [`on_message`]).
    burst: bool,
    /// Frames of this burst wait for the end of the task.
    deferred: bool,
    /// The next read takes frames that waited: the writes answering them wait too.
    answering: bool,
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
        // Browsers start with Blobs, which cannot be read synchronously. Node's
        // `ws` starts with Buffers (views of what it read, where ArrayBuffers
        // would be copies): `append` takes those as they are.
        if socket.binary_type() == BinaryType::Blob {
            socket.set_binary_type(BinaryType::Arraybuffer);
        }
        let shared = Rc::new(RefCell::new(Shared::default()));
        let callbacks = Callbacks::install(&socket, &shared);
        Ok(Self {
            socket,
            shared,
            tls: addr.scheme == Scheme::Wss,
            _callbacks: callbacks,
            drain_wait: None,
            held: HeldWrites::default(),
        })
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
        if let Some(n) = shared.inbox.take_into(buf) {
            if std::mem::take(&mut shared.answering) {
                self.held.received();
            }
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
    /// [`MAX_BUFFERED`] unsent bytes. Each frame costs the host far more
    /// than its bytes: writes made in one JS task are sent together (see
    /// [`HeldWrites`]), as one frame when the task is over.
    pub(super) fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        if !matches!(self.shared.borrow().state, State::Open) {
            return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
        }
        if data.is_empty() {
            return Poll::Ready(Ok(0));
        }
        ready!(self.poll_room(cx));
        let socket = &self.socket;
        self.held.write(cx, data, |frame| socket.send_with_u8_array(frame).map_err(js_to_io))?;
        Poll::Ready(Ok(data.len()))
    }

    /// Sends what this JS task held back, once the task is over.
    pub(super) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_room(cx));
        let socket = &self.socket;
        self.held.poll_flush(cx, |frame| socket.send_with_u8_array(frame).map_err(js_to_io))
    }

    /// Sends what this task held back now, as one frame.
    pub(super) fn hurry(&mut self) -> io::Result<()> {
        let socket = &self.socket;
        self.held.send_now(|frame| socket.send_with_u8_array(frame).map_err(js_to_io))
    }

    /// Whether writes wait for the end of this JS task.
    pub(super) fn holds_writes(&self) -> bool {
        self.held.holding()
    }

    /// Ready while the socket holds at most [`MAX_BUFFERED`] unsent bytes
    /// (it has no "drained" event: looked at again every [`DRAIN_RECHECK`]).
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while self.socket.buffered_amount() > MAX_BUFFERED {
            let wait = self.drain_wait.get_or_insert_with(|| WasmRuntime::sleep(DRAIN_RECHECK));
            ready!(wait.as_mut().poll(cx));
            self.drain_wait = None;
        }
        Poll::Ready(())
    }

    /// A handle that sends on this socket at once, whatever it holds
    /// unsent (see [`HostSink`](super::HostSink)).
    pub(super) fn writer(&self) -> WebSocketWriter {
        WebSocketWriter { socket: self.socket.clone(), held: self.held.clone() }
    }

    pub(super) fn close(&mut self) -> io::Result<()> {
        // What this task held back goes first.
        let frame = self.held.take();
        if !frame.is_empty() {
            self.socket.send_with_u8_array(&frame).map_err(js_to_io)?;
        }
        self.socket.close().map_err(js_to_io)
    }
}

pub(super) struct WebSocketWriter {
    socket: WebSocket,
    held: HeldWrites,
}

impl WebSocketWriter {
    /// Sends what the task held back, then `bytes`, each as a frame.
    pub(super) fn send(&self, bytes: &[u8]) -> io::Result<()> {
        let send = |frame: &[u8]| self.socket.send_with_u8_array(frame).map_err(js_to_io);
        self.held.send_now(send)?;
        send(bytes)
    }

    /// Bytes the socket holds unsent.
    pub(super) fn buffered(&self) -> usize {
        self.socket.buffered_amount() as usize
    }
}

impl Callbacks {
    fn install(socket: &WebSocket, shared: &Rc<RefCell<Shared>>) -> Callbacks {
        let on_open = update(shared, |s, _: Event| s.state = State::Open);
        let on_message = on_message(shared);
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

/// The `message` callback. nats-server cuts its frames to 4 KiB for
/// browsers, and Blink fires one event per frame, each followed by a
/// microtask checkpoint: woken at each, the driver would run a whole round
/// (parse, a batch to JS, acks) per 4 KiB. So in browsers a short frame
/// after a quiet spell wakes the driver at once (a lone reply is not
/// delayed), while a full one ([`FULL_FRAME`]: more is on its way) and the
/// frames that follow either before the end of the task reach the driver
/// together when it ends; the writes answering them wait for the end of
/// that task too. In Node the frames of one socket read already come in
/// one task, and each event wakes the driver.
fn on_message(shared: &Rc<RefCell<Shared>>) -> Closure<dyn FnMut(MessageEvent)> {
    let shared = Rc::clone(shared);
    Closure::new(move |event: MessageEvent| {
        let waker = {
            let mut s = shared.borrow_mut();
            let size = append(&mut s.inbox, &event.data());
            let browser = !end_of_task_is_microtask();
            let now = !browser || !s.burst && size < FULL_FRAME;
            if browser && !s.burst {
                s.burst = true;
                let weak = Rc::downgrade(&shared);
                after_task(move || end_burst(&weak));
            }
            if now {
                s.waker.take()
            } else {
                s.deferred = true;
                None
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    })
}

/// The end of the task in which a burst began: the frames that waited go
/// to the driver.
fn end_burst(shared: &Weak<RefCell<Shared>>) {
    let Some(shared) = shared.upgrade() else { return };
    let waker = {
        let mut s = shared.borrow_mut();
        s.burst = false;
        if !std::mem::take(&mut s.deferred) {
            return;
        }
        s.answering = true;
        s.waker.take()
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The size of the frames nats-server cuts its output into for browsers
/// (`wsFrameSizeForBrowsers`): a frame this large is most likely followed
/// by more.
const FULL_FRAME: usize = 4096;

/// Appends a frame (an `ArrayBuffer` or a `Uint8Array` such as a Node
/// `Buffer` for binary frames, a string for text), giving its size.
fn append(inbox: &mut Received, data: &JsValue) -> usize {
    if let Some(buffer) = data.dyn_ref::<ArrayBuffer>() {
        inbox.push(Uint8Array::new(buffer))
    } else if let Some(bytes) = data.dyn_ref::<Uint8Array>() {
        inbox.push(bytes.clone())
    } else if let Some(text) = data.as_string() {
        inbox.push(Uint8Array::from(text.as_bytes()))
    } else {
        0
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
