//! `nats://` and `tls://` in wasm: a byte stream from a socket factory that
//! JS registers at run time with `setSocketFactory` (in Node,
//! `bindings/node/socket.mjs` over `node:net`/`node:tls`), so the browser
//! build never names a Node module. Like the WebSocket transport, JS
//! callbacks fill a queue shared with [`SocketTransport`] and wake the
//! driver, and writes made in one JS task leave together ([`HeldWrites`]).

use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::task::{Context, Poll, Waker, ready};

use bytes::BytesMut;
use js_sys::{Array, Function, Object, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::TlsOptions;
use super::held::HeldWrites;
use super::js_io::{Received, js_message, js_to_io};
use crate::core::addr::ServerAddr;
use crate::core::error::Error;

#[wasm_bindgen(typescript_custom_section)]
const SOCKET_FACTORY_TS: &str = r#"
/** Opens byte streams for `nats://` and `tls://` URLs (Node: `installNodeSockets`). */
export interface SocketFactory {
  /** Starts connecting at once; events fire until `close()` is called. */
  connect(host: string, port: number, events: SocketEvents): SocketHandle;
}
export interface SocketEvents {
  onOpen(): void;
  onData(chunk: Uint8Array): void;
  /** The send buffer drained after `write` returned false. */
  onDrain(): void;
  /** Fires once; `error` is null for a clean end. */
  onClose(error: Error | null): void;
}
export interface SocketHandle {
  /** Takes ownership of `data`; false when the send buffer is full (wait for `onDrain`). */
  write(data: Uint8Array): boolean;
  /**
   * Optional: `write` of a copy of `data`, a view of wasm memory valid only
   * during the call; the handle makes the copy, e.g. into a buffer it uses
   * again once written (natsjet's own copy would be a fresh allocation).
   */
  writeView?(data: Uint8Array): boolean;
  /**
   * Optional: bytes written and not yet sent (Node's `writableLength`), which
   * natsjet counts toward `outgoingBufferSize`; 0 when absent.
   */
  readonly bufferedAmount?: number;
  /** Starts TLS over the open socket (like `tls.connect({ socket, ... })`). */
  upgradeTls(options: { servername: string; ca?: string[]; cert?: string; key?: string }): Promise<void>;
  /** Ends the socket after pending writes; no event fires afterwards. Idempotent. */
  close(): void;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// The registered factory, called through its `connect` method only.
    #[derive(Clone)]
    type SocketFactory;
    #[wasm_bindgen(method, catch)]
    fn connect(this: &SocketFactory, host: &str, port: u16, events: &SocketEvents) -> Result<JsSocket, JsValue>;

    /// One connection made by the factory.
    #[derive(Clone)]
    type JsSocket;
    #[wasm_bindgen(method, catch)]
    fn write(this: &JsSocket, data: &Uint8Array) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, getter, js_name = writeView)]
    fn write_view_fn(this: &JsSocket) -> JsValue;
    #[wasm_bindgen(method, catch, js_name = writeView)]
    fn write_view(this: &JsSocket, data: &[u8]) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, getter, js_name = bufferedAmount)]
    fn buffered_amount(this: &JsSocket) -> Option<f64>;
    #[wasm_bindgen(method, catch, js_name = upgradeTls)]
    fn upgrade_tls(this: &JsSocket, options: &TlsUpgradeOptions) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn close(this: &JsSocket) -> Result<(), JsValue>;

    #[wasm_bindgen(extends = Object)]
    type SocketEvents;
    #[wasm_bindgen(method, setter = "onOpen")]
    fn set_on_open(this: &SocketEvents, f: &Function);
    #[wasm_bindgen(method, setter = "onData")]
    fn set_on_data(this: &SocketEvents, f: &Function);
    #[wasm_bindgen(method, setter = "onDrain")]
    fn set_on_drain(this: &SocketEvents, f: &Function);
    #[wasm_bindgen(method, setter = "onClose")]
    fn set_on_close(this: &SocketEvents, f: &Function);

    #[wasm_bindgen(extends = Object)]
    type TlsUpgradeOptions;
    #[wasm_bindgen(method, setter)]
    fn set_servername(this: &TlsUpgradeOptions, name: &str);
    #[wasm_bindgen(method, setter)]
    fn set_ca(this: &TlsUpgradeOptions, pems: &Array);
    #[wasm_bindgen(method, setter)]
    fn set_cert(this: &TlsUpgradeOptions, pem: &str);
    #[wasm_bindgen(method, setter)]
    fn set_key(this: &TlsUpgradeOptions, pem: &str);

    /// A Node.js system error: `code` is e.g. `"ECONNREFUSED"`.
    type NodeError;
    #[wasm_bindgen(method, getter)]
    fn code(this: &NodeError) -> Option<String>;
}

