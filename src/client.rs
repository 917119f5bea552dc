//! The user-facing client, shaped like async-nats: [`connect`],
//! [`ConnectOptions`], [`Client`] and [`Subscriber`].
//!
//! A `Client` is a cheap handle; every clone talks to the same driver task.
//! Commands lock the shared sans-IO connection, encode straight into its
//! outgoing buffer and wake the driver; nothing hops through a channel.

use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_channel::oneshot;
use futures_core::Stream;

use crate::addr::ServerAddr;
use crate::conn::{self, Auth, Sid, State, Statistics};
use crate::driver::queue::Queue;
use crate::driver::shared::{Answer, EventCallback, HIGH_WATER, Inner, Shared};
use crate::driver::task::Driver;
use crate::driver::{DefaultRuntime, MaybeSend, Runtime};
use crate::error::Error;
use crate::header::HeaderMap;
use crate::message::Message;
use crate::proto::ServerInfo;
use crate::transport::TlsOptions;

pub use crate::driver::shared::ClientEvent as Event;

/// Connects to `servers` with default options.
pub async fn connect(servers: impl IntoServerAddrs) -> Result<Client, Error> {
    ConnectOptions::new().connect(servers).await
}

/// Anything that names one or more servers: `"nats://a:4222,nats://b:4222"`,
/// a `Vec` or slice of URLs, or [`ServerAddr`]s.
pub trait IntoServerAddrs {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error>;
}

impl IntoServerAddrs for &str {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.split(',').filter(|s| !s.trim().is_empty()).map(ServerAddr::parse).collect()
    }
}

impl IntoServerAddrs for String {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.as_str().into_server_addrs()
    }
}

impl IntoServerAddrs for &String {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.as_str().into_server_addrs()
    }
}

impl IntoServerAddrs for ServerAddr {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        Ok(vec![self])
    }
}

impl IntoServerAddrs for Vec<ServerAddr> {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        Ok(self)
    }
}

impl<S: AsRef<str>> IntoServerAddrs for &[S] {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.iter().map(|s| ServerAddr::parse(s.as_ref())).collect()
    }
}

impl<S: AsRef<str>> IntoServerAddrs for Vec<S> {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.as_slice().into_server_addrs()
    }
}

/// Options for [`ConnectOptions::connect`]. Secrets never appear in `Debug`.
#[derive(Clone)]
pub struct ConnectOptions {
    config: conn::Config,
    tls: TlsOptions,
    callback: Option<EventCallback>,
    request_timeout: Option<Duration>,
    subscription_capacity: usize,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            config: conn::Config::default(),
            tls: TlsOptions::default(),
            callback: None,
            request_timeout: Some(Duration::from_secs(10)),
            subscription_capacity: 65_536,
        }
    }
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("config", &self.config)
            .field("tls", &self.tls)
            .field("request_timeout", &self.request_timeout)
            .field("subscription_capacity", &self.subscription_capacity)
            .finish_non_exhaustive()
    }
}

impl ConnectOptions {
    pub fn new() -> Self {
        Self::default()
    }

