//! Push consumers as async-nats shapes them: [`Config`] and
//! [`OrderedConfig`], and the readers under its names ([`Messages`],
//! [`Ordered`]).

use std::collections::HashMap;
use std::time::Duration;

use super::{AckPolicy, Config as ConsumerConfig, DeliverPolicy, ReplayPolicy};
use super::{Consumer, FromConsumer, IntoConsumerConfig, StreamError, StreamErrorKind, ordered_config, unique};
pub use super::{MessagesError, MessagesErrorKind, OrderedError, OrderedErrorKind};
use crate::core::error::{Error, SortCause};
use crate::jetstream::OrderedConsumer;
use crate::jetstream::ordered::{DEFAULT_PUSH_HEARTBEAT, OrderedCursor};
pub use crate::jetstream::reader::{Messages, OrderedMessages as Ordered};

/// A push consumer's config: [`ConsumerConfig`] with a required
/// `deliver_subject` and without the pull-only fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Config {
    /// Where the server sends the messages.
    pub deliver_subject: String,
    /// A durable name: the consumer outlives its clients; `None` for an ephemeral one.
    pub durable_name: Option<String>,
    /// The consumer's name, for durable and ephemeral consumers alike.
    pub name: Option<String>,
    /// A description, for people.
    pub description: Option<String>,
    /// Listen as one member of this queue group.
    pub deliver_group: Option<String>,
    /// Where in the stream delivery starts (all, last, new, a start sequence or time, the last per subject).
    pub deliver_policy: DeliverPolicy,
    /// How messages are acknowledged: explicit (each), all (everything up to a sequence) or none.
    pub ack_policy: AckPolicy,
    /// How long the server waits for an ack before it redelivers a message.
    pub ack_wait: Duration,
    /// How many times a message is delivered at most (0 or -1: no limit).
    pub max_deliver: i64,
    /// Only messages whose subject matches this filter (empty: all of the stream).
    pub filter_subject: String,
    /// Several filters (server 2.10+), instead of `filter_subject`.
    pub filter_subjects: Vec<String>,
    /// Instant (as fast as possible) or original (at the pace the messages were stored).
    pub replay_policy: ReplayPolicy,
    /// A delivery rate limit in bits per second (0: none).
    pub rate_limit: u64,
    /// The percentage of acks sampled into advisories (0: none).
    pub sample_frequency: u8,
    /// How many pull requests the server keeps waiting at most (pull consumers).
    pub max_waiting: i64,
    /// How many messages may be delivered and not yet acked; delivery pauses at this many (-1: no limit).
    pub max_ack_pending: i64,
    /// Deliver headers only, without payloads (the size goes in `Nats-Msg-Size`).
    pub headers_only: bool,
    /// Ask the reader for flow-control replies (push consumers); natsjet answers them once the reader took what came before.
    pub flow_control: bool,
    /// How often the server sends a heartbeat while there is nothing to deliver (push consumers).
    pub idle_heartbeat: Duration,
    /// Replicas of the consumer's state (0: as many as the stream).
    pub num_replicas: usize,
    /// Keep the consumer's state in memory rather than in files.
    pub memory_storage: bool,
    /// User metadata (server 2.10+).
    pub metadata: HashMap<String, String>,
    /// The waits before each redelivery, in order, instead of `ack_wait`.
    pub backoff: Vec<Duration>,
    /// How long the consumer may go without readers before the server removes it (zero: the server's default for ephemeral consumers).
    pub inactive_threshold: Duration,
    /// RFC 3339 ([`timestamp`](crate::jetstream::api::timestamp)).
    pub pause_until: Option<String>,
}

impl IntoConsumerConfig for Config {
    fn into_consumer_config(self) -> ConsumerConfig {
        ConsumerConfig {
            deliver_subject: Some(self.deliver_subject),
            durable_name: self.durable_name,
            name: self.name,
            description: self.description,
            deliver_group: self.deliver_group,
            deliver_policy: self.deliver_policy,
            ack_policy: self.ack_policy,
            ack_wait: self.ack_wait,
            max_deliver: self.max_deliver,
            filter_subject: self.filter_subject,
            filter_subjects: self.filter_subjects,
            replay_policy: self.replay_policy,
            rate_limit: self.rate_limit,
            sample_frequency: self.sample_frequency,
            max_waiting: self.max_waiting,
            max_ack_pending: self.max_ack_pending,
            headers_only: self.headers_only,
            flow_control: self.flow_control,
            idle_heartbeat: self.idle_heartbeat,
            num_replicas: self.num_replicas,
            memory_storage: self.memory_storage,
            metadata: self.metadata,
            backoff: self.backoff,
            inactive_threshold: self.inactive_threshold,
            pause_until: self.pause_until,
            ..ConsumerConfig::default()
        }
    }
}

impl IntoConsumerConfig for &Config {
    fn into_consumer_config(self) -> ConsumerConfig {
        self.clone().into_consumer_config()
    }
}

