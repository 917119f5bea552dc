//! Consumer handles, shaped like async-nats's `jetstream::consumer`: one
//! [`Consumer<T>`] whose `T` is the config it was made from and says how it
//! is read — [`pull::Config`] (and the whole [`Config`]) by pulling,
//! [`push::Config`] by listening, and the ordered configs through consumers
//! the client makes and replaces. The readers live in the reader module.

mod error;
pub mod pull;
pub mod push;

use std::fmt;
use std::marker::PhantomData;

pub use error::{
    BatchError, BatchErrorKind, ConsumerResetError, ConsumerResetErrorKind, MessagesError, MessagesErrorKind,
    OrderedError, OrderedErrorKind, StreamError, StreamErrorKind,
};

use super::api::{self, ConsumerInfo};
pub use super::api::{
    AckPolicy, ConsumerConfig as Config, ConsumerInfo as Info, ConsumerResetResponse, DeliverPolicy,
    PriorityGroupState, PriorityPolicy, ReplayPolicy, SequenceInfo,
};
use super::context::Context;
use super::context::{ConsumerInfoError, ConsumerInfoErrorKind};
use super::ordered::OrderedConfig;
use crate::core::error::{Error, SortCause};

/// A config a consumer can be made from: what is sent to `CONSUMER.CREATE`.
pub trait IntoConsumerConfig {
    /// The server's consumer config for this one.
    fn into_consumer_config(self) -> Config;
}

/// A config a consumer's info can be read as: fails when the consumer is of
/// another kind (a push consumer read as a pull one).
pub trait FromConsumer {
    /// This config from the server's, or an error when it is not of this kind (a push config for a pull consumer).
    fn try_from_consumer_config(config: Config) -> Result<Self, Error>
    where
        Self: Sized;
}

impl IntoConsumerConfig for Config {
    fn into_consumer_config(self) -> Config {
        self
    }
}

impl IntoConsumerConfig for &Config {
    fn into_consumer_config(self) -> Config {
        self.clone()
    }
}

impl FromConsumer for Config {
    fn try_from_consumer_config(config: Config) -> Result<Self, Error> {
        Ok(config)
    }
}

/// The configs whose consumers are read by pulling: [`pull::Config`], and
/// the whole [`Config`], which natsjet also reads as a pull consumer.
pub trait PullKind: sealed::Sealed {}

impl PullKind for pull::Config {}
impl PullKind for Config {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::pull::Config {}
    impl Sealed for super::Config {}
}

/// A consumer of a stream, durable or ephemeral, with the info the server
/// last returned for it. Without a `T`, one made from the whole [`Config`]
/// (natsjet's management calls), read by pulling.
pub struct Consumer<T = Config> {
    pub(crate) context: Context,
    pub(crate) info: ConsumerInfo,
    kind: PhantomData<fn() -> T>,
}

/// A consumer read by pulling, as async-nats names it.
pub type PullConsumer = Consumer<pull::Config>;
/// A consumer the server pushes to, as async-nats names it.
pub type PushConsumer = Consumer<push::Config>;
/// async-nats's ordered pull consumer; natsjet's own, with more options, is
/// [`OrderedConsumer`](crate::jetstream::OrderedConsumer).
pub type OrderedPullConsumer = Consumer<pull::OrderedConfig>;
/// async-nats's ordered push consumer; natsjet's own is
/// [`jetstream::OrderedPushConsumer`](crate::jetstream::OrderedPushConsumer).
pub type OrderedPushConsumer = Consumer<push::OrderedConfig>;

impl<T> fmt::Debug for Consumer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consumer").field("stream", &self.info.stream_name).field("name", &self.info.name).finish()
    }
}

impl<T> Clone for Consumer<T> {
    fn clone(&self) -> Self {
        Consumer { context: self.context.clone(), info: self.info.clone(), kind: PhantomData }
    }
}

impl<T> Consumer<T> {
    /// A handle from the info the server returned.
    pub fn new(context: Context, info: ConsumerInfo) -> Self {
        Consumer { context, info, kind: PhantomData }
    }

    /// The info as of the last call that returned it (no round trip).
    pub fn cached_info(&self) -> &ConsumerInfo {
        &self.info
    }

    /// Fresh info from the server, kept as the cached one.
    pub async fn info(&mut self) -> Result<&ConsumerInfo, ConsumerInfoError> {
        self.info = self.get_info().await?;
        Ok(&self.info)
    }

    /// Fresh info from the server; the cached one stays. Refused for a
    /// bound push consumer, whose name natsjet does not know.
    pub async fn get_info(&self) -> Result<ConsumerInfo, ConsumerInfoError> {
        if self.is_bound() {
            let refused = Error::ApiMisuse("bound consumers cannot info");
            return Err(ConsumerInfoError::new(ConsumerInfoErrorKind::InvalidName, refused));
        }
        let subject = api::consumer_info(self.context.api_prefix(), &self.info.stream_name, &self.info.name);
        let info = match subject {
            Ok(subject) => self.context.request_raw(&subject, b"").await,
            Err(e) => Err(e),
        };
        info.map_err(ConsumerInfoErrorKind::error)
    }

    /// Unpins the client pinned to priority group `group` (server 2.11+).
    pub async fn unpin(&self, group: impl Into<String>) -> Result<(), Error> {
        self.context.unpin_consumer_from_stream(self.name(), self.stream_name(), group).await
    }

    /// Resets the delivery state, to the ack floor (`None`) or to stream
    /// sequence `seq` (server 2.14+), and keeps the reply's info; see
    /// [`Context::reset_consumer_from_stream`].
    pub async fn reset(&mut self, seq: Option<u64>) -> Result<ConsumerResetResponse, ConsumerResetError> {
        let reply = self
            .context
            .reset_consumer_from_stream(self.name(), self.stream_name(), seq)
            .await
            .map_err(ConsumerResetErrorKind::error)?;
        self.info = reply.info.clone();
        Ok(reply)
    }

    /// Made by [`Context::bound_push_consumer`]: its name and stream are empty.
    pub fn is_bound(&self) -> bool {
        self.info.name.is_empty()
    }

    /// The consumer's name.
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The stream it reads.
    pub fn stream_name(&self) -> &str {
        &self.info.stream_name
    }

    /// The JetStream context it was looked up or made with.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The same consumer, read as another kind.
    pub(crate) fn retype<U>(self) -> Consumer<U> {
        Consumer::new(self.context, self.info)
    }
}

/// natsjet's ordered config from async-nats's filter fields and policies.
fn ordered_config(
    filter_subject: Option<String>,
    filter_subjects: &[String],
    deliver_policy: &DeliverPolicy,
    replay_policy: ReplayPolicy,
) -> OrderedConfig {
    let filter_subjects = filter_subject.into_iter().chain(filter_subjects.iter().cloned()).collect();
    OrderedConfig { filter_subjects, deliver_policy: deliver_policy.clone(), replay_policy, ..OrderedConfig::default() }
}

/// A token no other client uses, for the names of ordered consumers.
fn unique() -> Result<String, Error> {
    let inbox = crate::client::create_inbox(None)?;
    Ok(inbox.rsplit('.').next().unwrap_or_default().to_string())
}
