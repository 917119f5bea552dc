//! The driver: one task per connection that owns the transport and feeds the
//! sans-IO [`Session`](crate::session::Session) with bytes, time and
//! transport events. Each poll runs, in order: transport actions → reads →
//! events → writes → the one timer, and caps its work before yielding.
//! The shared lock is held around the connection's calls only, never across
//! a transport read or write: a user command on another thread (a request's
//! publish right after its answer woke it) then does not wait out a syscall.

use std::collections::VecDeque;
use std::future::Future;
use std::io::IoSlice;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Arc, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};

use super::shared::{Answered, HIGH_WATER, Inner, Shared};
use crate::core::conn::{Action, CallbackAuth, ReconnectToServer, ServerChoice, State};
use crate::core::error::Error;
use crate::core::time::Instant;
use crate::runtime::{BoxFuture, Runtime};
use crate::transport::{self, TlsOptions, Transport};

/// Largest single write handed to the transport (one WebSocket frame).
pub(super) const MAX_WRITE: usize = 256 * 1024;
/// Reads processed per poll before yielding to other tasks.
const MAX_READS_PER_POLL: usize = 16;
/// Read buffer capacity kept available for the next read, by default.
pub(crate) const READ_CHUNK: usize = 64 * 1024;
/// The least room a read gets, whatever the options say.
const MIN_READ_CHUNK: usize = 64;

/// How the driver opens and reads its transports.
#[derive(Clone, Debug)]
pub(crate) struct LinkOptions {
    pub tls: TlsOptions,
    pub connect_timeout: Duration,
    /// The room each read gets: the read buffer starts with it and gets it
    /// again when less than a quarter is left (at least [`MIN_READ_CHUNK`]).
    pub read_chunk: usize,
    /// The address the TCP socket is bound to before connecting.
    #[cfg(not(target_arch = "wasm32"))]
    pub local_address: Option<std::net::SocketAddr>,
}

impl LinkOptions {
    async fn open(self, addr: crate::core::addr::ServerAddr) -> Result<Transport, Error> {
        #[cfg(not(target_arch = "wasm32"))]
        return Transport::connect_from(&addr, &self.tls, self.local_address, self.connect_timeout).await;
        #[cfg(target_arch = "wasm32")]
        Transport::connect(&addr, &self.tls, self.connect_timeout).await
    }

    fn read_chunk(&self) -> usize {
        self.read_chunk.max(MIN_READ_CHUNK)
    }
}

enum Link {
    Idle,
    /// A transport being opened, or (`tls_upgrade`) wrapped in TLS.
    Opening {
        future: BoxFuture<Result<Transport, Error>>,
        tls_upgrade: bool,
    },
    Open(Transport),
    /// Writing the rest of the output, then closing.
    Closing(Transport),
    /// Closing without writing (the transport failed).
    Dropping(Transport),
}

/// The async auth callback: the server's nonce to the credentials for CONNECT.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type AsyncAuth = Arc<dyn Fn(Vec<u8>) -> BoxFuture<Result<CallbackAuth, Error>> + Send + Sync>;
#[cfg(target_arch = "wasm32")]
pub(crate) type AsyncAuth = Arc<dyn Fn(Vec<u8>) -> BoxFuture<Result<CallbackAuth, Error>>>;

/// The reconnect-to-server callback: what the core asks to a pick. It is
/// called holding the connection's lock: the program's code goes in the future.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type ChooseServer = Arc<dyn Fn(ServerChoice) -> BoxFuture<Choice> + Send + Sync>;
#[cfg(target_arch = "wasm32")]
pub(crate) type ChooseServer = Arc<dyn Fn(ServerChoice) -> BoxFuture<Choice>>;
/// A reconnect-to-server callback's answer.
pub(crate) type Choice = Result<Option<ReconnectToServer>, Error>;

/// The connection's async callbacks.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub(crate) auth: Option<AsyncAuth>,
    pub(crate) choose_server: Option<ChooseServer>,
}

pub(crate) struct Driver<R: Runtime> {
    shared: Arc<Shared>,
    link_options: LinkOptions,
    read_chunk: usize,
    /// Answer `Action::Authenticate` and `Action::ChooseServer`.
    callbacks: Callbacks,
    authenticating: Option<BoxFuture<Result<CallbackAuth, Error>>>,
    choosing: Option<BoxFuture<Choice>>,
    link: Link,
    read_buf: BytesMut,
    /// The bytes `read_buf` must hold for the message under way (0: none).
    awaited: usize,
    timer: Option<(Instant, BoxFuture<()>)>,
    /// Answers taken from the connection's state, sent outside the lock.
    answered: Vec<Answered>,
    _runtime: PhantomData<fn() -> R>,
}