    /// Client name, shown by the server's monitoring.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = Some(name.into());
        self
    }

    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.config.auth.token = Some(token.into());
        self
    }

    pub fn user_and_password(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.config.auth.user = Some(user.into());
        self.config.auth.password = Some(password.into());
        self
    }

    /// Authenticates with an nkey seed (`SU…`), signing the server's nonce.
    pub fn nkey(mut self, seed: impl Into<String>) -> Self {
        self.config.auth.nkey_seed = Some(seed.into());
        self
    }

    /// Authenticates with the contents of a `.creds` file (user JWT + seed).
    pub fn credentials(mut self, contents: &str) -> Result<Self, Error> {
        let creds = Auth::from_credentials(contents)?;
        self.config.auth.jwt = creds.jwt;
        self.config.auth.nkey_seed = creds.nkey_seed;
        Ok(self)
    }

    /// Reads a `.creds` file (native only; in wasm pass the contents to
    /// [`ConnectOptions::credentials`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn credentials_file(self, path: impl AsRef<std::path::Path>) -> Result<Self, Error> {
        let contents = tokio::fs::read_to_string(path.as_ref())
            .await
            .map_err(|e| Error::Credentials(format!("cannot read {}: {e}", path.as_ref().display())))?;
        self.credentials(&contents)
    }

    /// TLS settings: roots, client certificate, or a whole rustls config.
    pub fn tls(mut self, tls: TlsOptions) -> Self {
        self.tls = tls;
        self
    }

    /// Requires TLS even on `nats://` URLs.
    pub fn require_tls(mut self, required: bool) -> Self {
        self.config.tls_required = required;
        self
    }

    pub fn ping_interval(mut self, interval: Duration) -> Self {
        self.config.ping_interval = interval;
        self
    }

    /// Unanswered keep-alive PINGs after which the connection counts as stale.
    pub fn max_pings_outstanding(mut self, max: u32) -> Self {
        self.config.max_pings_outstanding = max;
        self
    }

    /// Time allowed from opening a transport to the end of the handshake.
    pub fn connection_timeout(mut self, timeout: Duration) -> Self {
        self.config.connect_timeout = timeout;
        self
    }

    /// Reconnect attempts per server before it is dropped; `None` = forever.
    pub fn max_reconnects(mut self, max: impl Into<Option<usize>>) -> Self {
        self.config.max_reconnects = max.into();
        self
    }

    /// Base wait between attempts on one server, plus random jitter up to `jitter`.
    pub fn reconnect_delay(mut self, delay: Duration, jitter: Duration) -> Self {
        self.config.reconnect_delay = delay;
        self.config.reconnect_jitter = jitter;
        self
    }

    /// Keep retrying when the first connection fails (`connect` then returns at once).
    pub fn retry_on_initial_connect(mut self) -> Self {
        self.config.retry_on_initial_connect = true;
        self
    }

    /// Bytes of publishes kept while reconnecting; past that, publish fails.
    pub fn reconnect_buffer_size(mut self, bytes: usize) -> Self {
        self.config.reconnect_buffer_size = bytes;
        self
    }

    /// Try servers in the given order instead of shuffling them.
    pub fn dont_randomize(mut self) -> Self {
        self.config.randomize = false;
        self
    }

    /// Ignore servers announced by the cluster.
    pub fn ignore_discovered_servers(mut self) -> Self {
        self.config.discover_servers = false;
        self
    }

    /// Don't receive messages this connection publishes.
    pub fn no_echo(mut self) -> Self {
        self.config.echo = false;
        self
    }

    pub fn custom_inbox_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.config.inbox_prefix = prefix.into();
        self
    }

    /// Default timeout of [`Client::request`]; `None` waits forever.
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Messages a subscriber may have waiting before new ones are dropped
    /// and a [`Event::SlowConsumer`] is reported.
    pub fn subscription_capacity(mut self, capacity: usize) -> Self {
        self.subscription_capacity = capacity;
        self
    }

    /// Called (from the driver task, keep it short) on every connection event.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn event_callback(mut self, callback: impl Fn(Event) + Send + Sync + 'static) -> Self {
        self.callback = Some(Arc::new(callback));
        self
    }

    /// Called (from the driver task, keep it short) on every connection event.
    #[cfg(target_arch = "wasm32")]
    pub fn event_callback(mut self, callback: impl Fn(Event) + 'static) -> Self {
        self.callback = Some(Arc::new(callback));
        self
    }

    /// Connects; returns once the first handshake succeeded (or at once with
    /// `retry_on_initial_connect`).
    pub async fn connect(self, servers: impl IntoServerAddrs) -> Result<Client, Error> {
        self.connect_with::<DefaultRuntime>(servers).await
    }

    // In wasm the shared state holds JS callbacks (not Send); there is one thread.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    pub(crate) async fn connect_with<R: Runtime>(mut self, servers: impl IntoServerAddrs) -> Result<Client, Error> {
        self.config.servers = servers.into_server_addrs()?;
        let retry = self.config.retry_on_initial_connect;
        let connect_timeout = self.config.connect_timeout;
        let seed = getrandom::u64().map_err(|e| Error::InvalidArgument(format!("no entropy source: {e}")))?;
        let conn = conn::Connection::new(self.config, R::now(), seed)?;
        let (shared, first_connect) = Shared::new(conn, self.callback);
        R::spawn(Driver::<R>::new(shared.clone(), self.tls, connect_timeout));
        let client = Client {
            inner: Arc::new(ClientRef {
                shared,
                now: R::now,
                request_timeout: self.request_timeout,
                subscription_capacity: self.subscription_capacity,
            }),
        };
        if !retry {
            first_connect.await.unwrap_or(Err(Error::Closed))?;
        }
        Ok(client)
    }
}

