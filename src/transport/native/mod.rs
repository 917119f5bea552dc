//! The native transport: tokio TCP, rustls TLS, and tokio-tungstenite
//! WebSocket over either. WebSocket frames are NATS byte-stream chunks: each
//! write becomes one binary frame, each received frame is appended as is.

mod tls;

pub(crate) use tls::io_to_error;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_core::Stream;
use futures_util::Sink;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::client::TlsStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};

use super::TlsOptions;
use crate::core::addr::{Scheme, ServerAddr};
use crate::core::error::{Error, ProtocolError};

/// What `poll_read` grows a buffer without spare room by. The caller sizes
/// the room otherwise (the driver makes exactly the room a message needs).
const READ_CHUNK: usize = 64 * 1024;
/// ALPN for `wss://`, as HTTP servers and proxies in front of NATS expect.
const ALPN_HTTP1: &[u8] = b"http/1.1";

/// One connection to a server. See the [module docs](super) for the contract.
pub struct Transport {
    inner: Inner,
}

enum Inner {
    Stream(ByteStream),
    Ws(Box<WebSocketStream<ByteStream>>),
}

/// A byte stream, plain or TLS; also what WebSocket frames travel on.
struct ByteStream {
    io: Io,
    /// Bytes were read since [`Transport::take_partial_input`] last looked.
    heard: bool,
}

enum Io {
    Tcp(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl ByteStream {
    fn new(io: Io) -> Self {
        ByteStream { io, heard: false }
    }
}

impl Transport {
    /// Opens a transport to `addr`: TCP for `nats://` and `tls://` (TLS comes
    /// later from [`Transport::upgrade_tls`], after the server's INFO),
    /// WebSocket for `ws://` and `wss://` (TLS first for `wss://`).
    /// Fails with [`Error::Timeout`] after `timeout`.
    pub async fn connect(addr: &ServerAddr, tls: &TlsOptions, timeout: Duration) -> Result<Transport, Error> {
        Self::connect_from(addr, tls, None, timeout).await
    }

    /// [`Transport::connect`] from `local`: the TCP socket (under every
    /// scheme) is bound to it before connecting, and only the server's
    /// addresses of its family are tried; port 0 lets the system pick one.
    /// A local address that cannot be bound (taken, or not this host's)
    /// fails at once with that error.
    pub async fn connect_from(
        addr: &ServerAddr,
        tls: &TlsOptions,
        local: Option<SocketAddr>,
        timeout: Duration,
    ) -> Result<Transport, Error> {
        tokio::time::timeout(timeout, open(addr, tls, local)).await.unwrap_or(Err(Error::Timeout))
    }

    /// Wraps an open TCP transport in TLS, verifying the certificate for
    /// `addr.host`. Any other transport gives [`Error::Tls`].
    pub async fn upgrade_tls(self, addr: &ServerAddr, tls: &TlsOptions) -> Result<Transport, Error> {
        match self.inner {
            Inner::Stream(ByteStream { io: Io::Tcp(tcp), .. }) => {
                let stream = tls::handshake(addr, tls, tcp, None).await?;
                Ok(Transport { inner: Inner::Stream(ByteStream::new(Io::Tls(Box::new(stream)))) })
            }
            _ => Err(Error::Tls("only a plain TCP transport can be upgraded to TLS".into())),
        }
    }

    /// Whether the bytes travel encrypted (TLS, or WebSocket over TLS).
    pub fn is_tls(&self) -> bool {
        let stream = match &self.inner {
            Inner::Stream(s) => s,
            Inner::Ws(ws) => ws.get_ref(),
        };
        matches!(stream.io, Io::Tls(_))
    }

    /// Whether bytes arrived since the last call that [`Self::poll_read`]
    /// could not hand over yet: a WebSocket frame still under way (a server
    /// sends a client that is no browser a whole write as one frame). They
    /// show a slow link alive while the frame, and a PONG behind it, comes.
    pub fn take_partial_input(&mut self) -> bool {
        match &mut self.inner {
            Inner::Ws(ws) => std::mem::take(&mut ws.get_mut().heard),
            Inner::Stream(_) => false,
        }
    }

    /// Appends what is available to `buf`; `Ok(0)` means the peer closed.
    /// WebSocket pings are answered by tungstenite while reading.
    pub fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut BytesMut) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Inner::Stream(stream) => {
                if buf.capacity() == buf.len() {
                    buf.reserve(READ_CHUNK);
                }
                // `read_buf` keeps no state of its own, so a fresh one per poll is fine.
                std::pin::pin!(stream.read_buf(buf)).poll(cx)
            }
            Inner::Ws(ws) => loop {
                let data = match ready!(Pin::new(&mut **ws).poll_next(cx)) {
                    None | Some(Ok(Message::Close(_))) => return Poll::Ready(Ok(0)),
                    Some(Err(e)) => return Poll::Ready(Err(ws_to_io(e))),
                    Some(Ok(Message::Binary(data))) => data,
                    Some(Ok(Message::Text(text))) => Bytes::from(text),
                    Some(Ok(_)) => continue,
                };
                // An empty frame must not look like end of stream.
                if !data.is_empty() {
                    buf.extend_from_slice(&data);
                    return Poll::Ready(Ok(data.len()));
                }
            },
        }
    }

    /// Writes a prefix of `data`; on WebSocket all of it, as one binary frame.
    pub fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Inner::Stream(stream) => Pin::new(stream).poll_write(cx, data),
            Inner::Ws(_) if data.is_empty() => Poll::Ready(Ok(0)),
            Inner::Ws(ws) => {
                let mut ws = Pin::new(&mut **ws);
                ready!(ws.as_mut().poll_ready(cx)).map_err(ws_to_io)?;
                ws.start_send(Message::Binary(Bytes::copy_from_slice(data))).map_err(ws_to_io)?;
                Poll::Ready(Ok(data.len()))
            }
        }
    }

    /// Writes a prefix of `data`, one `writev` on a socket; on WebSocket
    /// all of it, as one binary frame.
    pub fn poll_write_vectored(&mut self, cx: &mut Context<'_>, data: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Inner::Stream(stream) => Pin::new(stream).poll_write_vectored(cx, data),
            Inner::Ws(_) if data.iter().all(|d| d.is_empty()) => Poll::Ready(Ok(0)),
            Inner::Ws(ws) => {
                let mut ws = Pin::new(&mut **ws);
                ready!(ws.as_mut().poll_ready(cx)).map_err(ws_to_io)?;
                let mut frame = BytesMut::with_capacity(data.iter().map(|d| d.len()).sum());
                for piece in data {
                    frame.extend_from_slice(piece);
                }
                let len = frame.len();
                ws.start_send(Message::Binary(frame.freeze())).map_err(ws_to_io)?;
                Poll::Ready(Ok(len))
            }
        }
    }

    /// Flushes what was written to the socket or WebSocket.
    pub fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Inner::Stream(stream) => Pin::new(stream).poll_flush(cx),
            Inner::Ws(ws) => Pin::new(&mut **ws).poll_flush(cx).map_err(ws_to_io),
        }
    }

    /// Writes are never held back here: each one is handed on when made.
    pub fn holds_writes(&self) -> bool {
        false
    }

    /// Nothing is held back to hurry (see [`Self::holds_writes`]).
    pub fn hurry(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Closes the write side: TLS close_notify, WebSocket close frame, TCP FIN.
    pub fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Inner::Stream(stream) => Pin::new(stream).poll_shutdown(cx),
            Inner::Ws(ws) => Pin::new(&mut **ws).poll_close(cx).map_err(ws_to_io),
        }
    }
}

