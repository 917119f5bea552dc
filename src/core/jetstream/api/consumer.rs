//! Consumer configuration, state and the bodies of the `CONSUMER.*` calls
//! (`server/consumer.go`, `server/jetstream_api.go`).
//!
//! Defaults follow what a pull consumer shared by many workers needs, not the
//! server's zero values: [`AckPolicy::Explicit`] (the server's zero value is
//! `none`), so `ack_policy` is always sent. Other optional fields are left out
//! while they hold their default so older servers accept the config.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::stream::ClusterInfo;
use super::{is_default, null_as_default, parse_checked_plain, serde_nanos};
use crate::core::error::Error;

/// A consumer's configuration, as sent to `CONSUMER.CREATE` and returned in
/// [`ConsumerInfo`]. With `durable_name` the consumer outlives its clients;
/// with only `name` it is ephemeral and goes after `inactive_threshold`
/// (server default 5 s) without clients. Reading one requires `deliver_policy`.
/// Fields have async-nats's names (`consumer::Config`); the wire's are in
/// the `serde` renames.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ConsumerConfig {
    /// The consumer's name (server 2.9); with neither this nor `durable_name`
    /// the server makes one up. No whitespace, `.`, `*`, `>`, `/` or `\`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Makes the consumer durable under this name: it stays until deleted
    /// (unless `inactive_threshold` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durable_name: Option<String>,
    /// A short description, shown in consumer info.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where delivery starts; `deliver_policy` plus `opt_start_*` on the wire.
    #[serde(flatten)]
    pub deliver_policy: DeliverPolicy,
    /// How delivered messages must be acked (default
    /// [`AckPolicy::Explicit`]; always sent).
    #[serde(default)]
    pub ack_policy: AckPolicy,
    /// Redeliver if not acked within this; 0 lets the server pick (30 s).
    #[serde(default, skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub ack_wait: Duration,
    /// 0 or -1: unlimited.
    #[serde(default, skip_serializing_if = "is_default")]
    pub max_deliver: i64,
    /// Redelivery delays; the first replaces `ack_wait`, the last repeats.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "serde_nanos::vec")]
    pub backoff: Vec<Duration>,
    /// Deliver only messages whose subject matches this (wildcards allowed);
    /// empty means all of the stream's.
    #[serde(default, skip_serializing_if = "String::is_empty", deserialize_with = "null_as_default")]
    pub filter_subject: String,
    /// Several filters (server 2.10); excludes `filter_subject`.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub filter_subjects: Vec<String>,
    /// How fast stored messages are delivered (default
    /// [`ReplayPolicy::Instant`]).
    #[serde(default, skip_serializing_if = "is_default")]
    pub replay_policy: ReplayPolicy,
    /// Bits per second.
    #[serde(rename = "rate_limit_bps", default, skip_serializing_if = "is_default")]
    pub rate_limit: u64,
    /// Percentage of acks to sample into metrics (`"50%"` on the wire).
    #[serde(rename = "sample_freq", default, skip_serializing_if = "is_default", with = "sample_frequency")]
    pub sample_frequency: u8,
    /// Pull requests the server queues; 0 lets it pick (512).
    #[serde(default, skip_serializing_if = "is_default")]
    pub max_waiting: i64,
    /// Delivered but unacked messages before delivery pauses; 0 lets the server pick (1000).
    #[serde(default, skip_serializing_if = "is_default")]
    pub max_ack_pending: i64,
    /// Deliver only the headers, with the payload's size in a
    /// `Nats-Msg-Size` header, and no payload.
    #[serde(default, skip_serializing_if = "is_default")]
    pub headers_only: bool,
    /// Largest `batch` a pull request may ask for.
    #[serde(default, skip_serializing_if = "is_default")]
    pub max_batch: i64,
    /// Longest `expires` a pull request may ask for.
    #[serde(default, skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub max_expires: Duration,
    /// Largest `max_bytes` a pull request may ask for.
    #[serde(default, skip_serializing_if = "is_default")]
    pub max_bytes: i64,
    /// Push consumers only: where messages go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliver_subject: Option<String>,
    /// Push consumers only: the queue group that shares the deliver subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliver_group: Option<String>,
    /// Push consumers only: the server sends `100 FlowControl Request` status
    /// messages that the client must answer before it sends more.
    #[serde(default, skip_serializing_if = "is_default")]
    pub flow_control: bool,
    /// Push consumers only: with nothing to deliver, the server sends a
    /// `100 Idle Heartbeat` status this often (nanoseconds on the wire).
    #[serde(default, skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub idle_heartbeat: Duration,
    /// Delete the consumer after this long without clients.
    #[serde(default, skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub inactive_threshold: Duration,
    /// 0 inherits the stream's.
    #[serde(default, skip_serializing_if = "is_default")]
    pub num_replicas: usize,
    /// Keep the consumer's state in memory even on a file stream
    /// (`mem_storage`).
    #[serde(rename = "mem_storage", default, skip_serializing_if = "is_default")]
    pub memory_storage: bool,
    /// Free-form key/value pairs (server 2.10). Keys starting with `_nats.` are
    /// the server's own.
    #[serde(default, skip_serializing_if = "HashMap::is_empty", deserialize_with = "null_as_default")]
    pub metadata: HashMap<String, String>,
    /// Deliver nothing until this RFC 3339 time (server 2.11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_until: Option<String>,
    /// Priority group names; the server accepts exactly one (2.11).
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub priority_groups: Vec<String>,
    /// How the priority group's pull requests are served (server 2.11;
    /// default none).
    #[serde(default, skip_serializing_if = "is_default")]
    pub priority_policy: PriorityPolicy,
    /// How long a pinned client keeps its pin without pulling.
    #[serde(default, skip_serializing_if = "Duration::is_zero", with = "serde_nanos")]
    pub priority_timeout: Duration,
}