struct ClientRef {
    shared: Arc<Shared>,
    now: fn() -> crate::time::Instant,
    request_timeout: Option<Duration>,
    subscription_capacity: usize,
}

impl Drop for ClientRef {
    /// The last handle is gone: write what was accepted, then close.
    fn drop(&mut self) {
        let mut inner = self.shared.lock();
        inner.conn.close((self.now)());
        inner.wake_driver();
    }
}

/// A connection to NATS. Clones share it; the connection closes (after
/// writing everything already accepted) when the last clone and the last
/// [`Subscriber`] are dropped.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientRef>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("state", &self.connection_state()).finish()
    }
}

impl Client {
    /// Publishes `payload` to `subject`.
    pub async fn publish(&self, subject: impl AsRef<str>, payload: impl AsRef<[u8]>) -> Result<(), Error> {
        self.publish_message(subject.as_ref(), None, None, payload.as_ref()).await
    }

    pub async fn publish_with_headers(
        &self,
        subject: impl AsRef<str>,
        headers: HeaderMap,
        payload: impl AsRef<[u8]>,
    ) -> Result<(), Error> {
        self.publish_message(subject.as_ref(), None, Some(&headers), payload.as_ref()).await
    }

    pub async fn publish_with_reply(
        &self,
        subject: impl AsRef<str>,
        reply: impl AsRef<str>,
        payload: impl AsRef<[u8]>,
    ) -> Result<(), Error> {
        self.publish_message(subject.as_ref(), Some(reply.as_ref()), None, payload.as_ref()).await
    }

    pub async fn publish_with_reply_and_headers(
        &self,
        subject: impl AsRef<str>,
        reply: impl AsRef<str>,
        headers: HeaderMap,
        payload: impl AsRef<[u8]>,
    ) -> Result<(), Error> {
        self.publish_message(subject.as_ref(), Some(reply.as_ref()), Some(&headers), payload.as_ref()).await
    }

    /// Publishes, first waiting while the outgoing buffer is over its high
    /// water mark (backpressure instead of unbounded memory).
    pub async fn publish_message(
        &self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), Error> {
        poll_fn(|cx| {
            let mut inner = self.inner.shared.lock();
            if inner.conn.state() == State::Connected && inner.conn.pending_bytes() >= HIGH_WATER {
                inner.space_waiters.push(cx.waker().clone());
                inner.wake_driver();
                return Poll::Pending;
            }
            Poll::Ready(Self::publish_locked(&mut inner, subject, reply, headers, payload))
        })
        .await
    }

    /// Publishes without waiting for buffer space, for callers that cannot
    /// wait (JavaScript's synchronous `publish`): the outgoing buffer may
    /// grow past its high water mark until the driver writes it out. The
    /// buffer for publishes made while reconnecting stays bounded.
    pub fn publish_nowait(
        &self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), Error> {
        Self::publish_locked(&mut self.inner.shared.lock(), subject, reply, headers, payload)
    }

    fn publish_locked(
        inner: &mut Inner,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), Error> {
        let result = inner.conn.publish(subject, reply, headers, payload);
        if result.is_ok() {
            inner.wake_driver();
        }
        result
    }

    pub async fn subscribe(&self, subject: impl AsRef<str>) -> Result<Subscriber, Error> {
        self.subscribe_inner(subject.as_ref(), None)
    }

    /// Subscribes as a member of `queue`: each message goes to one member.
    pub async fn queue_subscribe(&self, subject: impl AsRef<str>, queue: impl AsRef<str>) -> Result<Subscriber, Error> {
        self.subscribe_inner(subject.as_ref(), Some(queue.as_ref()))
    }

