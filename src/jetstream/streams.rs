//! Stream management on [`Context`]: create, update, look up, delete, list.
//! Shaped like async-nats's context: every call fails with its kind
//! (`CreateStreamErrorKind`…) over the API's error ([`Error::JetStream`]
//! with an [`ErrorCode`]).

use std::borrow::Borrow;

use bytes::Bytes;
use futures_core::Stream as AsyncStream;
use futures_util::StreamExt;

use super::api::{self, DeleteResponse, ErrorCode, JetStreamError, StreamConfig, StreamInfo};
use super::api::{StreamNamesRequest, StreamNamesResponse};
use super::context::{
    Context, CreateStreamError, CreateStreamErrorKind, DeleteStreamError, GetStreamByNameError,
    GetStreamByNameErrorKind, GetStreamError, GetStreamErrorKind, StreamsError, StreamsErrorKind, UpdateStreamError,
    encode_request,
};
use super::direct_batch::DirectBatch;
use super::paging::typed;
use super::stream::{DeleteStatus, Stream, StreamMessage};
use crate::core::error::{Error, KindError, SortCause};
use crate::core::request_many::RequestManyOptions;
use crate::core::subject::validate_subject;

impl Context {
    /// Creates a stream. Creating one that exists with the same config
    /// returns it; with another config fails with
    /// [`ErrorCode::STREAM_NAME_EXIST`].
    pub async fn create_stream(&self, config: impl Borrow<StreamConfig>) -> Result<Stream, CreateStreamError> {
        let config = config.borrow();
        named(&config.name, CreateStreamErrorKind::EmptyStreamName)?;
        let info = async {
            let subject = api::stream_create(self.api_prefix(), &config.name)?;
            self.request(&subject, config).await
        };
        Ok(Stream::new(self.clone(), info.await.map_err(CreateStreamErrorKind::error)?))
    }

    /// Changes an existing stream's config; [`ErrorCode::STREAM_NOT_FOUND`]
    /// if there is none.
    pub async fn update_stream(&self, config: impl Borrow<StreamConfig>) -> Result<StreamInfo, UpdateStreamError> {
        let config = config.borrow();
        named(&config.name, CreateStreamErrorKind::EmptyStreamName)?;
        let info = async {
            let subject = api::stream_update(self.api_prefix(), &config.name)?;
            self.request(&subject, config).await
        };
        info.await.map_err(CreateStreamErrorKind::error)
    }

    /// A handle on an existing stream; [`ErrorCode::STREAM_NOT_FOUND`] if there is none.
    pub async fn get_stream(&self, name: impl AsRef<str>) -> Result<Stream, GetStreamError> {
        let name = name.as_ref();
        named(name, GetStreamErrorKind::EmptyName)?;
        let info = async {
            let subject = api::stream_info(self.api_prefix(), name)?;
            self.request_raw(&subject, b"").await
        };
        Ok(Stream::new(self.clone(), info.await.map_err(GetStreamErrorKind::error)?))
    }

    /// A handle on the stream `name` without asking the server for its info
    /// (or whether it exists): its calls find out.
    pub async fn get_stream_no_info(&self, name: impl AsRef<str>) -> Result<Stream<()>, GetStreamError> {
        let name = name.as_ref();
        named(name, GetStreamErrorKind::EmptyName)?;
        api::stream_info(self.api_prefix(), name).map_err(GetStreamErrorKind::error)?;
        Ok(Stream::without_info(self.clone(), name.to_string()))
    }

    /// Updates the stream `config` names, or creates it if there is none.
    pub async fn create_or_update_stream(
        &self,
        config: impl Borrow<StreamConfig>,
    ) -> Result<StreamInfo, CreateStreamError> {
        let config = config.borrow();
        match self.update_stream(config).await {
            Err(e) if matches!(e.cause(), Error::JetStream(e) if e.err_code == ErrorCode::STREAM_NOT_FOUND) => {
                Ok(self.create_stream(config).await?.info)
            }
            updated => updated,
        }
    }

