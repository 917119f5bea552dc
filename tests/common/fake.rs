//! A fake NATS server on a raw loopback socket, for hostile-input tests:
//! it accepts on 127.0.0.1, plays a script per connection (scripted bytes,
//! or reactions to what the client writes) and records every byte the
//! client wrote. Blocking std sockets on a thread of its own, so the tokio
//! runtime under test shares nothing with it.
//!
//! ```ignore
//! let fake = FakeServer::start(|conn| {
//!     conn.handshake();
//!     conn.send(b"FOO\r\n");
//! });
//! let client = ConnectOptions::new().max_reconnects(0).connect(fake.url()).await?;
//! ```

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The INFO a fake server sends unless a script sends its own.
pub const INFO: &[u8] = b"INFO {\"server_id\":\"FAKE\",\"version\":\"2.15.0\",\"proto\":1,\"headers\":true,\"max_payload\":1048576,\"jetstream\":true}\r\n";

/// How long a script waits for what it expects from the client.
const EXPECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A listening fake server; stops accepting when dropped.
pub struct FakeServer {
    addr: SocketAddr,
    written: Arc<Mutex<Vec<u8>>>,
    stop: Arc<AtomicBool>,
    /// The connection a script plays, to end it when the server stops.
    current: Arc<Mutex<Option<TcpStream>>>,
    thread: Option<JoinHandle<()>>,
}

