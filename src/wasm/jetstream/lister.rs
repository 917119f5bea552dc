//! `RawLister`: the items of a `*.LIST` or `*.NAMES` call, whose pages the
//! Rust API asks for as they are read, handed over a batch at a time.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;

use futures_core::Stream;
use futures_util::StreamExt;
use js_sys::Promise;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::batches::Batches;
use crate::error::Error;
use crate::wasm::{parse_json, promise, to_json};

/// Items per crossing, at most (a page holds up to 256 infos or 1024 names).
const MAX_ITEMS: usize = 1024;

/// Each item as JSON text (one serializer for all, the one requests use).
type Items = Box<dyn Stream<Item = Result<String, Error>> + Unpin>;

#[wasm_bindgen]
pub struct RawLister {
    items: Rc<RefCell<Batches<Items>>>,
}

impl RawLister {
    /// The items of `stream`, with their serde (the server's) names.
    pub(super) fn json<T: Serialize>(stream: impl Stream<Item = Result<T, Error>> + Unpin + 'static) -> Self {
        let items: Items = Box::new(stream.map(|item| item.and_then(|v| to_json(&v))));
        RawLister { items: Rc::new(RefCell::new(Batches::new(items))) }
    }
}

#[wasm_bindgen]
impl RawLister {
    /// The items of the page read last, or of the next page; `null` once
    /// every page was read. One call at a time.
    #[wasm_bindgen(unchecked_return_type = "Promise<unknown[] | null>")]
    pub fn next(&self) -> Promise {
        let items = self.items.clone();
        promise(async move {
            let batch = poll_fn(|cx| items.borrow_mut().poll_next(cx, MAX_ITEMS, String::len)).await?;
            if batch.is_empty() {
                return Ok(JsValue::NULL);
            }
            parse_json(&format!("[{}]", batch.join(",")))
        })
    }
}
