//! A handle on one push consumer of a stream: a consumer whose config has a
//! `deliver_subject`, where the server sends messages without being asked.
//! Reading (`messages`) lives in the reader module, beside the pull readers.

use super::api::ConsumerInfo;
use super::context::Context;
use crate::error::Error;

/// A push consumer (durable or one made elsewhere), shaped like
/// async-nats's `Consumer<push::Config>`. Its messages are the same
/// [`Message`](super::Message)s as a pull consumer's, acked the same way.
#[derive(Debug, Clone)]
pub struct PushConsumer {
    pub(crate) context: Context,
    pub(crate) info: ConsumerInfo,
}

impl PushConsumer {
    /// A handle from the info the server returned; an
    /// [`Error::InvalidArgument`] if the consumer has no `deliver_subject`
    /// (a pull consumer).
    pub fn new(context: Context, info: ConsumerInfo) -> Result<Self, Error> {
        if info.config.deliver_subject.is_none() {
            return Err(Error::InvalidArgument(format!("consumer {:?} is not a push consumer", info.name)));
        }
        Ok(PushConsumer { context, info })
    }

    /// The info as of the last call that returned it (no round trip).
    pub fn cached_info(&self) -> &ConsumerInfo {
        &self.info
    }

    /// Fresh info from the server.
    pub async fn info(&mut self) -> Result<&ConsumerInfo, Error> {
        self.info = self.context.consumer_info_from_stream(&self.info.name, &self.info.stream_name).await?;
        Ok(&self.info)
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
}
