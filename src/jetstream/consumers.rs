//! Consumer management by stream name on [`Context`], as async-nats names it
//! (`create_consumer_on_stream`, `get_consumer_from_stream`…). The
//! [`Stream`](super::stream::Stream) handle offers the same calls and more
//! (listing, pause, unpin, reset) without the stream argument.

use bytes::Bytes;

use super::api::{self, ConsumerAction, ConsumerConfig, ConsumerInfo, ConsumerResetRequest, ConsumerResetResponse};
use super::api::{ConsumerUnpinRequest, CreateConsumerRequest, DeleteResponse};
use super::consumer::{Consumer, FromConsumer, IntoConsumerConfig};
use super::context::{Context, encode_request};
use super::stream::{
    ConsumerCreateStrictError, ConsumerCreateStrictErrorKind, ConsumerError, ConsumerErrorKind, ConsumerUpdateError,
    ConsumerUpdateErrorKind, DeleteStatus,
};
use crate::core::error::{Error, SortCause};

impl Context {
    /// Creates the consumer, or updates it if one with that name exists.
    pub async fn create_consumer_on_stream<T: IntoConsumerConfig + FromConsumer>(
        &self,
        config: T,
        stream: impl AsRef<str>,
    ) -> Result<Consumer<T>, ConsumerError> {
        let created =
            self.consumer_action::<T>(config.into_consumer_config(), stream.as_ref(), ConsumerAction::CreateOrUpdate);
        Ok(Consumer::new(self.clone(), created.await.map_err(ConsumerErrorKind::error)?))
    }

    /// Creates the consumer; fails with [`api::ErrorCode::CONSUMER_ALREADY_EXISTS`]
    /// if one with that name exists with another config (an identical one is
    /// returned as is). Server 2.10+.
    pub async fn create_consumer_strict_on_stream<T: IntoConsumerConfig + FromConsumer>(
        &self,
        config: T,
        stream: impl AsRef<str>,
    ) -> Result<Consumer<T>, ConsumerCreateStrictError> {
        let created = self.consumer_action::<T>(config.into_consumer_config(), stream.as_ref(), ConsumerAction::Create);
        Ok(Consumer::new(self.clone(), created.await.map_err(ConsumerCreateStrictErrorKind::error)?))
    }

    /// Updates an existing consumer; fails with
    /// [`api::ErrorCode::CONSUMER_DOES_NOT_EXIST`] if there is none. Server 2.10+.
    pub async fn update_consumer_on_stream<T: IntoConsumerConfig + FromConsumer>(
        &self,
        config: T,
        stream: impl AsRef<str>,
    ) -> Result<Consumer<T>, ConsumerUpdateError> {
        let updated = self.consumer_action::<T>(config.into_consumer_config(), stream.as_ref(), ConsumerAction::Update);
        Ok(Consumer::new(self.clone(), updated.await.map_err(ConsumerUpdateErrorKind::error)?))
    }

    /// Sends `CONSUMER.CREATE` with `action`; the info, if it is a consumer `T` reads.
    async fn consumer_action<T: FromConsumer>(
        &self,
        config: ConsumerConfig,
        stream: &str,
        action: ConsumerAction,
    ) -> Result<ConsumerInfo, Error> {
        let subject = api::consumer_create(self.api_prefix(), stream, &config)?;
        let request = CreateConsumerRequest { stream_name: stream.to_string(), config, action };
        let info: ConsumerInfo = self.request(&subject, &request).await?;
        T::try_from_consumer_config(info.config.clone())?;
        Ok(info)
    }

