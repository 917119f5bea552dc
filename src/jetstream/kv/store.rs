//! [`Store`]: one bucket, shaped like async-nats's `kv::Store`. Writes are
//! acked JetStream publishes to the key's subject (optimistic concurrency
//! through `Nats-Expected-Last-Subject-Sequence`); reads are direct gets
//! when the bucket allows them, from any replica; watches, histories and
//! key listings are ordered push consumers ([`super::watch`]).

use std::time::Duration;

use bytes::Bytes;
use serde::Deserialize;

use super::config::Status;
use super::entry::{Entry, Operation};
use super::error::*;
use super::names::{KeySubjects, Origin, check_bucket, check_key, stream_name};
use super::watch::{History, Keys, Watch, WatchInclude, WatchOptions};
use crate::core::error::SortCause;
use crate::core::error::{Error, KindError};
use crate::core::kv::create::{CreateTarget, KvCreate};
use crate::core::kv::read::stored_entry;
use crate::core::kv::write::marker;
use crate::driver::{DefaultRuntime, Runtime};
use crate::jetstream::api::{self, ErrorCode, JetStreamError, MsgGetRequest, PurgeRequest, PurgeResponse};
use crate::jetstream::context::{Context, encode_request};
use crate::jetstream::procedure::Pump;
use crate::jetstream::publish::Publish;

/// Every key.
const ALL_KEYS: &str = ">";

/// A Key-Value bucket.
#[derive(Debug, Clone)]
pub struct Store {
    /// The bucket's name.
    pub name: String,
    /// Its stream's name: `KV_<name>`.
    pub stream_name: String,
    pub(crate) context: Context,
    pub(crate) subjects: KeySubjects,
    /// Reads are direct gets (the stream has `allow_direct`).
    pub(crate) direct: bool,
    /// Values larger than this are refused before they are sent.
    max_value_size: Option<usize>,
}

/// What a bucket's stream info says about reading and writing it: the
/// fields of its `config` that natsjet reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct BoundInfo {
    config: BucketFacts,
}

/// The part of a bucket's stream config a handle needs.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub(crate) struct BucketFacts {
    pub allow_direct: bool,
    pub max_msg_size: i64,
    pub max_msgs_per_subject: i64,
    pub mirror: Option<BucketMirror>,
}

/// The origin of a mirror bucket.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub(crate) struct BucketMirror {
    pub name: String,
    pub external: Option<BucketExternal>,
}

/// Where a mirror's origin lives, when in another account or domain.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub(crate) struct BucketExternal {
    /// The API prefix of the origin's account or domain.
    pub api: String,
}

impl Store {
    /// A handle on `bucket` from its stream's info (JSON of a
    /// `STREAM.INFO` or `STREAM.CREATE` reply).
    pub(crate) fn bind(context: Context, bucket: &str, info: &[u8]) -> Result<Store, Error> {
        let BoundInfo { config } = api::parse_checked_plain(info)?;
        Store::from_facts(context, bucket, config)
    }

    /// A handle on `bucket` from what its stream's config says. A stream
    /// that keeps no value per subject is no bucket.
    pub(crate) fn from_facts(context: Context, bucket: &str, facts: BucketFacts) -> Result<Store, Error> {
        check_bucket(bucket)?;
        if facts.max_msgs_per_subject < 1 {
            return Err(Error::InvalidArgument(format!("stream {} is not a Key-Value bucket", stream_name(bucket))));
        }
        let origin = facts.mirror.as_ref().map(|m| Origin {
            bucket: m.name.strip_prefix(super::names::STREAM_PREFIX).unwrap_or(&m.name),
            external_api: m.external.as_ref().map(|e| e.api.as_str()),
        });
        let subjects = KeySubjects::new(bucket, context.api_prefix(), origin);
        Ok(Store {
            name: bucket.to_string(),
            stream_name: stream_name(bucket),
            subjects,
            context,
            direct: facts.allow_direct,
            max_value_size: usize::try_from(facts.max_msg_size).ok().filter(|&n| n > 0),
        })
    }

    /// The subject prefix of the bucket's keys (`$KV.<bucket>.`).
    pub fn prefix(&self) -> &str {
        &self.subjects.read
    }

    /// The bucket's settings and state, fresh from the server.
    pub async fn status(&self) -> Result<Status, StatusError> {
        let info = self.status_json().await.and_then(|json| api::parse_checked(&json));
        Ok(Status { info: info.map_err(StatusErrorKind::error)?, bucket: self.name.clone() })
    }