impl FakeServer {
    /// Runs `script` for every connection, one after the other; the
    /// connection is closed when the script returns.
    pub fn start(script: impl Fn(&mut FakeConn) + Send + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let written = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let current = Arc::new(Mutex::new(None));
        let thread = std::thread::spawn({
            let (written, stop, current) = (written.clone(), stop.clone(), current.clone());
            move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let Ok(stream) = stream else { continue };
                    stream.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
                    // A client that stops reading ends a flood instead of hanging it.
                    stream.set_write_timeout(Some(EXPECT_TIMEOUT)).unwrap();
                    *current.lock().unwrap() = stream.try_clone().ok();
                    let mut conn = FakeConn { stream, written: written.clone(), seen: 0 };
                    script(&mut conn);
                    // Closed with the last handle, so that what the client
                    // sent unread resets its connection, as a server's would.
                    current.lock().unwrap().take();
                    let _ = conn.stream.shutdown(Shutdown::Both);
                }
            }
        });
        FakeServer { addr, written, stop, current, thread: Some(thread) }
    }

    pub fn url(&self) -> String {
        format!("nats://{}", self.addr)
    }

    /// Stops the server, waits for its script to end, and returns every
    /// byte clients wrote.
    pub fn finish(mut self) -> Vec<u8> {
        self.stop_and_join();
        self.written()
    }

    fn stop_and_join(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Ends a script still running (its reads and writes fail), then
        // wakes the accept loop.
        if let Some(stream) = self.current.lock().unwrap().take() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            if !std::thread::panicking() {
                thread.join().expect("the fake server's script panicked");
            }
        }
    }

    /// Every byte clients wrote so far, over all connections.
    pub fn written(&self) -> Vec<u8> {
        self.written.lock().unwrap().clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// One client connection, as a script sees it.
pub struct FakeConn {
    stream: TcpStream,
    written: Arc<Mutex<Vec<u8>>>,
    /// How much of `written` the last `expect` consumed.
    seen: usize,
}

impl FakeConn {
    /// Sends `bytes`; false once the client is gone.
    pub fn send(&mut self, bytes: &[u8]) -> bool {
        self.stream.write_all(bytes).is_ok()
    }

    /// Reads what the client sent until `needle` shows up after what the
    /// last call consumed; returns the bytes after `needle` up to the end
    /// of its line, or `None` when the client went away or
    /// `EXPECT_TIMEOUT` passed.
    pub fn expect(&mut self, needle: &[u8]) -> Option<Vec<u8>> {
        let (from, to) = self.find(self.seen, needle)?;
        self.seen = to;
        let written = self.written.lock().unwrap();
        Some(written[from..to].to_vec())
    }

    /// [`expect`](Self::expect) over everything this client wrote,
    /// wherever the last call stopped: for writes whose order is not fixed.
    pub fn expect_anywhere(&mut self, needle: &[u8]) -> Option<Vec<u8>> {
        let (from, to) = self.find(0, needle)?;
        let written = self.written.lock().unwrap();
        Some(written[from..to].to_vec())
    }

    /// Reads until the client wrote `n` times `needle` on this connection
    /// (counted from what the last `expect` consumed); false if it did not.
    pub fn expect_count(&mut self, needle: &[u8], n: usize) -> bool {
        let (mut counted, mut found) = (self.seen, 0);
        self.read_until(|written| {
            while let Some(at) = written[counted..].windows(needle.len()).position(|w| w == needle) {
                counted += at + needle.len();
                found += 1;
            }
            // A needle may straddle what arrived so far and what follows.
            counted = counted.max(written.len().saturating_sub(needle.len() - 1));
            (found >= n).then_some(())
        })
        .is_some()
    }

    /// Where the rest of the line after `needle` lies, reading on until
    /// both arrived.
    fn find(&mut self, start: usize, needle: &[u8]) -> Option<(usize, usize)> {
        self.read_until(|written| {
            let at = written[start..].windows(needle.len()).position(|w| w == needle)?;
            let from = start + at + needle.len();
            let end = written[from..].windows(2).position(|w| w == b"\r\n")?;
            Some((from, from + end))
        })
    }

    /// Reads what the client writes until `done`, given all it wrote so
    /// far, says so, the client goes away or `EXPECT_TIMEOUT` passes.
    fn read_until<R>(&mut self, mut done: impl FnMut(&[u8]) -> Option<R>) -> Option<R> {
        let deadline = Instant::now() + EXPECT_TIMEOUT;
        let mut buf = [0u8; 4096];
        loop {
            if let Some(found) = done(&self.written.lock().unwrap()) {
                return Some(found);
            }
            if Instant::now() >= deadline {
                return None;
            }
            match self.stream.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.written.lock().unwrap().extend_from_slice(&buf[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => return None,
            }
        }
    }

    /// The client's next line (after what the last `expect` consumed; the
    /// first is the one after CONNECT), without its CRLF.
    pub fn next_line(&mut self) -> Option<String> {
        self.expect(b"\n").map(|line| String::from_utf8_lossy(&line).into_owned())
    }

    /// The fields of the client's next `op` line (e.g. `"SUB"`; never the
    /// first line, which is CONNECT).
    pub fn expect_op(&mut self, op: &str) -> Option<Vec<String>> {
        fields(&self.expect(format!("\n{op} ").as_bytes())?)
    }

    /// [`expect_op`](Self::expect_op) for an op written at any time.
    pub fn expect_op_anywhere(&mut self, op: &str) -> Option<Vec<String>> {
        fields(&self.expect_anywhere(format!("\n{op} ").as_bytes())?)
    }

    /// The usual start: [`INFO`], then the client's CONNECT and PING
    /// answered with PONG.
    pub fn handshake(&mut self) -> bool {
        self.handshake_with(INFO)
    }

    /// [`handshake`](Self::handshake) with another INFO line.
    pub fn handshake_with(&mut self, info: &[u8]) -> bool {
        self.send(info) && self.expect(b"\nPING").is_some() && self.send(b"PONG\r\n")
    }

    /// Closes the connection now, as a server that goes away.
    pub fn close(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// Waits until the client closes the connection (or `EXPECT_TIMEOUT`),
    /// recording what it still writes.
    pub fn wait_closed(&mut self) {
        let _ = self.find(self.seen, b"\0never written\0");
    }

    /// Sends `chunk` again and again until the client closes the connection
    /// or `limit` bytes went out; returns how many did.
    pub fn flood(&mut self, chunk: &[u8], limit: usize) -> usize {
        let mut sent = 0;
        while sent < limit && self.send(chunk) {
            sent += chunk.len();
        }
        sent
    }
}

fn fields(line: &[u8]) -> Option<Vec<String>> {
    Some(String::from_utf8_lossy(line).split_ascii_whitespace().map(str::to_string).collect())
}
