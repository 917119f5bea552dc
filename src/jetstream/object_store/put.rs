//! Putting an object (ADR-20): its bytes cut into chunks that are published
//! through the acked-publish window — many acks in flight, never one
//! awaited at a time, bounded in bytes so memory stays flat for any object
//! size — the SHA-256 computed as they go; then the meta, with a rollup,
//! and only then the old version's chunks purged. A put that fails purges
//! the chunks it wrote. Where the bucket allows fast ingest (its stream has
//! `allow_batched`, the server API level 4), the chunks and the meta go as
//! one fast batch instead: acknowledged every few chunks, committed by the
//! meta. Natively only: the npm package's wasm leaves fast batches out.

use std::collections::VecDeque;
use std::fmt;

use bytes::{Bytes, BytesMut};
use futures_core::Stream;
use futures_util::StreamExt;

use super::digest::{self, Digest};
use super::error::{PutError, PutErrorKind, is_not_found};
use super::info::{DEFAULT_CHUNK_SIZE, ObjectInfo, ObjectMetadata, ObjectOptions};
use super::names::{check_name, chunk_subject, meta_subject};
use super::store::ObjectStore;
use crate::core::error::SortCause;
use crate::core::error::{Error, KindError};
use crate::core::header::HeaderMap;
use crate::core::object::lookup::Found;
use crate::driver::{DefaultRuntime, Runtime};
use crate::jetstream::kv::NATS_ROLLUP;
#[cfg(not(target_arch = "wasm32"))]
use crate::jetstream::publish::FastPublisher as FastIngest;
use crate::jetstream::publish::{NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, Publish, PublishAckFuture};

/// Bytes of chunks in flight per put, at most.
const MAX_IN_FLIGHT_BYTES: usize = 8 << 20;

/// How far a put or a get is, for a progress bar: bytes acknowledged by the
/// stream (put) or received and hashed (get), out of `total` when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes done so far (acknowledged by the stream for a put; received and hashed for a get).
    pub done: u64,
    /// The object's size, when known.
    pub total: Option<u64>,
}

/// Called with the progress of a put or a get as it moves.
#[cfg(not(target_arch = "wasm32"))]
pub type ProgressFn = Box<dyn FnMut(Progress) + Send>;
/// Called with the progress of a put or a get as it moves.
#[cfg(target_arch = "wasm32")]
pub type ProgressFn = Box<dyn FnMut(Progress)>;

/// natsjet's options of a put.
#[derive(Default)]
pub struct PutOptions {
    /// Told of every chunk the stream acknowledged.
    pub progress: Option<ProgressFn>,
    /// The object's size, when known, as the progress's total.
    pub size: Option<u64>,
    /// Store the meta only if the object's meta is still at this revision
    /// (0: only if there is no such object), as nats.js's `previousRevision`.
    pub previous_revision: Option<u64>,
}

impl fmt::Debug for PutOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PutOptions")
            .field("progress", &self.progress.is_some())
            .field("size", &self.size)
            .field("previous_revision", &self.previous_revision)
            .finish()
    }
}

/// An object being put: write its bytes, then finish (or drop it after a
/// failure: [`Upload::fail`] cleans up).
pub(crate) struct Upload {
    store: ObjectStore,
    meta: ObjectMetadata,
    /// The object this one replaces.
    old: Option<Found>,
    nuid: String,
    subject: String,
    chunk_size: usize,
    /// Bytes written that do not fill a chunk yet.
    partial: BytesMut,
    digest: Digest,
    size: u64,
    chunks: usize,
    acked: u64,
    sender: Sender,
    options: PutOptions,
}

/// The wasm's stand-in for fast batches: none can be made, so the code
/// that sends them is left out (about 3 KB gzip of the npm package).
#[cfg(target_arch = "wasm32")]
pub(crate) enum FastIngest {}

#[cfg(target_arch = "wasm32")]
impl FastIngest {
    async fn start(_: &crate::Client, _: std::time::Duration) -> Result<FastIngest, Error> {
        Err(Error::InvalidArgument("no fast batches in wasm".into()))
    }

    async fn send(&mut self, _: &str, _: Option<&HeaderMap>, _: Bytes) -> Result<(), Error> {
        match *self {}
    }