    fn subscribe_inner(&self, subject: &str, queue: Option<&str>) -> Result<Subscriber, Error> {
        let mut inner = self.inner.shared.lock();
        let sid = inner.conn.subscribe(subject, queue)?;
        let messages = Queue::new(self.inner.subscription_capacity);
        inner.subs.insert(sid, crate::driver::shared::Subscription { queue: messages.clone(), dropped: 0 });
        inner.wake_driver();
        Ok(Subscriber { sid, messages, client: self.clone(), unsubscribed: false })
    }

    /// Sends a request and waits for the first answer, up to the default
    /// request timeout.
    pub async fn request(&self, subject: impl AsRef<str>, payload: impl AsRef<[u8]>) -> Result<Message, Error> {
        self.request_message(subject.as_ref(), None, payload.as_ref(), self.inner.request_timeout).await
    }

    pub async fn request_with_headers(
        &self,
        subject: impl AsRef<str>,
        headers: HeaderMap,
        payload: impl AsRef<[u8]>,
    ) -> Result<Message, Error> {
        self.request_message(subject.as_ref(), Some(&headers), payload.as_ref(), self.inner.request_timeout).await
    }

    /// A request with its own timeout (`None` waits forever).
    pub async fn request_message(
        &self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        timeout: Option<Duration>,
    ) -> Result<Message, Error> {
        self.send_request(subject, headers, payload, timeout)?.await
    }

    /// Publishes a request now and returns a future of its answer, so many
    /// requests can be in flight on the one muxed inbox (JetStream publish and
    /// confirmed acks pipeline this way). Dropping the future forgets the request.
    pub fn send_request(
        &self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        timeout: Option<Duration>,
    ) -> Result<ResponseFuture, Error> {
        let (tx, rx) = oneshot::channel();
        let mut inner = self.inner.shared.lock();
        let id = inner.conn.request(subject, headers, payload)?;
        inner.requests.insert(id, Answer::One(tx));
        inner.wake_driver();
        Ok(ResponseFuture {
            answer: rx,
            id,
            client: self.clone(),
            deadline: timeout.map(DefaultRuntime::sleep),
            done: false,
        })
    }

    /// Publishes many requests whose answers all land in `answers` (a
    /// confirmed ack batch), returning their ids in order. Stops at the first
    /// request that cannot be sent and returns the ids sent so far with it.
    pub(crate) fn send_request_group<'a>(
        &self,
        requests: impl IntoIterator<Item = (&'a str, &'a [u8])>,
        answers: &Arc<Queue<(conn::RequestId, Result<Message, Error>)>>,
    ) -> (Vec<conn::RequestId>, Option<Error>) {
        let mut ids = Vec::new();
        let mut inner = self.inner.shared.lock();
        let mut failure = None;
        for (subject, payload) in requests {
            match inner.conn.request(subject, None, payload) {
                Ok(id) => {
                    inner.requests.insert(id, Answer::Group(answers.clone()));
                    ids.push(id);
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        inner.wake_driver();
        (ids, failure)
    }

    /// Forgets requests whose answers are no longer awaited.
    pub(crate) fn forget_requests(&self, ids: impl IntoIterator<Item = conn::RequestId>) {
        let mut inner = self.inner.shared.lock();
        for id in ids {
            inner.conn.cancel_request(id);
            inner.requests.remove(&id);
        }
    }

    /// Returns once the server has processed everything sent before this call
    /// (a PING/PONG round trip, not just an emptied socket buffer).
    pub async fn flush(&self) -> Result<(), Error> {
        let (tx, rx) = oneshot::channel();
        {
            let mut inner = self.inner.shared.lock();
            let id = inner.conn.flush()?;
            inner.flushes.insert(id, tx);
            inner.wake_driver();
        }
        rx.await.unwrap_or(Err(Error::Closed))
    }

    /// Unsubscribes everything, lets subscribers finish what they already
    /// received, flushes, then closes.
    pub async fn drain(&self) -> Result<(), Error> {
        {
            let mut inner = self.inner.shared.lock();
            let sids: Vec<Sid> = inner.subs.keys().copied().collect();
            for sid in sids {
                inner.conn.unsubscribe(sid, None)?;
                if let Some(sub) = inner.subs.remove(&sid) {
                    sub.queue.close();
                }
            }
            inner.wake_driver();
        }
        self.flush().await?;
        self.close().await
    }

    /// Writes what was accepted, closes, and waits until the connection is closed.
    pub async fn close(&self) -> Result<(), Error> {
        let (tx, rx) = oneshot::channel();
        {
            let mut inner = self.inner.shared.lock();
            if inner.conn.state() == State::Closed {
                return Ok(());
            }
            inner.closed_waiters.push(tx);
            inner.conn.close((self.inner.now)());
            inner.wake_driver();
        }
        let _ = rx.await;
        Ok(())
    }

    /// The INFO of the server this client is (or was last) connected to.
    pub fn server_info(&self) -> ServerInfo {
        self.inner.shared.lock().conn.server_info().cloned().unwrap_or_default()
    }

    pub fn statistics(&self) -> Statistics {
        self.inner.shared.lock().conn.statistics()
    }

    pub fn connection_state(&self) -> State {
        self.inner.shared.lock().conn.state()
    }

    /// The state shared with the driver (for JetStream readers).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.inner.shared
    }

    /// The driver's clock.
    pub(crate) fn now(&self) -> crate::time::Instant {
        (self.inner.now)()
    }

    /// A unique subject under the client's inbox prefix.
    pub fn new_inbox(&self) -> String {
        self.inner.shared.lock().conn.new_inbox()
    }
}

/// The answer to a request sent with [`Client::send_request`].
#[must_use = "a request is forgotten when its future is dropped"]
pub struct ResponseFuture {
    answer: oneshot::Receiver<Result<Message, Error>>,
    id: conn::RequestId,
    client: Client,
    deadline: Option<crate::driver::BoxFuture<()>>,
    done: bool,
}

impl ResponseFuture {
    fn forget(&mut self) {
        self.done = true;
        let mut inner = self.client.inner.shared.lock();
        inner.conn.cancel_request(self.id);
        inner.requests.remove(&self.id);
    }
}

impl Future for ResponseFuture {
    type Output = Result<Message, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(answer) = Pin::new(&mut self.answer).poll(cx) {
            self.done = true;
            return Poll::Ready(answer.unwrap_or(Err(Error::Closed)));
        }
        if let Some(deadline) = self.deadline.as_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                self.forget();
                return Poll::Ready(Err(Error::Timeout));
            }
        }
        Poll::Pending
    }
}

