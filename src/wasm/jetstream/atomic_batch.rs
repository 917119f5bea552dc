//! `RawAtomicBatch`: an atomic batch ([`BatchPublish`]) for nats.js's
//! `startBatch`: `add` sends at once (a promise of the server's
//! acknowledgement when asked for one, and for the first message), `commit`
//! resolves with the batch's `RawPubAck`.

use bytes::Bytes;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::context::{RawJetStream, RawPublishOptions, raw_pub_ack, with_options};
use crate::core::jetstream::atomic_batch::BatchReply;
use crate::error::Error;
use crate::jetstream::Publish;
use crate::jetstream::publish::{BatchAnswer, BatchPublish};
use crate::wasm::boxed_promise;
use crate::wasm::error::{Call, to_js};
use crate::wasm::options::millis;

#[wasm_bindgen]
pub struct RawAtomicBatch {
    batch: BatchPublish,
}

#[wasm_bindgen]
impl RawJetStream {
    /// A new atomic batch; each answer it awaits waits up to `timeout` ms
    /// (default: the JetStream timeout).
    #[wasm_bindgen(js_name = atomicBatch)]
    pub fn atomic_batch(&self, timeout: Option<f64>) -> Result<RawAtomicBatch, JsValue> {
        let mut builder = self.context.batch_publish();
        if let Some(timeout) = millis(timeout.into(), "timeout")? {
            builder = builder.timeout(timeout);
        }
        Ok(RawAtomicBatch { batch: builder.build() })
    }
}

#[wasm_bindgen]
impl RawAtomicBatch {
    /// The batch's `Nats-Batch-Id`.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.batch.batch_id().to_string()
    }

    /// Messages sent so far.
    #[wasm_bindgen(getter)]
    pub fn count(&self) -> f64 {
        self.batch.size() as f64
    }

    /// Sends the next message; a promise of its acknowledgement when `ack`
    /// (always for the first message), else `undefined`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void> | undefined")]
    pub fn add(
        &mut self,
        subject: String,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
        ack: bool,
    ) -> Result<JsValue, JsValue> {
        let Some(answer) = self.send(&subject, payload, options, ack, false)? else { return Ok(JsValue::UNDEFINED) };
        Ok(boxed_promise(Box::pin(async move {
            answer.await.map(|_| JsValue::UNDEFINED).map_err(|e| to_js(&e, Call::Other(&subject)).into())
        }))
        .into())
    }

    /// Sends the last message; the promise gets the stream's ack of the batch.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawPubAck>")]
    pub fn commit(
        &mut self,
        subject: String,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
    ) -> Result<Promise, JsValue> {
        let answer = self.send(&subject, payload, options, true, true)?;
        let answer = answer.ok_or(Error::ApiMisuse("the commit was not sent as a request"))?;
        Ok(boxed_promise(Box::pin(async move {
            match answer.await.map_err(|e| to_js(&e, Call::Other(&subject)))? {
                BatchReply::Committed(ack) => Ok(raw_pub_ack(ack)),
                BatchReply::Staged => Err(Error::ApiMisuse("the commit was not answered with the batch's ack").into()),
            }
        })))
    }

    fn send(
        &mut self,
        subject: &str,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
        ack: bool,
        commit: bool,
    ) -> Result<Option<BatchAnswer>, JsValue> {
        let mut message = Publish::build().payload(Bytes::from(payload));
        if let Some(o) = options {
            message = with_options(message, &o)?;
        }
        self.batch.send_nowait(subject, message, ack, commit).map_err(|e| to_js(&e, Call::Other(subject)).into())
    }
}