impl FromConsumer for Config {
    fn try_from_consumer_config(config: ConsumerConfig) -> Result<Self, Error> {
        let Some(deliver_subject) = config.deliver_subject else {
            return Err(Error::ApiMisuse("a pull consumer has no deliver subject to listen on"));
        };
        Ok(Config {
            deliver_subject,
            durable_name: config.durable_name,
            name: config.name,
            description: config.description,
            deliver_group: config.deliver_group,
            deliver_policy: config.deliver_policy,
            ack_policy: config.ack_policy,
            ack_wait: config.ack_wait,
            max_deliver: config.max_deliver,
            filter_subject: config.filter_subject,
            filter_subjects: config.filter_subjects,
            replay_policy: config.replay_policy,
            rate_limit: config.rate_limit,
            sample_frequency: config.sample_frequency,
            max_waiting: config.max_waiting,
            max_ack_pending: config.max_ack_pending,
            headers_only: config.headers_only,
            flow_control: config.flow_control,
            idle_heartbeat: config.idle_heartbeat,
            num_replicas: config.num_replicas,
            memory_storage: config.memory_storage,
            metadata: config.metadata,
            backoff: config.backoff,
            inactive_threshold: config.inactive_threshold,
            pause_until: config.pause_until,
        })
    }
}

/// async-nats's ordered push consumer: the first consumer delivers to
/// `deliver_subject`, each replacement `n` to `<deliver_subject>.<n>`, with
/// flow control and heartbeats every 5 s. As for the pull one,
/// `description`, `rate_limit`, `sample_frequency`, `max_waiting` and
/// `metadata` are not sent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OrderedConfig {
    /// Where the first consumer delivers; each replacement `n` delivers to `<deliver_subject>.<n>`.
    pub deliver_subject: String,
    /// Prefixes the names of the consumers the client makes.
    pub name: Option<String>,
    /// async-nats's field; not sent (the client makes the ordered consumers itself).
    pub description: Option<String>,
    /// Only messages whose subject matches this filter (empty: all of the stream).
    pub filter_subject: String,
    /// Several filters (server 2.10+), instead of `filter_subject`.
    pub filter_subjects: Vec<String>,
    /// Instant (as fast as possible) or original (at the pace the messages were stored).
    pub replay_policy: ReplayPolicy,
    /// async-nats's field; not sent (the client makes the ordered consumers itself).
    pub rate_limit: u64,
    /// async-nats's field; not sent (the client makes the ordered consumers itself).
    pub sample_frequency: u8,
    /// Deliver headers only, without payloads (the size goes in `Nats-Msg-Size`).
    pub headers_only: bool,
    /// Where in the stream delivery starts (all, last, new, a start sequence or time, the last per subject).
    pub deliver_policy: DeliverPolicy,
    /// async-nats's field; not sent (the client makes the ordered consumers itself).
    pub max_waiting: i64,
    /// async-nats's field; not sent (the client makes the ordered consumers itself).
    pub metadata: HashMap<String, String>,
}

impl OrderedConfig {
    /// The cursor that makes this config's consumers, named after `unique`.
    fn cursor(&self, unique: &str, idle_heartbeat: Duration) -> Result<OrderedCursor, Error> {
        let filters = (!self.filter_subject.is_empty()).then(|| self.filter_subject.clone());
        let mut config = ordered_config(filters, &self.filter_subjects, &self.deliver_policy, self.replay_policy);
        config.headers_only = self.headers_only;
        config.name_prefix = self.name.clone();
        OrderedCursor::new(config, unique)?.pushing(&self.deliver_subject, idle_heartbeat)
    }
}

impl IntoConsumerConfig for OrderedConfig {
    /// The first consumer of the chain, delivering to `deliver_subject`; a
    /// name or subject the cursor refuses is sent as given, for the server
    /// to refuse.
    fn into_consumer_config(self) -> ConsumerConfig {
        let first = unique().and_then(|unique| self.cursor(&unique, DEFAULT_PUSH_HEARTBEAT));
        let mut config = match first {
            Ok(mut cursor) => cursor.next_consumer(),
            Err(_) => ConsumerConfig { name: self.name, ..ConsumerConfig::default() },
        };
        config.deliver_subject = Some(self.deliver_subject);
        config
    }
}

impl FromConsumer for OrderedConfig {
    fn try_from_consumer_config(config: ConsumerConfig) -> Result<Self, Error> {
        let Some(deliver_subject) = config.deliver_subject else {
            return Err(Error::ApiMisuse("a pull consumer has no deliver subject to listen on"));
        };
        Ok(OrderedConfig {
            deliver_subject,
            filter_subject: config.filter_subject,
            filter_subjects: config.filter_subjects,
            replay_policy: config.replay_policy,
            headers_only: config.headers_only,
            deliver_policy: config.deliver_policy,
            ..OrderedConfig::default()
        })
    }
}

impl Consumer<OrderedConfig> {
    /// The messages in stream order, each once; never ends by itself. The
    /// consumer made by `create_consumer` is the first one read.
    pub async fn messages(self) -> Result<Ordered, StreamError> {
        let heartbeat = self.info.config.idle_heartbeat;
        let config = OrderedConfig::try_from_consumer_config(self.info.config.clone());
        let cursor = config.and_then(|config| config.cursor(&unique()?, heartbeat)).map_err(StreamErrorKind::error)?;
        let stream = self.info.stream_name.clone();
        let ordered = OrderedConsumer::adopt(self.context.clone(), stream, cursor, self.retype());
        crate::jetstream::OrderedPushConsumer::from(ordered).messages().await.map_err(StreamErrorKind::error)
    }
}
