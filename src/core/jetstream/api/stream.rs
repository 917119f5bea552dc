//! Stream configuration, state and the bodies of the `STREAM.*` calls
//! (`server/stream.go`, `server/store.go`, `server/jetstream_api.go`).
//!
//! Every optional field is left out of the JSON while it holds its default,
//! so a config that uses no new feature is accepted by older servers, and the
//! server fills in its own defaults (`-1` for "unlimited", one replica, file
//! storage). Times are the server's RFC 3339 strings; see [`super::timestamp`].

use std::collections::HashMap;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::error::JetStreamError;
use super::{is_default, null_as_default, serde_nanos};

/// A stream's configuration, as sent to `STREAM.CREATE` / `STREAM.UPDATE`
/// and returned in [`StreamInfo`]. Limits left at 0 mean "unlimited".
/// Fields have async-nats's names (`stream::Config`); the wire's are in
/// the `serde` renames.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamConfig {
    /// The stream's name: no whitespace, `.`, `*`, `>`, `/` or `\`. Used in every
    /// `STREAM.*` subject; it cannot change.
    pub name: String,
    /// A short description, shown in stream info.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Subjects stored; empty means the stream's name (or none for a mirror).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub subjects: Vec<String>,
    /// When stored messages are removed (default [`RetentionPolicy::Limits`]).
    #[serde(skip_serializing_if = "is_default")]
    pub retention: RetentionPolicy,
    /// Most consumers the stream accepts; 0 (left out) or -1 means unlimited.
    #[serde(skip_serializing_if = "is_default")]
    pub max_consumers: i32,
    /// Most messages kept (`max_msgs`); past it the [`discard`](Self::discard)
    /// policy applies. 0 (left out) or -1 means unlimited.
    #[serde(rename = "max_msgs", skip_serializing_if = "is_default")]
    pub max_messages: i64,
    /// Most bytes kept; past it the [`discard`](Self::discard) policy applies.
    /// 0 (left out) or -1 means unlimited.
    #[serde(skip_serializing_if = "is_default")]
    pub max_bytes: i64,
    /// Messages older than this are removed (nanoseconds on the wire); zero
    /// means kept forever.
    #[serde(skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub max_age: Duration,
    /// Most messages kept per subject (`max_msgs_per_subject`); a KV bucket's
    /// history. 0 (left out) or -1 means unlimited.
    #[serde(rename = "max_msgs_per_subject", skip_serializing_if = "is_default")]
    pub max_messages_per_subject: i64,
    /// Largest message accepted, in bytes (`max_msg_size`); 0 (left out) or -1
    /// means the server's `max_payload` is the only bound.
    #[serde(rename = "max_msg_size", skip_serializing_if = "is_default")]
    pub max_message_size: i32,
    /// What happens when a limit is reached (default [`DiscardPolicy::Old`]).
    #[serde(skip_serializing_if = "is_default")]
    pub discard: DiscardPolicy,
    /// With [`DiscardPolicy::New`], apply `max_messages_per_subject` per subject too.
    #[serde(skip_serializing_if = "is_default")]
    pub discard_new_per_subject: bool,
    /// Where messages are kept (default [`StorageType::File`]).
    #[serde(skip_serializing_if = "is_default")]
    pub storage: StorageType,
    /// 0 lets the server pick (1).
    #[serde(skip_serializing_if = "is_default")]
    pub num_replicas: usize,
    /// The server does not answer publishes with a publish ack.
    #[serde(skip_serializing_if = "is_default")]
    pub no_ack: bool,
    /// Window for `Nats-Msg-Id` de-duplication; 0 lets the server pick (2 min).
    #[serde(skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub duplicate_window: Duration,
    /// Which servers of a cluster hold the replicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    /// Makes this stream a read-only mirror of another stream; a mirror has no
    /// `subjects` of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mirror: Option<Source>,
    /// Streams whose messages are copied into this one, alongside its own
    /// subjects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<Source>>,
    /// Seals the stream: no message can be added, deleted or purged any more.
    /// Only set by an update, and cannot be undone.
    #[serde(skip_serializing_if = "is_default")]
    pub sealed: bool,
    /// Refuses `STREAM.MSG.DELETE`; once set, an update cannot clear it.
    #[serde(skip_serializing_if = "is_default")]
    pub deny_delete: bool,
    /// Refuses `STREAM.PURGE`; once set, an update cannot clear it.
    #[serde(skip_serializing_if = "is_default")]
    pub deny_purge: bool,
    /// Honour `Nats-Rollup` headers.
    #[serde(rename = "allow_rollup_hdrs", skip_serializing_if = "is_default")]
    pub allow_rollup: bool,
    /// Answer `DIRECT.GET` from any replica.
    #[serde(skip_serializing_if = "is_default")]
    pub allow_direct: bool,
    /// Let a mirror answer direct gets for its origin.
    #[serde(skip_serializing_if = "is_default")]
    pub mirror_direct: bool,
    /// Republishes each stored message to another subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub republish: Option<Republish>,
    /// How file storage is compressed; `None` (left out) keeps the server's
    /// default, which is no compression (server 2.10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<Compression>,
    /// Sequence of the first message of a new stream (default 1).
    #[serde(rename = "first_seq", skip_serializing_if = "Option::is_none")]
    pub first_sequence: Option<u64>,
    /// Rewrites the subject of each incoming message before it is stored
    /// (server 2.10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject_transform: Option<SubjectTransform>,
    /// Free-form key/value pairs (server 2.10). Keys starting with `_nats.` are
    /// the server's own (2.11 sets `_nats.ver`, `_nats.level`, `_nats.req.level`).
    #[serde(skip_serializing_if = "HashMap::is_empty", deserialize_with = "null_as_default")]
    pub metadata: HashMap<String, String>,
    /// Defaults for the stream's consumers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumer_limits: Option<ConsumerLimits>,
    /// Honour per-message `Nats-TTL` (server 2.11).
    #[serde(rename = "allow_msg_ttl", skip_serializing_if = "is_default")]
    pub allow_message_ttl: bool,
    /// Leave a delete marker with this TTL when limits remove a subject's last message (2.11).
    #[serde(skip_serializing_if = "Option::is_none", with = "serde_nanos::option")]
    pub subject_delete_marker_ttl: Option<Duration>,
    /// Counter stream: `Nats-Incr` (2.12).
    #[serde(rename = "allow_msg_counter", skip_serializing_if = "is_default")]
    pub allow_message_counter: bool,
    /// Atomic batch publish (2.12).
    #[serde(rename = "allow_atomic", skip_serializing_if = "is_default")]
    pub allow_atomic_publish: bool,
    /// `Nats-Schedule` messages (2.12).
    #[serde(rename = "allow_msg_schedules", skip_serializing_if = "is_default")]
    pub allow_message_schedules: bool,
    /// Fast-ingest batch publish (2.14).
    #[serde(rename = "allow_batched", skip_serializing_if = "is_default")]
    pub allow_batch_publish: bool,
    /// Whether writes are flushed before the publish ack (server 2.12); `None`
    /// (left out) means [`PersistenceMode::Default`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persist_mode: Option<PersistenceMode>,
    /// Set by the server on streams it made from a template (deprecated).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub template_owner: String,
}

