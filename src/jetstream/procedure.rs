//! The pump of every core [`Procedure`] over a JetStream [`Context`]: it
//! carries each [`Step`] out (an API request, a batched direct get, an
//! acked publish, a stored message's read),
//! hands back what it brought as a [`Reply`], sleeps to the procedure's
//! deadline, and yields the procedure's items. It knows no procedure's
//! rules; the wasm export of procedures is this pump too.

use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use bytes::Bytes;
use futures_core::Stream;

use crate::core::error::Error;
use crate::core::procedure::{Procedure, Reply, Step, Yield};
use crate::core::time::Instant;
use crate::driver::{BoxFuture, DefaultRuntime, Runtime};
use crate::jetstream::DirectBatch;
use crate::jetstream::context::Context;

/// The header of a batch's message with the matching messages after it.
const NUM_PENDING: &str = "Nats-Num-Pending";

/// A procedure and the steps it has under way.
pub(crate) struct Pump<P> {
    procedure: P,
    context: Context,
    request: Option<BoxFuture<Result<Bytes, Error>>>,
    /// A publish's ack, or a stored message, awaited.
    other: Option<BoxFuture<Reply>>,
    batch: Option<DirectBatch>,
    /// The sleep to the procedure's deadline, and the instant it ends.
    sleep: Option<(Instant, BoxFuture<()>)>,
}

impl<P: Procedure> Pump<P> {
    /// Pumps `procedure` over `context`.
    pub(crate) fn new(context: Context, procedure: P) -> Self {
        Pump { procedure, context, request: None, other: None, batch: None, sleep: None }
    }

    /// The procedure, for what it tells of itself.
    pub(crate) fn procedure(&self) -> &P {
        &self.procedure
    }

    /// The procedure, to feed it what its user read itself.
    #[cfg(any(feature = "wasm-kv", feature = "wasm-object-store"))]
    pub(crate) fn procedure_mut(&mut self) -> &mut P {
        &mut self.procedure
    }

    /// The procedure's next item; `None` once it is over.
    pub(crate) fn poll_item(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<P::Item, Error>>> {
        loop {
            self.carry_out();
            match self.procedure.poll_item(DefaultRuntime::now()) {
                Yield::Item(item) => return Poll::Ready(Some(Ok(item))),
                Yield::Failed(e) => {
                    self.carry_out();
                    return Poll::Ready(Some(Err(e)));
                }
                Yield::Done => {
                    self.carry_out();
                    return Poll::Ready(None);
                }
                Yield::Wait => {}
            }
            // Taking items may have made room for more.
            self.carry_out();
            if self.poll_replies(cx).is_pending() {
                return Poll::Pending;
            }
        }
    }

    /// Starts the steps the procedure asked for.
    fn carry_out(&mut self) {
        while let Some(step) = self.procedure.poll_step() {
            match step {
                Step::Request { subject, payload } => {
                    let context = self.context.clone();
                    self.request = Some(Box::pin(async move { context.request_json(&subject, &payload).await }));
                }
                Step::DirectBatch { stream, request } => {
                    match self.context.direct_get_batch_from_stream(&stream, request.as_bytes()) {
                        Ok(batch) => self.batch = Some(batch),
                        Err(e) => self.procedure.handle_reply(DefaultRuntime::now(), Reply::BatchFailed(e)),
                    }
                }
                Step::Publish { subject, publish } => {
                    let context = self.context.clone();
                    self.other = Some(Box::pin(async move {
                        let acked = async { Ok(context.send_publish(subject, publish).await?.await?.sequence) };
                        Reply::Acked(acked.await)
                    }));
                }
                Step::GetMessage { stream, direct, request } => {
                    let context = self.context.clone();
                    self.other = Some(Box::pin(async move {
                        Reply::Stored(context.stored_message(&stream, direct, &request).await)
                    }));
                }
                Step::StopBatch => {
                    if let Some(mut batch) = self.batch.take() {
                        batch.stop();
                    }
                }
            }
        }
    }

    /// Ready once something came for the procedure (a reply, its deadline).
    fn poll_replies(&mut self, cx: &mut TaskContext<'_>) -> Poll<()> {
        if let Some(batch) = &mut self.batch
            && let Poll::Ready(item) = Pin::new(batch).poll_next(cx)
        {
            let reply = match item {
                Some(Ok(message)) => {
                    let pending = message.headers.get(NUM_PENDING).and_then(|p| p.parse().ok()).unwrap_or(1);
                    Reply::Message { sequence: message.sequence, payload: message.payload, pending }
                }
                Some(Err(e)) => {
                    self.batch = None;
                    Reply::BatchFailed(e)
                }
                None => {
                    self.batch = None;
                    Reply::BatchEnd
                }
            };
            self.procedure.handle_reply(DefaultRuntime::now(), reply);
            return Poll::Ready(());
        }
        if let Some(request) = &mut self.request
            && let Poll::Ready(answer) = request.as_mut().poll(cx)
        {
            self.request = None;
            self.procedure.handle_reply(DefaultRuntime::now(), Reply::Answer(answer));
            return Poll::Ready(());
        }
        if let Some(other) = &mut self.other
            && let Poll::Ready(reply) = other.as_mut().poll(cx)
        {
            self.other = None;
            self.procedure.handle_reply(DefaultRuntime::now(), reply);
            return Poll::Ready(());
        }
        self.poll_deadline(cx)
    }

    /// Ready once the procedure's deadline passed (and it was told).
    fn poll_deadline(&mut self, cx: &mut TaskContext<'_>) -> Poll<()> {
        let Some(deadline) = self.procedure.poll_deadline() else {
            self.sleep = None;
            return Poll::Pending;
        };
        loop {
            let now = DefaultRuntime::now();
            if deadline.at <= now {
                self.sleep = None;
                self.procedure.handle_timeout(now);
                return Poll::Ready(());
            }
            // A sleep ending before the deadline is kept: when it ends, the deadline is looked at again.
            match &mut self.sleep {
                Some((ends, sleep)) if *ends <= deadline.at => {
                    if sleep.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    self.sleep = None;
                }
                _ => {
                    let ends = deadline.at;
                    self.sleep = Some((ends, DefaultRuntime::sleep(ends.saturating_duration_since(now))));
                }
            }
        }
    }
}

impl<P: Procedure + Unpin> Stream for Pump<P> {
    type Item = Result<P::Item, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_item(cx)
    }
}