    /// The stream named in `config`: the existing one whatever its config,
    /// else one created from `config`. Safe to call from many clients at
    /// once: one that loses the race to create looks the winner's stream up.
    pub async fn get_or_create_stream(&self, config: impl Borrow<StreamConfig>) -> Result<Stream, CreateStreamError> {
        let config = config.borrow();
        named(&config.name, CreateStreamErrorKind::EmptyStreamName)?;
        let info = async {
            let body = encode_request(config)?;
            api::parse_checked(&self.get_or_create_stream_json(&config.name, &body).await?)
        };
        Ok(Stream::new(self.clone(), info.await.map_err(CreateStreamErrorKind::error)?))
    }

    /// [`get_or_create_stream`](Self::get_or_create_stream) with the
    /// stream's config as JSON; its info as JSON.
    pub async fn get_or_create_stream_json(&self, name: &str, config: &[u8]) -> Result<Bytes, Error> {
        let info = api::stream_info(self.api_prefix(), name)?;
        match self.request_json(&info, b"").await {
            Err(Error::JetStream(e)) if e.err_code == ErrorCode::STREAM_NOT_FOUND => {}
            found => return found,
        }
        match self.request_json(&api::stream_create(self.api_prefix(), name)?, config).await {
            Err(Error::JetStream(e)) if e.err_code == ErrorCode::STREAM_NAME_EXIST => {
                self.request_json(&info, b"").await
            }
            created => created,
        }
    }

    /// Deletes a stream and its consumers; whether the server reported success.
    pub async fn delete_stream(&self, name: impl AsRef<str>) -> Result<DeleteStatus, DeleteStreamError> {
        let name = name.as_ref();
        named(name, GetStreamErrorKind::EmptyName)?;
        let status = async {
            let subject = api::stream_delete(self.api_prefix(), name)?;
            self.request_raw::<DeleteResponse>(&subject, b"").await
        };
        status.await.map_err(GetStreamErrorKind::error)
    }

    /// The name of the stream that stores `subject`;
    /// [`ErrorCode::STREAM_NOT_FOUND`] if none does.
    pub async fn stream_by_subject(&self, subject: impl AsRef<str>) -> Result<String, GetStreamByNameError> {
        let subject = subject.as_ref();
        let name = async {
            validate_subject(subject)?;
            let request = StreamNamesRequest { offset: 0, subject: Some(subject.to_string()) };
            let page: StreamNamesResponse = self.request(&api::stream_names(self.api_prefix()), &request).await?;
            page.streams.into_iter().next().ok_or_else(|| {
                Error::JetStream(JetStreamError {
                    code: 404,
                    err_code: ErrorCode::STREAM_NOT_FOUND,
                    description: format!("no stream stores subject {subject:?}"),
                })
            })
        };
        name.await.map_err(GetStreamByNameErrorKind::error)
    }

    /// A direct get (ADR-31) from any replica of `stream`: `payload` is a
    /// [`MsgGetRequest`](api::MsgGetRequest) as JSON; with
    /// `last_for_subject`, the newest message on that subject (empty
    /// payload). Needs `allow_direct` on the stream: without it nobody
    /// answers ([`Error::NoResponders`]). No read-after-write guarantee; no
    /// such message is [`ErrorCode::NO_MESSAGE_FOUND`].
    pub async fn direct_get_from_stream(
        &self,
        stream: &str,
        last_for_subject: Option<&str>,
        payload: &[u8],
    ) -> Result<StreamMessage, Error> {
        let subject = self.direct_get_subject(stream, last_for_subject)?;
        let reply = self.client().request_message(&subject, None, payload, Some(self.timeout())).await?;
        StreamMessage::from_direct_reply(reply)
    }