thread_local! {
    static FACTORY: RefCell<Option<SocketFactory>> = const { RefCell::new(None) };
}

/// Registers the JS socket factory that `nats://` and `tls://` URLs use (the
/// `SocketFactory` interface). In Node, `installNodeSockets` from
/// `bindings/node/socket.mjs` calls this; browsers have no such sockets.
#[wasm_bindgen(js_name = setSocketFactory)]
pub fn set_socket_factory(
    #[wasm_bindgen(unchecked_param_type = "SocketFactory")] factory: JsValue,
) -> Result<(), JsValue> {
    if !factory.is_object() {
        return Err(js_sys::TypeError::new("setSocketFactory: expected an object with a connect() method").into());
    }
    FACTORY.with(|f| *f.borrow_mut() = Some(factory.unchecked_into()));
    Ok(())
}

/// One socket to a server, plain or (after [`SocketTransport::upgrade_tls`]) TLS.
pub(super) struct SocketTransport {
    socket: JsSocket,
    shared: Rc<RefCell<Shared>>,
    tls: bool,
    /// The socket copies what it is given (`writeView`).
    copies: bool,
    /// Kept alive while the socket may call them; `close()` silences the socket first.
    _callbacks: Callbacks,
    held: HeldWrites,
}

#[derive(Default)]
struct Shared {
    state: State,
    inbox: Received,
    /// `write` returned false: further writes wait for `onDrain`.
    draining: bool,
    /// The driver task, woken by every event.
    waker: Option<Waker>,
}

#[derive(Default)]
enum State {
    #[default]
    Connecting,
    Open,
    Closed(Option<(io::ErrorKind, String)>),
}

struct Callbacks {
    _open: Closure<dyn FnMut()>,
    _data: Closure<dyn FnMut(Uint8Array)>,
    _drain: Closure<dyn FnMut()>,
    _close: Closure<dyn FnMut(JsValue)>,
}

impl SocketTransport {
    /// Asks the registered factory for a socket to `addr`; see [`SocketTransport::poll_open`].
    pub(super) fn open(addr: &ServerAddr) -> Result<Self, Error> {
        let Some(factory) = FACTORY.with(|f| f.borrow().clone()) else {
            return Err(Error::InvalidArgument(format!(
                "{addr}: nats:// needs Node.js sockets: call installNodeSockets() from natsjet's Node entry \
                 (or setSocketFactory), or use a ws:// URL"
            )));
        };
        let shared = Rc::new(RefCell::new(Shared::default()));
        let (events, callbacks) = Callbacks::new(&shared);
        let socket = factory
            .connect(&addr.host, addr.port, &events)
            .map_err(|e| Error::Io { kind: io::ErrorKind::Other, message: format!("{addr}: {}", js_message(&e)) })?;
        let copies = socket.write_view_fn().is_function();
        Ok(Self { socket, shared, tls: false, copies, _callbacks: callbacks, held: HeldWrites::default() })
    }