impl<R: Runtime> Driver<R> {
    pub fn new(shared: Arc<Shared>, link_options: LinkOptions, callbacks: Callbacks) -> Self {
        let read_chunk = link_options.read_chunk();
        Driver {
            shared,
            link_options,
            read_chunk,
            callbacks,
            authenticating: None,
            choosing: None,
            link: Link::Idle,
            read_buf: BytesMut::with_capacity(read_chunk),
            awaited: 0,
            timer: None,
            answered: Vec::new(),
            _runtime: PhantomData,
        }
    }

    fn start_actions(&mut self, inner: &mut Inner) {
        while let Some(action) = inner.session.poll_action() {
            match action {
                Action::Connect { addr } => {
                    self.read_buf.clear();
                    self.awaited = 0;
                    self.link =
                        Link::Opening { future: Box::pin(self.link_options.clone().open(addr)), tls_upgrade: false };
                }
                Action::UpgradeTls { addr } => match std::mem::replace(&mut self.link, Link::Idle) {
                    Link::Open(transport) => {
                        let tls = self.link_options.tls.clone();
                        self.link = Link::Opening {
                            future: Box::pin(async move { transport.upgrade_tls(&addr, &tls).await }),
                            tls_upgrade: true,
                        };
                    }
                    other => self.link = other,
                },
                Action::Close => match std::mem::replace(&mut self.link, Link::Idle) {
                    Link::Open(t) => self.link = Link::Closing(t),
                    // A transport still being opened or upgraded is abandoned.
                    Link::Idle | Link::Opening { .. } => inner.session.handle_transport_closed(R::now(), None),
                    closing @ (Link::Closing(_) | Link::Dropping(_)) => self.link = closing,
                },
                Action::Authenticate { nonce } => match &self.callbacks.auth {
                    Some(auth) => self.authenticating = Some(auth(nonce)),
                    None => inner.session.handle_auth(R::now(), Err(Error::Credentials("no auth callback".into()))),
                },
                Action::ChooseServer(choice) => match &self.callbacks.choose_server {
                    Some(choose) => self.choosing = Some(choose(*choice)),
                    None => inner.session.handle_server_choice(R::now(), Ok(None)),
                },
            }
        }
    }

    /// Polls the callbacks' answers; returns whether one came.
    fn poll_callbacks(&mut self, cx: &mut Context<'_>, shared: &Shared, now: Instant) -> bool {
        let mut came = false;
        if let Some(Poll::Ready(answer)) = self.authenticating.as_mut().map(|future| future.as_mut().poll(cx)) {
            self.authenticating = None;
            shared.lock().session.handle_auth(now, answer);
            came = true;
        }
        if let Some(Poll::Ready(choice)) = self.choosing.as_mut().map(|future| future.as_mut().poll(cx)) {
            self.choosing = None;
            shared.lock().session.handle_server_choice(now, choice);
            came = true;
        }
        came
    }

    /// Polls the transport once; returns whether progress was made.
    fn poll_link(&mut self, cx: &mut Context<'_>, shared: &Shared, now: Instant) -> bool {
        match &mut self.link {
            Link::Idle => false,
            Link::Opening { future, tls_upgrade } => match future.as_mut().poll(cx) {
                Poll::Pending => false,
                Poll::Ready(Ok(transport)) => {
                    let upgraded = *tls_upgrade;
                    let mut inner = shared.lock();
                    #[cfg(target_arch = "wasm32")]
                    {
                        inner.host = Some(transport.host_sink());
                    }
                    self.link = Link::Open(transport);
                    if upgraded {
                        inner.session.handle_tls_ready(now);
                    } else {
                        inner.session.handle_transport_open(now);
                    }
                    true
                }
                Poll::Ready(Err(error)) => {
                    self.link = Link::Idle;
                    shared.lock().session.handle_transport_closed(now, Some(error));
                    true
                }
            },
            Link::Open(_) => self.poll_open(cx, shared, now),
            Link::Closing(transport) => {
                // Closed after a write that failed too: nothing more can go.
                if poll_write_all(transport, cx, shared).is_pending() {
                    return false;
                }
                if transport.poll_close(cx).is_pending() {
                    return false;
                }
                self.link = Link::Idle;
                shared.lock().session.handle_transport_closed(now, None);
                true
            }
            Link::Dropping(transport) => {
                if transport.poll_close(cx).is_pending() {
                    return false;
                }
                self.link = Link::Idle;
                true
            }
        }
    }

