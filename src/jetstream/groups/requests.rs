//! The JetStream requests the groups make, with replies read by the small
//! JSON reader (`parse_checked_plain`, serde-json-core in wasm) for just the
//! fields the groups need, so the npm package's wasm links no serde_json
//! deserializer for stream or consumer infos.

use bytes::Bytes;
use futures_util::StreamExt;
use serde::Deserialize;

use super::Kind;
use crate::core::error::Error;
use crate::jetstream::api::{
    self, ConsumerAction, ConsumerConfig, ConsumerInfo, ConsumerUnpinRequest, CreateConsumerRequest, ErrorCode,
    PriorityGroupState, StorageType, StreamConfig, null_as_default, parse_checked_plain,
};
use crate::jetstream::consumer::Consumer;
use crate::jetstream::context::{Context, encode_request};
use crate::jetstream::kv::{self, Store};

#[derive(Deserialize, Default)]
#[serde(default)]
struct Facts {
    config: StreamFacts,
}

/// What the groups read of a stream's config.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
pub(crate) struct StreamFacts {
    pub num_replicas: usize,
    pub storage: StorageType,
}

/// A consumer as the groups see it in a listing.
#[derive(Deserialize, Default, Debug, Clone)]
#[serde(default)]
pub(crate) struct ConsumerFacts {
    pub name: String,
    pub num_waiting: usize,
    #[serde(deserialize_with = "null_as_default")]
    pub priority_groups: Vec<PriorityGroupState>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ConsumerPage {
    #[serde(deserialize_with = "null_as_default")]
    consumers: Vec<ConsumerFacts>,
}

pub(crate) fn is_code(error: &Error, code: ErrorCode) -> bool {
    matches!(error, Error::JetStream(e) if e.err_code == code)
}

/// The stream's replicas and storage; fails if there is no such stream.
pub(crate) async fn stream_facts(js: &Context, stream: &str) -> Result<StreamFacts, Error> {
    let reply = js.request_json(&api::stream_info(js.api_prefix(), stream)?, b"").await?;
    Ok(parse_checked_plain::<Facts>(&reply)?.config)
}

pub(crate) async fn create_stream(js: &Context, config: &StreamConfig) -> Result<Bytes, Error> {
    js.request_json(&api::stream_create(js.api_prefix(), &config.name)?, &encode_request(config)?).await
}

pub(crate) async fn delete_stream(js: &Context, stream: &str) -> Result<(), Error> {
    js.request_json(&api::stream_delete(js.api_prefix(), stream)?, b"").await.map(drop)
}

/// The bucket of `kind`'s documents.
pub(crate) async fn bucket(js: &Context, kind: Kind) -> Result<Store, Error> {
    let stream = kv::names::stream_name(kind.bucket());
    let info = js.request_json(&api::stream_info(js.api_prefix(), &stream)?, b"").await?;
    Store::bind(js.clone(), kind.bucket(), &info)
}

/// The bucket, created (file storage, `replicas` as the group's stream) when missing.
pub(crate) async fn bucket_or_create(js: &Context, kind: Kind, replicas: usize) -> Result<Store, Error> {
    let config = kv::Config {
        bucket: kind.bucket().into(),
        num_replicas: replicas,
        storage: StorageType::File,
        ..Default::default()
    };
    Ok(js.get_or_create_key_value(config).await?)
}

/// Creates the consumer (action create: an identical one is kept, another refused).
pub(crate) async fn create_consumer(js: &Context, stream: &str, config: ConsumerConfig) -> Result<Consumer, Error> {
    let subject = api::consumer_create(js.api_prefix(), stream, &config)?;
    let body =
        encode_request(&CreateConsumerRequest { stream_name: stream.into(), config, action: ConsumerAction::Create })?;
    let reply = js.request_json(&subject, &body).await?;
    Ok(Consumer::new(js.clone(), ConsumerInfo::from_json_core(&reply)?))
}

/// Deletes the consumer; one that is not there is no error.
pub(crate) async fn delete_consumer(js: &Context, stream: &str, consumer: &str) -> Result<(), Error> {
    match js.request_json(&api::consumer_delete(js.api_prefix(), stream, consumer)?, b"").await {
        Err(e) if is_code(&e, ErrorCode::CONSUMER_NOT_FOUND) => Ok(()),
        other => other.map(drop),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct AckState {
    ack_floor: api::SequenceInfo,
    num_ack_pending: u64,
}

/// A consumer's ack floor (its stream sequence) and count of messages delivered and not acked.
pub(crate) async fn ack_state(js: &Context, stream: &str, consumer: &str) -> Result<(u64, u64), Error> {
    let reply = js.request_json(&api::consumer_info(js.api_prefix(), stream, consumer)?, b"").await?;
    let state = parse_checked_plain::<AckState>(&reply)?;
    Ok((state.ack_floor.stream_sequence, state.num_ack_pending))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PinState {
    #[serde(deserialize_with = "null_as_default")]
    priority_groups: Vec<PriorityGroupState>,
}

/// The pin id of the instance the consumer's priority group pins now.
pub(crate) async fn pinned_id(js: &Context, stream: &str, consumer: &str) -> Result<Option<String>, Error> {
    let reply = js.request_json(&api::consumer_info(js.api_prefix(), stream, consumer)?, b"").await?;
    let state = parse_checked_plain::<PinState>(&reply)?;
    Ok(state.priority_groups.into_iter().find_map(|g| g.pinned_client_id))
}

pub(crate) async fn unpin(js: &Context, stream: &str, consumer: &str, group: &str) -> Result<(), Error> {
    let body = encode_request(&ConsumerUnpinRequest { group: group.into() })?;
    js.request_json(&api::consumer_unpin(js.api_prefix(), stream, consumer)?, &body).await.map(drop)
}

/// Every consumer of `stream`, as the groups see them.
pub(crate) async fn consumers(js: &Context, stream: &str) -> Result<Vec<ConsumerFacts>, Error> {
    let mut pages = js.list_pages(api::consumer_list(js.api_prefix(), stream)?, None);
    let mut all = Vec::new();
    while let Some(page) = pages.next().await {
        all.extend(parse_checked_plain::<ConsumerPage>(&page?)?.consumers);
    }
    Ok(all)
}
