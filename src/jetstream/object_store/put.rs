//! Putting an object (ADR-20): the core's put procedure
//! (`core::object::write`, the npm package's too) pumped over the store's
//! context, fed the bytes read as it wants them. It cuts them into chunks
//! published through the acked-publish window (or, where the bucket allows
//! fast ingest, one fast batch), computes the SHA-256, stores the meta with
//! a rollup and only then purges the old version's chunks; a put that fails
//! purges the chunks it wrote.

use std::fmt;
use std::future::poll_fn;

use bytes::Bytes;
use futures_core::Stream;
use futures_util::StreamExt;

use super::error::{PutError, PutErrorKind, is_not_found};
use super::info::{ObjectInfo, ObjectMetadata};
use super::names::check_name;
use super::store::ObjectStore;
use crate::core::error::{Error, KindError, SortCause};
use crate::core::object::write::{ObjectWrite, WriteOptions, Written};
use crate::core::procedure::{Procedure, Reply};
use crate::driver::{DefaultRuntime, Runtime};
use crate::jetstream::procedure::Pump;

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
        use bytes::BytesMut;
        use tokio::io::AsyncReadExt;
        let mut upload = self.upload(meta.into(), options).await?;
        loop {
            if let Turn::Stored(info) = upload.turn().await? {
                return Ok(*info);
            }
            let mut buffer = BytesMut::with_capacity(upload.chunk_size());
            let read = async {
                while buffer.len() < buffer.capacity() {
                    if data.read_buf(&mut buffer).await? == 0 {
                        break;
                    }
                }
                Ok::<_, std::io::Error>(buffer.freeze())
            };
            upload.feed(match read.await {
                Ok(bytes) if bytes.is_empty() => None,
                Ok(bytes) => Some(Ok(bytes)),
                Err(e) => Some(Err(e.into())),
            });
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
        loop {
            if let Turn::Stored(info) = upload.turn().await? {
                return Ok(*info);
            }
            let next = data.next().await;
            upload.feed(
                next.map(|bytes| {
                    bytes.map_err(|e| Error::Io { kind: std::io::ErrorKind::Other, message: e.to_string() })
                }),
            );
        }
    }

    /// Starts putting the object `meta` names: the core's put procedure
    /// over this store's context, the name looked up first; nothing is
    /// written yet.
    async fn upload(&self, meta: ObjectMetadata, options: PutOptions) -> Result<Upload, PutError> {
        check_name(&meta.name).map_err(PutErrorKind::error)?;
        let old = match self.find(&meta.name).await {
            Ok(found) => Some(found),
            Err(e) if is_not_found(&e) => None,
            Err(e) => return Err(KindError::new(PutErrorKind::Other, e)),
        };
        let client = self.context.client();
        let write = ObjectWrite::new(
            meta,
            WriteOptions {
                bucket: &self.name,
                api_prefix: self.context.api_prefix(),
                nuid: client.new_nuid(),
                max_payload: client.server_info().max_payload,
                stall: self.context.timeout(),
                old,
                previous_revision: options.previous_revision,
                fast: self.batched().then(|| client.new_inbox()),
                clock: DefaultRuntime::wall_clock,
            },
        );
        Ok(Upload { pump: Pump::new(self.context.clone(), write), options })
    }
}

/// An object being put: the procedure's pump, and who hears of its progress.
struct Upload {
    pump: Pump<ObjectWrite>,
    options: PutOptions,
}

/// What the put wants next.
enum Turn {
    /// Bytes (or their end).
    Want,
    /// Nothing more: the object is stored.
    Stored(Box<ObjectInfo>),
}

impl Upload {
    /// The bytes per chunk.
    #[cfg(not(target_arch = "wasm32"))]
    fn chunk_size(&self) -> usize {
        self.pump.procedure().chunk_size()
    }

    /// Runs the put until it wants bytes or is over.
    async fn turn(&mut self) -> Result<Turn, PutError> {
        loop {
            match poll_fn(|cx| self.pump.poll_item(cx)).await {
                Some(Ok(Written::Want)) => return Ok(Turn::Want),
                Some(Ok(Written::Acked(done))) => {
                    let total = self.options.size;
                    if let Some(progress) = &mut self.options.progress {
                        progress(Progress { done, total });
                    }
                }
                Some(Ok(Written::Stored(info, _))) => return Ok(Turn::Stored(info)),
                Some(Err(e)) => {
                    let kind = self.pump.procedure().failure().unwrap_or(PutErrorKind::Other);
                    return Err(KindError::new(kind, e));
                }
                None => return Err(KindError::new(PutErrorKind::Other, Error::Closed)),
            }
        }
    }

    /// Feeds the put its next bytes (`None`: their end; an error: they cannot be read).
    fn feed(&mut self, bytes: Option<Result<Bytes, Error>>) {
        let reply = match bytes {
            Some(Ok(payload)) => Reply::Message { sequence: 0, payload, pending: 0 },
            Some(Err(e)) => Reply::BatchFailed(e),
            None => Reply::BatchEnd,
        };
        self.pump.procedure_mut().handle_reply(DefaultRuntime::now(), reply);
    }
}
