//! Scatter-gather requests: [`Client::request_many`] and the [`Responses`]
//! stream. The end rules are the sans-IO [`Gather`](crate::request_many::Gather),
//! which the session feeds every reply (of the muxed inbox, or of the
//! request's own subscription with `no_mux`) and its timer, so a request
//! ends on time even while nobody reads.

use std::future::{IntoFuture, Ready, ready};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;

use super::Client;
use crate::core::error::Error;
use crate::core::header::HeaderMap;
use crate::core::message::Message;
use crate::core::request_many::{RequestManyOptions, RequestStrategy};
use crate::core::session::{GatherKey, Route};
use crate::runtime::queue::Queue;

impl Client {
    /// A request answered by many responders (nats.js `requestMany`): the
    /// replies as a stream that ends by the chosen [`RequestStrategy`]
    /// (default: every reply within 1 s).
    ///
    /// ```no_run
    /// # async fn f(client: natsjet::Client) -> Result<(), natsjet::Error> {
    /// use futures_util::StreamExt;
    /// use natsjet::request_many::RequestStrategy;
    /// let mut replies = client.request_many("svc.ping", "").strategy(RequestStrategy::Stall).await?;
    /// while let Some(reply) = replies.next().await {
    ///     println!("{:?}", reply?.payload);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn request_many(&self, subject: impl Into<String>, payload: impl Into<Bytes>) -> RequestMany {
        RequestMany {
            client: self.clone(),
            subject: subject.into(),
            payload: payload.into(),
            headers: None,
            options: RequestManyOptions::default(),
        }
    }

    /// Publishes a request for many replies now; what
    /// [`request_many`](Self::request_many) does when awaited.
    pub fn send_request_many(
        &self,
        subject: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        options: &RequestManyOptions,
    ) -> Result<Responses, Error> {
        let items = Queue::new(self.inner.subscription_capacity);
        let now = self.now();
        let key = self.inner.shared.lock().request_many(now, (subject, headers, payload), options, items.clone())?;
        Ok(Responses { key, items, client: self.clone() })
    }
}

/// Options of a request for many replies; await it to send the request.
#[derive(Debug)]
#[must_use = "a request does nothing until awaited"]
pub struct RequestMany {
    client: Client,
    subject: String,
    payload: Bytes,
    headers: Option<HeaderMap>,
    options: RequestManyOptions,
}

impl RequestMany {
    /// Sets the rule that ends the replies (default [`Timer`](RequestStrategy::Timer): every reply until `max_wait`).
    pub fn strategy(mut self, strategy: RequestStrategy) -> Self {
        self.options.strategy = strategy;
        self
    }

    /// The upper bound of the whole request (default 1 s).
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.options.max_wait = max_wait;
        self
    }

    /// Sets the [`Count`](RequestStrategy::Count) strategy, ending after `n` replies.
    pub fn max_messages(mut self, n: u64) -> Self {
        self.options.strategy = RequestStrategy::Count;
        self.options.max_messages = Some(n);
        self
    }

    /// Sets the [`Stall`](RequestStrategy::Stall) strategy, ending once
    /// `stall` passes after a reply with no other reply.
    pub fn stall(mut self, stall: Duration) -> Self {
        self.options.strategy = RequestStrategy::Stall;
        self.options.stall = Some(stall);
        self
    }

    /// Sends the request with `headers`.
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        self.headers = Some(headers);
        self
    }

    /// Replies come to a subscription of their own, not the shared request
    /// inbox (nats.js `noMux`).
    pub fn no_mux(mut self) -> Self {
        self.options.no_mux = true;
        self
    }

    /// Every option at once, as nats.js takes them.
    pub fn options(mut self, options: RequestManyOptions) -> Self {
        self.options = options;
        self
    }
}

impl IntoFuture for RequestMany {
    type Output = Result<Responses, Error>;
    type IntoFuture = Ready<Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        ready(self.client.send_request_many(&self.subject, self.headers.as_ref(), &self.payload, &self.options))
    }
}

/// The replies to a request for many, as a `Stream` of `Result<Message,
/// Error>`. It ends by its strategy, or with `Err(NoResponders)` /
/// `Err(Closed)` after the replies that came before (a `no_mux` request
/// ends quietly instead, as in nats.js). Dropping it ends the request.
pub struct Responses {
    key: GatherKey,
    items: Arc<Queue<Result<Message, Error>>>,
    client: Client,
}

impl std::fmt::Debug for Responses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Responses").field("key", &self.key).finish()
    }
}

impl Stream for Responses {
    type Item = Result<Message, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.items.poll_pop(cx)
    }
}

impl Responses {
    /// Ends the request now: replies already received can still be read,
    /// then the stream ends.
    pub fn stop(&mut self) {
        self.client.inner.shared.lock().retire(Route::Gather(self.key));
    }
}

impl Drop for Responses {
    fn drop(&mut self) {
        self.stop();
    }
}
