//! `RawConsumerMessages`: a reader ([`Messages`] of a pull consumer's
//! `fetch` or `consume` or of a push consumer, or [`OrderedMessages`] of an
//! ordered consumer) read in batches like a core subscription, and its
//! consumer events for nats.js's `status()`.

use std::cell::RefCell;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_core::Stream;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::deliveries::delivered;
use crate::core::error::Error;
use crate::jetstream::pull::{ConsumerEvent, FetchEnd, PullStatus, ResetReason};
use crate::jetstream::reader::Raw;
use crate::jetstream::{Message, Messages, OrderedMessages};
use crate::wasm::batch::packed_len;
use crate::wasm::batches::Batches;
use crate::wasm::promise;

#[wasm_bindgen(typescript_custom_section)]
const TS_EVENTS: &str = r#"
/** A consumer event: its type, then a count or status code, then a text (description, reason, pin id). */
export type RawConsumerEvent = [type: string, value: number | undefined, text: string | undefined];
"#;

/// What JS reads: a plain or an ordered pull reader.
pub(super) trait Reader: Stream<Item = Result<Message, Error>> + Unpin {
    fn poll_event(&self, cx: &mut Context<'_>) -> Poll<Option<ConsumerEvent>>;
    fn pending(&self) -> usize;
    /// Messages the reader's full buffer dropped. An ordered reader starts
    /// over from the gap a drop leaves, so it loses none and reports 0.
    fn dropped(&self) -> u64 {
        0
    }
    fn stop(&mut self);
    /// A consumer group member's partitions of the messages read since the
    /// last call, in order (`None` for other readers).
    #[cfg(feature = "wasm-groups")]
    fn partitions(&mut self) -> Option<Vec<u32>> {
        None
    }
    /// A consumer group member's skipped redeliveries (0 for other readers).
    #[cfg(feature = "wasm-groups")]
    fn skipped(&self) -> u64 {
        0
    }
    fn drain(&mut self) -> Pin<Box<dyn Future<Output = Result<(), Error>>>>;
}

/// The same calls on both readers, read with natsjet's errors.
macro_rules! reader {
    ($type:ty $(, $dropped:ident)?) => {
        impl Reader for Raw<$type> {
            fn poll_event(&self, cx: &mut Context<'_>) -> Poll<Option<ConsumerEvent>> {
                self.0.poll_next_event(cx)
            }
            fn pending(&self) -> usize {
                self.0.pending()
            }
            $(fn dropped(&self) -> u64 {
                self.0.$dropped()
            })?
            fn stop(&mut self) {
                self.0.stop()
            }
            fn drain(&mut self) -> Pin<Box<dyn Future<Output = Result<(), Error>>>> {
                Box::pin(self.0.drain())
            }
        }
    };
}
reader!(Messages, dropped);
reader!(OrderedMessages);

/// A reader. Freeing it (or its garbage collection) stops it and naks the
/// messages it received that were never handed to JS.
#[wasm_bindgen]
pub struct RawConsumerMessages {
    /// Shared with pending promises, borrowed only while polled.
    pub(super) reader: Rc<RefCell<Batches<Box<dyn Reader>>>>,
}

impl RawConsumerMessages {
    pub(super) fn new<R: 'static>(reader: R) -> Self
    where
        Raw<R>: Reader,
    {
        let reader: Box<dyn Reader> = Box::new(Raw(reader));
        RawConsumerMessages { reader: Rc::new(RefCell::new(Batches::new(reader))) }
    }
}

#[wasm_bindgen]
impl RawConsumerMessages {
    /// Up to `max` messages: those received, or else the first to arrive
    /// (a consumer group member's with their partitions); `null` once the
    /// reader ended. Rejects with the error that ended it
    /// (a terminal status such as 409 consumer deleted). One call at a time.
    #[wasm_bindgen(js_name = nextBatch, unchecked_return_type = "Promise<RawDelivered | null>")]
    pub fn next_batch(&self, max: u32) -> Promise {
        let reader = self.reader.clone();
        let max = max.max(1) as usize;
        promise(async move {
            let size = |m: &crate::jetstream::Message| packed_len(&m.message);
            let batch = delivered(poll_fn(|cx| reader.borrow_mut().poll_next(cx, max, size)).await?);
            #[cfg(feature = "wasm-groups")]
            if let Some(partitions) = reader.borrow_mut().stream.get_mut().partitions().filter(|_| !batch.is_null()) {
                batch.unchecked_ref::<Array>().push(&js_sys::Uint32Array::from(&partitions[..]));
            }
            Ok(batch)
        })
    }

