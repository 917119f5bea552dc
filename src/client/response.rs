//! [`ResponseFuture`]: the answer to one request on the muxed inbox.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_channel::oneshot;

use crate::core::conn;
use crate::core::error::Error;
use crate::core::message::Message;

use super::Client;

/// The answer to a request sent with [`Client::send_request`].
#[must_use = "a request is forgotten when its future is dropped"]
pub struct ResponseFuture {
    pub(super) answer: oneshot::Receiver<Result<Message, Error>>,
    pub(super) id: conn::RequestId,
    pub(super) client: Client,
    pub(super) deadline: Option<crate::driver::BoxFuture<()>>,
    pub(super) done: bool,
}

impl ResponseFuture {
    fn forget(&mut self) {
        self.done = true;
        self.client.inner.shared.lock().forget_request(self.id);
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