/// When messages leave the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RetentionPolicy {
    /// Only limits (age, count, size) remove messages.
    #[default]
    Limits,
    /// Removed once every consumer interested in it has acked.
    Interest,
    /// Removed once acked by the one consumer that got it.
    #[serde(rename = "workqueue")]
    WorkQueue,
}

/// What to drop when a limit is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiscardPolicy {
    /// Remove the oldest messages to make room (the default).
    #[default]
    Old,
    /// Refuse the new message instead.
    New,
}

/// Where a stream keeps its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageType {
    /// On disk (the default).
    #[default]
    File,
    /// In memory only: faster, lost when the server restarts.
    Memory,
}

/// Compression of a stream's file storage (`"none"`, `"s2"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// No compression.
    #[default]
    None,
    /// S2 compression of the stored blocks.
    S2,
}

/// Whether a publish is acked before (`async`) or after the write is flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PersistenceMode {
    /// Flush each write before the publish ack (`"default"`).
    #[default]
    #[serde(alias = "")]
    Default,
    /// Ack before the write is flushed (`"async"`): faster, but a hard kill of
    /// the server can lose acked messages.
    Async,
}

/// Where a clustered stream's replicas go.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Placement {
    /// Only servers of this cluster.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// Only servers that carry every one of these tags.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub tags: Vec<String>,
    /// Preferred leader (server name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preferred: Option<String>,
}

