//! The user-facing client, shaped like async-nats: [`connect`],
//! [`ConnectOptions`], [`Client`], [`Subscriber`], [`Request`] and the
//! error kinds of each call.
//!
//! A `Client` is a cheap handle; every clone talks to the same driver task.
//! Commands lock the shared sans-IO connection, encode straight into its
//! outgoing buffer and wake the driver; nothing hops through a channel.

mod auth;
mod error;
mod event;
mod inbox;
mod no_mux;
mod options;
mod request;
mod request_many;
mod response;
mod subscriber;

use std::fmt;
use std::future::{Future, poll_fn};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use futures_channel::oneshot;

use crate::core::conn::{self, State, Statistics};
use crate::core::error::{Error, KindError, SortCause};
use crate::core::header::HeaderMap;
use crate::core::message::Message;
use crate::core::proto::ServerInfo;
use crate::driver::shared::{Answer, Inner, Shared};
use crate::driver::task::Driver;
use crate::driver::{DefaultRuntime, MaybeSend, Runtime};
use crate::runtime::queue::Queue;

pub use crate::core::conn::ConnectionEvent;
pub use auth::{Auth, AuthError};
pub use error::{
    ConnectError, ConnectErrorKind, FlushError, FlushErrorKind, PublishError, PublishErrorKind, RequestError,
    RequestErrorKind, ServerPoolError, ServerPoolErrorKind, SetServerPoolError, SetServerPoolErrorKind, SubscribeError,
    SubscribeErrorKind,
};
pub use event::{ClientError, Event, ServerError};
pub use inbox::create_inbox;
pub use options::{ConnectOptions, IntoServerAddrs};
pub use request::Request;
pub use request_many::{RequestMany, Responses};
pub use response::ResponseFuture;
pub use subscriber::Subscriber;

/// Connects to `servers` with default options.
pub async fn connect(servers: impl IntoServerAddrs) -> Result<Client, ConnectError> {
    ConnectOptions::new().connect(servers).await
}

/// Connects to `servers` with `options`: async-nats's spelling of
/// [`ConnectOptions::connect`].
pub async fn connect_with_options(
    servers: impl IntoServerAddrs,
    options: ConnectOptions,
) -> Result<Client, ConnectError> {
    options.connect(servers).await
}

pub(super) struct ClientRef {
    pub(super) shared: Arc<Shared>,
    pub(super) now: fn() -> crate::core::time::Instant,
    pub(super) request_timeout: Option<Duration>,
    pub(super) subscription_capacity: usize,
    pub(super) subscription_capacity_bytes: usize,
    /// [`ConnectOptions::skip_subject_validation`], for checks made before
    /// a publish reaches the connection.
    pub(super) skip_subject_validation: bool,
}

impl Drop for ClientRef {
    /// The last handle is gone: write what was accepted, then close.
    fn drop(&mut self) {
        let now = (self.now)();
        self.shared.lock().command(|s| s.close(now));
    }
}

/// A connection to NATS. Clones share it; the connection closes (after
/// writing everything already accepted) when the last clone and the last
/// [`Subscriber`] are dropped.
#[derive(Clone)]
pub struct Client {
    pub(super) inner: Arc<ClientRef>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("state", &self.connection_state()).finish()
    }
}

impl Client {
    /// Publishes `payload` to `subject`.
    pub async fn publish(&self, subject: impl AsRef<str>, payload: Bytes) -> Result<(), PublishError> {
        self.publish_sorted(subject.as_ref(), None, None, &payload).await
    }

    /// Publishes `payload` with `headers` to `subject`, as [`Client::publish`].
    pub async fn publish_with_headers(
        &self,
        subject: impl AsRef<str>,
        headers: HeaderMap,
        payload: Bytes,
    ) -> Result<(), PublishError> {
        self.publish_sorted(subject.as_ref(), None, Some(&headers), &payload).await
    }