/// Where a new consumer starts in the stream.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "deliver_policy", rename_all = "snake_case")]
pub enum DeliverPolicy {
    /// Every message in the stream, from the first (the default; the server
    /// also writes `"undefined"` for it, read as this).
    #[default]
    #[serde(alias = "undefined")]
    All,
    /// The last message of the stream.
    Last,
    /// Only messages stored after the consumer was created.
    New,
    /// From this stream sequence on (`by_start_sequence`).
    ByStartSequence {
        /// The first stream sequence delivered (`opt_start_seq`).
        #[serde(rename = "opt_start_seq")]
        start_sequence: u64,
    },
    /// First message at or after this RFC 3339 time.
    ByStartTime {
        /// RFC 3339 time ([`super::timestamp`]); wire name `opt_start_time`.
        #[serde(rename = "opt_start_time")]
        start_time: String,
    },
    /// The last message of each subject, then new ones.
    LastPerSubject,
}

/// How delivered messages are acked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    /// No acks: a message counts as acked once delivered, and is never
    /// redelivered.
    None,
    /// Acking a sequence acks everything below it, for every client of the
    /// consumer: unsafe when workers share one.
    All,
    /// Every message is acked on its own.
    #[default]
    Explicit,
    /// Acks come from flow-control replies (server-internal sourcing, 2.15).
    FlowControl,
}

/// How fast stored messages are delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayPolicy {
    /// As fast as the client takes them (the default).
    #[default]
    Instant,
    /// At the pace the messages were stored.
    Original,
}

/// How pull requests in a priority group are served (ADR-42).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriorityPolicy {
    /// A priority group without a policy (the default).
    #[default]
    None,
    /// Serve requests with `min_pending` / `min_ack_pending` only past those thresholds.
    Overflow,
    /// One client at a time, identified by `Nats-Pin-Id`.
    PinnedClient,
    /// Lowest `priority` value first.
    Prioritized,
}

