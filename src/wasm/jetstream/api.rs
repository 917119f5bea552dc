//! The JetStream API calls of nats.js's `JetStreamManager` on
//! `RawJetStream`: a handful of exports for every call. Requests and replies
//! stay JSON text, parsed in TS; here a call is named as in its subject
//! (`STREAM.INFO`), and the Rust API validates its names into the subject
//! ([`api`]'s builders) and applies the prefix, timeout and error replies
//! ([`Context::request_json`], [`Context::list_pages`]). Some calls take
//! the Rust API's own path: a consumer reset (which tells a missing
//! consumer from the server's silence), get-or-create (a look-up, then a
//! create that may lose a race), stream info with details (every page of
//! subject counts) and direct gets (a message, not JSON).

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::consumer::RawConsumer;
use super::context::RawJetStream;
use super::direct_batch::RawDirectBatch;
use super::lister::RawLister;
use super::replies::{reply_text, stored_msg};
use crate::core::error::Error;
use crate::core::proto;
use crate::jetstream::api::{self, ConsumerInfo, CreateConsumerRequest, ErrorCode, StreamInfoRequest};
use crate::jetstream::{Consumer, Context};
use crate::wasm::batch::raw_headers;
use crate::wasm::error::{Call, to_js};
use crate::wasm::{boxed_promise, promise};

#[wasm_bindgen(typescript_custom_section)]
const TS_API: &str = r#"
/** A JetStream API call, named as in its subject; `RawJetStream.request` adds the names. */
export type ApiCall =
  | "INFO"
  | "STREAM.CREATE" | "STREAM.UPDATE" | "STREAM.INFO" | "STREAM.DELETE" | "STREAM.PURGE"
  | "STREAM.MSG.GET" | "STREAM.MSG.DELETE"
  | "CONSUMER.CREATE" | "CONSUMER.INFO" | "CONSUMER.DELETE" | "CONSUMER.PAUSE" | "CONSUMER.UNPIN"
  | "CONSUMER.RESET"
  /** natsjet: the existing stream or consumer whatever its config, else one created from the body. */
  | "STREAM.GET_OR_CREATE" | "CONSUMER.GET_OR_CREATE";
/** A direct get's message: subject, stream sequence, RFC 3339 time, headers (none: `undefined`), payload. */
export type RawStoredMsg = [subject: string, seq: number, time: string, headers: RawHeaders | undefined, data: Uint8Array];
/** A paged listing; the consumer ones name a stream. */
export type ApiListing = "STREAM.NAMES" | "STREAM.LIST" | "CONSUMER.NAMES" | "CONSUMER.LIST";
"#;

#[wasm_bindgen]
impl RawJetStream {
    /// Sends `body` (JSON, or `""`) to the API call `call` of stream
    /// `stream` and consumer `consumer` (`""` where the call takes none);
    /// resolves to the reply's JSON. The server's error replies reject as
    /// `JETSTREAM` errors, invalid names as `INVALID_ARGUMENT`.
    #[wasm_bindgen(unchecked_return_type = "Promise<string>")]
    pub fn request(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ApiCall")] call: &str,
        stream: &str,
        consumer: &str,
        body: String,
    ) -> Result<Promise, JsValue> {
        let context = self.context.clone();
        // Composed calls go through the Rust API's own; one future type for all.
        let composed = match call {
            "CONSUMER.RESET" | "STREAM.GET_OR_CREATE" | "CONSUMER.GET_OR_CREATE" => Some(call.to_string()),
            _ => None,
        };
        let subject = match composed {
            Some(_) => String::new(),
            None => subject(&self.context, call, stream, consumer, &body)?,
        };
        let (stream, consumer) = (stream.to_string(), consumer.to_string());
        Ok(boxed_promise(Box::pin(async move {
            let body = body.as_bytes();
            let reply = match composed.as_deref() {
                None => context.request_json(&subject, body).await,
                Some("CONSUMER.RESET") => context.reset_consumer_json(&stream, &consumer, body).await,
                Some("STREAM.GET_OR_CREATE") => context.get_or_create_stream_json(&stream, body).await,
                Some(_) => context.get_or_create_consumer_json(&stream, &consumer, body).await,
            };
            // nats.js names the API subject nobody answered.
            let reply = reply.map_err(|e| to_js(&e, Call::Other(&subject)))?;
            Ok(reply_text(reply)?.into())
        })))
    }

    /// `STREAM.INFO` with details: message counts per subject matching
    /// `subjectsFilter`, deleted sequences with `deletedDetails`; resolves
    /// to the reply's JSON, one per page of subjects.
    #[wasm_bindgen(js_name = streamInfo, unchecked_return_type = "Promise<string[]>")]
    pub fn stream_info(
        &self,
        stream: String,
        subjects_filter: Option<String>,
        deleted_details: Option<bool>,
    ) -> Promise {
        let request = StreamInfoRequest { subjects_filter, deleted_details: deleted_details == Some(true), offset: 0 };
        let context = self.context.clone();
        promise(async move {
            let pages = context.stream_info_json(&stream, &request).await?;
            Ok(pages
                .into_iter()
                .map(|page| reply_text(page).map(JsValue::from))
                .collect::<Result<Array, Error>>()?
                .into())
        })
    }