    /// [`status`](Self::status) as the stream info's JSON.
    pub async fn status_json(&self) -> Result<Bytes, Error> {
        self.context.request_json(&api::stream_info(self.context.api_prefix(), &self.stream_name)?, b"").await
    }

    /// Puts `value` at `key`; the new revision.
    pub async fn put<T: AsRef<str>>(&self, key: T, value: Bytes) -> Result<u64, PutError> {
        self.write(key.as_ref(), value, Publish::build()).await.map_err(PutErrorKind::error)
    }

    /// Puts `value` at `key` if the key has no value: never written, or
    /// deleted or purged since.
    pub async fn create<T: AsRef<str>>(&self, key: T, value: Bytes) -> Result<u64, CreateError> {
        self.create_with(key.as_ref(), value, Publish::build()).await
    }

    /// [`create`](Self::create), and the value lives for `ttl` (the bucket
    /// needs [`limit_markers`](super::Config::limit_markers)).
    pub async fn create_with_ttl<T: AsRef<str>>(
        &self,
        key: T,
        value: Bytes,
        ttl: Duration,
    ) -> Result<u64, CreateError> {
        self.create_with(key.as_ref(), value, Publish::build().ttl(ttl)).await
    }

    /// A create with the extra headers of `with` (a TTL): the core's
    /// procedure (`core::kv::create`), pumped over the context.
    pub(crate) async fn create_with(&self, key: &str, value: Bytes, with: Publish) -> Result<u64, CreateError> {
        let target = self.create_target(key, value.len()).map_err(CreateErrorKind::error)?;
        let mut pump = Pump::new(self.context.clone(), KvCreate::new(target, value, with));
        let created = std::future::poll_fn(|cx| pump.poll_item(cx)).await;
        match created {
            Some(Ok(revision)) => Ok(revision),
            Some(Err(e)) if pump.procedure().already_exists() => Err(KindError::new(CreateErrorKind::AlreadyExists, e)),
            Some(Err(e)) => Err(CreateErrorKind::error(e)),
            None => Err(CreateErrorKind::error(Error::Other("the create ended without a revision".into()))),
        }
    }

    /// What a create of `key`, `len` bytes long, writes and reads.
    pub(crate) fn create_target(&self, key: &str, len: usize) -> Result<CreateTarget, Error> {
        Ok(CreateTarget {
            bucket: self.name.clone(),
            key: key.to_string(),
            write_subject: self.subject_for(key, len)?,
            subject: self.subjects.read(key),
            stream: self.stream_name.clone(),
            direct: self.direct,
        })
    }

    /// Puts `value` at `key` if the key's last revision is `revision`.
    pub async fn update<T: AsRef<str>>(&self, key: T, value: Bytes, revision: u64) -> Result<u64, UpdateError> {
        let expected = Publish::build().expected_last_subject_sequence(revision);
        self.write(key.as_ref(), value, expected).await.map_err(UpdateErrorKind::error)
    }

    /// Marks `key` deleted; its history stays until it ages out.
    pub async fn delete<T: AsRef<str>>(&self, key: T) -> Result<(), DeleteError> {
        self.delete_expect_revision(key, None).await
    }

    /// [`delete`](Self::delete) if the key's last revision is `revison`.
    pub async fn delete_expect_revision<T: AsRef<str>>(&self, key: T, revison: Option<u64>) -> Result<(), DeleteError> {
        self.remove(key.as_ref(), Operation::Delete, revison, Publish::build()).await
    }

    /// Removes every revision of `key`, leaving one purge marker.
    pub async fn purge<T: AsRef<str>>(&self, key: T) -> Result<(), PurgeError> {
        self.purge_expect_revision(key, None).await
    }

    /// [`purge`](Self::purge), and the marker lives for `ttl`.
    pub async fn purge_with_ttl<T: AsRef<str>>(&self, key: T, ttl: Duration) -> Result<(), PurgeError> {
        self.remove(key.as_ref(), Operation::Purge, None, Publish::build().ttl(ttl)).await
    }

    /// [`purge`](Self::purge) if the key's last revision is `revision`.
    pub async fn purge_expect_revision<T: AsRef<str>>(&self, key: T, revision: Option<u64>) -> Result<(), PurgeError> {
        self.remove(key.as_ref(), Operation::Purge, revision, Publish::build()).await
    }

