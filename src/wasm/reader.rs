//! `RawReader`: a read of a store a batch at a time, like a consumer's
//! messages — a Key-Value watch, history or key listing ([`Reader`]), an object
//! store's listing or watch of metas, or an object's chunks. One export for
//! all of them (each export costs its glue and a future in the wasm). A
//! batch also says whether a watch has caught up, which a delete it leaves
//! out (`ignoreDeletes`) can make true without an entry to carry it. An
//! object's size or digest error comes after the chunks before it.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, ready};

#[cfg(feature = "wasm-object-store")]
use bytes::Bytes;
use futures_core::Stream;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::entries::Packed;
use crate::error::Error;
#[cfg(feature = "wasm-kv")]
use crate::jetstream::kv::{Entry, Reader};
#[cfg(feature = "wasm-object-store")]
use crate::jetstream::object_store::{self as os, List, Object, meta_json};
use crate::wasm::jetstream::batches::Batches;
use crate::wasm::promise;

/// What is read.
pub(crate) enum Source {
    /// A watch, history or key listing (keys are entries without values).
    #[cfg(feature = "wasm-kv")]
    Kv(Box<Reader>),
    #[cfg(feature = "wasm-object-store")]
    Objects(List),
    #[cfg(feature = "wasm-object-store")]
    ObjectWatch(os::Watch),
    #[cfg(feature = "wasm-object-store")]
    Chunks(Box<Object>),
}

impl Source {
    /// A watch that has handed out what existed when it started.
    fn caught_up(&self) -> bool {
        match self {
            #[cfg(feature = "wasm-kv")]
            Source::Kv(r) => r.seen_current(),
            #[cfg(feature = "wasm-object-store")]
            Source::ObjectWatch(w) => w.seen_current(),
            // Object listings and gets; none in a build with KV alone.
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }
}

/// One step of a read.
pub(crate) enum Item {
    #[cfg(feature = "wasm-kv")]
    Entry(Entry, usize),
    /// An entry the watch leaves out.
    #[cfg(feature = "wasm-kv")]
    Skipped,
    /// An object's meta (its JSON) at a revision, and whether the watch
    /// has caught up with it; or a chunk of an object (revision 0).
    #[cfg(feature = "wasm-object-store")]
    Value(Bytes, u64, bool),
}

impl Stream for Source {
    type Item = Result<Item, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        #[cfg(feature = "wasm-kv")]
        let entry = |(entry, len)| Item::Entry(entry, len);
        #[cfg(feature = "wasm-object-store")]
        let meta = |(info, revision), caught_up| Ok(Item::Value(meta_json(&info), revision, caught_up));
        Poll::Ready(match self.get_mut() {
            #[cfg(feature = "wasm-kv")]
            Source::Kv(r) => ready!(r.poll_step(cx)).map(|r| r.map(|e| e.map_or(Item::Skipped, entry))),
            #[cfg(feature = "wasm-object-store")]
            Source::Objects(l) => ready!(l.poll_info(cx)).map(|r| r.and_then(|m| meta(m, false))),
            #[cfg(feature = "wasm-object-store")]
            Source::ObjectWatch(w) => ready!(w.poll_info(cx)).map(|r| r.and_then(|m| meta(m, w.seen_current()))),
            #[cfg(feature = "wasm-object-store")]
            Source::Chunks(o) => ready!(o.poll_chunk(cx)).map(|r| r.map(|chunk| Item::Value(chunk, 0, false))),
        })
    }
}

/// A read of a store. Freeing it (or its garbage collection) stops it.
#[wasm_bindgen]
pub struct RawReader {
    /// Shared with a pending `nextBatch` promise, borrowed only while polled.
    reader: Rc<RefCell<Batches<Source>>>,
}

impl RawReader {
    pub(crate) fn new(source: Source) -> Self {
        RawReader { reader: Rc::new(RefCell::new(Batches::new(source))) }
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
            let size = |item: &Item| match item {
                #[cfg(feature = "wasm-kv")]
                Item::Entry(entry, _) => entry.key.len() + entry.value.len(),
                #[cfg(feature = "wasm-kv")]
                Item::Skipped => 0,
                #[cfg(feature = "wasm-object-store")]
                Item::Value(value, ..) => value.len(),
            };
            let items = poll_fn(|cx| reader.borrow_mut().poll_next(cx, max, size)).await?;
            if items.is_empty() {
                return Ok(JsValue::NULL);
            }
            let mut packed = Packed::default();
            for item in &items {
                match item {
                    #[cfg(feature = "wasm-kv")]
                    Item::Entry(entry, len) => packed.entry(entry, *len),
                    #[cfg(feature = "wasm-kv")]
                    Item::Skipped => {}
                    #[cfg(feature = "wasm-object-store")]
                    Item::Value(value, revision, caught_up) => packed.value(value, *revision, *caught_up),
                }
            }
            let caught_up = reader.borrow().stream.get_ref().caught_up();
            Ok(packed.to_js(caught_up).into())
        })
    }

    /// A watch: whether it has handed out every entry that existed when it
    /// started (at once when there were none).
    #[wasm_bindgen(getter = seenCurrent)]
    pub fn seen_current(&self) -> bool {
        self.reader.borrow().stream.get_ref().caught_up()
    }

    /// Stops reading: what arrived can still be read, then it ends.
    pub fn stop(&self) {
        match self.reader.borrow_mut().stream.get_mut() {
            #[cfg(feature = "wasm-kv")]
            Source::Kv(r) => r.stop(),
            #[cfg(feature = "wasm-object-store")]
            Source::Objects(l) => l.stop(),
            #[cfg(feature = "wasm-object-store")]
            Source::ObjectWatch(w) => w.stop(),
            #[cfg(feature = "wasm-object-store")]
            Source::Chunks(o) => o.stop(),
        }
    }
}
