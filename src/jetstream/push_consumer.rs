//! Push consumers ([`PushConsumer`], async-nats's `Consumer<push::Config>`)
//! looked up by name, or bound by their deliver settings alone: a consumer
//! whose config has a `deliver_subject`, where the server sends messages
//! without being asked. Reading (`messages`) lives in the reader module.

use std::time::Duration;

use super::api::ConsumerInfo;
use super::consumer::PushConsumer;
use super::context::Context;
use crate::core::error::Error;
use crate::core::subject::{validate_queue, validate_subscribe_subject};

/// The deliver settings of a push consumer someone else made, as nats.js's
/// `BoundPushConsumerOptions`: they must match the consumer's config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoundPushConfig {
    /// The consumer's deliver subject, which this client subscribes to.
    pub deliver_subject: String,
    /// The consumer's `deliver_group`: listen as one member of that queue group.
    pub deliver_group: Option<String>,
    /// The consumer's `idle_heartbeat`, to watch for missed ones (zero: none).
    /// One that does not match the server's gives false alarms or late ones.
    pub idle_heartbeat: Duration,
}

impl PushConsumer {
    /// A handle from the info the server returned; an
    /// [`Error::InvalidArgument`] if the consumer has no `deliver_subject`
    /// (a pull consumer).
    pub fn try_new(context: Context, info: ConsumerInfo) -> Result<Self, Error> {
        if info.config.deliver_subject.is_none() {
            return Err(Error::InvalidArgument(format!("consumer {:?} is not a push consumer", info.name)));
        }
        Ok(PushConsumer::new(context, info))
    }
}

impl Context {
    /// A handle on an existing push consumer; an [`Error::InvalidArgument`]
    /// if it is a pull consumer.
    ///
    /// ```no_run
    /// # async fn f(js: natsjet::jetstream::Context) -> Result<(), natsjet::Error> {
    /// use futures_util::StreamExt;
    ///
    /// let consumer = js.get_push_consumer_from_stream("monitor", "ORDERS").await?;
    /// let mut messages = consumer.messages().await?;
    /// while let Some(message) = messages.next().await {
    ///     let message = message?; // heartbeats and flow control never show up here
    ///     message.ack().await?;
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn get_push_consumer_from_stream(
        &self,
        consumer: impl AsRef<str>,
        stream: impl AsRef<str>,
    ) -> Result<PushConsumer, Error> {
        PushConsumer::try_new(self.clone(), self.consumer_info_from_stream(consumer, stream).await?)
    }

    /// A push consumer read by its deliver subject alone, without any
    /// JetStream API call (for users allowed to subscribe but not to ask
    /// the API), as nats.js's `getBoundPushConsumer`. Missed heartbeats are
    /// reported but never probed, so a deleted consumer is not noticed.
    ///
    /// ```no_run
    /// # async fn f(js: natsjet::jetstream::Context) -> Result<(), natsjet::Error> {
    /// use std::time::Duration;
    /// use futures_util::StreamExt;
    /// use natsjet::jetstream::BoundPushConfig;
    ///
    /// let config = BoundPushConfig {
    ///     deliver_subject: "deliver.monitor".into(),
    ///     idle_heartbeat: Duration::from_secs(5),
    ///     ..BoundPushConfig::default()
    /// };
    /// let mut messages = js.bound_push_consumer(config)?.messages().await?;
    /// while let Some(message) = messages.next().await {
    ///     message?.ack().await?;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn bound_push_consumer(&self, config: BoundPushConfig) -> Result<PushConsumer, Error> {
        validate_subscribe_subject(&config.deliver_subject)?;
        if let Some(group) = &config.deliver_group {
            validate_queue(group)?;
        }
        // Set on a default: much smaller in the wasm than a struct literal.
        let mut info = ConsumerInfo::default();
        info.config.deliver_subject = Some(config.deliver_subject);
        info.config.deliver_group = config.deliver_group;
        info.config.idle_heartbeat = config.idle_heartbeat;
        Ok(PushConsumer::new(self.clone(), info))
    }
}