/// A stream this stream mirrors or sources from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Source {
    /// The origin stream's name.
    pub name: String,
    /// First sequence of the origin to copy (`opt_start_seq`).
    #[serde(rename = "opt_start_seq", skip_serializing_if = "Option::is_none")]
    pub start_sequence: Option<u64>,
    /// RFC 3339 ([`super::timestamp`]).
    #[serde(rename = "opt_start_time", skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    /// Copy only messages whose subject matches this (wildcards allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_subject: Option<String>,
    /// Copy only messages matching these transforms' sources, renamed to their
    /// destinations (server 2.10; exclusive with `filter_subject`).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub subject_transforms: Vec<SubjectTransform>,
    /// The origin lives in another account or domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<External>,
    /// Source through this durable consumer on the origin (server 2.15).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumer: Option<StreamConsumerSource>,
}

/// The durable consumer a mirror or source reads the origin through.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamConsumerSource {
    /// The durable consumer's name on the origin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Subject the origin's push consumer delivers to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deliver_subject: Option<String>,
}

/// API and delivery prefixes that reach a stream in another account or domain.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct External {
    /// e.g. `$JS.hub.API`.
    #[serde(rename = "api")]
    pub api_prefix: String,
    /// Prefix of the delivery subjects the origin's account exports
    /// (`deliver`).
    #[serde(rename = "deliver", skip_serializing_if = "Option::is_none")]
    pub delivery_prefix: Option<String>,
}

/// Rewrites subjects matching `source` to `destination`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SubjectTransform {
    /// Subject filter the transform applies to (`src`, wildcards allowed).
    #[serde(rename = "src")]
    pub source: String,
    /// The new subject (`dest`); `{{wildcard(1)}}`-style tokens take the
    /// source's wildcard tokens.
    #[serde(rename = "dest")]
    pub destination: String,
}

/// Republishes every stored message matching `source` to `destination`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Republish {
    /// Subjects to republish (`src`); empty means every stored message.
    #[serde(rename = "src", skip_serializing_if = "String::is_empty")]
    pub source: String,
    /// Subject to republish to (`dest`), which may use the same mapping tokens
    /// as a subject transform.
    #[serde(rename = "dest")]
    pub destination: String,
    /// Republish only the headers (the size goes in a `Nats-Msg-Size` header),
    /// not the payload.
    #[serde(skip_serializing_if = "is_default")]
    pub headers_only: bool,
}

/// Defaults applied to consumers that do not set these themselves.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerLimits {
    /// Default and maximum `inactive_threshold` of the stream's consumers
    /// (zero: none).
    #[serde(skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub inactive_threshold: Duration,
    /// Default and maximum `max_ack_pending` of the stream's consumers
    /// (0: none).
    #[serde(skip_serializing_if = "is_default")]
    pub max_ack_pending: i64,
}

