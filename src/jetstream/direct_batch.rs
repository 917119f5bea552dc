//! Batched direct gets (ADR-31, nats-server 2.11+): one `DIRECT.GET`
//! request with a `batch` (or `multi_last`), answered by the stored
//! messages and then an empty `204 EOB` status. Built on a request for many
//! replies, so the driver's clock bounds it even while nobody reads.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures_core::Stream;

use super::api::{ErrorCode, JetStreamError};
use crate::client::Responses;
use crate::core::error::Error;
use crate::core::header::StatusCode;
use crate::core::jetstream::raw_message::StreamMessage;

/// The end of a batch: `204` with this description.
const END_OF_BATCH: StatusCode = StatusCode(204);

/// The messages of a batched direct get, in stream order. Ends after the
/// server's end-of-batch status; a `404` (nothing matched) ends it at once.
/// No end within the JetStream timeout is [`Error::Timeout`]; other
/// statuses are [`Error::JetStream`] with the status code.
#[derive(Debug)]
pub struct DirectBatch {
    replies: Responses,
    done: bool,
}

impl DirectBatch {
    pub(crate) fn new(replies: Responses) -> Self {
        DirectBatch { replies, done: false }
    }

    /// Stops reading: the rest of the batch is dropped.
    pub fn stop(&mut self) {
        self.done = true;
        self.replies.stop();
    }
}

impl Stream for DirectBatch {
    type Item = Result<StreamMessage, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        let item = match ready!(Pin::new(&mut self.replies).poll_next(cx)) {
            Some(Ok(reply)) => match reply.status {
                None => return Poll::Ready(Some(StreamMessage::from_direct_reply(reply))),
                Some(END_OF_BATCH | StatusCode::NOT_FOUND) => None,
                Some(StatusCode(code)) => {
                    let description = reply.description.unwrap_or_default();
                    Some(Err(Error::JetStream(JetStreamError { code, err_code: ErrorCode::default(), description })))
                }
            },
            Some(Err(e)) => Some(Err(e)),
            // The request ran out of time before the end of the batch.
            None => Some(Err(Error::Timeout)),
        };
        self.stop();
        Poll::Ready(item)
    }
}
