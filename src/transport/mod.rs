//! Transports move bytes and report close; nothing else. One concrete
//! [`Transport`] per target, selected at compile time (no `dyn`):
//! natively TCP, TLS over TCP (rustls) and WebSocket (tokio-tungstenite);
//! in wasm the browser's WebSocket through web-sys.

// PLACEHOLDER: being written. The driver relies on exactly this surface:
//
// pub struct Transport { .. }
// impl Transport {
//     /// Opens a transport to `addr`: TCP for nats:// and tls:// (TLS is added
//     /// later by `upgrade_tls`, after the server's INFO), WebSocket for ws://
//     /// and wss://. Fails with Error::Timeout after `timeout`.
//     pub async fn connect(addr: &ServerAddr, tls: &TlsOptions, timeout: Duration) -> Result<Transport, Error>;
//     /// Wraps an open TCP transport in TLS, verifying `addr.host`.
//     pub async fn upgrade_tls(self, addr: &ServerAddr, tls: &TlsOptions) -> Result<Transport, Error>;
//     pub fn is_tls(&self) -> bool;
//     /// Appends what is available to `buf`; Ok(0) = closed by peer.
//     pub fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut BytesMut) -> Poll<io::Result<usize>>;
//     /// Writes a prefix of `data` (WebSocket: all of it, as one binary frame).
//     pub fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>>;
//     pub fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
//     pub fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
// }