    fn acked(&self) -> u64 {
        match *self {}
    }

    async fn finish(
        &mut self,
        _: &str,
        _: Option<&HeaderMap>,
        _: Bytes,
    ) -> Result<crate::jetstream::api::PublishAck, Error> {
        match *self {}
    }
}

/// How the chunks go out.
enum Sender {
    /// Acked publishes, up to `max` in flight.
    Windowed { in_flight: VecDeque<(PublishAckFuture, u64)>, max: usize },
    /// One fast batch, committed by the meta.
    Fast(FastIngest),
}

impl ObjectStore {
    /// Puts an object read from `data` until its end, as async-nats does.
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn put<T>(&self, meta: T, data: &mut (impl tokio::io::AsyncRead + Unpin)) -> Result<ObjectInfo, PutError>
    where
        ObjectMetadata: From<T>,
    {
        self.put_with(meta, data, PutOptions::default()).await
    }

    /// [`put`](Self::put) with natsjet's options (progress, expected revision).
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn put_with<T>(
        &self,
        meta: T,
        data: &mut (impl tokio::io::AsyncRead + Unpin),
        options: PutOptions,
    ) -> Result<ObjectInfo, PutError>
    where
        ObjectMetadata: From<T>,
    {
        use tokio::io::AsyncReadExt;
        let mut upload = self.upload(meta.into(), options).await?;
        loop {
            let mut buffer = BytesMut::with_capacity(upload.chunk_size);
            let read = async {
                while buffer.len() < buffer.capacity() {
                    if data.read_buf(&mut buffer).await? == 0 {
                        break;
                    }
                }
                Ok::<_, std::io::Error>(buffer.freeze())
            };
            let bytes = match read.await {
                Ok(bytes) => bytes,
                Err(e) => return Err(upload.fail(PutErrorKind::ReadChunks, e.into()).await),
            };
            if bytes.is_empty() {
                return upload.finish().await.map(|(info, _)| info);
            }
            if let Err(e) = upload.write(bytes).await {
                return Err(upload.fail(PutErrorKind::PublishChunks, e).await);
            }
        }
    }

    /// Puts an object from a stream of byte chunks of any size.
    pub async fn put_stream<T, S, E>(&self, meta: T, data: S) -> Result<ObjectInfo, PutError>
    where
        ObjectMetadata: From<T>,
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: fmt::Display,
    {
        self.put_stream_with(meta, data, PutOptions::default()).await
    }

    /// [`put_stream`](Self::put_stream) with natsjet's options.
    pub async fn put_stream_with<T, S, E>(
        &self,
        meta: T,
        mut data: S,
        options: PutOptions,
    ) -> Result<ObjectInfo, PutError>
    where
        ObjectMetadata: From<T>,
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: fmt::Display,
    {
        let mut upload = self.upload(meta.into(), options).await?;
        while let Some(bytes) = data.next().await {
            let bytes = match bytes {
                Ok(bytes) => bytes,
                Err(e) => {
                    let cause = Error::Io { kind: std::io::ErrorKind::Other, message: e.to_string() };
                    return Err(upload.fail(PutErrorKind::ReadChunks, cause).await);
                }
            };
            if let Err(e) = upload.write(bytes).await {
                return Err(upload.fail(PutErrorKind::PublishChunks, e).await);
            }
        }
        upload.finish().await.map(|(info, _)| info)
    }

    /// Starts putting the object `meta` names; nothing is written yet.
    pub(crate) async fn upload(&self, meta: ObjectMetadata, options: PutOptions) -> Result<Upload, PutError> {
        check_name(&meta.name).map_err(PutErrorKind::error)?;
        let old = match self.find(&meta.name).await {
            Ok(found) => Some(found),
            Err(e) if is_not_found(&e) => None,
            Err(e) => return Err(KindError::new(PutErrorKind::Other, e)),
        };
        let fast = match self.batched() {
            true => {
                let fast = FastIngest::start(self.context.client(), self.context.timeout()).await;
                Some(fast.map_err(|e| KindError::new(PutErrorKind::Other, e))?)
            }
            false => None,
        };
        Ok(self.upload_over(meta, options, old, fast))
    }

