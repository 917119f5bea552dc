//! `RawDirectBatch`: the messages of a batched direct get
//! ([`DirectBatch`]), read a batch at a time; the error that ended them
//! rejects the read after them.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::replies::stored_msg;
use crate::jetstream::DirectBatch;
use crate::wasm::batches::Batches;
use crate::wasm::boxed_promise;
use crate::wasm::error::{Call, to_js};

/// One batched direct get. Freeing it stops it.
#[wasm_bindgen]
pub struct RawDirectBatch {
    /// Shared with a pending `nextBatch` promise, borrowed only while polled.
    reader: Rc<RefCell<Batches<DirectBatch>>>,
}

impl RawDirectBatch {
    pub(super) fn new(batch: DirectBatch) -> Self {
        RawDirectBatch { reader: Rc::new(RefCell::new(Batches::new(batch))) }
    }
}

#[wasm_bindgen]
impl RawDirectBatch {
    /// Up to `max` messages: those received, or else the first to arrive;
    /// `null` after the last. One call at a time.
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "Promise<RawStoredMsg[] | null>")]
    pub fn next_batch(&self, max: u32) -> Promise {
        let reader = self.reader.clone();
        let max = max.max(1) as usize;
        boxed_promise(Box::pin(async move {
            let read = poll_fn(|cx| reader.borrow_mut().poll_next(cx, max, |m| m.payload.len())).await;
            let messages = read.map_err(|e| to_js(&e, Call::DirectBatch))?;
            Ok(if messages.is_empty() {
                JsValue::NULL
            } else {
                messages.into_iter().map(stored_msg).collect::<Array>().into()
            })
        }))
    }

    /// Stops reading: the rest of the batch is dropped.
    pub fn stop(&self) {
        self.reader.borrow_mut().stream.get_mut().stop();
    }
}
