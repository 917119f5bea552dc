//! [`ObjectStore`]: one bucket, shaped like async-nats's
//! `object_store::ObjectStore` — looking objects up by name, deleting,
//! renaming and linking them, listing and watching their metas, sealing and
//! the bucket's status. Putting and getting the bytes live in [`super::put`]
//! and [`super::get`].

use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, ready};

use bytes::Bytes;
use futures_core::Stream;
use serde::Deserialize;

use super::error::*;
use super::get::Object;
use super::info::{ObjectInfo, ObjectLink, Status, UpdateMetadata};
use super::names::{all_meta, check_name, stream_name};
use crate::core::error::{Error, KindError, SortCause};
use crate::core::message::Message;
use crate::core::object::change::{Change, Changed, MetaChange, Phase, Target};
use crate::core::object::lookup::Found;
use crate::driver::{DefaultRuntime, Runtime};
use crate::jetstream::ack::DeliveryNumbers;
use crate::jetstream::api::{self, DeliverPolicy, timestamp};
use crate::jetstream::context::Context;
use crate::jetstream::ordered::OrderedConfig;
use crate::jetstream::procedure::Pump;
use crate::jetstream::publish::FAST_INGEST_API_LEVEL;
use crate::jetstream::reader::tracked::TrackedRead;

/// An object store bucket.
#[derive(Debug, Clone)]
pub struct ObjectStore {
    pub(crate) name: String,
    pub(crate) context: Context,
    /// Metas and chunks are read with direct gets (the stream has `allow_direct`).
    pub(crate) direct: bool,
    /// The stream takes fast batches (`allow_batched`).
    batched: bool,
}

/// A write of a meta by name, decided: `info` goes on `subject`, then
/// `purge` (what it replaced) is purged.

#[derive(Deserialize, Default)]
#[serde(default)]
struct BoundInfo {
    config: BoundConfig,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BoundConfig {
    allow_direct: bool,
    allow_batched: bool,
}

/// What a link can point at: an object's info, or the object `get` returned.
pub trait AsObjectInfo {
    /// The object's info.
    fn as_info(&self) -> &ObjectInfo;
}

impl AsObjectInfo for &ObjectInfo {
    fn as_info(&self) -> &ObjectInfo {
        self
    }
}

impl AsObjectInfo for &Object {
    fn as_info(&self) -> &ObjectInfo {
        &self.info
    }
}

impl ObjectStore {
    /// A handle on `bucket` from its stream's info (a `STREAM.INFO` or
    /// `STREAM.CREATE` reply).
    pub(crate) fn bind(context: Context, bucket: &str, info: &[u8]) -> Result<ObjectStore, Error> {
        let BoundInfo { config } = api::parse_checked_plain(info)?;
        Ok(ObjectStore::from_flags(context, bucket, config.allow_direct, config.allow_batched))
    }

    /// A handle on `bucket` whose stream has `allow_direct` and `allow_batched` as given.
    pub(crate) fn from_flags(context: Context, bucket: &str, direct: bool, batched: bool) -> ObjectStore {
        ObjectStore { name: bucket.to_string(), context, direct, batched }
    }

    /// The bucket's name.
    pub fn bucket(&self) -> &str {
        &self.name
    }

    pub(crate) fn stream(&self) -> String {
        stream_name(&self.name)
    }

    /// The meta of object `name` (also a deleted one's, with `deleted`).
    pub async fn info<T: AsRef<str>>(&self, name: T) -> Result<ObjectInfo, InfoError> {
        Ok(self.find(name.as_ref()).await.map_err(InfoErrorKind::error)?.info)
    }

    /// The meta of object `name`, looked for under the subject every client
    /// but nats.js 3.4 uses and, for a Latin-1 name, under nats.js's too:
    /// if both clients wrote it, the newer meta is the object.
    pub(crate) async fn find(&self, name: &str) -> Result<Found, Error> {
        match self.change(name, Change::Find).await {
            Ok(Changed::Found { found, .. }) => Ok(found),
            Ok(_) => Err(Error::Closed),
            Err((_, e)) => Err(e),
        }
    }