    fn poll_open(&mut self, cx: &mut Context<'_>, shared: &Shared, now: Instant) -> bool {
        let Link::Open(transport) = &mut self.link else { return false };
        let mut progress = false;
        let mut failure: Option<Option<Error>> = None;
        // No reading while the answers to what was read (PONGs, acks) and
        // what was published wait over the high water mark: a peer that
        // sends and never reads (a PING flood) then waits in its socket
        // instead of growing the output here without bound.
        let mut paused = shared.lock().session.transmit_bytes() >= HIGH_WATER;
        for _ in 0..MAX_READS_PER_POLL {
            if paused {
                break;
            }
            let room = self.read_buf.capacity() - self.read_buf.len();
            // The rest of a message body under way, exactly: a large one
            // (an object's chunk) is copied at most once, its first bytes,
            // and keeps only itself alive while the user holds it.
            let missing = self.awaited.saturating_sub(self.read_buf.len());
            if missing > room {
                self.read_buf.reserve(missing);
            } else if missing == 0 && room < self.read_chunk / 4 {
                self.read_buf.reserve(self.read_chunk);
            }
            match transport.poll_read(cx, &mut self.read_buf) {
                Poll::Pending => {
                    if transport.take_partial_input() {
                        shared.lock().session.handle_partial_input();
                    }
                    break;
                }
                Poll::Ready(Ok(0)) => {
                    failure = Some(None);
                    break;
                }
                Poll::Ready(Ok(_)) => {
                    progress = true;
                    let mut inner = shared.lock();
                    inner.session.handle_input(now, &mut self.read_buf);
                    self.awaited = inner.session.awaited_input();
                    inner.dispatch_events(now);
                    paused = inner.session.transmit_bytes() >= HIGH_WATER;
                    send_answers(inner, &mut self.answered);
                }
                Poll::Ready(Err(e)) => {
                    failure = Some(Some(transport::io_error(e)));
                    break;
                }
            }
        }
        if failure.is_none() {
            match poll_write_all(transport, cx, shared) {
                Poll::Ready(Err(e)) => failure = Some(Some(transport::io_error(e))),
                // Written out: reading, if it paused, goes on (nothing else
                // would wake it: no read was polled).
                Poll::Ready(Ok(())) => progress |= paused,
                Poll::Pending => {}
            }
        }
        if let Some(error) = failure {
            if let Link::Open(t) = std::mem::replace(&mut self.link, Link::Idle) {
                self.link = Link::Dropping(t);
            }
            shared.lock().session.handle_transport_closed(now, error);
            return true;
        }
        progress
    }

    /// Fires the soonest deadline once it is due. The armed sleep is kept
    /// while the deadline only moves later (the pull consumer's heartbeat
    /// deadline moves on every message): when it fires early the deadline is
    /// checked again and a new sleep armed, so a busy connection re-arms
    /// about once per deadline instead of once per poll.
    fn poll_timer(&mut self, cx: &mut Context<'_>, shared: &Shared, mut now: Instant) -> bool {
        let Some(deadline) = shared.lock().session.poll_deadline().map(|d| d.at) else {
            self.timer = None;
            return false;
        };
        loop {
            if deadline <= now {
                self.timer = None;
                let mut inner = shared.lock();
                inner.session.handle_timeout(now);
                inner.hurry |= inner.session.take_pulled();
                return true;
            }
            match &mut self.timer {
                Some((at, _)) if *at <= deadline => {}
                _ => self.timer = Some((deadline, R::sleep(deadline.saturating_duration_since(now)))),
            }
            let (_, sleep) = self.timer.as_mut().expect("timer was just set");
            if sleep.as_mut().poll(cx).is_pending() {
                return false;
            }
            // Fired: for this deadline, or early for one that moved later.
            self.timer = None;
            now = R::now();
        }
    }
}

