//! Tiny HTTP/1.0 GET over a std `TcpStream` for the server's monitoring
//! endpoint (`/healthz`, `/jsz`, `/connz`, `/varz`), and free-port picking.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

/// GET `http://127.0.0.1:<port><path>`; returns (status code, body).
/// Errors (refused, timeout, garbage) come back as `Err(String)`.
pub fn http_get(port: u16, path: &str) -> Result<(u16, String), String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| format!("connect {addr}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).map_err(|e| e.to_string())?;
    stream.set_write_timeout(Some(Duration::from_secs(5))).map_err(|e| e.to_string())?;
    let req = format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    stream.write_all(req.as_bytes()).map_err(|e| format!("write: {e}"))?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(|e| format!("read: {e}"))?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| format!("no HTTP header end in {text:?}"))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| format!("bad status line in {head:?}"))?;
    Ok((status, body.to_string()))
}

/// Picks `n` distinct free 127.0.0.1 ports by binding to port 0 and closing
/// the listeners again. Another process could take one in between (a small,
/// accepted race); use `listen: 127.0.0.1:-1` wherever the server can pick.
pub fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<TcpListener> =
        (0..n).map(|_| TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0")).collect();
    listeners.iter().map(|l| l.local_addr().expect("local_addr").port()).collect()
}

/// One free 127.0.0.1 port; see [`free_ports`].
pub fn free_port() -> u16 {
    free_ports(1)[0]
}