    /// The next consumer event; `null` once the reader ended. One call at a time.
    #[wasm_bindgen(js_name = nextEvent, unchecked_return_type = "Promise<RawConsumerEvent | null>")]
    pub fn next_event(&self) -> Promise {
        let reader = self.reader.clone();
        promise(async move {
            let event = poll_fn(|cx| reader.borrow().stream.get_ref().poll_event(cx)).await;
            Ok(event.map_or(JsValue::NULL, |e| event_to_js(e).into()))
        })
    }

    /// Messages received and not yet read with `nextBatch`.
    pub fn pending(&self) -> u32 {
        self.reader.borrow().stream.get_ref().pending() as u32
    }

    /// Messages a push reader dropped because its buffer was full (the
    /// connection's subscription bounds): redelivered by a consumer with
    /// acks, lost by an ack-none one. Always 0 for pull and ordered readers.
    pub fn dropped(&self) -> f64 {
        self.reader.borrow().stream.get_ref().dropped() as f64
    }

    /// Stops pulling; what was received can still be read, then it ends.
    pub fn stop(&self) {
        self.reader.borrow_mut().stream.get_mut().stop();
    }

    /// Stops pulling, then resolves once the server has every ack sent so far.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn drain(&self) -> Promise {
        let flushed = self.reader.borrow_mut().stream.get_mut().drain();
        promise(async move {
            flushed.await?;
            Ok(JsValue::UNDEFINED)
        })
    }
}

fn event_to_js(event: ConsumerEvent) -> Array {
    let status = |kind, s: PullStatus| (kind, Some(s.code.0 as f64), Some(s.description));
    let (kind, value, text) = match event {
        ConsumerEvent::HeartbeatsMissed { count } => ("heartbeats_missed", Some(count as f64), None),
        ConsumerEvent::Warning(s) => status("warning", s),
        ConsumerEvent::Terminal(s) => status("terminal", s),
        ConsumerEvent::Reset(reason) => ("reset", None, Some(reset_reason(reason).into())),
        ConsumerEvent::Pinned { id } => ("pinned", None, Some(id)),
        ConsumerEvent::PinIdMismatch => ("pin_id_mismatch", None, None),
        ConsumerEvent::FetchDone(FetchEnd::Status(s)) => status("fetch_done", s),
        ConsumerEvent::FetchDone(end) => ("fetch_done", None, Some(fetch_end(&end).into())),
        ConsumerEvent::Drained => ("drained", None, None),
        ConsumerEvent::OrderedRecreated { name } => ("ordered_consumer_recreated", None, Some(name)),
        ConsumerEvent::ConsumerGone(e) => ("consumer_deleted", Some(e.err_code.0 as f64), Some(e.description)),
    };
    let value = value.map_or(JsValue::UNDEFINED, JsValue::from);
    let text = text.map_or(JsValue::UNDEFINED, JsValue::from);
    Array::of3(&JsValue::from(kind), &value, &text)
}

fn reset_reason(reason: ResetReason) -> &'static str {
    match reason {
        ResetReason::LeadershipChange => "leadership_change",
        ResetReason::Reconnected => "reconnected",
        ResetReason::PullsExpired => "pulls_expired",
    }
}

fn fetch_end(end: &FetchEnd) -> &'static str {
    match end {
        FetchEnd::BatchComplete => "batch_complete",
        FetchEnd::MaxBytesReached => "max_bytes_reached",
        FetchEnd::NoMessages => "no_messages",
        FetchEnd::Expired => "expired",
        FetchEnd::TimedOut => "timed_out",
        FetchEnd::HeartbeatsMissed => "heartbeats_missed",
        FetchEnd::Status(_) => "status",
        FetchEnd::Stopped => "stopped",
    }
}
