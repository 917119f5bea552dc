//! A handle on one stream: its info, reading and removing single messages,
//! purging, and managing its consumers. Shaped like async-nats's
//! `jetstream::stream`: the handle, the config and info types under its
//! names, and the error kinds of the stream's calls.

mod error;

use std::time::SystemTime;

use futures_core::Stream as AsyncStream;
use futures_util::StreamExt;
use futures_util::future::Either;
use serde::de::DeserializeOwned;

pub use error::*;

#[cfg(doc)]
use super::api::ErrorCode;
use super::api::timestamp;
use super::api::{self, ConsumerInfo, ConsumerPauseRequest};
pub use super::api::{
    ClusterInfo, Compression, ConsumerLimits, ConsumerPauseResponse as PauseResponse, ConsumerResetResponse,
    DeleteResponse as DeleteStatus, DiscardPolicy, External, PeerInfo, PersistenceMode, Placement, PurgeRequest,
    PurgeResponse, Republish, RetentionPolicy, Source, SourceInfo, StorageType, StreamConfig as Config,
    StreamConsumerSource, StreamInfo as Info, StreamInfoRequest, StreamState as State, SubjectTransform,
};
use super::api::{ConsumerAction, CreateConsumerRequest};
use super::api::{MsgDeleteRequest, MsgGetRequest, MsgGetResponse};
use super::consumer::{Consumer, FromConsumer, IntoConsumerConfig, PushConsumer};
use super::context::{
    ConsumerInfoError, ConsumerInfoErrorKind, Context, RequestErrorKind, StreamsErrorKind, encode_request,
};
use super::paging::typed;
pub use super::purge::Purge;
use crate::core::error::{Error, ProtocolError, SortCause};
pub use crate::core::jetstream::raw_message::StreamMessage;
use crate::core::subject::validate_subject;

/// A stream, with the info the server returned when it was looked up
/// (`Stream<()>` without it, from [`Context::get_stream_no_info`]).
#[derive(Debug, Clone)]
pub struct Stream<I = Info> {
    pub(crate) context: Context,
    pub(crate) info: I,
    name: String,
}

impl Stream<()> {
    /// A handle on the stream `name`, made without asking the server.
    pub(crate) fn without_info(context: Context, name: String) -> Self {
        Stream { context, info: (), name }
    }
}

impl<I> Stream<I> {
    /// The stream's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The JetStream context it was looked up or made with.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Fresh info from the server; the cached one stays.
    pub async fn get_info(&self) -> Result<Info, InfoError> {
        let info = async {
            let subject = api::stream_info(self.context.api_prefix(), self.name())?;
            self.context.request_raw(&subject, b"").await
        };
        info.await.map_err(RequestErrorKind::error)
    }
}

impl Stream {
    /// A handle from the info the server returned.
    pub fn new(context: Context, info: Info) -> Self {
        let name = info.config.name.clone();
        Stream { context, info, name }
    }

    /// The info as of the last call that returned it (no round trip).
    pub fn cached_info(&self) -> &Info {
        &self.info
    }

    /// Fresh info from the server, kept as the cached one.
    pub async fn info(&mut self) -> Result<&Info, InfoError> {
        self.info = self.get_info().await?;
        Ok(&self.info)
    }

    /// Fresh info from the server with the details `request` asks for:
    /// message counts per subject (every page, merged into
    /// `state.subjects`) and deleted sequences (`state.deleted`).
    pub async fn info_with(&mut self, request: StreamInfoRequest) -> Result<&Info, Error> {
        let mut info: Option<Info> = None;
        for page in self.context.stream_info_json(self.name(), &request).await? {
            let page: Info = api::parse_checked(&page)?;
            match (&mut info, page.state.subjects) {
                (Some(info), Some(subjects)) => info.state.subjects.get_or_insert_default().extend(subjects),
                (Some(_), None) => {}
                (None, subjects) => info = Some(Info { state: State { subjects, ..page.state }, ..page }),
            }
        }
        self.info = info.ok_or_else(|| Error::Protocol(ProtocolError::ApiResponse("no STREAM.INFO reply".into())))?;
        Ok(&self.info)
    }
}