/// The sampling percentage, written `"50"` and read from `"50"` or `"50%"`.
mod sample_frequency {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub fn serialize<S: Serializer>(percent: &u8, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(percent)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
        let text = Option::<String>::deserialize(d)?.unwrap_or_default();
        let number = text.trim().trim_end_matches('%');
        if number.is_empty() {
            return Ok(0);
        }
        number.parse().map_err(|_| D::Error::custom("sample_freq: not a percentage"))
    }
}

/// `CONSUMER.INFO` and `CONSUMER.CREATE` reply.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerInfo {
    /// The stream the consumer reads.
    pub stream_name: String,
    /// The consumer's name.
    pub name: String,
    /// When the consumer was created (RFC 3339).
    pub created: String,
    /// The configuration in force, with the server's defaults filled in.
    pub config: ConsumerConfig,
    /// Last message delivered.
    pub delivered: SequenceInfo,
    /// Everything at or below is acked.
    pub ack_floor: SequenceInfo,
    /// Messages delivered and not acked yet.
    pub num_ack_pending: usize,
    /// Messages delivered more than once and not acked yet.
    pub num_redelivered: usize,
    /// Pull requests waiting.
    pub num_waiting: usize,
    /// Messages left to deliver.
    pub num_pending: u64,
    /// The consumer's Raft group, when clustered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterInfo>,
    /// Push consumers only: a client is subscribed to the deliver subject.
    #[serde(skip_serializing_if = "is_default")]
    pub push_bound: bool,
    /// The consumer is paused (server 2.11).
    #[serde(skip_serializing_if = "is_default")]
    pub paused: bool,
    /// How long it stays paused.
    #[serde(skip_serializing_if = "Option::is_none", with = "serde_nanos::option")]
    pub pause_remaining: Option<Duration>,
    /// When the server gathered this info.
    #[serde(rename = "ts", skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// State of each priority group (server 2.11).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub priority_groups: Vec<PriorityGroupState>,
}

/// A consumer sequence and the stream sequence it maps to.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SequenceInfo {
    /// The consumer's own count of deliveries (`consumer_seq`).
    #[serde(rename = "consumer_seq")]
    pub consumer_sequence: u64,
    /// The stream sequence of that message (`stream_seq`).
    #[serde(rename = "stream_seq")]
    pub stream_sequence: u64,
    /// When this last happened (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_active: Option<String>,
}

/// Who holds the pin of a priority group.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PriorityGroupState {
    /// The group's name.
    pub group: String,
    /// The pin id of the client that holds the pin, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned_client_id: Option<String>,
    /// When that client got the pin (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned_ts: Option<String>,
}

/// `CONSUMER.CREATE` body.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CreateConsumerRequest {
    /// The stream to create the consumer on.
    pub stream_name: String,
    /// The consumer's configuration.
    pub config: ConsumerConfig,
    /// Whether it may create, update or both (server 2.10).
    #[serde(default)]
    pub action: ConsumerAction,
}

/// Whether `CONSUMER.CREATE` may create, update, or both (server 2.10;
/// older servers ignore it and create-or-update).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ConsumerAction {
    /// Create the consumer, or update it if it exists (`""`).
    #[default]
    #[serde(rename = "")]
    CreateOrUpdate,
    /// Fail with `CONSUMER_ALREADY_EXISTS` if it exists with another config.
    #[serde(rename = "create")]
    Create,
    /// Fail with `CONSUMER_DOES_NOT_EXIST` if it does not exist.
    #[serde(rename = "update")]
    Update,
}