    /// Ready once `onOpen` came, or failed with [`Error::Io`] when the socket
    /// closed before it (e.g. `ECONNREFUSED`).
    pub(super) fn poll_open(&self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        let mut shared = self.shared.borrow_mut();
        match &shared.state {
            State::Open => Poll::Ready(Ok(())),
            State::Closed(error) => {
                let (kind, message) =
                    error.clone().unwrap_or((io::ErrorKind::ConnectionAborted, "socket closed before open".into()));
                Poll::Ready(Err(Error::Io { kind, message }))
            }
            State::Connecting => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Runs the TLS handshake over the open socket with the user's roots
    /// (the host's defaults when none) and client certificate.
    pub(super) async fn upgrade_tls(mut self, addr: &ServerAddr, tls: &TlsOptions) -> Result<Self, Error> {
        let options = upgrade_options(addr, tls)?;
        let promise = self.socket.upgrade_tls(&options).map_err(|e| Error::Tls(js_message(&e)))?;
        JsFuture::from(promise).await.map_err(|e| Error::Tls(format!("{addr}: {}", js_message(&e))))?;
        self.tls = true;
        Ok(self)
    }

    pub(super) fn is_tls(&self) -> bool {
        self.tls
    }

    /// Appends what was received so far to `buf`; `Ok(0)` after a clean end,
    /// the socket's error after a failure.
    pub(super) fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut BytesMut) -> Poll<io::Result<usize>> {
        let mut shared = self.shared.borrow_mut();
        if let Some(n) = shared.inbox.take_into(buf) {
            return Poll::Ready(Ok(n));
        }
        match &shared.state {
            State::Closed(None) => Poll::Ready(Ok(0)),
            State::Closed(Some((kind, message))) => Poll::Ready(Err(io::Error::new(*kind, message.clone()))),
            State::Connecting | State::Open => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Takes all of `data` (held back until the end of this JS task), or
    /// waits for `onDrain` while the socket's send buffer is full.
    pub(super) fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.poll_room(cx))?;
        if data.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let sink = self.sink();
        self.held.write(cx, data, |bytes| sink.send(bytes))?;
        Poll::Ready(Ok(data.len()))
    }

    /// Hands what this JS task held back to the socket, once the task is over.
    pub(super) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_room(cx))?;
        let sink = self.sink();
        self.held.poll_flush(cx, |bytes| sink.send(bytes))
    }

    /// Hands what this task held back to the socket now.
    pub(super) fn hurry(&mut self) -> io::Result<()> {
        let sink = self.sink();
        self.held.send_now(|bytes| sink.send(bytes))
    }

    /// Whether writes wait for the end of this JS task.
    pub(super) fn holds_writes(&self) -> bool {
        self.held.holding()
    }

    /// Ready to write while open and the socket's send buffer has room.
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut shared = self.shared.borrow_mut();
        if !matches!(shared.state, State::Open) {
            return Poll::Ready(Err(io::ErrorKind::NotConnected.into()));
        }
        if shared.draining {
            shared.waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }

    pub(super) fn close(&mut self) -> io::Result<()> {
        // What this task held back goes first; the socket ends after it.
        let held = self.held.take();
        if !held.is_empty() {
            self.sink().send(&held)?;
        }
        self.socket.close().map_err(js_to_io)
    }

    fn sink(&self) -> Sink<'_> {
        Sink { socket: &self.socket, shared: &self.shared, copies: self.copies }
    }

    /// A handle that writes to this socket at once, whatever its send
    /// buffer holds (see [`HostSink`](super::HostSink)).
    pub(super) fn writer(&self) -> SocketWriter {
        let (socket, shared) = (self.socket.clone(), Rc::clone(&self.shared));
        SocketWriter { socket, shared, copies: self.copies, held: self.held.clone() }
    }
}

pub(super) struct SocketWriter {
    socket: JsSocket,
    shared: Rc<RefCell<Shared>>,
    copies: bool,
    held: HeldWrites,
}

impl SocketWriter {
    /// Sends what the task held back, then `bytes`.
    pub(super) fn send(&self, bytes: &[u8]) -> io::Result<()> {
        let sink = Sink { socket: &self.socket, shared: &self.shared, copies: self.copies };
        self.held.send_now(|held| sink.send(held))?;
        sink.send(bytes)
    }

    /// Bytes the socket holds unsent.
    pub(super) fn buffered(&self) -> usize {
        self.socket.buffered_amount().unwrap_or(0.0) as usize
    }
}

/// Where held writes go: the socket, through `writeView` when it copies.
struct Sink<'a> {
    socket: &'a JsSocket,
    shared: &'a RefCell<Shared>,
    copies: bool,
}

impl Sink<'_> {
    /// Hands `bytes` to the socket; a full send buffer stops further writes until `onDrain`.
    fn send(&self, bytes: &[u8]) -> io::Result<()> {
        let accepted_more = match self.copies {
            true => self.socket.write_view(bytes),
            // A copy: a view into wasm memory could change before Node sends it.
            false => self.socket.write(&Uint8Array::from(bytes)),
        };
        if !accepted_more.map_err(js_to_io)? {
            self.shared.borrow_mut().draining = true;
        }
        Ok(())
    }
}

