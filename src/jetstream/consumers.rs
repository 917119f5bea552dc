//! Consumer management by stream name on [`Context`], as async-nats names it
//! (`create_consumer_on_stream`, `get_consumer_from_stream`…). The
//! [`Stream`](super::stream::Stream) handle offers the same calls and more
//! (listing, pause) without the stream argument.

use super::api::{self, ConsumerAction, ConsumerConfig, ConsumerInfo, CreateConsumerRequest, DeleteResponse};
use super::consumer::Consumer;
use super::context::Context;
use crate::error::Error;

impl Context {
    /// Creates the consumer, or updates it if one with that name exists.
    pub async fn create_consumer_on_stream(
        &self,
        config: ConsumerConfig,
        stream: impl AsRef<str>,
    ) -> Result<Consumer, Error> {
        self.consumer_action(config, stream.as_ref(), ConsumerAction::CreateOrUpdate).await
    }

    /// Creates the consumer; fails with [`api::ErrorCode::CONSUMER_EXISTS`]
    /// if one with that name exists with another config (an identical one is
    /// returned as is). Server 2.10+.
    pub async fn create_consumer_strict_on_stream(
        &self,
        config: ConsumerConfig,
        stream: impl AsRef<str>,
    ) -> Result<Consumer, Error> {
        self.consumer_action(config, stream.as_ref(), ConsumerAction::Create).await
    }

    /// Updates an existing consumer; fails with
    /// [`api::ErrorCode::CONSUMER_DOES_NOT_EXIST`] if there is none. Server 2.10+.
    pub async fn update_consumer_on_stream(
        &self,
        config: ConsumerConfig,
        stream: impl AsRef<str>,
    ) -> Result<Consumer, Error> {
        self.consumer_action(config, stream.as_ref(), ConsumerAction::Update).await
    }

    async fn consumer_action(
        &self,
        config: ConsumerConfig,
        stream: &str,
        action: ConsumerAction,
    ) -> Result<Consumer, Error> {
        let subject = api::consumer_create(self.api_prefix(), stream, &config)?;
        let request = CreateConsumerRequest { stream_name: stream.to_string(), config, action };
        let info = self.request(&subject, &request).await?;
        Ok(Consumer::new(self.clone(), info))
    }

    /// A consumer's info; [`api::ErrorCode::CONSUMER_NOT_FOUND`] if there is none.
    pub async fn consumer_info_from_stream(
        &self,
        consumer: impl AsRef<str>,
        stream: impl AsRef<str>,
    ) -> Result<ConsumerInfo, Error> {
        let subject = api::consumer_info(self.api_prefix(), stream.as_ref(), consumer.as_ref())?;
        self.request_raw(&subject, b"").await
    }

    /// A handle on an existing consumer.
    pub async fn get_consumer_from_stream(
        &self,
        consumer: impl AsRef<str>,
        stream: impl AsRef<str>,
    ) -> Result<Consumer, Error> {
        let info = self.consumer_info_from_stream(consumer, stream).await?;
        Ok(Consumer::new(self.clone(), info))
    }

    /// Deletes a consumer; whether the server reported success.
    pub async fn delete_consumer_from_stream(
        &self,
        consumer: impl AsRef<str>,
        stream: impl AsRef<str>,
    ) -> Result<bool, Error> {
        let subject = api::consumer_delete(self.api_prefix(), stream.as_ref(), consumer.as_ref())?;
        let response: DeleteResponse = self.request_raw(&subject, b"").await?;
        Ok(response.success)
    }
}
