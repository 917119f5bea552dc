//! Doors into natsjet's readers of server input that are not API, for the
//! fuzz targets in `fuzz/` and their corpus replay (`tests/fuzz_corpora.rs`).
//! Built only with the `fuzzing` feature; not API, not for programs.

use bytes::Bytes;
use serde::de::DeserializeOwned;

use crate::core::error::Error;
use crate::core::message::Message;
use crate::jetstream::api::{self, MsgGetResponse};
use crate::jetstream::kv::{Entry, names::KeySubjects, stored_entry, watched_entry};
use crate::jetstream::object_store::{ObjectInfo, parse_meta};
use crate::jetstream::ordered::delivery_numbers;
use crate::jetstream::stream::StreamMessage;
use crate::plain_json::AS_IN_WASM;

/// Runs `f` with plain JSON (INFO, publish acks, API errors, consumer
/// infos, object metas…) read by serde-json-core, as the wasm reads it.
pub fn as_in_wasm<R>(f: impl FnOnce() -> R) -> R {
    let before = AS_IN_WASM.replace(true);
    let result = f();
    AS_IN_WASM.set(before);
    result
}

/// `json` read as natsjet reads its plain types.
pub fn plain_json<T: DeserializeOwned>(json: &[u8]) -> Result<T, String> {
    crate::plain_json::from_slice(json)
}

/// The numbers of an ack subject read without allocating: delivered,
/// stream and consumer sequence, timestamp, pending.
pub fn delivery_numbers_of(subject: &str) -> Result<[u64; 5], Error> {
    let n = crate::jetstream::ack::DeliveryNumbers::parse(subject)?;
    Ok([n.delivered, n.stream_sequence, n.consumer_sequence, n.timestamp_nanos, n.pending])
}

/// What a KV get of `key` makes of a direct get's reply, and the value's size.
pub fn kv_entry_of_direct_get(bucket: &str, key: &str, reply: Message) -> Result<Option<(Entry, usize)>, Error> {
    let subject = KeySubjects::new(bucket, "$JS.API", None).read(key);
    Ok(stored_entry(bucket, key, &subject, StreamMessage::from_direct_reply(reply)?))
}

/// What a KV get of `key` makes of a `STREAM.MSG.GET` reply.
pub fn kv_entry_of_msg_get(bucket: &str, key: &str, json: &[u8]) -> Result<Option<(Entry, usize)>, Error> {
    let subject = KeySubjects::new(bucket, "$JS.API", None).read(key);
    let message = api::parse_checked_plain::<MsgGetResponse>(json)?.message.try_into()?;
    Ok(stored_entry(bucket, key, &subject, message))
}

/// What a KV watch of `bucket` makes of a message of its consumer.
pub fn kv_entry_of_watch(bucket: &str, message: Message) -> Result<(Entry, usize), Error> {
    let numbers = delivery_numbers(&message)?;
    let prefix = KeySubjects::new(bucket, "$JS.API", None).read;
    watched_entry(bucket, &prefix, false, message, numbers)
}

/// An object meta as the object store reads it.
pub fn object_meta(json: &[u8]) -> Result<ObjectInfo, Error> {
    parse_meta(json)
}

/// An object meta as the object store writes it.
pub fn object_meta_json(info: &ObjectInfo) -> Result<Bytes, Error> {
    Ok(Bytes::from(crate::core::object::meta_json::write(info)))
}