    /// The object a get of `name` reads (the object, or the one its link
    /// names), the bucket holding it and whether that bucket's stream
    /// answers direct gets.
    pub(crate) async fn follow(&self, name: &str) -> Result<(Found, String, bool), GetError> {
        match self.change(name, Change::Follow).await {
            Ok(Changed::Found { found, bucket, direct }) => Ok((found, bucket, direct)),
            Ok(_) => Err(GetErrorKind::error(Error::Closed)),
            Err((Phase::Follow, e)) => Err(KindError::new(GetErrorKind::BucketLink, e)),
            Err((Phase::Decide, e)) => Err(KindError::new(GetErrorKind::Other, e)),
            Err((_, e)) => Err(GetErrorKind::error(e)),
        }
    }

    /// `change` of object `name`, by the core's procedure (the wasm's
    /// too): the meta written, its revision and the messages purged after
    /// it; on failure, the phase it failed in.
    async fn change(&self, name: &str, change: Change) -> Result<Changed, (Phase, Error)> {
        let api_prefix = self.context.api_prefix();
        let target = Target { bucket: &self.name, api_prefix, direct: self.direct, clock: DefaultRuntime::wall_clock };
        let mut pump = Pump::new(self.context.clone(), MetaChange::new(target, name, change));
        match poll_fn(|cx| pump.poll_item(cx)).await {
            Some(Ok(changed)) => Ok(changed),
            Some(Err(e)) => Err((pump.procedure().phase(), e)),
            None => Err((Phase::Done, Error::Closed)),
        }
    }

    /// [`change`](Self::change) that writes a meta: the meta, its revision, the messages purged.
    async fn write(&self, name: &str, change: Change) -> Result<(ObjectInfo, u64, u64), (Phase, Error)> {
        match self.change(name, change).await? {
            Changed::Written { info, revision, purged } => Ok((info, revision, purged)),
            _ => Err((Phase::Done, Error::Closed)),
        }
    }

    /// Whether puts go as fast batches: the stream allows them and the
    /// server takes them.
    pub(crate) fn batched(&self) -> bool {
        self.batched && self.context.client().api_level() >= FAST_INGEST_API_LEVEL
    }

    /// Deletes object `name`: its meta says so, its chunks are purged.
    pub async fn delete<T: AsRef<str>>(&self, name: T) -> Result<(), DeleteError> {
        self.remove(name.as_ref()).await.map(drop)
    }

    /// [`delete`](Self::delete), counting the chunks purged.
    pub(crate) async fn remove(&self, name: &str) -> Result<u64, DeleteError> {
        match self.write(name, Change::Delete).await {
            Ok((_, _, purged)) => Ok(purged),
            Err((Phase::Publish, e)) => Err(KindError::new(DeleteErrorKind::Metadata, e)),
            Err((Phase::Purge, e)) => Err(KindError::new(DeleteErrorKind::Chunks, e)),
            Err((_, e)) => Err(DeleteErrorKind::error(e)),
        }
    }

    /// Changes the name, description, metadata or headers of object `name`.
    /// A new name must be free (or a deleted object's); the meta under the
    /// old name is purged once the new one is stored.
    pub async fn update_metadata<A: AsRef<str>>(
        &self,
        name: A,
        metadata: UpdateMetadata,
    ) -> Result<ObjectInfo, UpdateMetadataError> {
        let UpdateMetadata { name: new_name, description, metadata, headers } = metadata;
        let change = move |info: &mut ObjectInfo| {
            info.description = description;
            info.metadata = metadata;
            info.headers = headers;
        };
        Ok(self.update(name.as_ref(), Some(new_name), change).await?.0)
    }

    /// [`update_metadata`](Self::update_metadata) of what `change` changes,
    /// renamed to `new_name` if given; the new meta and its revision.
    pub(crate) async fn update(
        &self,
        name: &str,
        new_name: Option<String>,
        change: impl FnOnce(&mut ObjectInfo) + Send + 'static,
    ) -> Result<(ObjectInfo, u64), UpdateMetadataError> {
        let change = Change::Update { new_name, change: Box::new(change) };
        match self.write(name, change).await {
            Ok((info, revision, _)) => Ok((info, revision)),
            Err((Phase::Decide, e)) => Err(KindError::new(UpdateMetadataErrorKind::NameAlreadyInUse, e)),
            Err((Phase::Publish, e)) => Err(KindError::new(UpdateMetadataErrorKind::PublishMetadata, e)),
            Err((Phase::Purge, e)) => Err(KindError::new(UpdateMetadataErrorKind::Purge, e)),
            Err((_, e)) => Err(UpdateMetadataErrorKind::error(e)),
        }
    }

