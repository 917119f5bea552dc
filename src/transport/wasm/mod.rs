//! The wasm [`Transport`]: the host's WebSocket for `ws://` and `wss://`, a
//! socket from the JS socket factory for `nats://` and `tls://` (Node.js).
//! Both are chosen per address at connect time and share the connect timeout.

//! `held` holds writes back to the end of a JS task for both, `js_io`
//! reads their callbacks' bytes and errors.

mod held;
mod js_io;
mod node_socket;
mod websocket;

#[cfg(feature = "wasm-groups")]
pub(crate) use js_io::js_message;
pub use node_socket::set_socket_factory;

use std::future::poll_fn;
use std::io;
use std::pin::pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::BytesMut;
use futures_util::future::{Either, select};

use super::TlsOptions;
use crate::core::addr::ServerAddr;
use crate::core::error::Error;
use crate::runtime::{Runtime, WasmRuntime};
use node_socket::{SocketTransport, SocketWriter};
use websocket::{WebSocketTransport, WebSocketWriter};

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

    /// Whether the bytes travel over TLS (`wss://`, or a TLS Node socket).
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

    /// Always false: hosts hand over whole WebSocket messages and tell
    /// nothing of one under way (servers send browsers 4 KiB frames).
    pub fn take_partial_input(&mut self) -> bool {
        false
    }

    /// Takes all of `data`, or waits while the host's send buffer is full.
    pub fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Inner::WebSocket(t) => t.poll_write(cx, data),
            Inner::Socket(t) => t.poll_write(cx, data),
        }
    }

    /// Takes the pieces of `data` in turn, as [`poll_write`](Self::poll_write)
    /// does each: all of them, or those before one that has to wait.
    pub fn poll_write_vectored(&mut self, cx: &mut Context<'_>, data: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let mut written = 0;
        for piece in data.iter().filter(|piece| !piece.is_empty()) {
            match self.poll_write(cx, piece) {
                Poll::Ready(Ok(n)) if n == piece.len() => written += n,
                Poll::Ready(Ok(n)) => return Poll::Ready(Ok(written + n)),
                Poll::Ready(Err(e)) if written == 0 => return Poll::Ready(Err(e)),
                Poll::Pending if written == 0 => return Poll::Pending,
                Poll::Ready(Err(_)) | Poll::Pending => break,
            }
        }
        Poll::Ready(Ok(written))
    }

    /// Sends the writes held back in this JS task once the task is over
    /// (see [`HeldWrites`](held::HeldWrites)); otherwise the host sends on its own.
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

    /// Closes the WebSocket or socket.
    pub fn poll_close(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(match &mut self.inner {
            Inner::WebSocket(t) => t.close(),
            Inner::Socket(t) => t.close(),
        })
    }

    /// A handle that hands bytes to the host at once (see [`HostSink`]).
    pub fn host_sink(&self) -> HostSink {
        HostSink(match &self.inner {
            Inner::WebSocket(t) => Writer::WebSocket(t.writer()),
            Inner::Socket(t) => Writer::Socket(t.writer()),
        })
    }

    fn poll_open(&self, cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        match &self.inner {
            Inner::WebSocket(t) => t.poll_open(cx),
            Inner::Socket(t) => t.poll_open(cx),
        }
    }
}

/// Writes to an open transport from outside the driver, for a caller that
/// cannot wait (a synchronous publish in a loop): each write goes to the
/// host at once, after what the transport held back, whatever the host
/// already holds unsent. The host keeps it outside wasm memory, in its
/// socket buffer, as nats.js's writes are kept; the connection's bound
/// counts it through [`HostSink::buffered`].
pub struct HostSink(Writer);

enum Writer {
    WebSocket(WebSocketWriter),
    Socket(SocketWriter),
}

impl HostSink {
    /// Hands `bytes` to the host, which copies them during the call.
    pub fn send(&self, bytes: &[u8]) -> io::Result<()> {
        match &self.0 {
            Writer::WebSocket(w) => w.send(bytes),
            Writer::Socket(w) => w.send(bytes),
        }
    }

    /// Bytes the host holds unsent.
    pub fn buffered(&self) -> usize {
        match &self.0 {
            Writer::WebSocket(w) => w.buffered(),
            Writer::Socket(w) => w.buffered(),
        }
    }
}