/// `STREAM.INFO`, `STREAM.CREATE` and `STREAM.UPDATE` reply.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamInfo {
    /// The configuration in force, with the server's defaults filled in.
    pub config: StreamConfig,
    /// When the stream was created (RFC 3339).
    pub created: String,
    /// Message counts, sequences and sizes right now.
    pub state: StreamState,
    /// The JetStream domain the stream lives in, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The stream's Raft group, when clustered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterInfo>,
    /// Progress of the stream's mirror, if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mirror: Option<SourceInfo>,
    /// Progress of each source.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub sources: Vec<SourceInfo>,
    /// Mirrors that can answer for this stream.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub alternates: Vec<StreamAlternate>,
    /// When the server gathered this info.
    #[serde(rename = "ts", skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// What a stream holds right now. Times are `0001-01-01T00:00:00Z` while empty.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamState {
    /// Messages stored.
    pub messages: u64,
    /// Bytes stored.
    pub bytes: u64,
    /// Lowest sequence still stored (`first_seq`).
    #[serde(rename = "first_seq")]
    pub first_sequence: u64,
    /// When the first stored message arrived (`first_ts`, RFC 3339).
    #[serde(rename = "first_ts")]
    pub first_timestamp: String,
    /// Highest sequence assigned so far (`last_seq`), even if since removed.
    #[serde(rename = "last_seq")]
    pub last_sequence: u64,
    /// When the last message arrived (`last_ts`, RFC 3339).
    #[serde(rename = "last_ts")]
    pub last_timestamp: String,
    /// Distinct subjects stored (`num_subjects`).
    #[serde(rename = "num_subjects", skip_serializing_if = "is_default")]
    pub subjects_count: u64,
    /// Message count per subject, only when asked for with `subjects_filter`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subjects: Option<HashMap<String, u64>>,
    /// Messages deleted between the first and last sequence (`num_deleted`).
    #[serde(rename = "num_deleted", skip_serializing_if = "Option::is_none")]
    pub deleted_count: Option<u64>,
    /// The deleted sequences, only when asked for with `deleted_details`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<Vec<u64>>,
    /// Messages the server found corrupt or missing on recovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<LostStreamData>,
    /// Consumers on the stream.
    pub consumer_count: usize,
}

/// Messages lost on the server (found corrupt or missing when it recovered
/// its store).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LostStreamData {
    /// Sequences of the lost messages.
    #[serde(deserialize_with = "null_as_default")]
    pub msgs: Vec<u64>,
    /// Bytes lost.
    pub bytes: u64,
}

/// The Raft group behind a stream or consumer.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ClusterInfo {
    /// The cluster's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The Raft group's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raft_group: Option<String>,
    /// The server leading the group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<String>,
    /// When the leader took over (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_since: Option<String>,
    /// The other members of the group.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub replicas: Vec<PeerInfo>,
}

/// A replica other than the leader.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PeerInfo {
    /// The server's name.
    pub name: String,
    /// Caught up with the leader.
    pub current: bool,
    /// The group has not heard from it recently.
    #[serde(skip_serializing_if = "is_default")]
    pub offline: bool,
    /// Time since it was last seen.
    #[serde(with = "serde_nanos")]
    pub active: Duration,
    /// Raft operations it is behind the leader.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lag: Option<u64>,
}

/// Progress of a mirror or source.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceInfo {
    /// The origin stream's name.
    pub name: String,
    /// How the origin is reached, when it lives in another account or domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<External>,
    /// Messages behind the origin.
    pub lag: u64,
    /// Time since the last message from the origin; `None` if never.
    #[serde(with = "serde_nanos::option")]
    pub active: Option<Duration>,
    /// Why the server cannot copy from the origin right now, if it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<JetStreamError>,
    /// The filter the mirror or source was configured with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_subject: Option<String>,
    /// The transforms the mirror or source was configured with.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub subject_transforms: Vec<SubjectTransform>,
}

/// A mirror that can serve reads for a stream.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamAlternate {
    /// The mirror's name.
    pub name: String,
    /// The mirror's JetStream domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The cluster the mirror is in.
    pub cluster: String,
}

