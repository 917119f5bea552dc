//! `RawFastPublisher`: the Rust [`FastPublisher`] (fast ingest, ADR-50
//! fast batches, `allow_batched`) for the npm package's `js.fastPublisher`:
//! each call is a promise; calls run one after the other, in the order
//! they were made.

use std::rc::Rc;

use bytes::Bytes;
use futures_util::lock::Mutex;
use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::context::{RawJetStream, RawPublishOptions, raw_pub_ack, with_options};
use crate::core::error::Error;
use crate::jetstream::Publish;
use crate::jetstream::publish::FastPublisher;
use crate::wasm::boxed_promise;
use crate::wasm::error::{Call, to_js};
use crate::wasm::options::millis;

#[wasm_bindgen]
pub struct RawFastPublisher {
    publisher: Rc<Mutex<Option<FastPublisher>>>,
}

#[wasm_bindgen]
impl RawJetStream {
    /// A new fast publisher: a flow ack every `flow` messages, at most
    /// `outstanding` intervals unacknowledged, acks awaited `timeout` ms
    /// (default: the JetStream timeout), going on over gaps when `continueOnGap`.
    #[wasm_bindgen(js_name = fastPublisher)]
    pub fn fast_publisher(
        &self,
        flow: Option<u16>,
        outstanding: Option<u16>,
        timeout: Option<f64>,
        continue_on_gap: Option<bool>,
    ) -> Result<RawFastPublisher, JsValue> {
        let mut builder = self.context.fast_publish();
        if let Some(flow) = flow {
            builder = builder.flow(flow);
        }
        if let Some(outstanding) = outstanding {
            builder = builder.max_outstanding_acks(outstanding);
        }
        if let Some(timeout) = millis(timeout.into(), "ackTimeout")? {
            builder = builder.ack_timeout(timeout);
        }
        builder = builder.continue_on_gap(continue_on_gap.unwrap_or(false));
        Ok(RawFastPublisher { publisher: Rc::new(Mutex::new(Some(builder.build()))) })
    }
}

/// What the batch's calls end with when it was committed or closed.
const DONE: Error = Error::ApiMisuse("the fast batch was committed or ended by an error");

#[wasm_bindgen]
impl RawFastPublisher {
    /// Sends the next message: a promise of `[batchSequence, ackSequence]`.
    #[wasm_bindgen(unchecked_return_type = "Promise<[batchSeq: number, ackSeq: number]>")]
    pub fn add(
        &self,
        subject: String,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
    ) -> Result<JsValue, JsValue> {
        let (message, publisher) = (message(payload, options)?, self.publisher.clone());
        Ok(boxed_promise(Box::pin(async move {
            let mut slot = publisher.lock().await;
            let fast = slot.as_mut().ok_or_else(|| to_js(&DONE, Call::Other(&subject)))?;
            let progress = fast.add_message(&subject, message).await;
            let progress = progress.map_err(|e| to_js(&e.into(), Call::Other(&subject)))?;
            Ok(Array::of2(&(progress.batch_sequence as f64).into(), &(progress.ack_sequence as f64).into()).into())
        }))
        .into())
    }

    /// Sends the last message (or, without a subject, ends the batch
    /// without one): a promise of the batch's `RawPubAck`.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawPubAck>")]
    pub fn commit(
        &self,
        subject: Option<String>,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
    ) -> Result<JsValue, JsValue> {
        let (message, publisher) = (message(payload, options)?, self.publisher.clone());
        Ok(boxed_promise(Box::pin(async move {
            let call = subject.clone().unwrap_or_default();
            let fast = publisher.lock().await.take().ok_or_else(|| to_js(&DONE, Call::Other(&call)))?;
            let ack = match subject {
                Some(subject) => fast.commit_message(&subject, message).await,
                None => fast.close().await,
            };
            Ok(raw_pub_ack(ack.map_err(|e| to_js(&e.into(), Call::Other(&call)))?))
        }))
        .into())
    }
}

fn message(payload: Vec<u8>, options: Option<RawPublishOptions>) -> Result<Publish, JsValue> {
    let message = Publish::build().payload(Bytes::from(payload));
    Ok(match options {
        Some(o) => with_options(message, &o)?,
        None => message,
    })
}