    /// Adds `name` as a link to `object` (in this or another bucket).
    pub async fn add_link<T: ToString, O: AsObjectInfo>(&self, name: T, object: O) -> Result<ObjectInfo, AddLinkError> {
        Ok(self.link_object(name.to_string(), object.as_info()).await?.0)
    }

    /// [`add_link`](Self::add_link): the link's meta and its revision.
    pub(crate) async fn link_object(
        &self,
        name: String,
        object: &ObjectInfo,
    ) -> Result<(ObjectInfo, u64), AddLinkError> {
        self.publish_link(name, link_to(object)?).await
    }

    /// Adds `name` as a link to bucket `bucket`.
    pub async fn add_bucket_link<T: ToString, U: ToString>(
        &self,
        name: T,
        bucket: U,
    ) -> Result<ObjectInfo, AddLinkError> {
        Ok(self.link_bucket(name.to_string(), bucket.to_string()).await?.0)
    }

    /// [`add_bucket_link`](Self::add_bucket_link): the link's meta and its revision.
    pub(crate) async fn link_bucket(&self, name: String, bucket: String) -> Result<(ObjectInfo, u64), AddLinkError> {
        self.publish_link(name, link_to_bucket(bucket)?).await
    }

    /// Writes the meta of link `name`, unless an object (not a link or a
    /// deleted object) has the name.
    async fn publish_link(&self, name: String, link: ObjectLink) -> Result<(ObjectInfo, u64), AddLinkError> {
        check_link_name(&name)?;
        let nuid = self.context.client().new_inbox().rsplit('.').next().unwrap_or_default().to_string();
        match self.write(&name, Change::Link { link, nuid }).await {
            Ok((info, revision, _)) => Ok((info, revision)),
            Err((Phase::Decide, e)) => Err(KindError::new(AddLinkErrorKind::AlreadyExists, e)),
            Err((Phase::Publish, e)) => Err(AddLinkErrorKind::error(e)),
            Err((_, e)) => Err(KindError::new(AddLinkErrorKind::Other, e)),
        }
    }

    /// Seals the bucket: no more writes, deletes or purges.
    pub async fn seal(&mut self) -> Result<(), SealError> {
        let stream = self.context.get_stream(self.stream()).await;
        let mut config =
            stream.map_err(|e| KindError::new(SealErrorKind::Info, e.into_cause()))?.cached_info().config.clone();
        config.sealed = true;
        self.context.update_stream(&config).await.map_err(|e| SealErrorKind::error(e.into_cause()))?;
        Ok(())
    }

    /// The bucket's settings and state, fresh from the server.
    pub async fn status(&self) -> Result<Status, StatusError> {
        let info = self.status_json().await.and_then(|json| api::parse_checked(&json));
        Ok(Status { info: info.map_err(StatusErrorKind::error)?, bucket: self.name.clone() })
    }

    /// [`status`](Self::status) as the stream info's JSON.
    pub async fn status_json(&self) -> Result<Bytes, Error> {
        self.context.request_json(&api::stream_info(self.context.api_prefix(), &self.stream())?, b"").await
    }

    /// Every object (not deleted), then the end.
    pub async fn list(&self) -> Result<List, ListError> {
        Ok(List { read: self.metas(DeliverPolicy::LastPerSubject).await.map_err(WatchErrorKind::error)? })
    }

    /// Metas as objects are put, changed and deleted from now on.
    pub async fn watch(&self) -> Result<Watch, WatchError> {
        self.watch_with(WatchOptions::default()).await
    }

    /// Every object's meta, then changes as they come.
    pub async fn watch_with_history(&self) -> Result<Watch, WatchError> {
        self.watch_with(WatchOptions { include_history: true, ..WatchOptions::default() }).await
    }

    /// A watch with nats.js's options.
    pub async fn watch_with(&self, options: WatchOptions) -> Result<Watch, WatchError> {
        let policy = if options.include_history { DeliverPolicy::LastPerSubject } else { DeliverPolicy::New };
        let read = self.metas(policy).await.map_err(WatchErrorKind::error)?;
        Ok(Watch { read, ignore_deletes: options.ignore_deletes })
    }

