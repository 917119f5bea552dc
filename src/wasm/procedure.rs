//! `RawProcedure`: the one export every core procedure goes through (an
//! object's read, a KV create): the same pump the Rust API runs
//! ([`Pump`]) over the connection's JetStream context, its items read a
//! batch at a time, so TypeScript only gives them nats.js's shape. A
//! procedure the TS feeds (an object put, the user's bytes) takes them
//! with `feed`.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;

use bytes::Bytes;
use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;

use super::batches::Batches;
use crate::core::error::Error;
use crate::core::procedure::{Procedure, Reply, Step, Wait, Yield};
use crate::core::time::Instant;
use crate::core::timer::Deadline;
use crate::driver::{DefaultRuntime, Runtime};
use crate::jetstream::procedure::Pump;
use crate::wasm::boxed_promise;
use crate::wasm::error::{Call, to_js};

/// A procedure whose items JS takes.
pub(crate) type JsProcedure = Box<dyn Procedure<Item = JsValue>>;

/// A procedure whose items become JS values as they are handed out.
pub(crate) struct ToJs<P>(pub(crate) P);

/// What an item is in JS.
pub(crate) trait IntoJs {
    fn into_js(self) -> JsValue;
}

impl IntoJs for Bytes {
    fn into_js(self) -> JsValue {
        Uint8Array::from(&self[..]).into()
    }
}

impl IntoJs for u64 {
    fn into_js(self) -> JsValue {
        JsValue::from_f64(self as f64)
    }
}

impl<P: Procedure> Procedure for ToJs<P>
where
    P::Item: IntoJs,
{
    type Item = JsValue;

    fn handle_reply(&mut self, now: Instant, reply: Reply) {
        self.0.handle_reply(now, reply)
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.0.handle_timeout(now)
    }

    fn poll_step(&mut self) -> Option<Step> {
        self.0.poll_step()
    }

    fn poll_item(&mut self, now: Instant) -> Yield<JsValue> {
        match self.0.poll_item(now) {
            Yield::Item(item) => Yield::Item(item.into_js()),
            Yield::Wait => Yield::Wait,
            Yield::Failed(e) => Yield::Failed(e),
            Yield::Done => Yield::Done,
        }
    }

    fn poll_deadline(&self) -> Option<Deadline<Wait>> {
        self.0.poll_deadline()
    }
}

/// A procedure under way. Freeing it (or `stop`) drops what it has under way.
#[wasm_bindgen]
pub struct RawProcedure {
    /// Shared with a pending `next` promise, borrowed only while polled.
    pump: Rc<RefCell<Option<Batches<Pump<JsProcedure>>>>>,
    /// The subject its errors name, as a publish's do; `None`: a read's.
    subject: Option<Rc<str>>,
}

impl RawProcedure {
    pub(crate) fn new(pump: Pump<JsProcedure>) -> Self {
        RawProcedure { pump: Rc::new(RefCell::new(Some(Batches::new(pump)))), subject: None }
    }

    /// Its errors are a publish's to `subject`.
    #[cfg(any(feature = "wasm-kv", feature = "wasm-object-store"))]
    pub(crate) fn with_subject(mut self, subject: String) -> Self {
        self.subject = Some(subject.into());
        self
    }
}

/// The JS error of a procedure's `error`.
fn js_error(error: &Error, subject: Option<&str>) -> JsValue {
    match subject {
        Some(subject) => to_js(error, Call::Other(subject)).into(),
        None => to_js(error, Call::DirectBatch).into(),
    }
}

#[wasm_bindgen]
impl RawProcedure {
    /// Up to `max` items: those ready, or else the first to come; `null`
    /// once the procedure is over, its error after the items before it.
    /// One call at a time.
    #[wasm_bindgen(unchecked_return_type = "Promise<unknown[] | null>")]
    pub fn next(&self, max: u32) -> Promise {
        let (pump, subject) = (self.pump.clone(), self.subject.clone());
        let max = max.max(1) as usize;
        boxed_promise(Box::pin(async move {
            let read = poll_fn(|cx| match &mut *pump.borrow_mut() {
                Some(pump) => pump.poll_next(cx, max, |_| 0),
                None => std::task::Poll::Ready(Ok(vec![])),
            })
            .await;
            let items = read.map_err(|e| js_error(&e, subject.as_deref()))?;
            Ok(if items.is_empty() { JsValue::NULL } else { items.into_iter().collect::<Array>().into() })
        }))
    }

    /// Feeds a procedure the bytes it wants (an object put's): `data`, or
    /// (`undefined`) their end. The items now ready; `null` once over;
    /// throws the error that ended it.
    #[wasm_bindgen(unchecked_return_type = "unknown[] | null")]
    pub fn feed(&self, data: Option<Vec<u8>>) -> Result<JsValue, JsValue> {
        let mut guard = self.pump.borrow_mut();
        let Some(batches) = &mut *guard else { return Ok(JsValue::NULL) };
        let procedure = batches.stream.get_mut().procedure_mut();
        let now = DefaultRuntime::now();
        let reply = match data {
            Some(data) => Reply::Message { sequence: 0, payload: data.into(), pending: 0 },
            None => Reply::BatchEnd,
        };
        procedure.handle_reply(now, reply);
        let items = Array::new();
        loop {
            match procedure.poll_item(now) {
                Yield::Item(item) => {
                    items.push(&item);
                }
                Yield::Wait => return Ok(items.into()),
                Yield::Failed(e) => return Err(js_error(&e, self.subject.as_deref())),
                Yield::Done if items.length() > 0 => return Ok(items.into()),
                Yield::Done => return Ok(JsValue::NULL),
            }
        }
    }

    /// Tells a procedure fed by TS that its input failed (`message` says
    /// why): it ends in that error once it has cleaned up.
    pub fn fail(&self, message: String) {
        if let Some(batches) = &mut *self.pump.borrow_mut() {
            let error = Error::Io { kind: std::io::ErrorKind::Other, message };
            batches.stream.get_mut().procedure_mut().handle_reply(DefaultRuntime::now(), Reply::BatchFailed(error));
        }
    }

    /// Stops it: what it has under way is dropped, a pending `next` ends.
    pub fn stop(&self) {
        self.pump.borrow_mut().take();
    }
}