/// The fields of a consumer's config that natsjet reads itself: the names
/// and filter that pick the create subject, what the ack ledger checks, and
/// where a push consumer delivers.
/// For callers that keep the rest as JSON text (the JS API), so a config or
/// info read through it costs one small parser.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
struct ConfigCore {
    name: Option<String>,
    durable_name: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    filter_subject: String,
    #[serde(default, deserialize_with = "null_as_default")]
    filter_subjects: Vec<String>,
    #[serde(default)]
    ack_policy: AckPolicy,
    #[serde(default, with = "serde_nanos")]
    ack_wait: Duration,
    #[serde(default)]
    max_ack_pending: i64,
    #[serde(default)]
    max_deliver: i64,
    #[serde(default)]
    max_waiting: i64,
    #[serde(default, with = "serde_nanos::vec")]
    backoff: Vec<Duration>,
    deliver_subject: Option<String>,
    deliver_group: Option<String>,
    #[serde(default, with = "serde_nanos")]
    idle_heartbeat: Duration,
}

impl From<ConfigCore> for ConsumerConfig {
    fn from(c: ConfigCore) -> Self {
        ConsumerConfig {
            name: c.name,
            durable_name: c.durable_name,
            filter_subject: c.filter_subject,
            filter_subjects: c.filter_subjects,
            ack_policy: c.ack_policy,
            ack_wait: c.ack_wait,
            max_ack_pending: c.max_ack_pending,
            max_deliver: c.max_deliver,
            max_waiting: c.max_waiting,
            backoff: c.backoff,
            deliver_subject: c.deliver_subject,
            deliver_group: c.deliver_group,
            idle_heartbeat: c.idle_heartbeat,
            ..Default::default()
        }
    }
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
struct InfoCore {
    stream_name: String,
    name: String,
    config: ConfigCore,
    #[serde(default)]
    push_bound: bool,
    /// Where a new consumer starts, and how much it has to deliver: an
    /// ordered reader resumes from there, a KV watch knows when it caught up.
    #[serde(default)]
    delivered: SequenceInfo,
    #[serde(default)]
    ack_floor: SequenceInfo,
    #[serde(default)]
    num_pending: u64,
}

#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
struct CreateRequestCore {
    config: ConfigCore,
}

impl ConsumerInfo {
    /// The names of a `CONSUMER.INFO` or `CONSUMER.CREATE` reply, and of
    /// its config the names, filters, ack policy, ack wait, max ack
    /// pending, max deliver, max waiting and backoff, and the deliver
    /// subject, group, idle heartbeat and `push_bound` of a push consumer,
    /// and `delivered`, `ack_floor` and `num_pending`;
    /// every other field keeps its default. Enough for a
    /// [`Consumer`](crate::jetstream::Consumer) or
    /// [`PushConsumer`](crate::jetstream::PushConsumer) handle, whose
    /// readers and ledger read nothing else.
    pub fn from_json_core(json: &[u8]) -> Result<ConsumerInfo, Error> {
        let InfoCore { stream_name, name, config, push_bound, delivered, ack_floor, num_pending } =
            parse_checked_plain(json)?;
        Ok(ConsumerInfo {
            stream_name,
            name,
            config: config.into(),
            push_bound,
            delivered,
            ack_floor,
            num_pending,
            ..Default::default()
        })
    }
}

impl CreateConsumerRequest {
    /// The config of a `CONSUMER.CREATE` body with only the fields that
    /// pick the subject ([`consumer_create`](super::consumer_create)) and
    /// the ledger's; every other field keeps its default.
    pub fn config_from_json_core(json: &[u8]) -> Result<ConsumerConfig, Error> {
        let request: CreateRequestCore = crate::core::plain_json::from_slice(json)
            .map_err(|e| Error::InvalidArgument(format!("consumer create request: {e}")))?;
        Ok(request.config.into())
    }
}

/// `CONSUMER.NAMES` / `CONSUMER.LIST` body.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerNamesRequest {
    /// Names to skip: the paging position.
    #[serde(skip_serializing_if = "is_default")]
    pub offset: usize,
}

/// One page of consumer names.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerNamesResponse {
    /// Consumers on the stream, over all pages.
    pub total: usize,
    /// Where this page starts.
    pub offset: usize,
    /// Most names the server puts in one page.
    pub limit: usize,
    /// This page's names.
    #[serde(deserialize_with = "null_as_default")]
    pub consumers: Vec<String>,
}