impl Drop for SocketTransport {
    /// Silences and ends the socket before the callbacks are freed.
    fn drop(&mut self) {
        let _ = self.socket.close();
    }
}

impl Callbacks {
    fn new(shared: &Rc<RefCell<Shared>>) -> (SocketEvents, Callbacks) {
        let open = Closure::<dyn FnMut()>::new(update(shared, |s| s.state = State::Open));
        let data = {
            let shared = Rc::clone(shared);
            Closure::<dyn FnMut(Uint8Array)>::new(move |chunk: Uint8Array| {
                wake(&shared, |s| {
                    s.inbox.push(chunk);
                })
            })
        };
        let drain = Closure::<dyn FnMut()>::new(update(shared, |s| s.draining = false));
        let close = {
            let shared = Rc::clone(shared);
            Closure::<dyn FnMut(JsValue)>::new(move |error: JsValue| {
                wake(&shared, |s| s.state = State::Closed(node_error(&error)))
            })
        };
        let events: SocketEvents = Object::new().unchecked_into();
        events.set_on_open(open.as_ref().unchecked_ref());
        events.set_on_data(data.as_ref().unchecked_ref());
        events.set_on_drain(drain.as_ref().unchecked_ref());
        events.set_on_close(close.as_ref().unchecked_ref());
        (events, Callbacks { _open: open, _data: data, _drain: drain, _close: close })
    }
}

/// A no-argument callback that applies `f` to the shared state.
fn update(shared: &Rc<RefCell<Shared>>, f: impl Fn(&mut Shared) + 'static) -> impl FnMut() + 'static {
    let shared = Rc::clone(shared);
    move || wake(&shared, &f)
}

/// Applies `f`, then wakes the driver (outside the borrow: it may poll at once).
fn wake(shared: &Rc<RefCell<Shared>>, f: impl FnOnce(&mut Shared)) {
    let waker = {
        let mut s = shared.borrow_mut();
        f(&mut s);
        s.waker.take()
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// `None` for a clean close (`null`), else the error's kind from its Node `code`.
fn node_error(error: &JsValue) -> Option<(io::ErrorKind, String)> {
    if error.is_null() || error.is_undefined() {
        return None;
    }
    let code = error.is_object().then(|| error.unchecked_ref::<NodeError>().code()).flatten();
    let kind = match code.as_deref() {
        Some("ECONNREFUSED") => io::ErrorKind::ConnectionRefused,
        Some("ECONNRESET") => io::ErrorKind::ConnectionReset,
        Some("ECONNABORTED") => io::ErrorKind::ConnectionAborted,
        Some("EPIPE") => io::ErrorKind::BrokenPipe,
        Some("ETIMEDOUT") => io::ErrorKind::TimedOut,
        Some("EADDRNOTAVAIL") => io::ErrorKind::AddrNotAvailable,
        Some("ENOTFOUND" | "EAI_AGAIN") => io::ErrorKind::NotFound,
        _ => io::ErrorKind::Other,
    };
    Some((kind, js_message(error)))
}

/// `upgradeTls` options: PEM text for Node's `ca`, `cert` and `key`.
fn upgrade_options(addr: &ServerAddr, tls: &TlsOptions) -> Result<TlsUpgradeOptions, Error> {
    let text = |pem: &[u8], what: &str| {
        std::str::from_utf8(pem).map_err(|_| Error::Tls(format!("{what} PEM is not text"))).map(str::to_owned)
    };
    let options: TlsUpgradeOptions = Object::new().unchecked_into();
    options.set_servername(&addr.host);
    if !tls.roots_pem.is_empty() {
        let ca = Array::new();
        for pem in &tls.roots_pem {
            ca.push(&JsValue::from(text(pem, "root certificate")?));
        }
        options.set_ca(&ca);
    }
    if let Some(auth) = &tls.client_auth_pem {
        options.set_cert(&text(&auth.cert_chain, "client certificate")?);
        options.set_key(&text(&auth.key, "client key")?);
    }
    Ok(options)
}