impl<I> Stream<I> {
    /// Removes messages: all of them, or those that the builder's options select.
    pub fn purge(&self) -> Purge {
        Purge::new(self.context.clone(), self.name().to_string())
    }

    /// Removes the messages whose subject matches `subject`.
    pub async fn purge_subject(&self, subject: impl Into<String>) -> Result<PurgeResponse, PurgeError> {
        self.purge().filter(subject).await
    }

    /// The message at `sequence`, from the stream leader.
    /// [`ErrorCode::NO_MESSAGE_FOUND`] if there is none.
    pub async fn get_raw_message(&self, sequence: u64) -> Result<StreamMessage, RawMessageError> {
        self.get_message(MsgGetRequest { seq: Some(sequence), ..Default::default() }).await
    }

    /// The newest message on `subject` (wildcards allowed).
    pub async fn get_last_raw_message_by_subject(
        &self,
        subject: impl AsRef<str>,
    ) -> Result<StreamMessage, LastRawMessageError> {
        let subject = subject.as_ref();
        validate_subject(subject).map_err(LastRawMessageErrorKind::error)?;
        self.get_message(MsgGetRequest { last_by_subj: Some(subject.to_string()), ..Default::default() }).await
    }

    /// The first message on `subject` at or after `sequence`.
    pub async fn get_next_raw_message_by_subject(
        &self,
        subject: impl AsRef<str>,
        sequence: u64,
    ) -> Result<StreamMessage, RawMessageError> {
        let subject = subject.as_ref();
        validate_subject(subject).map_err(LastRawMessageErrorKind::error)?;
        let request =
            MsgGetRequest { seq: Some(sequence), next_by_subj: Some(subject.to_string()), ..Default::default() };
        self.get_message(request).await
    }

    async fn get_message(&self, request: MsgGetRequest) -> Result<StreamMessage, RawMessageError> {
        let message = async {
            let subject = api::stream_msg_get(self.context.api_prefix(), self.name())?;
            let response: MsgGetResponse = self.context.request(&subject, &request).await?;
            response.message.try_into()
        };
        message.await.map_err(LastRawMessageErrorKind::error)
    }

    /// The message at `sequence`, from any replica (needs `allow_direct`;
    /// see [`Context::direct_get_from_stream`]).
    pub async fn direct_get(&self, sequence: u64) -> Result<StreamMessage, DirectGetError> {
        self.direct_get_body(MsgGetRequest { seq: Some(sequence), ..Default::default() }).await
    }

    /// The first message on `subject` (wildcards allowed) at or after
    /// `sequence` (from the start without one), from any replica.
    pub async fn direct_get_next_for_subject(
        &self,
        subject: impl AsRef<str>,
        sequence: Option<u64>,
    ) -> Result<StreamMessage, DirectGetError> {
        let subject = subject.as_ref();
        validate_subject(subject).map_err(DirectGetErrorKind::error)?;
        self.direct_get_body(MsgGetRequest {
            seq: sequence,
            next_by_subj: Some(subject.to_string()),
            ..Default::default()
        })
        .await
    }

    /// The newest message on `subject`, from any replica (needs `allow_direct`).
    pub async fn direct_get_last_for_subject(&self, subject: impl AsRef<str>) -> Result<StreamMessage, DirectGetError> {
        let message = self.context.direct_get_from_stream(self.name(), Some(subject.as_ref()), b"").await;
        message.map_err(DirectGetErrorKind::error)
    }

    async fn direct_get_body(&self, body: MsgGetRequest) -> Result<StreamMessage, DirectGetError> {
        let message = async {
            let payload = encode_request(&body)?;
            self.context.direct_get_from_stream(self.name(), None, &payload).await
        };
        message.await.map_err(DirectGetErrorKind::error)
    }