/// Lets go of the lock, then sends the answers the events left.
fn send_answers(mut inner: MutexGuard<'_, Inner>, answered: &mut Vec<Answered>) {
    std::mem::swap(&mut inner.answered, answered);
    drop(inner);
    for (answer, id, result) in answered.drain(..) {
        answer.send(id, result);
    }
}

/// Pieces taken from the connection and not yet fully written, oldest
/// first: written together (one `writev` on a socket), so a large payload
/// the connection hands out as it is costs no write of its own. What the
/// transport does not take goes back to the connection: bytes that wait are
/// all there, where a synchronous publish can hand them to the host in order.
#[derive(Default)]
struct Writing {
    pieces: VecDeque<Bytes>,
    len: usize,
}

/// Pieces written at once, at most.
const MAX_PIECES: usize = 32;

impl Writing {
    fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Takes pieces from the connection, up to [`MAX_WRITE`] bytes in all.
    fn refill(&mut self, conn: &mut crate::core::conn::Connection) {
        while self.pieces.len() < MAX_PIECES && self.len < MAX_WRITE {
            let Some(piece) = conn.poll_transmit(MAX_WRITE - self.len) else { break };
            self.len += piece.len();
            self.pieces.push_back(piece);
        }
    }

    /// `n` bytes were written.
    fn advance(&mut self, mut n: usize) {
        self.len -= n;
        while n > 0 {
            let Some(front) = self.pieces.front_mut() else { return };
            if n < front.len() {
                front.advance(n);
                return;
            }
            n -= front.len();
            self.pieces.pop_front();
        }
    }
}

/// Writes what the connection has to send, in pieces, until it has nothing
/// more; then flushes (and hurries what the transport holds back, when
/// asked to). Pieces the transport does not take now go back.
fn poll_write_all(transport: &mut Transport, cx: &mut Context<'_>, shared: &Shared) -> Poll<std::io::Result<()>> {
    let mut writing = Writing::default();
    loop {
        if writing.is_empty() {
            let mut inner = shared.lock();
            writing.refill(&mut inner.session);
            if writing.is_empty() {
                #[cfg(target_arch = "wasm32")]
                inner.look_at_host();
                let hurry = std::mem::take(&mut inner.hurry);
                drop(inner);
                if hurry {
                    transport.hurry()?;
                }
                return transport.poll_flush(cx);
            }
        }
        let mut slices = [IoSlice::new(&[]); MAX_PIECES];
        for (slice, piece) in slices.iter_mut().zip(&writing.pieces) {
            *slice = IoSlice::new(piece);
        }
        match transport.poll_write_vectored(cx, &slices[..writing.pieces.len()]) {
            Poll::Pending => {
                shared.lock().session.untransmit(writing.pieces.drain(..));
                return Poll::Pending;
            }
            Poll::Ready(Ok(0)) => {
                return Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::WriteZero,
                    "transport accepted no bytes",
                )));
            }
            Poll::Ready(Ok(n)) => writing.advance(n),
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
        }
    }
}

impl<R: Runtime> Future for Driver<R> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let shared = this.shared.clone();
        shared.lock().wake.register(cx.waker());
        let mut budget = 64;
        loop {
            this.start_actions(&mut shared.lock());
            // One clock reading per round: a JS clock call is not free.
            let now = R::now();
            let mut progress = this.poll_link(cx, &shared, now);
            progress |= this.poll_callbacks(cx, &shared, now);
            progress |= this.poll_timer(cx, &shared, now);
            let mut inner = shared.lock();
            inner.dispatch_events(now);
            if !inner.answered.is_empty() {
                send_answers(inner, &mut this.answered);
                inner = shared.lock();
            }
            let finished = inner.session.state() == State::Closed && matches!(this.link, Link::Idle);
            let callbacks = std::mem::take(&mut inner.callback_queue);
            if !callbacks.is_empty() {
                let callback = inner.callback.clone();
                drop(inner);
                if let Some(callback) = callback {
                    for event in callbacks {
                        callback(event);
                    }
                }
                inner = shared.lock();
            }
            if finished {
                inner.wake.end_poll();
                return Poll::Ready(());
            }
            // Work that came during this round (it woke nobody) gets another.
            if !progress && !inner.wake.take_rerun() {
                inner.wake.end_poll();
                inner.writes_held = matches!(&this.link, Link::Open(t) if t.holds_writes());
                return Poll::Pending;
            }
            budget -= 1;
            if budget == 0 {
                inner.wake.end_poll();
                inner.writes_held = false;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
        }
    }
}
