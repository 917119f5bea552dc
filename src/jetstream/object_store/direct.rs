//! An object's chunks read by batched direct gets (ADR-31, server 2.11+,
//! the bucket's stream with `allow_direct`): `{"batch":N,"seq":S,
//! "next_by_subj":<chunk subject>}`, the next batch asked for as soon as
//! one ends while fewer than [`WINDOW`] bytes wait unread. The server sends
//! a batch at once, with no flow control to answer and no consumer to
//! make, keep alive or replace: what keeps a push consumer's get below the
//! wire's speed. Memory stays bounded by the window and one batch.
//!
//! A batch that fails (a server restart, a lost connection) is asked for
//! again from the chunk after the last one received; a stream that is gone
//! ends the read in the server's stream-not-found. Chunks purged before or
//! under the read simply never come: the batch ends short, and the size
//! check says so.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;

use crate::core::object::get::per_batch;
use crate::driver::{BoxFuture, DefaultRuntime, Runtime};
use crate::error::Error;
use crate::jetstream::DirectBatch;
use crate::jetstream::api::{self, ErrorCode};
use crate::jetstream::context::Context;

/// Bytes received and not yet read past which no further batch is asked for.
const WINDOW: usize = 2 << 20;
/// How long a failed batch waits before it is asked for again.
const RETRY_AFTER: Duration = Duration::from_millis(250);
/// Failed batches in a row after which the read ends in the last error.
const RETRIES: u32 = 40;
/// The header of a batch's message with the matching messages after it.
const NUM_PENDING: &str = "Nats-Num-Pending";

/// The chunks of an object, read by batched direct gets.
pub(super) struct DirectChunks {
    context: Context,
    stream: String,
    subject: String,
    /// Chunks a batch asks for.
    per_batch: usize,
    /// The batch being received, and how many chunks it brought so far.
    batch: Option<(DirectBatch, usize)>,
    /// The stream sequence the next batch starts from.
    next: u64,
    /// Chunks received and not read, with the chunks the stream holds after each.
    received: VecDeque<(Bytes, u64)>,
    bytes: usize,
    /// The stream has no more chunks to send.
    exhausted: bool,
    failed: Failed,
    /// Batches failed since a chunk last came.
    tries: u32,
}

/// A batch that failed, and what is done about it.
enum Failed {
    No,
    Waiting {
        sleep: BoxFuture<()>,
        error: Error,
    },
    /// Whether the stream is still there, asked after a failure.
    Asking {
        asked: BoxFuture<Result<Bytes, Error>>,
        error: Error,
    },
}

impl DirectChunks {
    /// Reads the `chunks` chunks (of `size` bytes in all) on `subject` of `stream`.
    pub(super) fn new(context: Context, stream: String, subject: String, size: usize, chunks: usize) -> Self {
        DirectChunks {
            context,
            stream,
            subject,
            per_batch: per_batch(size, chunks),
            batch: None,
            next: 1,
            received: VecDeque::new(),
            bytes: 0,
            exhausted: false,
            failed: Failed::No,
            tries: 0,
        }
    }

