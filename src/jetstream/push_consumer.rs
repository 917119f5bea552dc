//! A handle on one push consumer of a stream: a consumer whose config has a
//! `deliver_subject`, where the server sends messages without being asked.
//! Reading (`messages`) lives in the reader module, beside the pull readers.

use std::time::Duration;

use super::api::ConsumerInfo;
use super::context::Context;
use crate::error::Error;
use crate::subject::{validate_queue, validate_subscribe_subject};

/// A push consumer (durable or one made elsewhere), shaped like
/// async-nats's `Consumer<push::Config>`. Its messages are the same
/// [`Message`](super::Message)s as a pull consumer's, acked the same way.
#[derive(Debug, Clone)]
pub struct PushConsumer {
    pub(crate) context: Context,
    pub(crate) info: ConsumerInfo,
    /// Known only by its deliver settings ([`Context::bound_push_consumer`]).
    pub(crate) bound: bool,
}

/// The deliver settings of a push consumer someone else made, as nats.js's
/// `BoundPushConsumerOptions`: they must match the consumer's config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoundPushConfig {
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
    pub fn new(context: Context, info: ConsumerInfo) -> Result<Self, Error> {
        if info.config.deliver_subject.is_none() {
            return Err(Error::InvalidArgument(format!("consumer {:?} is not a push consumer", info.name)));
        }
        Ok(PushConsumer { context, info, bound: false })
    }

    /// The info as of the last call that returned it (no round trip).
    pub fn cached_info(&self) -> &ConsumerInfo {
        &self.info
    }

    /// Fresh info from the server; an [`Error::InvalidArgument`] for a
    /// bound consumer, whose name natsjet does not know.
    pub async fn info(&mut self) -> Result<&ConsumerInfo, Error> {
        if self.bound {
            return Err(Error::InvalidArgument("bound consumers cannot info".into()));
        }
        self.info = self.context.consumer_info_from_stream(&self.info.name, &self.info.stream_name).await?;
        Ok(&self.info)
    }

    /// Made by [`Context::bound_push_consumer`]: its name and stream are empty.
    pub fn is_bound(&self) -> bool {
        self.bound
    }

    pub fn name(&self) -> &str {
        &self.info.name
    }

    pub fn stream_name(&self) -> &str {
        &self.info.stream_name
    }

    pub fn context(&self) -> &Context {
        &self.context
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
        PushConsumer::new(self.clone(), self.consumer_info_from_stream(consumer, stream).await?)
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
        Ok(PushConsumer { context: self.clone(), info, bound: true })
    }
}
