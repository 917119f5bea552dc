//! `RawConsumer`: a pull consumer handle (nats.js's `Consumer`) and the
//! options of its `fetch` and `consume`, read like the connection options:
//! typed getters, nats.js names, durations in milliseconds.

use std::rc::Rc;
use std::time::Duration;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::deliveries::delivered;
use super::messages::RawConsumerMessages;
use super::whole_number;
use crate::core::error::Error;
use crate::jetstream::Consumer;
use crate::jetstream::pull::{ConsumeOptions, DEFAULT_EXPIRES, FetchOptions, PriorityOptions};
use crate::wasm::options::{flag, millis, text};
use crate::wasm::promise;

#[wasm_bindgen(typescript_custom_section)]
const TS_PULL: &str = r#"
/** Priority group fields of every pull (ADR-42, server 2.11+). */
export interface PullPriority {
  /** The consumer's priority group; required by priority consumers. */
  group?: string;
  /** Overflow policy: only get messages while the consumer has at least this many pending. */
  min_pending?: number;
  /** Overflow policy: only get messages while at least this many acks are pending. */
  min_ack_pending?: number;
  /** Prioritized policy: 0 (served first) to 9. */
  priority?: number;
}
/** Options of `fetch`, as nats.js's; durations in milliseconds. */
export interface FetchOptions extends PullPriority {
  /** Messages to fetch (100). */
  max_messages?: number;
  /** Stop at this many bytes; messages then count up to 1,000,000 unless `max_messages` is given. */
  max_bytes?: number;
  /** How long the server waits for messages (30000); the batch ends then. */
  expires?: number;
  /** Server heartbeat while the pull waits (default: on only when `expires` > 30 s, at half of it). */
  idle_heartbeat?: number;
  /** natsjet: return at once with what is there. */
  no_wait?: boolean;
}
/** Options of `consume`, as nats.js's; durations in milliseconds. Set `max_messages` or `max_bytes`, not both. */
export interface ConsumeOptions extends PullPriority {
  /**
   * Messages kept requested ahead (200; nats.js: 100); a slow handler's message waits up to this many handler runs,
   * within `ack_wait`. With neither this nor `max_bytes` set, bytes are bounded too: 16 MiB ahead, 4 MiB per pull.
   */
  max_messages?: number;
  /** Bytes kept requested ahead, instead of a message count. */
  max_bytes?: number;
  /** Pull more when pending messages fall to this (half of `max_messages`; nats.js: 75 %). */
  threshold_messages?: number;
  /** Pull more when pending bytes fall to this (half of `max_bytes`). */
  threshold_bytes?: number;
  /** Lifetime of each pull on the server (30000, at least 1000). */
  expires?: number;
  /** Server heartbeat (half of `expires`, at most 30000, at least 500); two missed ones re-pull. */
  idle_heartbeat?: number;
  /**
   * `true`: end with a `CONSUMER_STATUS` error (409) when the consumer or its
   * stream is deleted. By default (`false`), as nats.js, keep pulling, with
   * backoff, until the consumer is back, reporting the status by `status()`
   * only. A 400 bad request ends either way.
   */
  abort_on_missing_resource?: boolean;
  /** natsjet's name for the opposite of `abort_on_missing_resource` (`true`). */
  keep_waiting?: boolean;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// `FetchOptions` or `ConsumeOptions`; each reader reads its own fields.
    #[wasm_bindgen(typescript_type = "FetchOptions | ConsumeOptions")]
    pub type PullOptions;
    #[wasm_bindgen(method, getter)]
    fn max_messages(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn max_bytes(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn threshold_messages(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn threshold_bytes(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn expires(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn idle_heartbeat(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn no_wait(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn keep_waiting(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn abort_on_missing_resource(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn group(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn min_pending(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn min_ack_pending(this: &PullOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn priority(this: &PullOptions) -> JsValue;
}

/// A pull consumer: what it reads needs only its names (its info stays in
/// TS, as the server's JSON). Shared with `next`'s future, not cloned.
#[wasm_bindgen]
pub struct RawConsumer {
    consumer: Rc<Consumer>,
}

impl RawConsumer {
    pub(super) fn new(consumer: Consumer) -> Self {
        RawConsumer { consumer: Rc::new(consumer) }
    }

    pub(super) fn consumer(&self) -> &Consumer {
        &self.consumer
    }
}

#[wasm_bindgen]
impl RawConsumer {
    /// One batch, ending after `max_messages` or `expires`.
    pub fn fetch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "FetchOptions | undefined")] options: Option<PullOptions>,
    ) -> Result<RawConsumerMessages, JsValue> {
        Ok(RawConsumerMessages::new(self.consumer.fetch_with(fetch_options(options)?)?))
    }

    /// Continuous reading: keeps pulls outstanding, re-pulls after
    /// reconnects and missed heartbeats, waits for a deleted consumer to
    /// come back (unless `abort_on_missing_resource`).
    pub fn consume(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ConsumeOptions | undefined")] options: Option<PullOptions>,
    ) -> Result<RawConsumerMessages, JsValue> {
        Ok(RawConsumerMessages::new(self.consumer.consume_with(consume_options(options)?)?))
    }

    /// The next message, waiting up to `expires` ms (30000); `null` if none came.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawDelivered | null>")]
    pub fn next(&self, expires: Option<f64>) -> Result<Promise, JsValue> {
        let expires = next_expires(expires)?;
        let consumer = self.consumer.clone();
        Ok(promise(async move { Ok(delivered(consumer.next(expires).await?.into_iter().collect())) }))
    }
}

/// `next`'s wait: `expires` ms, 30000 by default.
pub(super) fn next_expires(expires: Option<f64>) -> Result<Duration, Error> {
    Ok(millis(expires.into(), "expires")?.unwrap_or(DEFAULT_EXPIRES))
}

/// `FetchOptions` read as nats.js means them.
pub(super) fn fetch_options(options: Option<PullOptions>) -> Result<FetchOptions, Error> {
    let Some(o) = options else { return Ok(FetchOptions::default()) };
    // A byte limit alone raises the message count to 1,000,000.
    let mut fetch = match whole_number(o.max_bytes(), "max_bytes")? {
        Some(n) => FetchOptions::bytes(n),
        None => FetchOptions::default(),
    };
    if let Some(n) = whole_number(o.max_messages(), "max_messages")? {
        fetch.max_messages = n;
    }
    if let Some(expires) = millis(o.expires(), "expires")? {
        fetch.expires = expires;
    }
    fetch.idle_heartbeat = millis(o.idle_heartbeat(), "idle_heartbeat")?;
    fetch.no_wait = flag(o.no_wait(), "no_wait")? == Some(true);
    fetch.priority = priority(&o)?;
    Ok(fetch)
}

/// `ConsumeOptions` read as nats.js means them: waiting for a deleted
/// consumer to come back unless told to abort on a missing resource.
pub(super) fn consume_options(options: Option<PullOptions>) -> Result<ConsumeOptions, Error> {
    let Some(o) = options else { return Ok(ConsumeOptions { keep_waiting: true, ..ConsumeOptions::default() }) };
    let abort = flag(o.abort_on_missing_resource(), "abort_on_missing_resource")?;
    let keep_waiting = match (flag(o.keep_waiting(), "keep_waiting")?, abort) {
        (Some(keep), Some(abort)) if keep == abort => {
            let text = "keep_waiting and abort_on_missing_resource contradict each other";
            return Err(Error::InvalidArgument(text.into()));
        }
        (Some(keep), _) => keep,
        (None, abort) => abort != Some(true),
    };
    Ok(ConsumeOptions {
        max_messages: whole_number(o.max_messages(), "max_messages")?,
        max_bytes: whole_number(o.max_bytes(), "max_bytes")?,
        threshold_messages: whole_number(o.threshold_messages(), "threshold_messages")?,
        threshold_bytes: whole_number(o.threshold_bytes(), "threshold_bytes")?,
        expires: millis(o.expires(), "expires")?,
        idle_heartbeat: millis(o.idle_heartbeat(), "idle_heartbeat")?,
        priority: priority(&o)?,
        keep_waiting,
    })
}

/// The priority group fields, when a group is named.
fn priority(o: &PullOptions) -> Result<Option<PriorityOptions>, Error> {
    let Some(group) = text(o.group(), "group")? else { return Ok(None) };
    Ok(Some(PriorityOptions {
        group,
        min_pending: whole_number(o.min_pending(), "min_pending")?,
        min_ack_pending: whole_number(o.min_ack_pending(), "min_ack_pending")?,
        priority: whole_number(o.priority(), "priority")?,
        pin_id: None,
    }))
}
