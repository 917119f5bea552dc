//! A handle on one pull consumer of a stream. Management calls return it;
//! reading (`fetch`, `next`, `messages`) lives in `pull_api`.

use super::api::{self, ConsumerInfo, ConsumerResetResponse};
use super::context::Context;
use crate::error::Error;

/// A pull consumer (durable or ephemeral), shaped like async-nats's
/// `Consumer<pull::Config>`.
#[derive(Debug, Clone)]
pub struct Consumer {
    pub(crate) context: Context,
    pub(crate) info: ConsumerInfo,
}

/// The name async-nats users know.
pub type PullConsumer = Consumer;

impl Consumer {
    /// A handle from the info the server returned.
    pub fn new(context: Context, info: ConsumerInfo) -> Self {
        Consumer { context, info }
    }

    /// The info as of the last call that returned it (no round trip).
    pub fn cached_info(&self) -> &ConsumerInfo {
        &self.info
    }

    /// Fresh info from the server.
    pub async fn info(&mut self) -> Result<&ConsumerInfo, Error> {
        let subject = api::consumer_info(self.context.api_prefix(), &self.info.stream_name, &self.info.name)?;
        self.info = self.context.request_raw(&subject, b"").await?;
        Ok(&self.info)
    }

    /// Unpins the client pinned to priority group `group` (server 2.11+).
    pub async fn unpin(&self, group: impl Into<String>) -> Result<(), Error> {
        self.context.unpin_consumer_from_stream(self.name(), self.stream_name(), group).await
    }

    /// Resets the delivery state, to the ack floor (`None`) or to stream
    /// sequence `seq` (server 2.14+), and keeps the reply's info; see
    /// [`Context::reset_consumer_from_stream`].
    pub async fn reset(&mut self, seq: Option<u64>) -> Result<ConsumerResetResponse, Error> {
        let reply = self.context.reset_consumer_from_stream(self.name(), self.stream_name(), seq).await?;
        self.info = reply.info.clone();
        Ok(reply)
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
