//! Getting an object: its meta looked up by name (links followed), its
//! chunks read and checked by the core's read procedure
//! (`core::object::read`): by batched direct gets where the stream allows
//! them ([`super::direct`]), pumped over the context, else fed from an
//! ordered push consumer (flow
//! control answered as the reader takes them, heartbeats in the
//! connection's task, a lost consumer replaced after the last chunk
//! read), and its size and
//! SHA-256 checked before the last chunk is handed out: a corrupt object
//! ends in [`Error::DigestMismatch`] or [`Error::SizeMismatch`], never in
//! a clean end of stream. Nor does a get wait forever for chunks that are
//! gone: purged before it started or under it (another client replaced or
//! deleted the object) it ends in `SizeMismatch`, its bucket lost in the
//! server's stream-not-found.

use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;

use super::direct;
use super::error::{GetError, GetErrorKind};
use super::info::ObjectInfo;
use super::names::chunk_subject;
use super::put::{Progress, ProgressFn};
use super::store::ObjectStore;
use crate::core::error::{Error, KindError};
use crate::core::message::Message;
use crate::core::object::read::ObjectRead;
use crate::core::procedure::{Procedure, Reply, Yield};
use crate::driver::{BoxFuture, DefaultRuntime, Runtime};
use crate::jetstream::ack::MessageMetadata;
use crate::jetstream::api::ConsumerInfo;
use crate::jetstream::ordered::{OrderedConfig, OrderedPushConfig};
use crate::jetstream::procedure::Pump;
use crate::jetstream::reader::{OrderedMessages, OrderedPushConsumer};

/// How long the server keeps a get's consumer once nobody listens.
const INACTIVE_THRESHOLD: Duration = Duration::from_secs(30);
/// How long a get waits for a chunk before it asks whether one will come.
const STALL_CHECK: Duration = Duration::from_secs(5);

/// An object being read, as async-nats's `Object`: a `Stream` of its
/// chunks (and, natively, a tokio `AsyncRead`). The stream ends cleanly only
/// after the bytes matched the meta's size and digest.
pub struct Object {
    /// The object's info (its meta), as the get found it.
    pub info: ObjectInfo,
    revision: u64,
    /// The core's read of the chunks, and where they come from.
    source: Source,
    progress: Option<ProgressFn>,
    /// Bytes of a chunk an `AsyncRead` caller has not taken yet.
    #[cfg(not(target_arch = "wasm32"))]
    leftover: Bytes,
}

impl std::fmt::Debug for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Object").field("info", &self.info).field("received", &self.received()).finish()
    }
}

impl ObjectStore {
    /// Object `name`, following a link to another object (in this bucket
    /// or another) by the core's lookup; `NotFound` for a missing or
    /// deleted object.
    pub async fn get<T: AsRef<str>>(&self, name: T) -> Result<Object, GetError> {
        let (found, bucket, direct) = self.follow(name.as_ref()).await?;
        match bucket == self.name {
            true => self.read(found.info, found.revision).await,
            false => {
                let store = ObjectStore::from_flags(self.context.clone(), &bucket, direct, false);
                store.read(found.info, found.revision).await
            }
        }
    }

    /// Starts reading the chunks of the object `info` (its meta at `revision`) describes.
    async fn read(&self, info: ObjectInfo, revision: u64) -> Result<Object, GetError> {
        let source = match info.size {
            0 => Source::Pushed(Box::new(ObjectRead::fed(&info)?), None),
            _ if direct::available(&self.context, self.direct) => {
                let read = ObjectRead::direct(&info, &self.name, self.context.api_prefix(), self.context.timeout())?;
                Source::Direct(Box::new(Pump::new(self.context.clone(), read)))
            }
            _ => {
                let mut read = Box::new(ObjectRead::fed(&info)?);
                let subject = chunk_subject(&self.name, &info.nuid);
                let ordered = OrderedConfig {
                    filter_subjects: vec![subject],
                    inactive_threshold: INACTIVE_THRESHOLD,
                    ..OrderedConfig::default()
                };
                let config = OrderedPushConfig { ordered, ..OrderedPushConfig::default() };
                let consumer = self.context.ordered_push_consumer(self.stream(), config).await;
                let consumer = consumer.map_err(|e| KindError::new(GetErrorKind::ConsumerCreate, e))?;
                // A bucket lost (a memory one in a restart) takes the chunks with it.
                consumer.end_without_stream();
                // Chunks are stored before their meta: none left means they
                // were purged, and no chunk would ever come to say so. The
                // read then ends at once in the size check.
                match consumer.pending_at_creation() {
                    0 => {
                        read.handle_reply(DefaultRuntime::now(), Reply::BatchEnd);
                        Source::Pushed(read, None)
                    }
                    _ => {
                        let messages = consumer.consume();
                        let messages = messages.map_err(|e| KindError::new(GetErrorKind::ConsumerCreate, e))?;
                        let chunks = Chunks { messages, consumer, last: None, stall: Stall::Idle };
                        Source::Pushed(read, Some(Box::new(chunks)))
                    }
                }
            }
        };
        Ok(Object {
            info,
            revision,
            source,
            progress: None,
            #[cfg(not(target_arch = "wasm32"))]
            leftover: Bytes::new(),
        })
    }
}

