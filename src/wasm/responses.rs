//! `RawResponses`: the replies of a request for many
//! ([`Responses`](crate::Responses)), read a batch at a time like a
//! subscription; the error that ended them rejects the read after them.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;
use std::time::Duration;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::batch::{pack, packed_len};
use super::batches::Batches;
use super::boxed_promise;
use super::error::{Call, to_js};
use crate::Responses;
use crate::core::error::Error;
use crate::core::request_many::{RequestManyOptions, RequestStrategy};

#[wasm_bindgen(typescript_custom_section)]
const TS_RESPONSES: &str = r#"
/** nats.js's strategies of `requestMany`. */
export type RequestStrategy = "timer" | "count" | "stall" | "sentinel";
"#;

/// The replies of one request for many. Freeing it ends the request.
#[wasm_bindgen]
pub struct RawResponses {
    /// Shared with a pending `nextBatch` promise, borrowed only while polled.
    reader: Rc<RefCell<Batches<Responses>>>,
    /// The request's subject, which nats.js's `NoRespondersError` names.
    subject: Rc<str>,
}

impl RawResponses {
    pub(crate) fn new(responses: Responses, subject: &str) -> Self {
        RawResponses { reader: Rc::new(RefCell::new(Batches::new(responses))), subject: subject.into() }
    }
}

#[wasm_bindgen]
impl RawResponses {
    /// Up to `max` replies: those already received, or else the first to
    /// arrive; `null` once the request ended and everything was read;
    /// rejects with the error that ended it (`NO_RESPONDERS`, `CLOSED`)
    /// after the replies before it. One call at a time.
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "Promise<RawBatch | null>")]
    pub fn next_batch(&self, max: u32) -> Promise {
        let (reader, subject) = (self.reader.clone(), self.subject.clone());
        let max = max.max(1) as usize;
        boxed_promise(Box::pin(async move {
            let read = poll_fn(|cx| reader.borrow_mut().poll_next(cx, max, packed_len)).await;
            let messages = read.map_err(|e| to_js(&e, Call::RequestMany(&subject)))?;
            Ok(if messages.is_empty() { JsValue::NULL } else { pack(&messages).into() })
        }))
    }

    /// Ends the request now; replies already received can still be read.
    pub fn stop(&self) {
        self.reader.borrow_mut().stream.get_mut().stop();
    }
}

/// nats.js's `RequestManyOptions` numbers as the Rust options: `maxWait`
/// 0 or absent is 1000 ms (nats.js's `||`), below 1 is refused, `Infinity`
/// is no bound; `maxMessages` below 1 and `stall` of 0 or less are unset.
pub(crate) fn options(
    strategy: Option<String>,
    max_wait: Option<f64>,
    max_messages: Option<f64>,
    stall: Option<f64>,
) -> Result<RequestManyOptions, Error> {
    let strategy = match strategy.as_deref() {
        None | Some("timer") => RequestStrategy::Timer,
        Some("count") => RequestStrategy::Count,
        Some("stall") => RequestStrategy::Stall,
        Some("sentinel") => RequestStrategy::Sentinel,
        Some(_) => return Err(Error::InvalidArgument("strategy: expected timer, count, stall or sentinel".into())),
    };
    let ms = |ms: f64| if ms.is_finite() { Duration::from_nanos((ms * 1e6) as u64) } else { Duration::MAX };
    let max_wait = match max_wait.filter(|&w| w != 0.0 && !w.is_nan()) {
        None => RequestManyOptions::default().max_wait,
        Some(w) if w < 1.0 => return Err(Error::InvalidArgument("maxWait: must be greater than 0".into())),
        Some(w) => ms(w),
    };
    let max_messages = max_messages.filter(|&n| n >= 1.0).map(|n| n.min(u64::MAX as f64) as u64);
    let stall = stall.filter(|&s| s > 0.0).map(ms);
    Ok(RequestManyOptions { strategy, max_wait, max_messages, stall, no_mux: false })
}