    /// The subject [`direct_get_from_stream`](Self::direct_get_from_stream) asks.
    pub(crate) fn direct_get_subject(&self, stream: &str, last_for_subject: Option<&str>) -> Result<String, Error> {
        match last_for_subject {
            Some(subject) => api::direct_get_last(self.api_prefix(), stream, subject),
            None => api::direct_get(self.api_prefix(), stream),
        }
    }

    /// The message `request` names in `stream` (its `seq` or its
    /// `last_by_subj`): a direct get from any replica when `direct` (the
    /// stream has `allow_direct`), else a `STREAM.MSG.GET` from its leader.
    /// The one read of a stored message both stores use, so the wasm holds
    /// one future for it.
    pub(crate) async fn stored_message(
        &self,
        stream: &str,
        direct: bool,
        request: &api::MsgGetRequest,
    ) -> Result<StreamMessage, Error> {
        if !direct {
            let call = api::stream_msg_get(self.api_prefix(), stream)?;
            let reply = self.request_json(&call, &encode_request(request)?).await?;
            return api::parse_checked_plain::<api::MsgGetResponse>(&reply)?.message.try_into();
        }
        match (&request.last_by_subj, request.seq) {
            (Some(subject), None) => self.direct_get_from_stream(stream, Some(subject), b"").await,
            _ => self.direct_get_from_stream(stream, None, &encode_request(request)?).await,
        }
    }

    /// A batched direct get (ADR-31, server 2.11+) from any replica of
    /// `stream`: `payload` is the request's JSON with `batch` (and `seq`,
    /// `start_time` or `next_by_subj`), or `multi_last` for the newest
    /// message of each subject. The messages come as a stream that ends
    /// after the last one; the JetStream timeout bounds the whole batch.
    pub fn direct_get_batch_from_stream(&self, stream: &str, payload: &[u8]) -> Result<DirectBatch, Error> {
        let subject = api::direct_get(self.api_prefix(), stream)?;
        let replies = self.client().send_request_many(&subject, None, payload, &batch_options(self.timeout()))?;
        Ok(DirectBatch::new(replies))
    }

    /// Names of all streams, a page at a time.
    pub fn stream_names(&self) -> impl AsyncStream<Item = Result<String, StreamsError>> + Unpin + use<> {
        self.stream_names_filtered(None).map(sorted)
    }

    /// Names of the streams whose subjects overlap `subject` (wildcards allowed).
    pub fn stream_names_for_subject<S: Into<String>>(
        &self,
        subject: S,
    ) -> impl AsyncStream<Item = Result<String, StreamsError>> + Unpin + use<S> {
        self.stream_names_filtered(Some(subject.into())).map(sorted)
    }

    /// The stream names with natsjet's [`Error`] (the stores list buckets with them).
    pub(crate) fn stream_names_filtered(
        &self,
        filter: Option<String>,
    ) -> impl AsyncStream<Item = Result<String, Error>> + Unpin + use<> {
        typed(self.list_pages(api::stream_names(self.api_prefix()), filter))
    }

    /// Info of all streams, a page at a time.
    pub fn streams(&self) -> impl AsyncStream<Item = Result<StreamInfo, StreamsError>> + Unpin + use<> {
        typed(self.list_pages(api::stream_list(self.api_prefix()), None)).map(sorted)
    }
}

/// A batch's replies until `timeout` at most; the end-of-batch status ends it sooner.
fn batch_options(timeout: std::time::Duration) -> RequestManyOptions {
    RequestManyOptions { max_wait: timeout, ..RequestManyOptions::default() }
}

/// An empty name is its own kind, as in async-nats.
fn named<K: SortCause>(name: &str, empty: K) -> Result<(), KindError<K>> {
    match name.is_empty() {
        true => Err(KindError::new(empty, Error::InvalidArgument("the stream name is empty".into()))),
        false => Ok(()),
    }
}

fn sorted<T>(item: Result<T, Error>) -> Result<T, StreamsError> {
    item.map_err(StreamsErrorKind::error)
}