    /// Marks the message at `sequence` deleted, leaving its bytes on disk
    /// until they are compacted away. Whether the server reported success.
    pub async fn delete_message(&self, sequence: u64) -> Result<bool, DeleteMessageError> {
        self.remove_message(MsgDeleteRequest { seq: sequence, no_erase: true }).await
    }

    /// Deletes the message at `sequence` and overwrites its bytes on disk.
    pub async fn erase_message(&self, sequence: u64) -> Result<bool, DeleteMessageError> {
        self.remove_message(MsgDeleteRequest { seq: sequence, no_erase: false }).await
    }

    async fn remove_message(&self, request: MsgDeleteRequest) -> Result<bool, DeleteMessageError> {
        let removed = async {
            let subject = api::stream_msg_delete(self.context.api_prefix(), self.name())?;
            let response: DeleteStatus = self.context.request(&subject, &request).await?;
            Ok(response.success)
        };
        removed.await.map_err(DeleteMessageErrorKind::error)
    }

    /// Creates the consumer, or updates it if one with that name exists; a
    /// `T` of [`pull::Config`](super::consumer::pull::Config) makes a pull
    /// consumer, of [`push::Config`](super::consumer::push::Config) a push one.
    pub async fn create_consumer<T: IntoConsumerConfig + FromConsumer>(
        &self,
        config: T,
    ) -> Result<Consumer<T>, ConsumerError> {
        self.context.create_consumer_on_stream(config, self.name()).await
    }

    /// Creates the consumer; [`ErrorCode::CONSUMER_ALREADY_EXISTS`] if one with that
    /// name exists with another config.
    pub async fn create_consumer_strict<T: IntoConsumerConfig + FromConsumer>(
        &self,
        config: T,
    ) -> Result<Consumer<T>, ConsumerCreateStrictError> {
        self.context.create_consumer_strict_on_stream(config, self.name()).await
    }

    /// Updates an existing consumer; [`ErrorCode::CONSUMER_DOES_NOT_EXIST`] if there is none.
    pub async fn update_consumer<T: IntoConsumerConfig + FromConsumer>(
        &self,
        config: T,
    ) -> Result<Consumer<T>, ConsumerUpdateError> {
        self.context.update_consumer_on_stream(config, self.name()).await
    }

    /// A handle on an existing consumer, read as `T` says (`let c: PullConsumer = …`).
    pub async fn get_consumer<T: FromConsumer>(&self, name: impl AsRef<str>) -> Result<Consumer<T>, Error> {
        Ok(self.context.get_consumer_from_stream::<T, _, _>(name, self.name()).await?)
    }

    /// A handle on an existing push consumer (its config has a `deliver_subject`).
    pub async fn get_push_consumer(&self, name: impl AsRef<str>) -> Result<PushConsumer, Error> {
        self.context.get_push_consumer_from_stream(name, self.name()).await
    }

    /// The durable consumer `name`: the existing one whatever its config,
    /// else one created from `config` (named `name` if it names nothing).
    /// Never updates a consumer, so workers starting together with different
    /// configs all get the one that was created first.
    pub async fn get_or_create_consumer<T: IntoConsumerConfig + FromConsumer>(
        &self,
        name: impl AsRef<str>,
        config: T,
    ) -> Result<Consumer<T>, ConsumerError> {
        let name = name.as_ref();
        let mut config = config.into_consumer_config();
        if config.name.is_none() && config.durable_name.is_none() {
            config.durable_name = Some(name.to_string());
        }
        let info = async {
            let request =
                CreateConsumerRequest { stream_name: self.name().to_string(), config, action: ConsumerAction::Create };
            let body = encode_request(&request)?;
            let info: ConsumerInfo =
                api::parse_checked(&self.context.get_or_create_consumer_json(self.name(), name, &body).await?)?;
            T::try_from_consumer_config(info.config.clone())?;
            Ok(info)
        };
        Ok(Consumer::new(self.context.clone(), info.await.map_err(ConsumerErrorKind::error)?))
    }