    /// The next chunk and the chunks after it; `None` once the stream has
    /// no more, however many the object has.
    pub(super) fn poll_next(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<(Bytes, u64), Error>>> {
        if let Err(e) = self.poll_fill(cx) {
            return Poll::Ready(Some(Err(e)));
        }
        if let Some((chunk, pending)) = self.received.pop_front() {
            self.bytes -= chunk.len();
            // Room in the window again: ask for the next batch now, not at the next read.
            if let Err(e) = self.poll_fill(cx) {
                self.received.push_front((chunk, pending));
                return Poll::Ready(Some(Err(e)));
            }
            return Poll::Ready(Some(Ok((chunk, pending))));
        }
        match self.exhausted {
            true => Poll::Ready(None),
            false => Poll::Pending,
        }
    }

    /// Takes what batches brought and asks for the next while the window
    /// has room; `Err` when a read cannot go on.
    fn poll_fill(&mut self, cx: &mut TaskContext<'_>) -> Result<(), Error> {
        loop {
            if self.poll_failed(cx)?.is_pending() {
                return Ok(());
            }
            match &mut self.batch {
                Some((batch, count)) => match Pin::new(batch).poll_next(cx) {
                    Poll::Pending => return Ok(()),
                    Poll::Ready(Some(Ok(message))) => {
                        *count += 1;
                        let pending = message.headers.get(NUM_PENDING).and_then(|p| p.parse().ok()).unwrap_or(1);
                        self.next = message.sequence + 1;
                        self.bytes += message.payload.len();
                        self.received.push_back((message.payload, pending));
                        self.tries = 0;
                    }
                    Poll::Ready(Some(Err(error))) => {
                        self.batch = None;
                        self.fail(error);
                    }
                    Poll::Ready(None) => {
                        // A batch may end short of what it asked for (the
                        // server caps batches): only the pending count says
                        // the stream holds no more.
                        let last_pending = self.received.back().map_or(1, |r| r.1);
                        self.exhausted = *count == 0 || last_pending == 0;
                        self.batch = None;
                    }
                },
                None if self.exhausted || self.bytes >= WINDOW => return Ok(()),
                None => match self.ask() {
                    Ok(batch) => self.batch = Some((batch, 0)),
                    Err(error) => self.fail(error),
                },
            }
        }
    }

    /// Stops reading: what arrived can still be read, then it ends.
    pub(super) fn stop(&mut self) {
        if let Some((batch, _)) = &mut self.batch {
            batch.stop();
        }
        self.exhausted = true;
    }

    fn ask(&self) -> Result<DirectBatch, Error> {
        let request =
            format!(r#"{{"batch":{},"seq":{},"next_by_subj":"{}"}}"#, self.per_batch, self.next, self.subject);
        self.context.direct_get_batch_from_stream(&self.stream, request.as_bytes())
    }

    /// A batch failed: it is asked for again after a while.
    fn fail(&mut self, error: Error) {
        self.tries += 1;
        self.failed = Failed::Waiting { sleep: DefaultRuntime::sleep(RETRY_AFTER), error };
    }

    /// Ready when no failure holds the next batch back.
    fn poll_failed(&mut self, cx: &mut TaskContext<'_>) -> Result<Poll<()>, Error> {
        loop {
            match std::mem::replace(&mut self.failed, Failed::No) {
                Failed::No => return Ok(Poll::Ready(())),
                Failed::Waiting { mut sleep, error } => {
                    if sleep.as_mut().poll(cx).is_pending() {
                        self.failed = Failed::Waiting { sleep, error };
                        return Ok(Poll::Pending);
                    }
                    let context = self.context.clone();
                    let subject = api::stream_info(context.api_prefix(), &self.stream)?;
                    let asked = Box::pin(async move { context.request_json(&subject, b"").await });
                    self.failed = Failed::Asking { asked, error };
                }
                Failed::Asking { mut asked, error } => {
                    let Poll::Ready(answer) = asked.as_mut().poll(cx) else {
                        self.failed = Failed::Asking { asked, error };
                        return Ok(Poll::Pending);
                    };
                    match answer {
                        Err(Error::JetStream(e)) if e.err_code == ErrorCode::STREAM_NOT_FOUND => {
                            return Err(Error::JetStream(e));
                        }
                        _ if self.tries >= RETRIES => return Err(error),
                        // There: the batch is asked for again.
                        Ok(_) => return Ok(Poll::Ready(())),
                        // Not answering yet: wait again.
                        Err(_) => self.fail(error),
                    }
                }
            }
        }
    }
}

/// Whether `context` can read chunks by batched direct gets from a
/// stream with `allow_direct` (a server of API level 1, 2.11, or later).
pub(crate) fn available(context: &Context, allow_direct: bool) -> bool {
    allow_direct && context.client().api_level() >= 1
}