    /// Publishes `payload` to `subject` with a reply subject for the answer, as [`Client::publish`].
    pub async fn publish_with_reply(
        &self,
        subject: impl AsRef<str>,
        reply: impl AsRef<str>,
        payload: Bytes,
    ) -> Result<(), PublishError> {
        self.publish_sorted(subject.as_ref(), Some(reply.as_ref()), None, &payload).await
    }

    /// Publishes `payload` with `headers` and a reply subject, as [`Client::publish`].
    pub async fn publish_with_reply_and_headers(
        &self,
        subject: impl AsRef<str>,
        reply: impl AsRef<str>,
        headers: HeaderMap,
        payload: Bytes,
    ) -> Result<(), PublishError> {
        self.publish_sorted(subject.as_ref(), Some(reply.as_ref()), Some(&headers), &payload).await
    }

    async fn publish_sorted(
        &self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), PublishError> {
        self.publish_message(subject, reply, headers, payload).await.map_err(PublishErrorKind::error)
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
        self.publish_when_room(|inner| inner.write(|s| s.publish(subject, reply, headers, payload))).await
    }

    /// [`publish_message`](Self::publish_message) of a payload that is
    /// written out as it is (a large one never copied: an object's chunk).
    pub(crate) async fn publish_shared(
        &self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &Bytes,
    ) -> Result<(), Error> {
        self.publish_when_room(|inner| inner.write(|s| s.publish_shared(subject, reply, headers, payload))).await
    }

    /// Runs `publish` once the outgoing buffer is below its high water mark.
    async fn publish_when_room(&self, mut publish: impl FnMut(&mut Inner) -> Result<(), Error>) -> Result<(), Error> {
        poll_fn(|cx| {
            let mut inner = self.inner.shared.lock();
            if inner.wait_for_room(cx.waker()) {
                return Poll::Pending;
            }
            Poll::Ready(publish(&mut inner))
        })
        .await
    }

    /// Publishes without waiting for buffer space, for callers that cannot
    /// wait (JavaScript's synchronous `publish`): the outgoing buffer may
    /// grow past its high water mark until the driver writes it out, up to
    /// [`ConnectOptions::outgoing_buffer_size`]; past that the message is
    /// refused with [`Error::OutgoingBufferFull`] and everything accepted
    /// before still goes out. In wasm, past 8 MiB what waits goes to the
    /// host's socket buffer at once, outside wasm memory, and counts
    /// toward that bound there. The buffer for publishes made while
    /// reconnecting has its own bound.
    pub fn publish_nowait(
        &self,
        subject: &str,
        reply: Option<&str>,
        headers: Option<&HeaderMap>,
        payload: &[u8],
    ) -> Result<(), Error> {
        let mut inner = self.inner.shared.lock();
        inner.make_room_now();
        inner.write(|s| s.publish(subject, reply, headers, payload))
    }

