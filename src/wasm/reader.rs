//! `RawReader`: a read of a Key-Value bucket a batch at a time, like a
//! consumer's messages — a watch, history or key listing ([`Reader`]). A
//! batch also says whether a watch has caught up, which a delete it leaves
//! out (`ignoreDeletes`) can make true without an entry to carry it.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, ready};

use futures_core::Stream;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::entries::Packed;
use crate::core::error::Error;
use crate::jetstream::kv::{Entry, Reader};
use crate::wasm::batches::Batches;
use crate::wasm::promise;

/// What is read: a watch, history or key listing (keys are entries without values).
pub(crate) struct Source(Box<Reader>);

/// One step of a read: an entry, or `None` for one the watch leaves out.
type Item = Option<(Entry, usize)>;

impl Stream for Source {
    type Item = Result<Item, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(ready!(self.get_mut().0.poll_step(cx)))
    }
}

/// A read of a store. Freeing it (or its garbage collection) stops it.
#[wasm_bindgen]
pub struct RawReader {
    /// Shared with a pending `nextBatch` promise, borrowed only while polled.
    reader: Rc<RefCell<Batches<Source>>>,
}

impl RawReader {
    pub(crate) fn new(reader: Reader) -> Self {
        RawReader { reader: Rc::new(RefCell::new(Batches::new(Source(Box::new(reader))))) }
    }
}

#[wasm_bindgen]
impl RawReader {
    /// Up to `max` entries: those received, or else the first to arrive
    /// (none: only left-out ones came); `null` once the read ended. Rejects
    /// with the error that ended it. One call at a time.
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "Promise<RawEntries | null>")]
    pub fn next_batch(&self, max: u32) -> Promise {
        let reader = self.reader.clone();
        let max = max.max(1) as usize;
        promise(async move {
            let size = |item: &Item| item.as_ref().map_or(0, |(entry, _)| entry.key.len() + entry.value.len());
            let items = poll_fn(|cx| reader.borrow_mut().poll_next(cx, max, size)).await?;
            if items.is_empty() {
                return Ok(JsValue::NULL);
            }
            let mut packed = Packed::default();
            for (entry, len) in items.iter().flatten() {
                packed.entry(entry, *len);
            }
            let caught_up = reader.borrow().stream.get_ref().0.seen_current();
            Ok(packed.to_js(caught_up).into())
        })
    }

    /// A watch: whether it has handed out every entry that existed when it
    /// started (at once when there were none).
    #[wasm_bindgen(getter = seenCurrent)]
    pub fn seen_current(&self) -> bool {
        self.reader.borrow().stream.get_ref().0.seen_current()
    }

    /// Stops reading: what arrived can still be read, then it ends.
    pub fn stop(&self) {
        self.reader.borrow_mut().stream.get_mut().0.stop();
    }
}