impl Object {
    /// The object's info (its meta).
    pub fn info(&self) -> &ObjectInfo {
        &self.info
    }

    /// The stream sequence of the object's meta (nats.js's `revision`).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Calls `progress` after every chunk with the bytes received so far
    /// out of the object's size.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Bytes received (and hashed) so far.
    pub fn received(&self) -> u64 {
        match &self.source {
            Source::Direct(pump) => pump.procedure().received(),
            Source::Pushed(read, _) => read.received(),
        }
    }

    /// The next chunk; the last one only once the object checked out.
    pub(crate) fn poll_chunk(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<Bytes, Error>>> {
        let chunk = match &mut self.source {
            Source::Direct(pump) => ready!(pump.poll_item(cx)),
            Source::Pushed(read, chunks) => ready!(poll_pushed(read, chunks, cx)),
        };
        if let Some(Ok(_)) = &chunk {
            let done = self.received();
            if let Some(progress) = &mut self.progress {
                progress(Progress { done, total: Some(self.info.size as u64) });
            }
        }
        Poll::Ready(chunk)
    }
}

/// The next chunk of an object an ordered consumer pushes, fed to the
/// core's `read` (which checks it).
fn poll_pushed(
    read: &mut ObjectRead,
    chunks: &mut Option<Box<Chunks>>,
    cx: &mut TaskContext<'_>,
) -> Poll<Option<Result<Bytes, Error>>> {
    loop {
        match read.poll_item(DefaultRuntime::now()) {
            Yield::Item(chunk) => return Poll::Ready(Some(Ok(chunk))),
            Yield::Failed(e) => {
                if let Some(chunks) = chunks {
                    chunks.messages.stop();
                }
                return Poll::Ready(Some(Err(e)));
            }
            Yield::Done => {
                if let Some(chunks) = chunks {
                    chunks.messages.stop();
                }
                return Poll::Ready(None);
            }
            Yield::Wait => {}
        }
        let Some(pushed) = chunks else { return Poll::Pending };
        let reply = match ready!(pushed.poll_chunk(cx)) {
            Some(Ok((payload, pending))) => Reply::Message { sequence: 0, payload, pending },
            Some(Err(e)) => Reply::BatchFailed(e),
            None => Reply::BatchEnd,
        };
        read.handle_reply(DefaultRuntime::now(), reply);
    }
}

/// Where an object's chunks come from: batched direct gets the core's
/// read asks for, or an ordered consumer (`None`: no chunk to wait for).
enum Source {
    Direct(Box<Pump<ObjectRead>>),
    Pushed(Box<ObjectRead>, Option<Box<Chunks>>),
}

/// The chunks of an object as they come, and the consumer that sends them.
struct Chunks {
    messages: OrderedMessages,
    consumer: OrderedPushConsumer,
    /// The consumer and consumer sequence of the last chunk received.
    last: Option<(String, u64)>,
    stall: Stall,
}

/// Whether chunks that stopped coming will come: after [`STALL_CHECK`]
/// without one, the consumer's info says if the server has more to send.
/// Nothing else would tell a reader that a replace or a delete purged the
/// rest of the chunks under it.
enum Stall {
    Idle,
    Waiting(BoxFuture<()>),
    Asking(BoxFuture<Result<ConsumerInfo, Error>>),
}

impl Chunks {
    /// The next chunk and the chunks the consumer holds after it.
    fn poll_chunk(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<(Bytes, u64), Error>>> {
        let message = match ready!(self.poll_next(cx)) {
            Some(Ok(message)) => message,
            Some(Err(e)) => return Poll::Ready(Some(Err(e))),
            None => return Poll::Ready(None),
        };
        let meta = MessageMetadata::parse(message.reply.as_deref().unwrap_or_default())?;
        self.last = Some((meta.consumer.clone(), meta.consumer_sequence));
        Poll::Ready(Some(Ok((message.payload, meta.pending))))
    }

    /// The next chunk; `None` also when the server has no more to send,
    /// however many the object has.
    fn poll_next(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<Message, Error>>> {
        if let Poll::Ready(item) = self.messages.poll_raw(cx) {
            self.stall = Stall::Idle;
            return Poll::Ready(item.map(|r| r.map(|m| m.message)));
        }
        ready!(self.poll_ran_dry(cx));
        // What the server sent before its answer is queued by now.
        match self.messages.poll_raw(cx) {
            Poll::Ready(item) => Poll::Ready(item.map(|r| r.map(|m| m.message))),
            Poll::Pending => Poll::Ready(None),
        }
    }

    /// Called while no chunk is waiting: ready once the server says it
    /// delivered all it has.
    fn poll_ran_dry(&mut self, cx: &mut TaskContext<'_>) -> Poll<()> {
        loop {
            match &mut self.stall {
                Stall::Idle => self.stall = Stall::Waiting(DefaultRuntime::sleep(STALL_CHECK)),
                Stall::Waiting(sleep) => {
                    ready!(sleep.as_mut().poll(cx));
                    let consumer = self.consumer.clone();
                    self.stall = Stall::Asking(Box::pin(async move { consumer.info_core().await }));
                }
                Stall::Asking(asked) => {
                    let info = ready!(asked.as_mut().poll(cx));
                    self.stall = Stall::Idle;
                    // A consumer being replaced may not answer: ask again later.
                    if info.is_ok_and(|info| ran_dry(&info, self.last.as_ref())) {
                        return Poll::Ready(());
                    }
                }
            }
        }
    }
}

/// Whether a consumer with `info` has nothing more to send and sent
/// nothing that was not received, `last` the consumer and consumer
/// sequence of the last chunk received (a replaced consumer's count for
/// nothing). Its delivered stream sequence cannot say: it moves past
/// purged messages.
fn ran_dry(info: &ConsumerInfo, last: Option<&(String, u64)>) -> bool {
    let received = match last {
        Some((consumer, sequence)) if *consumer == info.name => *sequence,
        _ => 0,
    };
    info.num_pending == 0 && info.delivered.consumer_sequence <= received
}

impl Stream for Object {
    type Item = Result<Bytes, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.poll_chunk(cx)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl tokio::io::AsyncRead for Object {
    /// A corrupt object fails with `InvalidData`, its natsjet error inside.
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.leftover.is_empty() {
            match ready!(self.poll_chunk(cx)) {
                None => return Poll::Ready(Ok(())),
                Some(Ok(chunk)) => self.leftover = chunk,
                Some(Err(e)) => {
                    let kind = match e {
                        Error::DigestMismatch { .. } | Error::SizeMismatch { .. } => std::io::ErrorKind::InvalidData,
                        Error::Timeout => std::io::ErrorKind::TimedOut,
                        _ => std::io::ErrorKind::Other,
                    };
                    return Poll::Ready(Err(std::io::Error::new(kind, e)));
                }
            }
        }
        let n = buf.remaining().min(self.leftover.len());
        let taken = self.leftover.split_to(n);
        buf.put_slice(&taken);
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jetstream::api::SequenceInfo;

    fn info(name: &str, num_pending: u64, consumer_seq: u64) -> ConsumerInfo {
        // The stream sequence moves past purged chunks: never looked at.
        let delivered = SequenceInfo { consumer_sequence: consumer_seq, stream_sequence: 999, last_active: None };
        ConsumerInfo { name: name.into(), num_pending, delivered, ..ConsumerInfo::default() }
    }

    #[test]
    fn a_consumer_ran_dry_when_it_has_nothing_left_and_everything_it_sent_arrived() {
        let last = ("C_1".to_string(), 16);
        assert!(ran_dry(&info("C_1", 0, 16), Some(&last)));
        assert!(!ran_dry(&info("C_1", 3, 16), Some(&last)), "more to send");
        assert!(!ran_dry(&info("C_1", 0, 17), Some(&last)), "one on its way");
        // A replacement counts from its own start.
        assert!(ran_dry(&info("C_2", 0, 0), Some(&last)));
        assert!(!ran_dry(&info("C_2", 0, 1), Some(&last)));
        assert!(ran_dry(&info("C_1", 0, 0), None), "nothing sent, nothing to send");
        assert!(!ran_dry(&info("C_1", 5, 0), None));
    }
}