    /// [`purge_with_ttl`](Self::purge_with_ttl) if the key's last revision is `revision`.
    pub async fn purge_expect_revision_with_ttl<T: AsRef<str>>(
        &self,
        key: T,
        revision: u64,
        ttl: Duration,
    ) -> Result<(), PurgeError> {
        self.remove(key.as_ref(), Operation::Purge, Some(revision), Publish::build().ttl(ttl)).await
    }

    /// Writes a delete or purge marker, with the extra headers of `with`.
    pub(crate) async fn remove(
        &self,
        key: &str,
        operation: Operation,
        revision: Option<u64>,
        with: Publish,
    ) -> Result<(), UpdateError> {
        self.write(key, Bytes::new(), marker(operation, revision, with)).await.map(drop).map_err(UpdateErrorKind::error)
    }

    /// Publishes `value` with the headers of `publish` to `key`; the revision.
    pub(crate) async fn write(&self, key: &str, value: Bytes, publish: Publish) -> Result<u64, Error> {
        let subject = self.subject_for(key, value.len())?;
        let ack = self.context.send_publish(subject, publish.payload(value)).await?.await?;
        Ok(ack.sequence)
    }

    /// The subject of a write of `len` bytes at `key`, checked (JS sends
    /// the write with the JetStream API's publish).
    pub(crate) fn subject_for(&self, key: &str, len: usize) -> Result<String, Error> {
        check_key(key)?;
        if let Some(max) = self.max_value_size.filter(|&max| len > max) {
            return Err(Error::JetStream(JetStreamError {
                code: 400,
                err_code: ErrorCode::STREAM_MESSAGE_EXCEEDS_MAXIMUM,
                description: format!("value of {len} bytes exceeds the bucket's max_value_size of {max}"),
            }));
        }
        Ok(self.subjects.write(key))
    }

    /// The value of `key`; `None` when it has none (never put, deleted or purged).
    pub async fn get<T: Into<String>>(&self, key: T) -> Result<Option<Bytes>, EntryError> {
        Ok(self.entry(key).await?.filter(|e| e.operation == Operation::Put).map(|e| e.value))
    }

    /// The latest entry of `key`, a delete or purge marker included.
    pub async fn entry<T: Into<String>>(&self, key: T) -> Result<Option<Entry>, EntryError> {
        let entry = self.entry_at(&key.into(), None).await.map_err(EntryErrorKind::error)?;
        Ok(entry.map(|(entry, _)| entry))
    }

    /// The entry of `key` at `revision`; `None` when that revision is
    /// another key's or gone.
    pub async fn entry_for_revision<T: Into<String>>(
        &self,
        key: T,
        revision: u64,
    ) -> Result<Option<Entry>, EntryError> {
        let entry = self.entry_at(&key.into(), Some(revision)).await.map_err(EntryErrorKind::error)?;
        Ok(entry.map(|(entry, _)| entry))
    }

    /// The entry of `key`, the latest or at `revision`, and its value's size.
    pub(crate) async fn entry_at(&self, key: &str, revision: Option<u64>) -> Result<Option<(Entry, usize)>, Error> {
        check_key(key)?;
        if revision == Some(0) {
            // Revisions start at 1; the server calls a get of 0 a bad request.
            return Ok(None);
        }
        let subject = self.subjects.read(key);
        let request = match revision {
            Some(seq) => MsgGetRequest { seq: Some(seq), ..MsgGetRequest::default() },
            None => MsgGetRequest { last_by_subj: Some(subject.clone()), ..MsgGetRequest::default() },
        };
        let found = self.context.stored_message(&self.stream_name, self.direct, &request).await;
        let message = match found {
            Err(Error::JetStream(e)) if e.err_code == ErrorCode::NO_MESSAGE_FOUND => return Ok(None),
            found => found?,
        };
        Ok(stored_entry(&self.name, key, &subject, message))
    }

    /// Changes of `key` (wildcards allowed) from now on.
    pub async fn watch<T: AsRef<str>>(&self, key: T) -> Result<Watch, WatchError> {
        self.watch_with([key], updates_only()).await
    }

    /// Changes of `keys` from now on.
    pub async fn watch_many<T: AsRef<str>, K: IntoIterator<Item = T>>(&self, keys: K) -> Result<Watch, WatchError> {
        self.watch_with(keys, updates_only()).await
    }

    /// The latest entry of every key matching `key`, then its changes.
    pub async fn watch_with_history<T: AsRef<str>>(&self, key: T) -> Result<Watch, WatchError> {
        self.watch_with([key], WatchOptions::default()).await
    }

