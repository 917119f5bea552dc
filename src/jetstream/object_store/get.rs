//! Getting an object: its meta looked up by name (links followed), its
//! chunks read in order through an ordered push consumer (flow control
//! answered as the reader takes them, heartbeats in the connection's task,
//! a lost consumer replaced after the last chunk read), and its size and
//! SHA-256 checked before the last chunk is handed out: a corrupt object
//! ends in [`Error::DigestMismatch`] or [`Error::SizeMismatch`], never in
//! a clean end of stream.

use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;

use super::digest::{self, Digest};
use super::error::{GetError, GetErrorKind, Sort};
use super::info::ObjectInfo;
use super::names::chunk_subject;
use super::put::{Progress, ProgressFn};
use super::store::ObjectStore;
use crate::error::{Error, KindError};
use crate::jetstream::ack::MessageMetadata;
use crate::jetstream::ordered::{OrderedConfig, OrderedPushConfig};
use crate::jetstream::reader::OrderedMessages;

/// How long the server keeps a get's consumer once nobody listens.
const INACTIVE_THRESHOLD: Duration = Duration::from_secs(30);

/// An object being read, as async-nats's `Object`: a `Stream` of its
/// chunks (and, natively, a tokio `AsyncRead`). The stream ends cleanly only
/// after the bytes matched the meta's size and digest.
pub struct Object {
    pub info: ObjectInfo,
    /// `None` for an object without chunks, or whose chunks are gone.
    chunks: Option<OrderedMessages>,
    digest: Digest,
    expected: [u8; 32],
    received: u64,
    done: bool,
    progress: Option<ProgressFn>,
    /// Bytes of a chunk an `AsyncRead` caller has not taken yet.
    #[cfg(not(target_arch = "wasm32"))]
    leftover: Bytes,
}

impl std::fmt::Debug for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Object").field("info", &self.info).field("received", &self.received).finish()
    }
}

impl ObjectStore {
    /// Object `name`, following a link to another object (in this bucket
    /// or another); `NotFound` for a missing or deleted object.
    pub async fn get<T: AsRef<str>>(&self, name: T) -> Result<Object, GetError> {
        let found = self.find(name.as_ref()).await.map_err(GetErrorKind::error)?;
        let info = match found.info.link().cloned() {
            None => found.info,
            Some(link) => {
                let Some(target) = link.name else {
                    let cause =
                        Error::InvalidArgument(format!("{:?} links to bucket {:?}", found.info.name, link.bucket));
                    return Err(KindError::new(GetErrorKind::BucketLink, cause));
                };
                let store = match link.bucket == self.name {
                    true => self.clone(),
                    false => {
                        let other = self.context.get_object_store(&link.bucket).await;
                        other.map_err(|e| KindError::new(GetErrorKind::Other, e.into_cause()))?
                    }
                };
                let info = store.find(&target).await.map_err(GetErrorKind::error)?.info;
                if info.link().is_some() {
                    let cause = Error::InvalidArgument(format!("{target:?} is a link to a link"));
                    return Err(KindError::new(GetErrorKind::Other, cause));
                }
                return store.read(info).await;
            }
        };
        self.read(info).await
    }

    /// Starts reading the chunks of the object `info` describes.
    async fn read(&self, info: ObjectInfo) -> Result<Object, GetError> {
        if info.deleted {
            let cause = Error::JetStream(crate::jetstream::api::JetStreamError {
                code: 404,
                err_code: crate::jetstream::api::ErrorCode::NO_MESSAGE_FOUND,
                description: format!("object {:?} was deleted", info.name),
            });
            return Err(KindError::new(GetErrorKind::NotFound, cause));
        }
        let Some(expected) = info.digest.as_deref().and_then(digest::parse) else {
            let cause = Error::Protocol(format!("object {:?} has no SHA-256 digest to check it with", info.name));
            return Err(KindError::new(GetErrorKind::Other, cause));
        };
        let chunks = match info.size {
            0 => None,
            _ => {
                let ordered = OrderedConfig {
                    filter_subjects: vec![chunk_subject(&self.name, &info.nuid)],
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
                    0 => None,
                    _ => Some(consumer.consume().map_err(|e| KindError::new(GetErrorKind::ConsumerCreate, e))?),
                }
            }
        };
        Ok(Object {
            info,
            chunks,
            digest: Digest::new(),
            expected,
            received: 0,
            done: false,
            progress: None,
            #[cfg(not(target_arch = "wasm32"))]
            leftover: Bytes::new(),
        })
    }
}

impl Object {
    pub fn info(&self) -> &ObjectInfo {
        &self.info
    }

    /// Calls `progress` after every chunk with the bytes received so far
    /// out of the object's size.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Bytes received (and hashed) so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The next chunk; the last one only once the object checked out.
    pub(crate) fn poll_chunk(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<Bytes, Error>>> {
        loop {
            if self.done {
                return Poll::Ready(None);
            }
            let Some(chunks) = &mut self.chunks else {
                self.done = true;
                return Poll::Ready(self.check().err().map(Err));
            };
            let message = match ready!(Pin::new(chunks).poll_next(cx)) {
                Some(Ok(message)) => message.message,
                Some(Err(e)) => return self.end(e),
                None => {
                    let short = self.size_mismatch();
                    return self.end(short);
                }
            };
            let meta = match MessageMetadata::parse(message.reply.as_deref().unwrap_or_default()) {
                Ok(meta) => meta,
                Err(e) => return self.end(e),
            };
            let chunk = message.payload;
            self.received += chunk.len() as u64;
            if self.received > self.info.size as u64 {
                let long = self.size_mismatch();
                return self.end(long);
            }
            self.digest.update(&chunk);
            if let Some(progress) = &mut self.progress {
                progress(Progress { done: self.received, total: Some(self.info.size as u64) });
            }
            if meta.pending == 0 {
                if let Err(e) = self.check() {
                    return self.end(e);
                }
                self.done = true;
                self.stop();
            }
            if !chunk.is_empty() {
                return Poll::Ready(Some(Ok(chunk)));
            }
        }
    }

    /// Whether what arrived is the object its meta describes.
    fn check(&mut self) -> Result<(), Error> {
        if self.received != self.info.size as u64 {
            return Err(self.size_mismatch());
        }
        let computed = std::mem::take(&mut self.digest).finish();
        if computed != self.expected {
            return Err(Error::DigestMismatch {
                name: self.info.name.clone(),
                expected: digest::format(&self.expected),
                computed: digest::format(&computed),
            });
        }
        Ok(())
    }

    fn size_mismatch(&self) -> Error {
        Error::SizeMismatch { name: self.info.name.clone(), expected: self.info.size as u64, received: self.received }
    }

    fn end(&mut self, error: Error) -> Poll<Option<Result<Bytes, Error>>> {
        self.done = true;
        self.stop();
        Poll::Ready(Some(Err(error)))
    }

    fn stop(&mut self) {
        if let Some(chunks) = &mut self.chunks {
            chunks.stop();
        }
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