impl Drop for ResponseFuture {
    fn drop(&mut self) {
        if !self.done {
            self.forget();
        }
    }
}

/// Messages of one subscription, as a `Stream`. Dropping it unsubscribes.
pub struct Subscriber {
    sid: Sid,
    messages: Arc<Queue<Message>>,
    client: Client,
    unsubscribed: bool,
}

impl fmt::Debug for Subscriber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscriber").field("sid", &self.sid.0).finish()
    }
}

impl Subscriber {
    /// Stops the subscription; messages already received can still be read.
    pub async fn unsubscribe(&mut self) -> Result<(), Error> {
        self.unsubscribed = true;
        let mut inner = self.client.inner.shared.lock();
        if let Some(sub) = inner.subs.remove(&self.sid) {
            sub.queue.close();
            inner.conn.unsubscribe(self.sid, None)?;
            inner.wake_driver();
        }
        Ok(())
    }

    /// Ends the subscription after `max` messages in total (counting those
    /// already delivered).
    pub async fn unsubscribe_after(&mut self, max: u64) -> Result<(), Error> {
        let mut inner = self.client.inner.shared.lock();
        inner.conn.unsubscribe(self.sid, Some(max))?;
        inner.wake_driver();
        Ok(())
    }

    /// The subscription id used on the wire.
    pub fn sid(&self) -> u64 {
        self.sid.0
    }
}

impl Stream for Subscriber {
    type Item = Message;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Message>> {
        self.messages.poll_pop(cx)
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        if self.unsubscribed {
            return;
        }
        let mut inner = self.client.inner.shared.lock();
        if inner.subs.remove(&self.sid).is_some() && inner.conn.state() != State::Closed {
            let _ = inner.conn.unsubscribe(self.sid, None);
            inner.wake_driver();
        }
    }
}

// Keep the driver future spawnable on every runtime.
const _: fn() = || {
    fn assert_spawnable<F: Future<Output = ()> + MaybeSend + 'static>() {}
    assert_spawnable::<Driver<DefaultRuntime>>();
};
