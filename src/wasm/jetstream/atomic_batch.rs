//! `RawAtomicBatch`: an atomic batch ([`BatchPublish`]) for nats.js's
//! `startBatch`: `send` sends a message at once, with a promise of the
//! server's acknowledgement when it asks for one (the first message, acked
//! ones) and of the batch's `RawPubAck` for the commit.

use bytes::Bytes;
use wasm_bindgen::prelude::*;

use super::context::{RawJetStream, RawPublishOptions, raw_pub_ack, with_options};
use crate::core::error::Error;
use crate::core::jetstream::atomic_batch::BatchReply;
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

    /// Sends the next message, the last one when `commit`: a promise of the
    /// server's acknowledgement when `ack` (always for the first message),
    /// of the batch's ack for the commit, else `undefined`.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawPubAck | undefined> | undefined")]
    pub fn send(
        &mut self,
        subject: String,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
        ack: bool,
        commit: bool,
    ) -> Result<JsValue, JsValue> {
        let mut message = Publish::build().payload(Bytes::from(payload));
        if let Some(o) = options {
            message = with_options(message, &o)?;
        }
        let sent = self.batch.send_nowait(&subject, message, ack, commit);
        answered(sent, subject)
    }

    /// Ends the batch without storing a message (server 2.14; the first
    /// message's subject carries it): a promise of the batch's ack.
    #[wasm_bindgen(js_name = commitEob, unchecked_return_type = "Promise<RawPubAck>")]
    pub fn commit_eob(&mut self) -> Result<JsValue, JsValue> {
        answered(self.batch.end_nowait(), String::new())
    }
}

/// The promise of what a sent message awaits (`undefined` when nothing).
fn answered(sent: Result<Option<BatchAnswer>, Error>, subject: String) -> Result<JsValue, JsValue> {
    let Some(answer) = sent.map_err(|e| to_js(&e, Call::Other(&subject)))? else { return Ok(JsValue::UNDEFINED) };
    Ok(boxed_promise(Box::pin(async move {
        match answer.await.map_err(|e| to_js(&e, Call::Other(&subject)))? {
            BatchReply::Committed(ack) => Ok(raw_pub_ack(ack)),
            BatchReply::Staged => Ok(JsValue::UNDEFINED),
        }
    }))
    .into())
}