/// One page of `CONSUMER.LIST`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerListResponse {
    /// Consumers on the stream, over all pages.
    pub total: usize,
    /// Where this page starts.
    pub offset: usize,
    /// Most consumers the server puts in one page.
    pub limit: usize,
    /// This page's consumers.
    #[serde(deserialize_with = "null_as_default")]
    pub consumers: Vec<ConsumerInfo>,
    /// Consumers the server could not reach in time (clustered).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub missing: Vec<String>,
    /// Offline consumers and why.
    #[serde(skip_serializing_if = "HashMap::is_empty", deserialize_with = "null_as_default")]
    pub offline: HashMap<String, String>,
}

/// `CONSUMER.PAUSE` body; `None` (or a past time) resumes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerPauseRequest {
    /// Deliver nothing until this RFC 3339 time; `None` or a past time resumes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_until: Option<String>,
}

/// `CONSUMER.PAUSE` reply (server 2.11).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerPauseResponse {
    /// The consumer is paused now.
    pub paused: bool,
    /// The requested end of the pause (RFC 3339), as the server stored it.
    pub pause_until: String,
    /// How long it stays paused.
    #[serde(skip_serializing_if = "Option::is_none", with = "serde_nanos::option")]
    pub pause_remaining: Option<Duration>,
}

/// `CONSUMER.UNPIN` body: drop the pinned client of `group`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerUnpinRequest {
    /// The priority group whose pin to drop.
    pub group: String,
}

/// `CONSUMER.RESET` body (ADR-60, server 2.14+): `None` (or 0) goes back to
/// the ack floor, `Some(n)` makes the next delivery's stream sequence at
/// least `n`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerResetRequest {
    /// `None` or 0: back to the ack floor; `Some(n)`: next delivery at stream
    /// sequence `n` or later.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