    async fn metas(&self, deliver_policy: DeliverPolicy) -> Result<TrackedRead, Error> {
        let config =
            OrderedConfig { filter_subjects: vec![all_meta(&self.name)], deliver_policy, ..OrderedConfig::default() };
        TrackedRead::open(&self.context, &self.stream(), config).await
    }
}

/// What a watch delivers (nats.js's `watch` options).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WatchOptions {
    /// Every object's meta first, not only changes.
    pub include_history: bool,
    /// Leave out deleted objects.
    pub ignore_deletes: bool,
}

/// An object's meta from a message of the bucket, and its revision.
fn meta_of(message: &Message, meta: &DeliveryNumbers) -> Result<(ObjectInfo, u64), Error> {
    let mut info = parse_meta(&message.payload)?;
    info.modified = Some(timestamp::from_unix_nanos(meta.timestamp_nanos));
    Ok((info, meta.stream_sequence))
}

/// An object's meta from its JSON.
pub(crate) fn parse_meta(json: &[u8]) -> Result<ObjectInfo, Error> {
    crate::core::object::meta_json::read(json)
}

/// The link to `object`: an object with a name, neither deleted nor a link.
pub(crate) fn link_to(object: &ObjectInfo) -> Result<ObjectLink, AddLinkError> {
    let refused = |kind, text: &str| Err(KindError::new(kind, Error::InvalidArgument(text.to_string())));
    if object.name.is_empty() {
        return refused(AddLinkErrorKind::ObjectRequired, "the object to link to has no name");
    }
    if object.deleted {
        return refused(AddLinkErrorKind::Deleted, "the object to link to is deleted");
    }
    if object.link().is_some() {
        return refused(AddLinkErrorKind::LinkToLink, "the object to link to is a link");
    }
    Ok(ObjectLink { name: Some(object.name.clone()), bucket: object.bucket.clone() })
}

/// The link to bucket `bucket`, if it is a bucket's name.
pub(crate) fn link_to_bucket(bucket: String) -> Result<ObjectLink, AddLinkError> {
    super::names::check_bucket(&bucket).map_err(|e| KindError::new(AddLinkErrorKind::Other, e))?;
    Ok(ObjectLink { name: None, bucket })
}

/// A link's name: not empty, and an object's name.
pub(crate) fn check_link_name(name: &str) -> Result<(), AddLinkError> {
    if name.is_empty() {
        return Err(KindError::new(AddLinkErrorKind::EmptyName, Error::InvalidArgument("empty link name".into())));
    }
    check_name(name).map_err(AddLinkErrorKind::error)
}

/// Every object in a bucket (deleted ones left out), then the end: async-nats's `List`.
pub struct List {
    read: TrackedRead,
}

impl List {
    /// The next object and its revision.
    fn poll_info(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<(ObjectInfo, u64), Error>>> {
        loop {
            let item = ready!(self.read.poll_until_current(cx));
            match item.map(|r| r.and_then(|(m, meta)| meta_of(&m, &meta))) {
                Some(Ok((info, _))) if info.deleted => continue,
                item => return Poll::Ready(item),
            }
        }
    }
}

impl Stream for List {
    type Item = Result<ObjectInfo, ListerError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let item = ready!(self.poll_info(cx));
        Poll::Ready(item.map(|r| r.map(|(info, _)| info).map_err(WatcherErrorKind::error)))
    }
}

/// Metas of a bucket's objects as they change: async-nats's `Watch`.
pub struct Watch {
    read: TrackedRead,
    ignore_deletes: bool,
}

impl Watch {
    /// Whether every meta that existed at the start was delivered.
    pub fn seen_current(&self) -> bool {
        self.read.seen_current()
    }

    /// The next meta and its revision.
    fn poll_info(&mut self, cx: &mut TaskContext<'_>) -> Poll<Option<Result<(ObjectInfo, u64), Error>>> {
        loop {
            let item = ready!(self.read.poll_next(cx));
            match item.map(|r| r.and_then(|(m, meta)| meta_of(&m, &meta))) {
                Some(Ok((info, _))) if info.deleted && self.ignore_deletes => continue,
                item => return Poll::Ready(item),
            }
        }
    }
}

impl Stream for Watch {
    type Item = Result<ObjectInfo, WatcherError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        let item = ready!(self.poll_info(cx));
        Poll::Ready(item.map(|r| r.map(|(info, _)| info).map_err(WatcherErrorKind::error)))
    }
}
