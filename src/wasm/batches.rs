//! A stream of results read a batch at a time: the items ready now, and the
//! error that ended them on the next read, so neither is lost.

use std::task::{Context, Poll, ready};

use futures_core::Stream;
use futures_util::StreamExt;
use futures_util::stream::Fuse;

use crate::core::error::Error;
use crate::wasm::batch::poll_batch;

pub(crate) struct Batches<S> {
    /// Fused: a batch that saw the end is followed by more reads.
    pub(crate) stream: Fuse<S>,
    /// The error met after the last batch's items.
    held: Option<Error>,
}

impl<T, S: Stream<Item = Result<T, Error>> + Unpin> Batches<S> {
    pub(crate) fn new(stream: S) -> Self {
        Batches { stream: stream.fuse(), held: None }
    }

    /// Up to `max` items ready now (at least one), none once the stream
    /// ended, or the error that ended it. `size` gives an item's bytes.
    pub(crate) fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        size: impl Fn(&T) -> usize,
    ) -> Poll<Result<Vec<T>, Error>> {
        if let Some(error) = self.held.take() {
            return Poll::Ready(Err(error));
        }
        let results = ready!(poll_batch(&mut self.stream, cx, max, |r| r.as_ref().ok().map(&size)));
        let mut items = Vec::with_capacity(results.len());
        for result in results {
            match result {
                Ok(item) => items.push(item),
                Err(error) => self.held = Some(error),
            }
        }
        match self.held.take() {
            Some(error) if items.is_empty() => Poll::Ready(Err(error)),
            held => {
                self.held = held;
                Poll::Ready(Ok(items))
            }
        }
    }
}