    /// [`upload`](Self::upload) of an object whose name was looked up
    /// (`old`: the object it replaces), its chunks sent through `fast` if
    /// given, else as acked publishes. Nothing is written yet.
    pub(crate) fn upload_over(
        &self,
        meta: ObjectMetadata,
        options: PutOptions,
        old: Option<Found>,
        fast: Option<FastIngest>,
    ) -> Upload {
        let max_payload = self.context.client().server_info().max_payload.max(1);
        // 0 is the default, as nats.js reads it; never more than a message holds.
        let chunk_size = meta.chunk_size.filter(|&n| n > 0).unwrap_or(DEFAULT_CHUNK_SIZE).min(max_payload);
        let nuid = self.context.client().new_nuid();
        let sender = match fast {
            Some(fast) => Sender::Fast(fast),
            None => Sender::Windowed { in_flight: VecDeque::new(), max: (MAX_IN_FLIGHT_BYTES / chunk_size).max(2) },
        };
        Upload {
            subject: chunk_subject(&self.name, &nuid),
            store: self.clone(),
            meta,
            old,
            nuid,
            chunk_size,
            partial: BytesMut::new(),
            digest: Digest::new(),
            size: 0,
            chunks: 0,
            acked: 0,
            sender,
            options,
        }
    }
}

impl Upload {
    /// Adds `data` to the object: every chunk it completes goes out,
    /// waiting for room when as much as the window holds is unacknowledged.
    pub async fn write(&mut self, mut data: Bytes) -> Result<(), Error> {
        if !self.partial.is_empty() {
            let take = data.len().min(self.chunk_size - self.partial.len());
            self.partial.extend_from_slice(&data.split_to(take));
            if self.partial.len() == self.chunk_size {
                let chunk = self.partial.split().freeze();
                self.send(chunk).await?;
            }
        }
        while data.len() >= self.chunk_size {
            let chunk = data.split_to(self.chunk_size);
            self.send(chunk).await?;
        }
        self.partial.extend_from_slice(&data);
        Ok(())
    }

    async fn send(&mut self, chunk: Bytes) -> Result<(), Error> {
        self.digest.update(&chunk);
        let len = chunk.len() as u64;
        self.size += len;
        self.chunks += 1;
        match &mut self.sender {
            Sender::Windowed { in_flight, max } => {
                if in_flight.len() >= *max {
                    self.await_oldest().await?;
                }
                let ack = self.store.context.send_publish(self.subject.clone(), Publish::build().payload(chunk));
                let Sender::Windowed { in_flight, .. } = &mut self.sender else { unreachable!() };
                in_flight.push_back((ack.await?, len));
            }
            Sender::Fast(fast) => {
                fast.send(&self.subject, None, chunk).await?;
                let acked = (fast.acked() * self.chunk_size as u64).min(self.size);
                self.report(acked);
            }
        }
        Ok(())
    }

    /// Waits for the oldest chunk in flight to be acknowledged.
    async fn await_oldest(&mut self) -> Result<(), Error> {
        let Sender::Windowed { in_flight, .. } = &mut self.sender else { return Ok(()) };
        let Some((ack, len)) = in_flight.pop_front() else { return Ok(()) };
        ack.await?;
        self.report(self.acked + len);
        Ok(())
    }

    /// `acked` bytes are stored: tell the progress callback if it moved.
    fn report(&mut self, acked: u64) {
        if acked <= self.acked && acked != 0 {
            return;
        }
        self.acked = acked;
        let total = self.options.size;
        if let Some(progress) = &mut self.options.progress {
            progress(Progress { done: acked, total });
        }
    }

    fn in_flight(&self) -> usize {
        match &self.sender {
            Sender::Windowed { in_flight, .. } => in_flight.len(),
            Sender::Fast(_) => 0,
        }
    }

    /// Sends the last chunk and the meta, then purges what this replaces;
    /// the object's meta and its revision. A failure before the meta is
    /// stored purges the chunks written.
    pub async fn finish(self) -> Result<(ObjectInfo, u64), PutError> {
        let (store, chunks) = (self.store.clone(), self.subject.clone());
        match self.store_meta().await {
            Ok((info, revision, purge)) => {
                let purged = store.purge_all(purge).await;
                purged.map_err(|e| KindError::new(PutErrorKind::PurgeOldChunks, e))?;
                Ok((info, revision))
            }
            Err(e) => {
                store.purge_chunks(chunks).await;
                Err(e)
            }
        }
    }