    /// A consumer's info; [`ErrorCode::CONSUMER_NOT_FOUND`] if there is none.
    pub async fn consumer_info(&self, name: impl AsRef<str>) -> Result<ConsumerInfo, ConsumerInfoError> {
        let info = self.context.consumer_info_from_stream(name, self.name()).await;
        info.map_err(ConsumerInfoErrorKind::error)
    }

    /// Deletes a consumer; whether the server reported success.
    pub async fn delete_consumer(&self, name: impl AsRef<str>) -> Result<DeleteStatus, ConsumerError> {
        self.context.delete_consumer_from_stream(name, self.name()).await
    }

    /// Stops delivery until `until` (server 2.11+); acks are still taken.
    pub async fn pause_consumer(
        &self,
        name: impl AsRef<str>,
        until: SystemTime,
    ) -> Result<PauseResponse, ConsumerError> {
        self.request_pause(name.as_ref(), Some(timestamp::format_rfc3339(until))).await
    }

    /// Resumes delivery of a paused consumer (server 2.11+).
    pub async fn resume_consumer(&self, name: impl AsRef<str>) -> Result<PauseResponse, ConsumerError> {
        self.request_pause(name.as_ref(), None).await
    }

    async fn request_pause(&self, name: &str, pause_until: Option<String>) -> Result<PauseResponse, ConsumerError> {
        let paused = async {
            let subject = api::consumer_pause(self.context.api_prefix(), self.name(), name)?;
            self.context.request(&subject, &ConsumerPauseRequest { pause_until }).await
        };
        paused.await.map_err(ConsumerErrorKind::error)
    }

    /// Unpins the client pinned to priority group `group` of consumer
    /// `name` (server 2.11+): the next pull of the group gets the pin.
    pub async fn unpin_consumer(&self, name: impl AsRef<str>, group: impl Into<String>) -> Result<(), ConsumerError> {
        let unpinned = self.context.unpin_consumer_from_stream(name, self.name(), group).await;
        unpinned.map_err(ConsumerErrorKind::error)
    }

    /// Resets consumer `name`'s delivery state (server 2.14+); see
    /// [`Context::reset_consumer_from_stream`].
    pub async fn reset_consumer(
        &self,
        name: impl AsRef<str>,
        seq: Option<u64>,
    ) -> Result<ConsumerResetResponse, ConsumerResetError> {
        let reset = self.context.reset_consumer_from_stream(name, self.name(), seq).await;
        reset.map_err(ConsumerResetErrorKind::error)
    }

    /// Names of the stream's consumers, a page at a time.
    pub fn consumer_names(&self) -> impl AsyncStream<Item = Result<String, ConsumersError>> + Unpin + use<I> {
        self.consumer_pages(api::consumer_names).map(|item| item.map_err(StreamsErrorKind::error))
    }

    /// Info of the stream's consumers, a page at a time.
    pub fn consumers(&self) -> impl AsyncStream<Item = Result<ConsumerInfo, ConsumersError>> + Unpin + use<I> {
        self.consumer_pages(api::consumer_list).map(|item| item.map_err(StreamsErrorKind::error))
    }

    /// A consumer listing, its items parsed as `T`; an invalid stream name
    /// is the first item.
    fn consumer_pages<T: DeserializeOwned>(
        &self,
        subject: fn(&str, &str) -> Result<String, Error>,
    ) -> impl AsyncStream<Item = Result<T, Error>> + Unpin + use<I, T> {
        let items = match subject(self.context.api_prefix(), self.name()) {
            Ok(subject) => Either::Left(self.context.list_pages(subject, None)),
            Err(e) => Either::Right(futures_util::stream::iter([Err(e)])),
        };
        typed(items)
    }
}