    /// The latest entry of every key matching `keys`, then their changes.
    pub async fn watch_many_with_history<T: AsRef<str>, K: IntoIterator<Item = T>>(
        &self,
        keys: K,
    ) -> Result<Watch, WatchError> {
        self.watch_with(keys, WatchOptions::default()).await
    }

    /// Entries of `key` from `revision` on, then its changes.
    pub async fn watch_from_revision<T: AsRef<str>>(&self, key: T, revision: u64) -> Result<Watch, WatchError> {
        self.watch_with([key], from_revision(revision)).await
    }

    /// Changes of every key from now on.
    pub async fn watch_all(&self) -> Result<Watch, WatchError> {
        self.watch(ALL_KEYS).await
    }

    /// Entries of every key from `revision` on, then their changes.
    pub async fn watch_all_from_revision(&self, revision: u64) -> Result<Watch, WatchError> {
        self.watch_from_revision(ALL_KEYS, revision).await
    }

    /// A watch of `keys` (wildcards allowed) with nats.go's options: all
    /// history, last values or updates only, without deletes, headers
    /// only, or from a revision.
    pub async fn watch_with<T: AsRef<str>, K: IntoIterator<Item = T>>(
        &self,
        keys: K,
        options: WatchOptions,
    ) -> Result<Watch, WatchError> {
        Watch::open(self, keys, options).await
    }

    /// Every kept revision of `key` (wildcards allowed), oldest first, then the end.
    pub async fn history<T: AsRef<str>>(&self, key: T) -> Result<History, HistoryError> {
        History::open(self, [key], all_history(false)).await
    }

    /// The history of `keys`; with `meta_only`, entries without values.
    pub async fn history_with<T: AsRef<str>, K: IntoIterator<Item = T>>(
        &self,
        keys: K,
        meta_only: bool,
    ) -> Result<History, HistoryError> {
        History::open(self, keys, all_history(meta_only)).await
    }

    /// The keys that hold a value, then the end.
    pub async fn keys(&self) -> Result<Keys, HistoryError> {
        Keys::open(self, [ALL_KEYS]).await
    }

    /// The keys matching any of `filters` (wildcards allowed) that hold a
    /// value, as nats.go's `ListKeysFiltered`.
    pub async fn keys_filtered<T: AsRef<str>, K: IntoIterator<Item = T>>(
        &self,
        filters: K,
    ) -> Result<Keys, HistoryError> {
        Keys::open(self, filters).await
    }

    /// Removes the history of deleted and purged keys: a marker older than
    /// `older_than` goes with everything before it, a newer one stays as
    /// the key's only message (nats.go's `PurgeDeletes`; nats.js waits 30
    /// minutes). Returns how many messages were removed.
    pub async fn purge_deletes(&self, older_than: Duration) -> Result<u64, PurgeError> {
        let last_values = WatchOptions { meta_only: true, ..WatchOptions::default() };
        let last = History::open(self, [ALL_KEYS], last_values).await;
        let mut markers = last.map_err(|e| UpdateErrorKind::error(e.into_cause()))?;
        let limit = DefaultRuntime::wall_clock().checked_sub(older_than);
        let mut purged = 0;
        while let Some(entry) = std::future::poll_fn(|cx| markers.poll_entry(cx)).await {
            let (entry, _) = entry.map_err(UpdateErrorKind::error)?;
            if entry.operation == Operation::Put {
                continue;
            }
            let keep = limit.is_some_and(|limit| entry.created > limit);
            purged += self.purge_subject(&entry.key, u64::from(keep)).await.map_err(UpdateErrorKind::error)?;
        }
        Ok(purged)
    }

    /// Removes `key`'s messages but the newest `keep`; how many went.
    async fn purge_subject(&self, key: &str, keep: u64) -> Result<u64, Error> {
        let request = PurgeRequest { filter: Some(self.subjects.read(key)), keep: Some(keep), seq: None };
        let call = api::stream_purge(self.context.api_prefix(), &self.stream_name)?;
        let reply = self.context.request_json(&call, &encode_request(&request)?).await?;
        Ok(api::parse_checked_plain::<PurgeResponse>(&reply)?.purged)
    }
}

fn updates_only() -> WatchOptions {
    WatchOptions { include: WatchInclude::UpdatesOnly, ..WatchOptions::default() }
}

fn all_history(meta_only: bool) -> WatchOptions {
    WatchOptions { include: WatchInclude::AllHistory, meta_only, ..WatchOptions::default() }
}

fn from_revision(revision: u64) -> WatchOptions {
    WatchOptions { resume_from_revision: Some(revision), ..WatchOptions::default() }
}