/// `STREAM.PURGE` body. `seq` (purge below it) and `keep` exclude each other.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PurgeRequest {
    /// Only subjects matching this (wildcards allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Purge messages with a lower sequence (exclusive upper bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// Keep this many newest messages (per matching subject with `filter`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep: Option<u64>,
}

/// `STREAM.PURGE` reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PurgeResponse {
    /// Always `true` in a reply that is not an error.
    pub success: bool,
    /// Messages removed.
    pub purged: u64,
}

/// Reply to `STREAM.DELETE`, `CONSUMER.DELETE` and `STREAM.MSG.DELETE`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DeleteResponse {
    /// Always `true` in a reply that is not an error.
    pub success: bool,
}

/// `STREAM.INFO` body: details to add to the info. The subject counts come
/// a page at a time (the server sends at most 100 000 per reply):
/// [`Stream::info_with`](crate::jetstream::stream::Stream::info_with) asks
/// for every page and merges them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamInfoRequest {
    /// Fill `state.deleted` with the sequences of deleted messages.
    #[serde(skip_serializing_if = "is_default")]
    pub deleted_details: bool,
    /// Fill `state.subjects` with the message count of each subject matching
    /// this filter (wildcards allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subjects_filter: Option<String>,
    /// Subjects to skip: the paging position.
    #[serde(skip_serializing_if = "is_default")]
    pub offset: usize,
}

/// `STREAM.NAMES` (and `STREAM.LIST`) body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamNamesRequest {
    /// Names to skip: the paging position.
    #[serde(skip_serializing_if = "is_default")]
    pub offset: usize,
    /// Only streams that store this subject (wildcards allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

/// One page of stream names; ask again with `offset + streams.len()` while below `total`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamNamesResponse {
    /// Streams that match, over all pages.
    pub total: usize,
    /// Where this page starts.
    pub offset: usize,
    /// Most names the server puts in one page.
    pub limit: usize,
    /// This page's names.
    #[serde(deserialize_with = "null_as_default")]
    pub streams: Vec<String>,
}

/// One page of `STREAM.LIST`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamListResponse {
    /// Streams that match, over all pages.
    pub total: usize,
    /// Where this page starts.
    pub offset: usize,
    /// Most streams the server puts in one page.
    pub limit: usize,
    /// This page's streams.
    #[serde(deserialize_with = "null_as_default")]
    pub streams: Vec<StreamInfo>,
    /// Streams the server could not reach in time (clustered).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub missing: Vec<String>,
    /// Offline streams and why.
    #[serde(skip_serializing_if = "HashMap::is_empty", deserialize_with = "null_as_default")]
    pub offline: HashMap<String, String>,
}

/// Body of `STREAM.MSG.GET` and `DIRECT.GET`: set exactly one of `seq`,
/// `last_by_subj`, `next_by_subj` (with `seq` as the start), or the batch
/// fields that only direct get honours.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MsgGetRequest {
    /// The message with this sequence; with `next_by_subj`, the first at or
    /// after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// The last message on this subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_by_subj: Option<String>,
    /// The first message on this subject (wildcards allowed) at or after `seq`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_by_subj: Option<String>,
    /// Direct get only: up to this many messages, ending with a 204 `EOB`
    /// status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<usize>,
    /// Direct get only: stop a batch once this many bytes are sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<usize>,
    /// Direct get only: start at the first message at or after this time
    /// (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    /// Last message of each of these subjects (at most 1024).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub multi_last: Vec<String>,
    /// Direct get only, with `multi_last`: as of this sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up_to_seq: Option<u64>,
    /// Direct get only, with `multi_last`: as of this time (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up_to_time: Option<String>,
    /// Leave headers out of the reply.
    #[serde(skip_serializing_if = "is_default")]
    pub no_hdr: bool,
}

