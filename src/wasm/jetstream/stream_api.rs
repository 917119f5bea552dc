//! Stream management on `RawJetStream`, the calls of nats.js's `StreamAPI`
//! and `getAccountInfo`, each one Rust API call.

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::context::RawJetStream;
use super::lister::RawLister;
use super::{from_json, whole_number};
use crate::error::Error;
use crate::jetstream::api::{StreamConfig, StreamInfo};
use crate::jetstream::stream::{RawMessage, Stream};
use crate::message::Message;
use crate::wasm::batch::pack;
use crate::wasm::{promise, to_js_object};

#[wasm_bindgen(typescript_custom_section)]
const TS_STORED: &str = r#"
/** A message read back from a stream: `[message, seq, time]` (`time`: RFC 3339). */
export type RawStoredMsg = [message: RawBatch, seq: number, time: string];
"#;

#[wasm_bindgen]
impl RawJetStream {
    /// Creates a stream; one that exists with another config is an error (10058).
    #[wasm_bindgen(js_name = addStream, unchecked_return_type = "Promise<StreamInfo>")]
    pub fn add_stream(&self, config: &str) -> Result<Promise, JsValue> {
        let config: StreamConfig = from_json(config, "stream config")?;
        let context = self.context.clone();
        Ok(promise(async move { to_js_object(context.create_stream(config).await?.cached_info()) }))
    }

    /// Replaces an existing stream's config with `config` (the whole of it).
    #[wasm_bindgen(js_name = updateStream, unchecked_return_type = "Promise<StreamInfo>")]
    pub fn update_stream(&self, config: &str) -> Result<Promise, JsValue> {
        let config: StreamConfig = from_json(config, "stream config")?;
        let context = self.context.clone();
        Ok(promise(async move { to_js_object(&context.update_stream(config).await?) }))
    }

    #[wasm_bindgen(js_name = streamInfo, unchecked_return_type = "Promise<StreamInfo>")]
    pub fn stream_info(&self, name: String) -> Promise {
        let context = self.context.clone();
        promise(async move { to_js_object(context.get_stream(name).await?.cached_info()) })
    }

    #[wasm_bindgen(js_name = deleteStream, unchecked_return_type = "Promise<boolean>")]
    pub fn delete_stream(&self, name: String) -> Promise {
        let context = self.context.clone();
        promise(async move { context.delete_stream(name).await })
    }

    /// Removes messages: all, or those `filter`, `seq` (below it) and `keep`
    /// (the newest so many) select.
    #[wasm_bindgen(js_name = purgeStream, unchecked_return_type = "Promise<PurgeResponse>")]
    pub fn purge_stream(
        &self,
        name: &str,
        filter: Option<String>,
        seq: Option<f64>,
        keep: Option<f64>,
    ) -> Result<Promise, JsValue> {
        let mut purge = self.stream(name).purge();
        if let Some(filter) = filter {
            purge = purge.filter(filter);
        }
        if let Some(seq) = whole_number(seq.into(), "seq")? {
            purge = purge.sequence(seq);
        }
        if let Some(keep) = whole_number(keep.into(), "keep")? {
            purge = purge.keep(keep);
        }
        Ok(promise(async move { to_js_object(&purge.await?) }))
    }

    /// Info of every stream.
    #[wasm_bindgen(js_name = listStreams)]
    pub fn list_streams(&self) -> RawLister {
        RawLister::json(self.context.streams())
    }

    /// Names of every stream, or of those whose subjects overlap `subject`.
    #[wasm_bindgen(js_name = streamNames)]
    pub fn stream_names(&self, subject: Option<String>) -> RawLister {
        match subject {
            Some(subject) => RawLister::json(self.context.stream_names_for_subject(subject)),
            None => RawLister::json(self.context.stream_names()),
        }
    }

    /// The message at `seq`, the last on `lastBySubj`, or the first on
    /// `nextBySubj` at or after `seq`; none found is an error (10037).
    #[wasm_bindgen(js_name = getMessage, unchecked_return_type = "Promise<RawStoredMsg>")]
    pub fn get_message(
        &self,
        name: &str,
        seq: Option<f64>,
        last_by_subj: Option<String>,
        next_by_subj: Option<String>,
    ) -> Result<Promise, JsValue> {
        let stream = self.stream(name);
        let seq = whole_number(seq.into(), "seq")?;
        Ok(promise(async move {
            let message = match (seq, last_by_subj, next_by_subj) {
                (seq, None, Some(subject)) => stream.get_next_raw_message_by_subject(subject, seq.unwrap_or(0)).await,
                (None, Some(subject), None) => stream.get_last_raw_message_by_subject(subject).await,
                (Some(seq), None, None) => stream.get_raw_message(seq).await,
                _ => Err(Error::InvalidArgument("getMessage: give seq, last_by_subj, or next_by_subj".into())),
            }?;
            Ok(stored(message))
        }))
    }

    /// Deletes the message at `seq`; `erase` also overwrites its bytes.
    #[wasm_bindgen(js_name = deleteMessage, unchecked_return_type = "Promise<boolean>")]
    pub fn delete_message(&self, name: &str, seq: f64, erase: bool) -> Result<Promise, JsValue> {
        let stream = self.stream(name);
        let seq = whole_number(seq.into(), "seq")?.unwrap_or_default();
        Ok(promise(
            async move { if erase { stream.erase_message(seq).await } else { stream.delete_message(seq).await } },
        ))
    }

    /// The account's JetStream usage and limits.
    #[wasm_bindgen(js_name = accountInfo, unchecked_return_type = "Promise<AccountInfo>")]
    pub fn account_info(&self) -> Promise {
        let context = self.context.clone();
        promise(async move { to_js_object(&context.query_account().await?) })
    }
}

impl RawJetStream {
    /// A handle on stream `name` without asking the server for its info:
    /// the calls made on it only need the name.
    pub(super) fn stream(&self, name: &str) -> Stream {
        let config = StreamConfig { name: name.to_string(), ..Default::default() };
        Stream::new(self.context.clone(), StreamInfo { config, ..Default::default() })
    }
}

/// A stored message as a batch of one, with its sequence and time.
fn stored(m: RawMessage) -> Array {
    let message = Message {
        subject: m.subject,
        reply: None,
        payload: m.payload,
        headers: m.headers,
        status: None,
        description: None,
        length: 0,
    };
    Array::of3(&pack(&[message]), &(m.sequence as f64).into(), &m.time.into())
}
