//! `RawSubscription`: a [`Subscriber`] read in batches.

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::batch::{pack, packed_len, poll_batch};
use super::error::{Call, to_js};
use super::options::whole;
use super::{at_once, promise};
use crate::Subscriber;
use crate::core::error::Error;
use crate::core::message::Message;

/// One subscription. Freeing it (or its garbage collection) unsubscribes.
#[wasm_bindgen]
pub struct RawSubscription {
    /// Shared with pending `nextBatch` promises, borrowed only while polled.
    subscriber: Rc<RefCell<Subscriber>>,
}

impl RawSubscription {
    pub(crate) fn new(subscriber: Subscriber) -> Self {
        RawSubscription { subscriber: Rc::new(RefCell::new(subscriber)) }
    }
}

#[wasm_bindgen]
impl RawSubscription {
    /// Up to `max` messages (and about 1 MiB): those already
    /// received, or else the first to arrive. `null` once the subscription
    /// ended and everything was read; rejects with `TIMEOUT` when it ended
    /// because no message came within its first-message timeout. One call
    /// at a time: a second pending call would take the first one's wake-up.
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "Promise<RawBatch | null>")]
    pub fn next_batch(&self, max: u32) -> Promise {
        let subscriber = self.subscriber.clone();
        let max = max.max(1) as usize;
        promise(async move {
            let size = |m: &Message| Some(packed_len(m));
            let messages = poll_fn(|cx| poll_batch(&mut *subscriber.borrow_mut(), cx, max, size)).await;
            if messages.is_empty() && subscriber.borrow().timed_out() {
                return Err(Error::Timeout.into());
            }
            Ok(if messages.is_empty() { JsValue::NULL } else { pack(&messages).into() })
        })
    }

    /// Stops now, or (`max`) after that many messages in total.
    pub fn unsubscribe(&self, max: Option<f64>) -> Result<(), JsValue> {
        let mut subscriber = self.subscriber.borrow_mut();
        match max {
            Some(max) => at_once(subscriber.unsubscribe_after(whole(max, "max")?))?,
            None => at_once(subscriber.unsubscribe())?,
        }
        Ok(())
    }

    /// Unsubscribes, delivers what the server sent before, then ends;
    /// resolves once everything sent before the UNSUB has arrived.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn drain(&self) -> Promise {
        let drained = self.subscriber.borrow_mut().start_drain();
        promise(async move {
            drained?.await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Messages received so far.
    #[wasm_bindgen(getter)]
    pub fn received(&self) -> f64 {
        self.subscriber.borrow().received() as f64
    }

    /// The error the connection closed with for good, once the
    /// subscription ended for it (a plain close or an end asked for: none,
    /// as nats.js's `closed` then resolves empty).
    #[wasm_bindgen(getter = closedReason, unchecked_return_type = "Error | undefined")]
    pub fn closed_reason(&self) -> JsValue {
        match self.subscriber.borrow().closed_reason() {
            Some(Error::Closed | Error::Timeout) | None => JsValue::UNDEFINED,
            Some(error) => to_js(&error, Call::Other("")).into(),
        }
    }

    /// Messages dropped because the subscription's buffer was full.
    #[wasm_bindgen(getter)]
    pub fn dropped(&self) -> f64 {
        self.subscriber.borrow().dropped() as f64
    }

    /// The subscription id used on the wire.
    #[wasm_bindgen(getter)]
    pub fn sid(&self) -> f64 {
        self.subscriber.borrow().sid() as f64
    }
}