async fn open(addr: &ServerAddr, options: &TlsOptions, local: Option<SocketAddr>) -> Result<Transport, Error> {
    let tcp = match local {
        None => TcpStream::connect(addr.host_port()).await?,
        Some(local) => connect_bound(addr, local).await?,
    };
    tcp.set_nodelay(true)?;
    let inner = match addr.scheme {
        Scheme::Nats | Scheme::Tls => Inner::Stream(ByteStream::new(Io::Tcp(tcp))),
        Scheme::Ws => Inner::Ws(Box::new(websocket(addr, ByteStream::new(Io::Tcp(tcp))).await?)),
        Scheme::Wss => {
            let stream = tls::handshake(addr, options, tcp, Some(ALPN_HTTP1)).await?;
            Inner::Ws(Box::new(websocket(addr, ByteStream::new(Io::Tls(Box::new(stream)))).await?))
        }
    };
    Ok(Transport { inner })
}

/// A TCP connection from `local` to the first of `addr`'s addresses of
/// the same family that answers.
async fn connect_bound(addr: &ServerAddr, local: SocketAddr) -> Result<TcpStream, Error> {
    let mut last = None;
    for remote in tokio::net::lookup_host(addr.host_port()).await?.filter(|r| r.is_ipv4() == local.is_ipv4()) {
        let socket = if local.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
        socket.bind(local).map_err(|e| bind_error(e, local))?;
        match socket.connect(remote).await {
            Ok(tcp) => return Ok(tcp),
            Err(e) => last = Some(e),
        }
    }
    Err(last.map_or_else(
        || Error::Io {
            kind: io::ErrorKind::AddrNotAvailable,
            message: format!("{} has no address of the family of the local address {local}", addr.host),
        },
        Error::from,
    ))
}

fn bind_error(e: io::Error, local: SocketAddr) -> Error {
    Error::Io { kind: e.kind(), message: format!("cannot bind {local}: {e}") }
}

async fn websocket(addr: &ServerAddr, stream: ByteStream) -> Result<WebSocketStream<ByteStream>, Error> {
    match tokio_tungstenite::client_async(addr.url_without_credentials(), stream).await {
        Ok((ws, _response)) => Ok(ws),
        Err(WsError::Io(e)) => Err(tls::io_to_error(e)),
        Err(e) => Err(Error::Protocol(ProtocolError::WebSocket(format!("websocket handshake with {addr}: {e}")))),
    }
}

fn ws_to_io(e: WsError) -> io::Error {
    match e {
        WsError::Io(e) => e,
        WsError::ConnectionClosed | WsError::AlreadyClosed => io::ErrorKind::BrokenPipe.into(),
        e => io::Error::other(e),
    }
}

impl AsyncRead for ByteStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = match &mut this.io {
            Io::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Io::Tls(s) => Pin::new(&mut **s).poll_read(cx, buf),
        };
        this.heard |= buf.filled().len() > before;
        read
    }
}

impl AsyncWrite for ByteStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_write(cx, data),
            Io::Tls(s) => Pin::new(&mut **s).poll_write(cx, data),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_write_vectored(cx, data),
            Io::Tls(s) => Pin::new(&mut **s).poll_write_vectored(cx, data),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.io {
            Io::Tcp(s) => s.is_write_vectored(),
            Io::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_flush(cx),
            Io::Tls(s) => Pin::new(&mut **s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Io::Tls(s) => Pin::new(&mut **s).poll_shutdown(cx),
        }
    }
}
