//! `RawLister`: the items of a `*.LIST` or `*.NAMES` call, whose pages the
//! Rust API asks for as they are read, handed over a batch at a time as one
//! JSON array (parsed in TS).

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;

use futures_core::Stream;
use js_sys::Promise;
use serde_json::value::RawValue;
use wasm_bindgen::prelude::*;

use super::batches::Batches;
use crate::error::Error;
use crate::wasm::promise;

/// Items per crossing, at most (a page holds up to 256 infos or 1024 names).
const MAX_ITEMS: usize = 1024;

type Items = Box<dyn Stream<Item = Result<Box<RawValue>, Error>> + Unpin>;

#[wasm_bindgen]
pub struct RawLister {
    items: Rc<RefCell<Batches<Items>>>,
}

impl RawLister {
    pub(super) fn new(items: impl Stream<Item = Result<Box<RawValue>, Error>> + Unpin + 'static) -> Self {
        let items: Items = Box::new(items);
        RawLister { items: Rc::new(RefCell::new(Batches::new(items))) }
    }
}

#[wasm_bindgen]
impl RawLister {
    /// The items of the page read last, or of the next page, as a JSON
    /// array; `null` once every page was read. One call at a time.
    #[wasm_bindgen(unchecked_return_type = "Promise<string | null>")]
    pub fn next(&self) -> Promise {
        let items = self.items.clone();
        promise(async move {
            let batch = poll_fn(|cx| items.borrow_mut().poll_next(cx, MAX_ITEMS, |item| item.get().len())).await?;
            if batch.is_empty() {
                return Ok(JsValue::NULL);
            }
            let items: Vec<&str> = batch.iter().map(|item| item.get()).collect();
            Ok(format!("[{}]", items.join(",")).into())
        })
    }
}