    /// The consumer `name` of `stream`: the existing one whatever its
    /// config, else the one `create` (a `CONSUMER.CREATE` body as JSON,
    /// whose config names `name`) makes; its info as JSON. Never updates a
    /// consumer; one that loses the race to create looks the winner's up.
    /// See [`Stream::get_or_create_consumer`](super::stream::Stream::get_or_create_consumer).
    pub async fn get_or_create_consumer_json(&self, stream: &str, name: &str, create: &[u8]) -> Result<Bytes, Error> {
        let config = CreateConsumerRequest::config_from_json_core(create)?;
        match config.name.as_deref().or(config.durable_name.as_deref()) {
            Some(named) if named == name => {}
            named => {
                let named = named.unwrap_or_default();
                return Err(Error::InvalidArgument(format!("consumer {name:?} requested with a config for {named:?}")));
            }
        }
        let info = api::consumer_info(self.api_prefix(), stream, name)?;
        match self.request_json(&info, b"").await {
            Err(Error::JetStream(e)) if e.err_code == api::ErrorCode::CONSUMER_NOT_FOUND => {}
            found => return found,
        }
        match self.request_json(&api::consumer_create(self.api_prefix(), stream, &config)?, create).await {
            Err(Error::JetStream(e)) if e.err_code == api::ErrorCode::CONSUMER_ALREADY_EXISTS => {
                self.request_json(&info, b"").await
            }
            created => created,
        }
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

    /// A handle on an existing consumer, read as `T` says
    /// (`get_consumer_from_stream::<pull::Config, _, _>`); an
    /// `InvalidConsumerType` for a consumer of another kind.
    pub async fn get_consumer_from_stream<T: FromConsumer, C: AsRef<str>, S: AsRef<str>>(
        &self,
        consumer: C,
        stream: S,
    ) -> Result<Consumer<T>, ConsumerError> {
        let info = self.consumer_info_from_stream(consumer, stream).await.map_err(ConsumerErrorKind::error)?;
        let invalid_type = |e| ConsumerError::new(ConsumerErrorKind::InvalidConsumerType, e);
        T::try_from_consumer_config(info.config.clone()).map_err(invalid_type)?;
        Ok(Consumer::new(self.clone(), info))
    }

    /// Deletes a consumer; whether the server reported success.
    pub async fn delete_consumer_from_stream(
        &self,
        consumer: impl AsRef<str>,
        stream: impl AsRef<str>,
    ) -> Result<DeleteStatus, ConsumerError> {
        let deleted = async {
            let subject = api::consumer_delete(self.api_prefix(), stream.as_ref(), consumer.as_ref())?;
            self.request_raw::<DeleteResponse>(&subject, b"").await
        };
        deleted.await.map_err(ConsumerErrorKind::error)
    }

    /// Unpins the client pinned to priority group `group` of a consumer
    /// (server 2.11+): the next pull of the group gets the pin.
    pub async fn unpin_consumer_from_stream(
        &self,
        consumer: impl AsRef<str>,
        stream: impl AsRef<str>,
        group: impl Into<String>,
    ) -> Result<(), Error> {
        let subject = api::consumer_unpin(self.api_prefix(), stream.as_ref(), consumer.as_ref())?;
        let body = encode_request(&ConsumerUnpinRequest { group: group.into() })?;
        api::parse_empty_response(&self.request_json(&subject, &body).await?)
    }

    /// Resets a consumer's delivery state (ADR-60, server 2.14+): pending
    /// and redelivery state are dropped; with `None` delivery restarts after
    /// the ack floor, with `Some(seq)` at stream sequence `seq` or later.
    /// Only for deliver policies `all`, `by_start_sequence` and
    /// `by_start_time` (not below their start); others are refused. Readers
    /// of the consumer are not told: stop and restart them.
    pub async fn reset_consumer_from_stream(
        &self,
        consumer: impl AsRef<str>,
        stream: impl AsRef<str>,
        seq: Option<u64>,
    ) -> Result<ConsumerResetResponse, Error> {
        let body = encode_request(&ConsumerResetRequest { seq })?;
        api::parse_checked(&self.reset_consumer_json(stream.as_ref(), consumer.as_ref(), &body).await?)
    }

    /// [`reset_consumer_from_stream`](Self::reset_consumer_from_stream)
    /// with the body as JSON, the reply as JSON. The server answers on the
    /// consumer's own subject, so nobody answers for a consumer it does not
    /// have (or before 2.14): that silence is told apart by a
    /// `CONSUMER.INFO`, which gives [`api::ErrorCode::CONSUMER_NOT_FOUND`]
    /// when the consumer is missing.
    pub async fn reset_consumer_json(&self, stream: &str, consumer: &str, body: &[u8]) -> Result<Bytes, Error> {
        let subject = api::consumer_reset(self.api_prefix(), stream, consumer)?;
        match self.request_json(&subject, body).await {
            Err(e @ (Error::Timeout | Error::NoResponders)) => {
                self.request_json(&api::consumer_info(self.api_prefix(), stream, consumer)?, b"").await?;
                Err(e)
            }
            reply => reply,
        }
    }
}