    /// [`finish`](Self::finish) up to the meta stored, purging nothing: the
    /// object's meta, its revision and what it replaces, to purge.
    async fn store_meta(mut self) -> Result<(ObjectInfo, u64, Vec<String>), PutError> {
        if !self.partial.is_empty() {
            let chunk = self.partial.split().freeze();
            if let Err(e) = self.send(chunk).await {
                return Err(self.settle(PutErrorKind::PublishChunks, e).await);
            }
        }
        while self.in_flight() > 0 {
            if let Err(e) = self.await_oldest().await {
                return Err(self.settle(PutErrorKind::PublishChunks, e).await);
            }
        }
        let sum = std::mem::take(&mut self.digest).finish();
        let store = self.store.clone();
        let meta = std::mem::take(&mut self.meta);
        let info = ObjectInfo {
            name: meta.name,
            description: meta.description,
            metadata: meta.metadata,
            headers: meta.headers,
            options: Some(ObjectOptions { link: None, max_chunk_size: Some(self.chunk_size) }),
            bucket: store.name.clone(),
            nuid: self.nuid.clone(),
            size: self.size as usize,
            chunks: self.chunks,
            modified: Some(DefaultRuntime::wall_clock()),
            digest: Some(digest::format(&sum)),
            deleted: false,
        };
        let subject = meta_subject(&store.name, &info.name);
        let revision = match self.publish_meta(&subject, &info).await {
            Ok(revision) => revision,
            Err(e) => return Err(self.settle(PutErrorKind::PublishMetadata, e).await),
        };
        self.report(self.size);
        // The new object is in place: what it replaces can go.
        if let Some(old) = self.old.take() {
            let chunks = !old.info.nuid.is_empty() && old.info.nuid != info.nuid;
            // The old meta's subject, when nats.js wrote it under its Latin-1 name: one meta per object.
            let stale = [chunks.then(|| chunk_subject(&store.name, &old.info.nuid)), Some(old.subject)];
            let replaced = store.meta_write(subject, info, stale, old.shadowed);
            return Ok((replaced.info, revision, replaced.purge));
        }
        Ok((info, revision, Vec::new()))
    }

    /// Publishes the meta: an acked publish, or the commit of the fast batch.
    async fn publish_meta(&mut self, subject: &str, info: &ObjectInfo) -> Result<u64, Error> {
        let expected = self.options.previous_revision;
        let sender = std::mem::replace(&mut self.sender, Sender::Windowed { in_flight: VecDeque::new(), max: 1 });
        match sender {
            Sender::Windowed { .. } => {
                let with = match expected {
                    Some(revision) => Publish::build().expected_last_subject_sequence(revision),
                    None => Publish::build(),
                };
                self.store.publish_meta_with(subject, info, with).await
            }
            Sender::Fast(mut fast) => {
                let mut headers = HeaderMap::new();
                headers.insert(NATS_ROLLUP, "sub");
                if let Some(revision) = expected {
                    headers.insert(NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, revision.to_string());
                }
                Ok(fast.finish(subject, Some(&headers), super::store::meta_json(info)).await?.sequence)
            }
        }
    }

    /// Gives up: waits for the chunks in flight, purges every chunk this
    /// put wrote, and returns `cause` as a `kind` error.
    pub async fn fail(self, kind: PutErrorKind, cause: Error) -> PutError {
        let (store, chunks) = (self.store.clone(), self.subject.clone());
        let error = self.settle(kind, cause).await;
        store.purge_chunks(chunks).await;
        error
    }

    /// [`fail`](Self::fail) but for the purge, which `finish` makes once
    /// for whichever step failed.
    async fn settle(mut self, kind: PutErrorKind, cause: Error) -> PutError {
        if let Sender::Windowed { in_flight, .. } = &mut self.sender {
            while let Some((ack, _)) = in_flight.pop_front() {
                let _ = ack.await;
            }
        }
        let kind = match cause {
            Error::Timeout => PutErrorKind::TimedOut,
            _ if kind == PutErrorKind::PublishChunks => PutErrorKind::sort(&cause),
            _ => kind,
        };
        KindError::new(kind, cause)
    }
}
