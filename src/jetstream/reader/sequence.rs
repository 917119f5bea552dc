//! async-nats's `Consumer::sequence`: one batch after another, each a pull
//! of the same size that waits up to a minute, for programs that handle a
//! batch at a time.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;

use super::{Batch, Puller};
use crate::core::error::SortCause;
use crate::jetstream::api::ConsumerInfo;
use crate::jetstream::consumer::{BatchError, Consumer, MessagesError, MessagesErrorKind, PullKind};
use crate::jetstream::context::Context as JsContext;
use crate::jetstream::pull::FetchOptions;

/// How long each batch's pull waits for its messages, as async-nats's.
const BATCH_EXPIRES: Duration = Duration::from_secs(60);

impl<T: PullKind> Consumer<T> {
    /// Batches of up to `batch` messages, one pulled when the last is taken:
    /// a stream that never ends by itself.
    pub fn sequence(&self, batch: usize) -> Result<Sequence, BatchError> {
        let options = FetchOptions { max_messages: batch as u64, expires: BATCH_EXPIRES, ..FetchOptions::default() };
        Ok(Sequence { context: self.context.clone(), info: self.info.clone(), options })
    }
}

/// What [`Consumer::sequence`] returns: a `Stream` of [`Batch`]es.
pub struct Sequence {
    context: JsContext,
    info: ConsumerInfo,
    options: FetchOptions,
}

impl Stream for Sequence {
    type Item = Result<Batch, MessagesError>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let puller = Puller { context: &self.context, info: &self.info };
        Poll::Ready(Some(puller.fetch_with(self.options.clone()).map_err(MessagesErrorKind::error)))
    }
}
