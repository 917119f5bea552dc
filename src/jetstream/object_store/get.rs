//! Getting an object: its meta looked up by name (links followed), its
//! chunks read and checked by the core's read procedure
//! (`core::object::read`), pumped over the context: by batched direct gets
//! where the stream allows them ([`super::direct`]), else pushed by an
//! ordered push consumer (flow control answered as the reader takes them,
//! heartbeats in the connection's task, a lost consumer replaced after the
//! last chunk read), and its size and SHA-256 checked before the last
//! chunk is handed out: a corrupt object ends in [`Error::DigestMismatch`]
//! or [`Error::SizeMismatch`], never in a clean end of stream. Nor does a
//! get wait forever for chunks that are gone: purged before it started or
//! under it (another client replaced or deleted the object; the procedure
//! decides when to ask the consumer) it ends in `SizeMismatch`, its bucket
//! lost in the server's stream-not-found.

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
use crate::core::object::read::ObjectRead;
use crate::jetstream::context::Context;
use crate::jetstream::ordered::{OrderedConfig, OrderedPushConfig};
use crate::jetstream::procedure::Pump;
use crate::jetstream::reader::OrderedPushConsumer;

/// How long the server keeps a get's consumer once nobody listens.
const INACTIVE_THRESHOLD: Duration = Duration::from_secs(30);

/// An object being read, as async-nats's `Object`: a `Stream` of its
/// chunks (and, natively, a tokio `AsyncRead`). The stream ends cleanly only
/// after the bytes matched the meta's size and digest.
pub struct Object {
    /// The object's info (its meta), as the get found it.
    pub info: ObjectInfo,
    revision: u64,
    /// The core's read of the chunks, pumped.
    read: Box<Pump<ObjectRead>>,
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
        let context = &self.context;
        let read = match info.size {
            0 => Pump::new(context.clone(), ObjectRead::pushed(&info)?),
            _ if direct::available(context, self.direct) => {
                let read = ObjectRead::direct(&info, &self.name, context.api_prefix(), context.timeout())?;
                Pump::new(context.clone(), read)
            }
            _ => {
                let read = ObjectRead::pushed(&info)?;
                let consumer = chunk_consumer(context.clone(), self.name.clone(), info.nuid.clone()).await;
                let consumer = consumer.map_err(|e| KindError::new(GetErrorKind::ConsumerCreate, e))?;
                Pump::new(context.clone(), read).pushed_by(Box::pin(std::future::ready(Ok(consumer))))
            }
        };
        Ok(Object {
            info,
            revision,
            read: Box::new(read),
            progress: None,
            #[cfg(not(target_arch = "wasm32"))]
            leftover: Bytes::new(),
        })
    }
}

/// The ordered push consumer that pushes the chunks `nuid` of `bucket`
/// to a get that cannot read them by direct gets.
pub(crate) async fn chunk_consumer(
    context: Context,
    bucket: String,
    nuid: String,
) -> Result<OrderedPushConsumer, Error> {
    let ordered = OrderedConfig {
        filter_subjects: vec![chunk_subject(&bucket, &nuid)],
        inactive_threshold: INACTIVE_THRESHOLD,
        ..OrderedConfig::default()
    };
    let config = OrderedPushConfig { ordered, ..OrderedPushConfig::default() };
    let consumer = context.ordered_push_consumer(format!("OBJ_{bucket}"), config).await?;
    // A bucket lost (a memory one in a restart) takes the chunks with it.
    consumer.end_without_stream();
    Ok(consumer)
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
        self.read.procedure().received()
    }

    /// The next chunk; the last one only once the object checked out.
    pub(crate) fn poll_chunk(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<Bytes, Error>>> {
        let chunk = ready!(self.read.poll_item(cx));
        if let Some(Ok(_)) = &chunk {
            let done = self.received();
            if let Some(progress) = &mut self.progress {
                progress(Progress { done, total: Some(self.info.size as u64) });
            }
        }
        Poll::Ready(chunk)
    }
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
