//! `RawFastPublisher`: the Rust [`FastPublisher`] (fast ingest, ADR-50
//! fast batches, `allow_batched`) for the npm package's `js.fastPublisher`:
//! each call is a promise, through one export and one state machine
//! ([`FastPublisher::step`]); the TypeScript runs calls one after the
//! other, in the order they were made.

use std::cell::RefCell;
use std::rc::Rc;

use bytes::Bytes;
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
    /// Empty while a call runs, and once the batch is done.
    publisher: Rc<RefCell<Option<FastPublisher>>>,
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
        Ok(RawFastPublisher { publisher: Rc::new(RefCell::new(Some(builder.build()))) })
    }
}

/// What the batch's calls end with when it was committed or closed.
const DONE: Error = Error::ApiMisuse("the fast batch was committed or ended by an error");

#[wasm_bindgen]
impl RawFastPublisher {
    /// Sends the next message (a promise of `[batchSequence, ackSequence]`),
    /// or when `last` the last one (without a subject: the end of batch
    /// that stores none; a promise of the batch's `RawPubAck`). The caller
    /// awaits each call before the next.
    #[wasm_bindgen(unchecked_return_type = "Promise<[batchSeq: number, ackSeq: number] | RawPubAck>")]
    pub fn send(
        &self,
        subject: Option<String>,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
        last: bool,
    ) -> Result<JsValue, JsValue> {
        let message = Publish::build().payload(Bytes::from(payload));
        let message = match options {
            Some(o) => with_options(message, &o)?,
            None => message,
        };
        let publisher = self.publisher.clone();
        Ok(boxed_promise(Box::pin(async move {
            let call = subject.as_deref().unwrap_or_default();
            let taken = publisher.borrow_mut().take();
            let mut fast = taken.ok_or_else(|| to_js(&DONE, Call::Other(call)))?;
            let sent = fast.step(subject.as_deref(), message, last).await;
            let progress = Array::of2(&(fast.sent() as f64).into(), &(fast.acked() as f64).into());
            if !last && !fast.is_closed() {
                *publisher.borrow_mut() = Some(fast);
            }
            match sent.map_err(|e| to_js(&e, Call::Other(call)))? {
                Some(ack) => Ok(raw_pub_ack(ack)),
                None => Ok(progress.into()),
            }
        }))
        .into())
    }
}
