//! `RawLister`: the pages of a `*.LIST` or `*.NAMES` call, which the Rust
//! API asks for as they are read, each handed over as the server's JSON
//! (parsed in TS, which takes its `streams` or `consumers`).

use std::cell::RefCell;
use std::rc::Rc;

use bytes::Bytes;
use futures_core::Stream;
use futures_util::StreamExt;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::replies::reply_text;
use crate::core::error::Error;
use crate::wasm::promise;

type Pages = Box<dyn Stream<Item = Result<Bytes, Error>> + Unpin>;

#[wasm_bindgen]
pub struct RawLister {
    pages: Rc<RefCell<Pages>>,
}

impl RawLister {
    pub(super) fn new(pages: impl Stream<Item = Result<Bytes, Error>> + Unpin + 'static) -> Self {
        let pages: Pages = Box::new(pages);
        RawLister { pages: Rc::new(RefCell::new(pages)) }
    }
}

#[wasm_bindgen]
impl RawLister {
    /// The next page, as the server's JSON; `null` once every page was read.
    /// One call at a time.
    #[wasm_bindgen(unchecked_return_type = "Promise<string | null>")]
    pub fn next(&self) -> Promise {
        let pages = self.pages.clone();
        promise(async move {
            let Some(page) = std::future::poll_fn(|cx| pages.borrow_mut().poll_next_unpin(cx)).await else {
                return Ok(JsValue::NULL);
            };
            Ok(reply_text(page?)?.into())
        })
    }
}