/// `CONSUMER.RESET` reply: the consumer's info after the reset and the
/// stream sequence it now restarts from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConsumerResetResponse {
    /// The consumer's info after the reset.
    #[serde(flatten)]
    pub info: ConsumerInfo,
    /// The stream sequence delivery restarts from.
    pub reset_seq: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::{consumer_create, parse_response};
    use serde_json::json;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn durable_pull_config_sends_ack_policy_and_nanos() {
        let cfg = ConsumerConfig {
            durable_name: Some("workers".into()),
            ack_wait: Duration::from_secs(30),
            max_ack_pending: 10_000,
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&cfg).unwrap(),
            json!({"durable_name": "workers", "deliver_policy": "all", "ack_policy": "explicit", "ack_wait": 30_000_000_000i64, "max_ack_pending": 10000})
        );
    }

    #[test]
    fn deliver_policy_is_flattened() {
        let cases = [
            (DeliverPolicy::All, json!({"deliver_policy": "all"})),
            (DeliverPolicy::Last, json!({"deliver_policy": "last"})),
            (DeliverPolicy::New, json!({"deliver_policy": "new"})),
            (DeliverPolicy::LastPerSubject, json!({"deliver_policy": "last_per_subject"})),
            (
                DeliverPolicy::ByStartSequence { start_sequence: 42 },
                json!({"deliver_policy": "by_start_sequence", "opt_start_seq": 42}),
            ),
            (
                DeliverPolicy::ByStartTime { start_time: "2026-09-01T00:00:00Z".into() },
                json!({"deliver_policy": "by_start_time", "opt_start_time": "2026-09-01T00:00:00Z"}),
            ),
        ];
        for (policy, mut expected) in cases {
            let cfg = ConsumerConfig { deliver_policy: policy, ack_policy: AckPolicy::None, ..Default::default() };
            expected["ack_policy"] = json!("none");
            let value = serde_json::to_value(&cfg).unwrap();
            assert_eq!(value, expected);
            assert_eq!(serde_json::from_value::<ConsumerConfig>(value).unwrap(), cfg);
        }
        let old: ConsumerConfig = serde_json::from_str(r#"{"deliver_policy":"undefined","ack_policy":"all"}"#).unwrap();
        assert_eq!((old.deliver_policy, old.ack_policy), (DeliverPolicy::All, AckPolicy::All));
    }

    #[test]
    fn every_optional_field_round_trips() {
        let cfg = ConsumerConfig {
            name: Some("c".into()),
            description: Some("d".into()),
            backoff: vec![Duration::from_secs(1), Duration::from_secs(5)],
            max_deliver: 3,
            filter_subjects: vec!["a.*".into(), "b.>".into()],
            replay_policy: ReplayPolicy::Original,
            max_waiting: 64,
            max_batch: 100,
            max_expires: Duration::from_secs(60),
            max_bytes: 1 << 20,
            inactive_threshold: Duration::from_secs(300),
            num_replicas: 3,
            memory_storage: true,
            headers_only: true,
            metadata: HashMap::from([("team".into(), "x".into())]),
            pause_until: Some("2030-01-01T00:00:00Z".into()),
            priority_groups: vec!["jobs".into()],
            priority_policy: PriorityPolicy::PinnedClient,
            priority_timeout: Duration::from_secs(120),
            ..Default::default()
        };
        let value = serde_json::to_value(&cfg).unwrap();
        assert_eq!(value["backoff"], json!([1_000_000_000i64, 5_000_000_000i64]));
        assert_eq!(value["priority_policy"], json!("pinned_client"));
        assert_eq!(value["replay_policy"], json!("original"));
        assert_eq!(value["priority_timeout"], json!(120_000_000_000i64));
        assert_eq!(serde_json::from_value::<ConsumerConfig>(value).unwrap(), cfg);
    }

    #[test]
    fn create_request_actions() {
        let req = CreateConsumerRequest {
            stream_name: "S".into(),
            config: ConsumerConfig { name: Some("c".into()), ..Default::default() },
            action: ConsumerAction::Create,
        };
        assert_eq!(
            serde_json::to_value(&req).unwrap(),
            json!({"stream_name": "S", "config": {"name": "c", "deliver_policy": "all", "ack_policy": "explicit"}, "action": "create"})
        );
        let req = CreateConsumerRequest { action: ConsumerAction::CreateOrUpdate, ..req };
        assert_eq!(serde_json::to_value(&req).unwrap()["action"], json!(""));
        let req = CreateConsumerRequest { action: ConsumerAction::Update, ..req };
        assert_eq!(serde_json::to_value(&req).unwrap()["action"], json!("update"));
    }

    // Shaped like nats-server 2.15's reply to CONSUMER.INFO.
    const CONSUMER_INFO: &str = r#"{
        "type": "io.nats.jetstream.api.v1.consumer_info_response",
        "stream_name": "ORDERS", "name": "workers",
        "created": "2026-09-01T10:11:12.5Z",
        "config": {
            "durable_name": "workers", "name": "workers", "deliver_policy": "by_start_sequence",
            "opt_start_seq": 10, "ack_policy": "explicit", "ack_wait": 30000000000,
            "max_deliver": -1, "backoff": [1000000000, 2000000000], "filter_subject": "orders.new",
            "replay_policy": "instant", "max_waiting": 512, "max_ack_pending": 1000,
            "num_replicas": 0, "priority_groups": ["jobs"], "priority_policy": "overflow",
            "metadata": {"_nats.level": "1"}
        },
        "delivered": {"consumer_seq": 5, "stream_seq": 14, "last_active": "2026-09-01T10:11:13Z"},
        "ack_floor": {"consumer_seq": 3, "stream_seq": 12},
        "num_ack_pending": 2, "num_redelivered": 1, "num_waiting": 4, "num_pending": 100,
        "cluster": {"leader": "n1"},
        "paused": true, "pause_remaining": 5000000000,
        "ts": "2026-09-01T10:12:00Z",
        "priority_groups": [{"group": "jobs", "pinned_client_id": "pin1", "pinned_ts": "2026-09-01T10:11:14Z"}]
    }"#;

    #[test]
    fn consumer_info_from_server_json() {
        let info: ConsumerInfo = parse_response(CONSUMER_INFO.as_bytes()).unwrap();
        assert_eq!((info.stream_name.as_str(), info.name.as_str()), ("ORDERS", "workers"));
        assert_eq!(info.config.deliver_policy, DeliverPolicy::ByStartSequence { start_sequence: 10 });
        assert_eq!(info.config.ack_policy, AckPolicy::Explicit);
        assert_eq!(info.config.max_deliver, -1);
        assert_eq!(info.config.backoff, [Duration::from_secs(1), Duration::from_secs(2)]);
        assert_eq!(info.config.priority_policy, PriorityPolicy::Overflow);
        assert_eq!(info.delivered.stream_sequence, 14);
        assert_eq!(info.delivered.last_active.as_deref(), Some("2026-09-01T10:11:13Z"));
        assert_eq!(info.ack_floor, SequenceInfo { consumer_sequence: 3, stream_sequence: 12, last_active: None });
        assert_eq!((info.num_ack_pending, info.num_redelivered, info.num_waiting, info.num_pending), (2, 1, 4, 100));
        assert_eq!(info.cluster.unwrap().leader.as_deref(), Some("n1"));
        assert!(info.paused);
        assert_eq!(info.pause_remaining, Some(Duration::from_secs(5)));
        assert_eq!(info.priority_groups[0].pinned_client_id.as_deref(), Some("pin1"));
    }

    #[test]
    fn core_fields_of_json_text() {
        let info = ConsumerInfo::from_json_core(CONSUMER_INFO.as_bytes()).unwrap();
        assert_eq!((info.stream_name.as_str(), info.name.as_str()), ("ORDERS", "workers"));
        let c = &info.config;
        assert_eq!((c.ack_policy, c.ack_wait, c.max_ack_pending), (AckPolicy::Explicit, Duration::from_secs(30), 1000));
        assert_eq!(c.filter_subject, "orders.new");
        assert_eq!((info.delivered.stream_sequence, info.num_pending), (14, 100));
        assert_eq!((c.max_deliver, c.max_waiting), (-1, 512), "the ledger's guardrails read these");
        assert_eq!(c.backoff, [Duration::from_secs(1), Duration::from_secs(2)]);
        assert_eq!(info.ack_floor.stream_sequence, 12, "the ledger prunes by it");
        // The rest is left at its default, unread.
        assert_eq!((&c.deliver_policy, info.num_ack_pending), (&DeliverPolicy::All, 0));
        assert!(matches!(ConsumerInfo::from_json_core(br#"{"name":"x"}"#), Err(Error::Protocol(_))));

        let push = br#"{"stream_name":"S","name":"p","push_bound":true,"config":{"deliver_subject":"d.p",
            "deliver_group":"g","idle_heartbeat":5000000000,"flow_control":true}}"#;
        let info = ConsumerInfo::from_json_core(push).unwrap();
        let c = &info.config;
        assert_eq!((c.deliver_subject.as_deref(), c.deliver_group.as_deref()), (Some("d.p"), Some("g")));
        assert_eq!((c.idle_heartbeat, info.push_bound), (Duration::from_secs(5), true));

        let body = br#"{"stream_name":"S","action":"create","config":{"durable_name":"d","filter_subject":"a.b","ack_wait":5}}"#;
        let config = CreateConsumerRequest::config_from_json_core(body).unwrap();
        assert_eq!(consumer_create("$JS.API", "S", &config).unwrap(), "$JS.API.CONSUMER.CREATE.S.d.a.b");
        let body = br#"{"config":{"name":"n","filter_subject":"a","filter_subjects":null}}"#;
        let config = CreateConsumerRequest::config_from_json_core(body).unwrap();
        assert_eq!(consumer_create("$JS.API", "S", &config).unwrap(), "$JS.API.CONSUMER.CREATE.S.n.a");
        let body = br#"{"config":{"name":"n","filter_subject":"a","filter_subjects":["b"]}}"#;
        let config = CreateConsumerRequest::config_from_json_core(body).unwrap();
        assert_eq!(consumer_create("$JS.API", "S", &config).unwrap(), "$JS.API.CONSUMER.CREATE.S.n");
        let bad = CreateConsumerRequest::config_from_json_core(b"{}");
        assert!(matches!(bad, Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn core_fields_read_alike_in_wasm() {
        crate::core::plain_json::assert_same::<InfoCore>(CONSUMER_INFO.as_bytes());
        crate::core::plain_json::assert_same::<InfoCore>(br#"{"name":"x"}"#);
        crate::core::plain_json::assert_same::<InfoCore>(
            br#"{"stream_name":"S","name":"n","config":{"ack_policy":"sometimes"}}"#,
        );
        for body in [
            &br#"{"stream_name":"S","action":"create","config":{"durable_name":"d","filter_subject":"a.b","ack_wait":5}}"#[..],
            br#"{"config":{"name":"n","filter_subject":"a","filter_subjects":null,"ack_policy":"all","ack_wait":-1}}"#,
            br#"{"config":{"name":"n","filter_subjects":["b","c"],"ack_policy":"none","max_ack_pending":-1,"metadata":{"k":"v"}}}"#,
            b"{}",
        ] {
            crate::core::plain_json::assert_same::<CreateRequestCore>(body);
        }
    }

    #[test]
    fn names_list_and_pause() {
        let names: ConsumerNamesResponse =
            parse_response(br#"{"total":1,"offset":0,"limit":1024,"consumers":["c"]}"#).unwrap();
        assert_eq!(names.consumers, ["c"]);
        let empty: ConsumerListResponse =
            parse_response(br#"{"total":0,"offset":0,"limit":256,"consumers":null}"#).unwrap();
        assert!(empty.consumers.is_empty());
        assert_eq!(serde_json::to_string(&ConsumerNamesRequest { offset: 256 }).unwrap(), r#"{"offset":256}"#);

        let pause = ConsumerPauseRequest { pause_until: Some("2030-01-01T00:00:00Z".into()) };
        assert_eq!(serde_json::to_string(&pause).unwrap(), r#"{"pause_until":"2030-01-01T00:00:00Z"}"#);
        assert_eq!(serde_json::to_string(&ConsumerPauseRequest::default()).unwrap(), "{}");
        let resp: ConsumerPauseResponse = parse_response(
            br#"{"type":"x","paused":true,"pause_until":"2030-01-01T00:00:00Z","pause_remaining":60000000000}"#,
        )
        .unwrap();
        assert!(resp.paused);
        assert_eq!(resp.pause_remaining.unwrap(), Duration::from_secs(60));
        let unpin = ConsumerUnpinRequest { group: "jobs".into() };
        assert_eq!(serde_json::to_string(&unpin).unwrap(), r#"{"group":"jobs"}"#);
        assert_eq!(serde_json::to_string(&ConsumerResetRequest::default()).unwrap(), "{}");
        assert_eq!(serde_json::to_string(&ConsumerResetRequest { seq: Some(7) }).unwrap(), r#"{"seq":7}"#);
        let reset: ConsumerResetResponse = parse_response(
            br#"{"type":"io.nats.jetstream.api.v1.consumer_reset_response","stream_name":"S","name":"c",
                "config":{"deliver_policy":"all","ack_policy":"explicit","replay_policy":"instant"},
                "num_pending":3,"reset_seq":5}"#,
        )
        .unwrap();
        assert_eq!((reset.info.name.as_str(), reset.info.num_pending, reset.reset_seq), ("c", 3, 5));
    }
}