/// `STREAM.MSG.GET` reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MsgGetResponse {
    /// The message read.
    pub message: StoredMessage,
}

/// A message read back from a stream. `hdrs` and `data` are base64 on the
/// wire and decoded here; `hdrs` is the raw `NATS/1.0\r\n…` block, to be
/// parsed with the protocol's header parser.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredMessage {
    /// The subject it was published to.
    pub subject: String,
    /// Its stream sequence.
    pub seq: u64,
    /// Its raw header block, if it has headers.
    #[serde(skip_serializing_if = "Option::is_none", with = "base64_option")]
    pub hdrs: Option<Bytes>,
    /// Its payload.
    #[serde(skip_serializing_if = "Bytes::is_empty", with = "base64_bytes")]
    pub data: Bytes,
    /// When the stream stored it (RFC 3339).
    pub time: String,
}

/// `STREAM.MSG.DELETE` body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MsgDeleteRequest {
    /// Sequence of the message to delete.
    pub seq: u64,
    /// Only mark deleted; skip overwriting the bytes on disk.
    #[serde(skip_serializing_if = "is_default")]
    pub no_erase: bool,
}

fn decode_base64<E: serde::de::Error>(text: &str) -> Result<Bytes, E> {
    STANDARD.decode(text).map(Bytes::from).map_err(E::custom)
}

mod base64_bytes {
    use super::*;

    pub fn serialize<S: Serializer>(b: &Bytes, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(b))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(text) => decode_base64(&text),
            None => Ok(Bytes::new()),
        }
    }
}

mod base64_option {
    use super::*;

