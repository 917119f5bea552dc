//! Transports move bytes and report close; nothing else. One concrete
//! [`Transport`] per target, selected at compile time (no `dyn`):
//! natively TCP, TLS over TCP (rustls) and WebSocket (tokio-tungstenite);
//! in wasm the host's WebSocket through web-sys, and for `nats://`/`tls://`
//! a socket from a JS factory registered with `setSocketFactory` (Node).
//!
//! The surface the driver relies on, identical on every target:
//!
//! ```text
//! Transport::connect(&ServerAddr, &TlsOptions, Duration) -> Result<Transport>   (async)
//! Transport::connect_from(.., Option<SocketAddr>, Duration)   natively: bound to a local address
//! Transport::upgrade_tls(self, &ServerAddr, &TlsOptions) -> Result<Transport>  (async)
//! Transport::is_tls(&self) -> bool
//! Transport::poll_read(&mut self, cx, &mut BytesMut) -> Poll<io::Result<usize>>  Ok(0) = closed
//! Transport::poll_write(&mut self, cx, &[u8]) -> Poll<io::Result<usize>>
//! Transport::poll_write_vectored(&mut self, cx, &[IoSlice]) -> Poll<io::Result<usize>>
//! Transport::poll_flush / poll_close(&mut self, cx) -> Poll<io::Result<()>>
//! Transport::holds_writes(&self) -> bool
//! ```
//!
//! As with `AsyncWrite`, written bytes may wait for `poll_flush`. The wasm
//! transports hold back what is written in one JS task and send it together
//! when the task ends, waking the flusher then; `holds_writes` says so, and
//! the driver then hands them new bytes without being woken for each.
//!
//! The transport never parses NATS protocol: the INFO that decides whether
//! to call `upgrade_tls` is read by the driver through `poll_read`.

mod tls_options;
pub use tls_options::TlsOptions;

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
mod native;
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub use native::Transport;

#[cfg(all(feature = "wasm-runtime", target_arch = "wasm32"))]
mod wasm;
#[cfg(all(feature = "wasm-groups", target_arch = "wasm32"))]
pub(crate) use wasm::js_message;
#[cfg(all(feature = "wasm-runtime", target_arch = "wasm32"))]
pub use wasm::{HostSink, Transport, set_socket_factory};

/// Turns a transport's I/O error into natsjet's error; natively a TLS
/// failure reported after the handshake (e.g. a refused client certificate)
/// becomes [`Error::Tls`](crate::Error::Tls) rather than a bare I/O error.
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
pub(crate) fn io_error(e: std::io::Error) -> crate::Error {
    native::io_to_error(e)
}

/// Turns a transport's I/O error into natsjet's error.
#[cfg(all(has_runtime, target_arch = "wasm32"))]
pub(crate) fn io_error(e: std::io::Error) -> crate::Error {
    e.into()
}
