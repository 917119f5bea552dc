//! `RawKvReader`: a [`Watch`], [`History`] or [`Keys`] read a batch at a
//! time, like a consumer's messages. A batch also says whether the watch
//! has caught up, which a delete it leaves out (`ignoreDeletes`) can make
//! true without an entry to carry it.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, ready};

use futures_core::Stream;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::entries::Packed;
use crate::error::Error;
use crate::jetstream::kv::{Entry, History, Keys, Watch};
use crate::wasm::jetstream::batches::Batches;
use crate::wasm::promise;

/// What is read.
enum Source {
    Watch(Watch),
    History(History),
    Keys(Keys),
}

impl Source {
    /// A watch that has handed out what existed when it started.
    fn caught_up(&self) -> bool {
        matches!(self, Source::Watch(w) if w.seen_current())
    }
}

/// One step of a read.
enum Item {
    Entry(Entry, usize),
    Key(String),
    /// An entry the watch leaves out.
    Skipped,
}

impl Stream for Source {
    type Item = Result<Item, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let entry = |(entry, len)| Item::Entry(entry, len);
        Poll::Ready(match self.get_mut() {
            Source::Watch(w) => ready!(w.poll_step(cx)).map(|r| r.map(|e| e.map_or(Item::Skipped, entry))),
            Source::History(h) => ready!(h.poll_entry(cx)).map(|r| r.map(entry)),
            Source::Keys(k) => ready!(k.poll_key(cx)).map(|r| r.map(Item::Key)),
        })
    }
}

/// A read of a bucket. Freeing it (or its garbage collection) stops it.
#[wasm_bindgen]
pub struct RawKvReader {
    /// Shared with a pending `nextBatch` promise, borrowed only while polled.
    reader: Rc<RefCell<Batches<Source>>>,
}

impl RawKvReader {
    fn js(source: Source) -> JsValue {
        RawKvReader { reader: Rc::new(RefCell::new(Batches::new(source))) }.into()
    }

    pub(super) fn watch(watch: Watch) -> JsValue {
        Self::js(Source::Watch(watch))
    }

    pub(super) fn history(history: History) -> JsValue {
        Self::js(Source::History(history))
    }

    pub(super) fn keys(keys: Keys) -> JsValue {
        Self::js(Source::Keys(keys))
    }
}

#[wasm_bindgen]
impl RawKvReader {
    /// Up to `max` entries: those received, or else the first to arrive
    /// (none: only left-out ones came); `null` once the read ended. Rejects
    /// with the error that ended it. One call at a time.
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "Promise<RawKvEntries | null>")]
    pub fn next_batch(&self, max: u32) -> Promise {
        let reader = self.reader.clone();
        let max = max.max(1) as usize;
        promise(async move {
            let size = |item: &Item| match item {
                Item::Entry(entry, _) => entry.key.len() + entry.value.len(),
                Item::Key(key) => key.len(),
                Item::Skipped => 0,
            };
            let items = poll_fn(|cx| reader.borrow_mut().poll_next(cx, max, size)).await?;
            if items.is_empty() {
                return Ok(JsValue::NULL);
            }
            let mut packed = Packed::default();
            for item in &items {
                match item {
                    Item::Entry(entry, len) => packed.entry(entry, *len),
                    Item::Key(key) => packed.key(key),
                    Item::Skipped => {}
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
            Source::Watch(w) => w.stop(),
            Source::History(h) => h.stop(),
            Source::Keys(k) => k.stop(),
        }
    }
}