    pub fn serialize<S: Serializer>(b: &Option<Bytes>, s: S) -> Result<S::Ok, S::Error> {
        b.as_ref().map(|b| STANDARD.encode(b)).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Bytes>, D::Error> {
        Option::<String>::deserialize(d)?.map(|text| decode_base64(&text)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::parse_response;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn minimal_config_is_just_the_name() {
        let cfg = StreamConfig { name: "ORDERS".into(), ..Default::default() };
        assert_eq!(serde_json::to_string(&cfg).unwrap(), r#"{"name":"ORDERS"}"#);
    }

    #[test]
    fn kv_like_config_serializes_server_names() {
        let cfg = StreamConfig {
            name: "KV_cfg".into(),
            subjects: vec!["$KV.cfg.>".into()],
            max_messages_per_subject: 5,
            max_age: Duration::from_secs(60),
            duplicate_window: Duration::from_secs(60),
            discard: DiscardPolicy::New,
            storage: StorageType::Memory,
            retention: RetentionPolicy::WorkQueue,
            num_replicas: 3,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            compression: Some(Compression::S2),
            allow_message_ttl: true,
            subject_delete_marker_ttl: Some(Duration::from_secs(5)),
            consumer_limits: Some(ConsumerLimits { max_ack_pending: 100, ..Default::default() }),
            sources: Some(vec![Source {
                name: "KV_up".into(),
                subject_transforms: vec![SubjectTransform {
                    source: "$KV.up.>".into(),
                    destination: "$KV.cfg.>".into(),
                }],
                external: Some(External { api_prefix: "$JS.hub.API".into(), delivery_prefix: None }),
                consumer: Some(StreamConsumerSource { name: Some("kv-src".into()), deliver_subject: None }),
                ..Default::default()
            }]),
            ..Default::default()
        };
        let json: serde_json::Value = serde_json::to_value(&cfg).unwrap();
        let expected = serde_json::json!({
            "name": "KV_cfg",
            "subjects": ["$KV.cfg.>"],
            "retention": "workqueue",
            "max_age": 60_000_000_000i64,
            "max_msgs_per_subject": 5,
            "discard": "new",
            "storage": "memory",
            "num_replicas": 3,
            "duplicate_window": 60_000_000_000i64,
            "sources": [{
                "name": "KV_up",
                "subject_transforms": [{"src": "$KV.up.>", "dest": "$KV.cfg.>"}],
                "external": {"api": "$JS.hub.API"},
                "consumer": {"name": "kv-src"}
            }],
            "deny_delete": true,
            "allow_rollup_hdrs": true,
            "allow_direct": true,
            "compression": "s2",
            "consumer_limits": {"max_ack_pending": 100},
            "allow_msg_ttl": true,
            "subject_delete_marker_ttl": 5_000_000_000i64
        });
        assert_eq!(json, expected);
        let back: StreamConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, cfg);
    }

    // Shaped like nats-server 2.15's reply to STREAM.INFO.
    const STREAM_INFO: &str = r#"{
        "type": "io.nats.jetstream.api.v1.stream_info_response",
        "total": 0, "offset": 0, "limit": 0,
        "config": {
            "name": "ORDERS", "subjects": ["orders.>"], "retention": "limits",
            "max_consumers": -1, "max_msgs": -1, "max_bytes": -1, "max_age": 0,
            "max_msgs_per_subject": -1, "max_msg_size": -1, "discard": "old",
            "storage": "file", "num_replicas": 1, "duplicate_window": 120000000000,
            "compression": "none", "allow_direct": false, "mirror_direct": false,
            "sealed": false, "deny_delete": false, "deny_purge": false,
            "allow_rollup_hdrs": false, "consumer_limits": {}, "allow_msg_ttl": false,
            "metadata": {"_nats.level": "1", "_nats.ver": "2.15.1", "_nats.req.level": "0"}
        },
        "created": "2026-09-01T10:11:12.123456789Z",
        "state": {
            "messages": 3, "bytes": 150, "first_seq": 1,
            "first_ts": "2026-09-01T10:11:13.000000001Z", "last_seq": 4,
            "last_ts": "2026-09-01T10:11:14Z", "num_subjects": 2,
            "num_deleted": 1, "deleted": [2], "consumer_count": 1
        },
        "cluster": {"name": "c1", "leader": "n1", "leader_since": "2026-09-01T10:11:12Z",
            "replicas": [{"name": "n2", "current": true, "active": 1500000, "peer": "abc"}]},
        "sources": [{"name": "UP", "lag": 0, "active": -1,
            "error": {"code": 503, "err_code": 10035, "description": "account not found"}}],
        "ts": "2026-09-01T10:12:00Z"
    }"#;

    #[test]
    fn stream_info_from_server_json() {
        let info: StreamInfo = parse_response(STREAM_INFO.as_bytes()).unwrap();
        assert_eq!(info.config.name, "ORDERS");
        assert_eq!(info.config.max_messages, -1);
        assert_eq!(info.config.duplicate_window, Duration::from_secs(120));
        assert_eq!(info.config.metadata["_nats.ver"], "2.15.1");
        assert_eq!(info.created, "2026-09-01T10:11:12.123456789Z");
        assert_eq!(info.state.messages, 3);
        assert_eq!(info.state.last_sequence, 4);
        assert_eq!(info.state.deleted.unwrap(), [2]);
        assert_eq!(info.state.consumer_count, 1);
        assert_eq!(info.state.subjects, None);
        let cluster = info.cluster.unwrap();
        assert_eq!(cluster.leader.as_deref(), Some("n1"));
        assert_eq!(cluster.replicas[0].active, Duration::from_micros(1500));
        assert_eq!(info.sources[0].active, None);
        assert_eq!(info.sources[0].error.as_ref().unwrap().code, 503);
        assert_eq!(info.timestamp.as_deref(), Some("2026-09-01T10:12:00Z"));
    }

    #[test]
    fn names_and_list_pages() {
        let names: StreamNamesResponse = parse_response(
            br#"{"type":"io.nats.jetstream.api.v1.stream_names_response","total":2,"offset":0,"limit":1024,"streams":["A","B"]}"#,
        )
        .unwrap();
        assert_eq!((names.total, names.limit, names.streams.len()), (2, 1024, 2));
        // Go sends `null` for an empty slice.
        let empty: StreamNamesResponse =
            parse_response(br#"{"total":0,"offset":0,"limit":1024,"streams":null}"#).unwrap();
        assert!(empty.streams.is_empty());
        let list: StreamListResponse = parse_response(
            br#"{"total":1,"offset":0,"limit":256,"streams":[{"config":{"name":"A"},"created":"2026-01-01T00:00:00Z","state":{"messages":0,"bytes":0,"first_seq":0,"first_ts":"0001-01-01T00:00:00Z","last_seq":0,"last_ts":"0001-01-01T00:00:00Z","consumer_count":0}}],"missing":["B"]}"#,
        )
        .unwrap();
        assert_eq!(list.streams[0].config.name, "A");
        assert_eq!(list.missing, ["B"]);
        let req = StreamNamesRequest { offset: 0, subject: Some("orders.*".into()) };
        assert_eq!(serde_json::to_string(&req).unwrap(), r#"{"subject":"orders.*"}"#);
    }

    #[test]
    fn purge_and_delete() {
        let req = PurgeRequest { filter: Some("a.>".into()), keep: Some(1), ..Default::default() };
        assert_eq!(serde_json::to_string(&req).unwrap(), r#"{"filter":"a.>","keep":1}"#);
        assert_eq!(
            serde_json::to_string(&PurgeRequest { seq: Some(9), ..Default::default() }).unwrap(),
            r#"{"seq":9}"#
        );
        let resp: PurgeResponse = parse_response(br#"{"type":"x","success":true,"purged":7}"#).unwrap();
        assert_eq!(resp, PurgeResponse { success: true, purged: 7 });
        let del: DeleteResponse = parse_response(br#"{"type":"x","success":true}"#).unwrap();
        assert!(del.success);
        let req = MsgDeleteRequest { seq: 4, no_erase: true };
        assert_eq!(serde_json::to_string(&req).unwrap(), r#"{"seq":4,"no_erase":true}"#);
    }

    #[test]
    fn message_get() {
        let req = MsgGetRequest { last_by_subj: Some("$KV.b.k".into()), ..Default::default() };
        assert_eq!(serde_json::to_string(&req).unwrap(), r#"{"last_by_subj":"$KV.b.k"}"#);
        let req = MsgGetRequest { seq: Some(5), next_by_subj: Some("a.*".into()), ..Default::default() };
        assert_eq!(serde_json::to_string(&req).unwrap(), r#"{"seq":5,"next_by_subj":"a.*"}"#);

        let hdrs = "NATS/1.0\r\nKV-Operation: DEL\r\n\r\n";
        let body = format!(
            r#"{{"type":"io.nats.jetstream.api.v1.stream_msg_get_response","message":{{"subject":"$KV.b.k","seq":12,"hdrs":"{}","data":"{}","time":"2026-09-01T10:11:12.5Z"}}}}"#,
            STANDARD.encode(hdrs),
            STANDARD.encode("hello"),
        );
        let msg = parse_response::<MsgGetResponse>(body.as_bytes()).unwrap().message;
        assert_eq!(msg.subject, "$KV.b.k");
        assert_eq!(msg.seq, 12);
        assert_eq!(msg.hdrs.as_deref(), Some(hdrs.as_bytes()));
        assert_eq!(msg.data, "hello");
        let back: StoredMessage = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
        assert_eq!(back, msg);

        let bare: MsgGetResponse =
            parse_response(br#"{"message":{"subject":"a","seq":1,"time":"2026-09-01T10:11:12Z"}}"#).unwrap();
        assert_eq!((bare.message.hdrs, bare.message.data), (None, Bytes::new()));
        let bad = parse_response::<MsgGetResponse>(br#"{"message":{"subject":"a","seq":1,"data":"!!"}}"#);
        assert!(matches!(bad, Err(crate::core::error::Error::Protocol(_))));
    }
}