    /// Publishes every `(subject, payload)` under one lock once the outgoing
    /// buffer has room: a checkpoint's thousands of acks in one go.
    pub(crate) async fn publish_group<'a>(
        &self,
        messages: impl Iterator<Item = (&'a str, &'a [u8])> + Clone,
    ) -> Result<(), Error> {
        self.publish_when_room(|inner| {
            messages.clone().try_for_each(|(s, p)| inner.write(|session| session.publish(s, None, None, p)))
        })
        .await
    }

    /// Subscribes to `subject` (wildcards `*` and `>` allowed); the [`Subscriber`] is a stream of its messages, bounded by the subscription capacity.
    pub async fn subscribe(&self, subject: impl AsRef<str>) -> Result<Subscriber, SubscribeError> {
        self.subscribe_inner(subject.as_ref(), None).map_err(SubscribeErrorKind::error)
    }

    /// Subscribes as a member of `queue`: each message goes to one member.
    pub async fn queue_subscribe(&self, subject: impl AsRef<str>, queue: String) -> Result<Subscriber, SubscribeError> {
        let invalid_queue = |e| SubscribeError::new(SubscribeErrorKind::InvalidQueueName, e);
        crate::core::subject::validate_queue(&queue).map_err(invalid_queue)?;
        self.subscribe_inner(subject.as_ref(), Some(&queue)).map_err(SubscribeErrorKind::error)
    }

    /// Checks a subject to publish to as the connection will, before
    /// waiting for anything (JetStream's ack window).
    pub(crate) fn check_publish_subject(&self, subject: &str) -> Result<(), Error> {
        crate::core::subject::validate_publish_subject(subject, self.inner.skip_subject_validation)
    }

    /// A queue for a subscriber's messages, within the subscription bounds.
    pub(crate) fn subscription_queue<T>(&self, weigh: fn(&T) -> usize) -> Arc<Queue<T>> {
        Queue::with_bytes(self.inner.subscription_capacity, self.inner.subscription_capacity_bytes, weigh)
    }

    pub(crate) fn subscribe_inner(&self, subject: &str, queue: Option<&str>) -> Result<Subscriber, Error> {
        let mut inner = self.inner.shared.lock();
        let messages = self.subscription_queue(|m: &Message| m.length);
        let sid = inner.subscribe(subject, queue, messages.clone())?;
        let timed_out = Arc::default();
        Ok(Subscriber { sid, messages, client: self.clone(), unsubscribed: false, timed_out })
    }

    /// Sends a request and waits for the first answer, up to the default
    /// request timeout.
    pub async fn request(&self, subject: impl AsRef<str>, payload: Bytes) -> Result<Message, RequestError> {
        self.request_sorted(subject.as_ref(), None, &payload, self.inner.request_timeout).await
    }

    /// Sends a request with `headers` and waits for the first answer, as [`Client::request`].
    pub async fn request_with_headers(
        &self,
        subject: impl AsRef<str>,
        headers: HeaderMap,
        payload: Bytes,
    ) -> Result<Message, RequestError> {
        self.request_sorted(subject.as_ref(), Some(&headers), &payload, self.inner.request_timeout).await
    }

    /// A request built with [`Request`]: its payload, headers, timeout
    /// (the default one unless set) and inbox (the shared muxed one unless set).
    pub async fn send_request(&self, subject: impl AsRef<str>, request: Request) -> Result<Message, RequestError> {
        let Request { payload, headers, timeout, inbox } = request;
        let timeout = timeout.unwrap_or(self.inner.request_timeout);
        let payload = payload.unwrap_or_default();
        let answer = match inbox {
            Some(inbox) => {
                match self.send_request_on_inbox(subject.as_ref(), &inbox, headers.as_ref(), &payload, timeout) {
                    Ok(answer) => answer.await,
                    Err(e) => Err(e),
                }
            }
            None => self.request_message(subject.as_ref(), headers.as_ref(), &payload, timeout).await,
        };
        answer.map_err(RequestErrorKind::error)
    }

    async fn request_sorted(
        &self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        timeout: Option<Duration>,
    ) -> Result<Message, RequestError> {
        self.request_message(subject, headers, payload, timeout).await.map_err(RequestErrorKind::error)
    }

    /// A request with its own timeout (`None` waits forever).
    pub async fn request_message(
        &self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        timeout: Option<Duration>,
    ) -> Result<Message, Error> {
        self.start_request(subject, headers, payload, timeout)?.await
    }

    /// Publishes a request now and returns a future of its answer, so many
    /// requests can be in flight on the one muxed inbox (JetStream publish and
    /// confirmed acks pipeline this way). Dropping the future forgets the request.
    pub fn start_request(
        &self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        timeout: Option<Duration>,
    ) -> Result<ResponseFuture, Error> {
        self.send_request_with(timeout, |inner, answer| inner.request(|s| s.request(subject, headers, payload), answer))
    }

    /// [`start_request`](Self::start_request) of a payload that is written
    /// out as it is (a large one never copied: an object's chunk).
    pub(crate) fn start_request_shared(
        &self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &Bytes,
        timeout: Option<Duration>,
    ) -> Result<ResponseFuture, Error> {
        self.send_request_with(timeout, |inner, answer| {
            inner.request(|s| s.request_shared(subject, headers, payload), answer)
        })
    }

    fn send_request_with(
        &self,
        timeout: Option<Duration>,
        request: impl FnOnce(&mut Inner, Answer) -> Result<conn::RequestId, Error>,
    ) -> Result<ResponseFuture, Error> {
        let (tx, rx) = oneshot::channel();
        let id = request(&mut self.inner.shared.lock(), Answer::One(tx))?;
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
        let requests = requests.into_iter();
        let mut ids = Vec::with_capacity(requests.size_hint().0);
        let mut inner = self.inner.shared.lock();
        let mut failure = None;
        for (subject, payload) in requests {
            match inner.request(|s| s.request(subject, None, payload), Answer::Group(answers.clone())) {
                Ok(id) => ids.push(id),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        (ids, failure)
    }

    /// Forgets requests whose answers are no longer awaited.
    pub(crate) fn forget_requests(&self, ids: impl IntoIterator<Item = conn::RequestId>) {
        let mut inner = self.inner.shared.lock();
        for id in ids {
            inner.forget_request(id);
        }
    }

    /// Returns once the server has processed everything sent before this call
    /// (a PING/PONG round trip, not just an emptied socket buffer).
    pub async fn flush(&self) -> Result<(), FlushError> {
        self.flush_pong().await.map_err(FlushErrorKind::error)
    }

    pub(crate) async fn flush_pong(&self) -> Result<(), Error> {
        let flushed = self.inner.shared.lock().flush()?;
        flushed.await.unwrap_or(Err(Error::Closed))
    }

    /// Unsubscribes everything, lets subscribers finish what they already
    /// received, flushes, then closes. The UNSUBs are queued (and
    /// [`is_draining`](Self::is_draining) is true) as soon as this is called.
    pub fn drain(&self) -> impl Future<Output = Result<(), Error>> + 'static {
        let client = self.clone();
        let started = self.inner.shared.lock().drain();
        async move {
            let sids = started?;
            // The PONG comes after the server processed the UNSUBs, so every
            // message it sent for them has arrived by then. Without it (the
            // connection dropped) the drain still ends closed, and says so.
            let flushed = client.flush_pong().await;
            {
                let mut inner = client.inner.shared.lock();
                for sid in sids {
                    inner.end_drained(sid);
                }
            }
            client.close().await?;
            flushed
        }
    }

    /// Writes what was accepted, closes, and waits until the connection is closed.
    pub async fn close(&self) -> Result<(), Error> {
        let closed = self.inner.shared.lock().close_waited((self.inner.now)());
        if let Some(closed) = closed {
            let _ = closed.await;
        }
        Ok(())
    }

    /// Whether [`drain`](Self::drain) was called (it stays so once closed).
    pub fn is_draining(&self) -> bool {
        self.inner.shared.lock().session().is_draining()
    }

    /// The time of a PING/PONG round trip to the server, as a [`flush`](Self::flush)
    /// (nats.js `rtt()`). Fails with [`Error::Disconnected`] while not
    /// connected, as nats.js, instead of waiting for the next server.
    pub async fn rtt(&self) -> Result<Duration, Error> {
        match self.connection_state() {
            State::Connected => {}
            State::Closed => return Err(Error::Closed),
            State::Connecting | State::Disconnected => return Err(Error::Disconnected),
        }
        let start = self.now();
        self.flush_pong().await?;
        Ok(self.now().saturating_duration_since(start))
    }

    /// Drops the server connection and reconnects (async-nats
    /// `force_reconnect`, nats.js `reconnect()`): see
    /// [`Connection::force_reconnect`](crate::conn::Connection::force_reconnect).
    /// Returns once the old connection is being closed; [`ConnectionEvent::Reconnected`]
    /// tells when the new one is up. Refused while draining (as nats.js),
    /// where it would fail the drain's flush.
    pub async fn force_reconnect(&self) -> Result<(), Error> {
        let now = self.now();
        self.inner.shared.lock().command(|s| s.force_reconnect(now))
    }

    /// The server of the current connection (or attempt, or the last one
    /// while reconnecting); `None` once closed with no server left.
    pub fn current_server(&self) -> Option<crate::ServerAddr> {
        self.inner.shared.lock().session().current_server().cloned()
    }

    /// Makes `servers` the pool that reconnects choose from; the connection
    /// up now stays.
    pub async fn set_server_pool(&self, servers: impl IntoServerAddrs) -> Result<(), SetServerPoolError> {
        let servers =
            servers.into_server_addrs().map_err(|e| KindError::new(SetServerPoolErrorKind::InvalidAddress, e))?;
        let mut inner = self.inner.shared.lock();
        if inner.session().state() == State::Closed {
            return Err(KindError::new(SetServerPoolErrorKind::Send, Error::Closed));
        }
        let empty = servers.is_empty();
        inner.command(|s| s.set_server_pool(servers)).map_err(|e| {
            let kind = if empty { SetServerPoolErrorKind::EmptyPool } else { SetServerPoolErrorKind::MixedSchemes };
            KindError::new(kind, e)
        })
    }

    /// The servers reconnects choose from, the next to be tried first.
    pub async fn server_pool(&self) -> Result<Vec<crate::Server>, ServerPoolError> {
        let inner = self.inner.shared.lock();
        match inner.session().state() {
            State::Closed => Err(KindError::new(ServerPoolErrorKind::Send, Error::Closed)),
            _ => Ok(inner.session().server_pool()),
        }
    }

    /// The INFO of the server this client is (or was last) connected to.
    pub fn server_info(&self) -> ServerInfo {
        self.inner.shared.lock().session().server_info().cloned().unwrap_or_default()
    }

    /// The INFO of the server, `None` before the first one arrived.
    pub fn try_server_info(&self) -> Option<ServerInfo> {
        self.inner.shared.lock().session().server_info().cloned()
    }

    /// The largest message the server takes (its default before the first INFO).
    pub fn max_payload(&self) -> usize {
        self.inner.shared.lock().session().max_payload()
    }

    /// Whether the server's version is at least `major.minor.patch`.
    pub fn is_server_compatible(&self, major: i64, minor: i64, patch: i64) -> bool {
        self.inner.shared.lock().session().server_info().is_some_and(|info| info.version_at_least(major, minor, patch))
    }

    /// The default timeout of requests (`ConnectOptions::request_timeout`).
    pub fn timeout(&self) -> Option<Duration> {
        self.inner.request_timeout
    }

    /// The JetStream API level in [`server_info`](Self::server_info), without
    /// copying the rest of the INFO (0 before the first one).
    pub(crate) fn api_level(&self) -> u32 {
        self.inner.shared.lock().session().server_info().map_or(0, |info| info.api_lvl)
    }

    /// A snapshot of the connection's counters (messages and bytes in and out, reconnects).
    pub fn statistics(&self) -> Statistics {
        self.inner.shared.lock().session().statistics()
    }

    /// Whether the client is connecting, connected, disconnected or closed.
    pub fn connection_state(&self) -> State {
        self.inner.shared.lock().session().state()
    }

    /// The state shared with the driver (for JetStream readers).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.inner.shared
    }

    /// The driver's clock.
    pub(crate) fn now(&self) -> crate::core::time::Instant {
        (self.inner.now)()
    }

    /// A unique subject under the client's inbox prefix.
    pub fn new_inbox(&self) -> String {
        self.inner.shared.lock().command(|s| s.new_inbox())
    }

    /// A new unique token of 22 base62 characters, the size of a NUID (an
    /// object's chunk subject, a batch id).
    pub(crate) fn new_nuid(&self) -> String {
        self.new_inbox().rsplit('.').next().unwrap_or_default().to_string()
    }
}

// Keep the driver future spawnable on every runtime.
const _: fn() = || {
    fn assert_spawnable<F: Future<Output = ()> + MaybeSend + 'static>() {}
    assert_spawnable::<Driver<DefaultRuntime>>();
};

// At the end, so that the wasm's panic locations in this file stay as they were.
#[cfg(feature = "service")]
pub(crate) use inbox::unique_token;