    /// A direct get from any replica of `stream` (needs `allow_direct`):
    /// `body` is the request's JSON, or with `lastBySubject` the newest
    /// message on that subject. `null` when there is no such message.
    #[wasm_bindgen(js_name = directGet, unchecked_return_type = "Promise<RawStoredMsg | null>")]
    pub fn direct_get(&self, stream: String, last_by_subject: Option<String>, body: String) -> Promise {
        let context = self.context.clone();
        boxed_promise(Box::pin(async move {
            let last = last_by_subject.as_deref();
            match context.direct_get_from_stream(&stream, last, body.as_bytes()).await {
                Ok(found) => Ok(stored_msg(found).into()),
                Err(Error::JetStream(e)) if e.err_code == ErrorCode::NO_MESSAGE_FOUND => Ok(JsValue::NULL),
                // nats.js asks the direct API with a plain request.
                Err(e) => {
                    let subject = context.direct_get_subject(&stream, last).unwrap_or_default();
                    Err(to_js(&e, Call::Request(&subject)).into())
                }
            }
        }))
    }

    /// A batched direct get (server 2.11+): `body` is the request's JSON
    /// (`batch` with `seq`, `start_time` or `next_by_subj`, or
    /// `multi_last`); the messages are read a batch at a time.
    #[wasm_bindgen(js_name = directGetBatch)]
    pub fn direct_get_batch(&self, stream: &str, body: &str) -> Result<RawDirectBatch, JsValue> {
        Ok(RawDirectBatch::new(self.context.direct_get_batch_from_stream(stream, body.as_bytes())?))
    }

    /// The items of a listing, fetched a page at a time as they are read;
    /// `subject` keeps the streams that store it.
    pub fn list(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ApiListing")] listing: &str,
        stream: &str,
        subject: Option<String>,
    ) -> Result<RawLister, JsValue> {
        let prefix = self.context.api_prefix();
        let call = match listing {
            "STREAM.NAMES" => api::stream_names(prefix),
            "STREAM.LIST" => api::stream_list(prefix),
            "CONSUMER.NAMES" => api::consumer_names(prefix, stream)?,
            "CONSUMER.LIST" => api::consumer_list(prefix, stream)?,
            _ => return Err(unknown(listing).into()),
        };
        Ok(RawLister::new(self.context.list_pages(call, subject)))
    }

    /// A pull consumer handle from its info (a `CONSUMER.INFO` reply).
    pub fn consumer(&self, info: &str) -> Result<RawConsumer, JsValue> {
        let info = ConsumerInfo::from_json_core(info.as_bytes())?;
        Ok(RawConsumer::new(Consumer::new(self.context.clone(), info)))
    }

    /// The headers of a stored message, from the raw `NATS/1.0` block of a
    /// `STREAM.MSG.GET` reply (its `hdrs`, base64-decoded in TS).
    #[wasm_bindgen(js_name = parseHeaders, unchecked_return_type = "RawHeaders")]
    pub fn parse_headers(&self, block: &[u8]) -> Result<Array, JsValue> {
        let (status, description, headers) = proto::parse_headers(block)?;
        Ok(raw_headers(status, description.as_deref(), Some(&headers)))
    }
}

/// The full subject of `call`; a consumer is created under the name and
/// filter its config in `body` gives.
fn subject(context: &Context, call: &str, stream: &str, consumer: &str, body: &str) -> Result<String, Error> {
    let prefix = context.api_prefix();
    match call {
        "INFO" => Ok(api::account_info(prefix)),
        "STREAM.CREATE" => api::stream_create(prefix, stream),
        "STREAM.UPDATE" => api::stream_update(prefix, stream),
        "STREAM.INFO" => api::stream_info(prefix, stream),
        "STREAM.DELETE" => api::stream_delete(prefix, stream),
        "STREAM.PURGE" => api::stream_purge(prefix, stream),
        "STREAM.MSG.GET" => api::stream_msg_get(prefix, stream),
        "STREAM.MSG.DELETE" => api::stream_msg_delete(prefix, stream),
        "CONSUMER.CREATE" => {
            api::consumer_create(prefix, stream, &CreateConsumerRequest::config_from_json_core(body.as_bytes())?)
        }
        "CONSUMER.INFO" => api::consumer_info(prefix, stream, consumer),
        "CONSUMER.DELETE" => api::consumer_delete(prefix, stream, consumer),
        "CONSUMER.PAUSE" => api::consumer_pause(prefix, stream, consumer),
        "CONSUMER.UNPIN" => api::consumer_unpin(prefix, stream, consumer),
        _ => Err(unknown(call)),
    }
}

fn unknown(call: &str) -> Error {
    Error::InvalidArgument(format!("no JetStream API call {call:?}"))
}
