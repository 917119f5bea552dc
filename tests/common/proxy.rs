//! A TCP proxy on 127.0.0.1 that breaks the connections it carries on
//! purpose: cut (RST), stall (stop forwarding, keep open), slow (a
//! bandwidth cap) and half-open (swallow everything both ways, never
//! close). Each fault hits the connections open when it is applied; new
//! connections are forwarded normally (so a client can reconnect through
//! it), except that a bandwidth cap holds for every connection until lifted.
//!
//! It runs on its own thread and tokio runtime, so it serves synchronous
//! tests and any runtime flavour alike; dropping it (also on panic) closes
//! every socket it holds.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// What a connection does with the bytes it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Forward,
    /// Reads nothing more, so the peers' bytes wait in the kernel.
    Stall,
    /// Reads and discards both ways; never closes.
    Swallow,
    /// Resets both sockets.
    Cut,
}

struct Shared {
    conns: Mutex<Vec<watch::Sender<Mode>>>,
    /// Bytes per second per direction; 0 for no cap.
    bandwidth: AtomicU64,
    accepted: AtomicUsize,
    /// Bytes clients may still send up before every connection stalls
    /// that way; negative for no limit.
    up_budget: AtomicI64,
    /// Bytes forwarded client → server and server → client.
    forwarded: [AtomicU64; 2],
}

/// A running proxy to one upstream port. See the module doc.
pub struct FaultProxy {
    port: u16,
    shared: Arc<Shared>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl FaultProxy {
    /// Listens on a free 127.0.0.1 port and forwards each connection to
    /// `127.0.0.1:upstream`.
    pub fn start(upstream: u16) -> FaultProxy {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .thread_name("fault-proxy")
            .build()
            .expect("proxy runtime");
        // Bound with std: `block_on` would panic inside a test's own runtime.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("proxy bind");
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            conns: Mutex::default(),
            bandwidth: AtomicU64::new(0),
            accepted: AtomicUsize::new(0),
            up_budget: AtomicI64::new(-1),
            forwarded: Default::default(),
        });
        let upstream: SocketAddr = ([127, 0, 0, 1], upstream).into();
        let accepting = shared.clone();
        runtime.spawn(async move {
            let listener = TcpListener::from_std(listener).expect("proxy listener");
            accept_loop(listener, upstream, accepting).await
        });
        FaultProxy { port, shared, runtime: Some(runtime) }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn nats_url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// `ws://127.0.0.1:<port>` (for a proxy in front of a websocket port).
    pub fn ws_url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// Connections accepted so far (a reconnect shows as one more).
    pub fn accepted(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    /// Bytes forwarded from clients to the server so far.
    pub fn forwarded_up(&self) -> u64 {
        self.shared.forwarded[0].load(Ordering::SeqCst)
    }

    /// Bytes forwarded from the server to clients so far.
    pub fn forwarded_down(&self) -> u64 {
        self.shared.forwarded[1].load(Ordering::SeqCst)
    }

    /// Resets every open connection (both sides get an RST).
    pub fn cut(&self) {
        self.apply(Mode::Cut);
    }

    /// Stops forwarding on every open connection and keeps it open.
    pub fn stall(&self) {
        self.apply(Mode::Stall);
    }

    /// Swallows what every open connection carries, both ways, and never
    /// closes it: a half-open connection as both peers see it.
    pub fn half_open(&self) {
        self.apply(Mode::Swallow);
    }

    /// Caps each direction of every connection at `bytes_per_second`
    /// (`None` lifts the cap).
    pub fn slow(&self, bytes_per_second: Option<u64>) {
        self.shared.bandwidth.store(bytes_per_second.unwrap_or(0), Ordering::SeqCst);
    }

    /// Lets `bytes` more go from clients to the server, then holds
    /// everything clients send (the server's answers still come down):
    /// a request cut off half-way, deterministically.
    pub fn pass_up_then_stall(&self, bytes: u64) {
        self.shared.up_budget.store(bytes as i64, Ordering::SeqCst);
    }

    /// True once a [`pass_up_then_stall`](Self::pass_up_then_stall) budget is spent.
    pub fn up_stalled(&self) -> bool {
        self.shared.up_budget.load(Ordering::SeqCst) == 0
    }

    /// Open connections still forwarded, which the next fault hits.
    pub fn open_connections(&self) -> usize {
        let conns = self.shared.conns.lock().unwrap();
        conns.iter().filter(|tx| !tx.is_closed() && *tx.borrow() == Mode::Forward).count()
    }

    /// Faulted connections stay faulted: a later fault is for newer ones.
    fn apply(&self, mode: Mode) {
        let mut conns = self.shared.conns.lock().unwrap();
        conns.retain(|tx| !tx.is_closed());
        for tx in conns.iter().filter(|tx| *tx.borrow() == Mode::Forward) {
            tx.send_replace(mode);
        }
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn accept_loop(listener: TcpListener, upstream: SocketAddr, shared: Arc<Shared>) {
    while let Ok((client, _)) = listener.accept().await {
        shared.accepted.fetch_add(1, Ordering::SeqCst);
        let Ok(server) = TcpStream::connect(upstream).await else {
            reset(client);
            continue;
        };
        let _ = client.set_nodelay(true);
        let _ = server.set_nodelay(true);
        let (tx, rx) = watch::channel(Mode::Forward);
        shared.conns.lock().unwrap().push(tx);
        let (client_read, client_write) = client.into_split();
        let (server_read, server_write) = server.into_split();
        tokio::spawn(pump(client_read, server_write, rx.clone(), shared.clone(), 0));
        tokio::spawn(pump(server_read, client_write, rx, shared.clone(), 1));
    }
}

fn reset(stream: TcpStream) {
    let _ = stream.set_zero_linger();
    drop(stream);
}

/// Copies `from` to `to` as the connection's mode says, `direction` 0 up, 1 down.
async fn pump(
    mut from: OwnedReadHalf,
    to: OwnedWriteHalf,
    mut mode: watch::Receiver<Mode>,
    shared: Arc<Shared>,
    direction: usize,
) {
    let mut to = Some(to);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let current = *mode.borrow_and_update();
        match current {
            Mode::Cut => break,
            Mode::Stall => {
                if mode.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
                continue;
            }
            Mode::Forward | Mode::Swallow => {}
        }
        let cap = shared.bandwidth.load(Ordering::SeqCst);
        let chunk = if cap == 0 { buf.len() } else { (cap as usize / 20).clamp(1, buf.len()) };
        let read = tokio::select! {
            read = from.read(&mut buf[..chunk]) => read,
            _ = mode.changed() => continue,
        };
        let n = match read {
            Ok(0) | Err(_) if current == Mode::Swallow => {
                // The peer went; the other side must never learn it.
                loop_until_cut(&mut mode).await;
                break;
            }
            Ok(0) | Err(_) => {
                if let Some(mut to) = to.take() {
                    let _ = to.shutdown().await;
                }
                return;
            }
            Ok(n) => n,
        };
        if *mode.borrow() != Mode::Forward {
            continue; // swallowed, or held back by a stall that never ends for these bytes
        }
        let n = if direction == 0 { take_budget(&shared.up_budget, n) } else { n };
        if n == 0 {
            continue; // over the budget: held back for good
        }
        let Some(writer) = to.as_mut() else { return };
        let mut rest = &buf[..n];
        while !rest.is_empty() {
            // Read per piece: a cap set while the read waited, or lifted
            // since, paces these bytes as it now says.
            let cap = shared.bandwidth.load(Ordering::SeqCst);
            let piece = if cap == 0 { rest.len() } else { (cap as usize / 20).clamp(1, rest.len()) };
            let (bytes, after) = rest.split_at(piece);
            if writer.write_all(bytes).await.is_err() {
                return;
            }
            shared.forwarded[direction].fetch_add(bytes.len() as u64, Ordering::SeqCst);
            if cap != 0 {
                // The cap is the pacing itself: n bytes take n / cap seconds.
                tokio::time::sleep(Duration::from_secs_f64(bytes.len() as f64 / cap as f64)).await;
            }
            rest = after;
        }
    }
    // Cut: an RST, not a FIN — the write half must not shut down on drop.
    let _ = from.as_ref().set_zero_linger();
    if let Some(to) = to.take() {
        let _ = to.as_ref().set_zero_linger();
        to.forget();
    }
}

/// Takes up to `n` bytes from `budget` (unlimited when negative).
fn take_budget(budget: &AtomicI64, n: usize) -> usize {
    let mut left = budget.load(Ordering::SeqCst);
    loop {
        if left < 0 {
            return n;
        }
        let take = left.min(n as i64);
        match budget.compare_exchange(left, left - take, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return take as usize,
            Err(now) => left = now,
        }
    }
}

async fn loop_until_cut(mode: &mut watch::Receiver<Mode>) {
    while *mode.borrow_and_update() != Mode::Cut {
        if mode.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// One fault to inject, for tests that run each in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Cut,
    Stall,
    /// A cap of [`SLOW_BYTES_PER_SECOND`] on every connection, left on.
    Slow,
    HalfOpen,
}

/// The bandwidth cap of [`Fault::Slow`].
pub const SLOW_BYTES_PER_SECOND: u64 = 64 * 1024;

impl FaultProxy {
    pub fn inject(&self, fault: Fault) {
        match fault {
            Fault::Cut => self.cut(),
            Fault::Stall => self.stall(),
            Fault::Slow => self.slow(Some(SLOW_BYTES_PER_SECOND)),
            Fault::HalfOpen => self.half_open(),
        }
    }
}
