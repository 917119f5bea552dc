//! `RawOrderedConsumer`: an ordered consumer ([`OrderedConsumer`], nats.js's
//! `js.consumers.get(stream, opts?)`), `RawOrderedPushConsumer`: an ordered
//! push consumer ([`OrderedPushConsumer`], nats.js's
//! `js.consumers.getPushConsumer(stream, opts?)`), and their options, read
//! like the pull options: nats.js names, durations in milliseconds.

use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::consumer::{PullOptions, consume_options, fetch_options, next_expires};
use super::context::RawJetStream;
use super::deliveries::delivered;
use super::messages::RawConsumerMessages;
use super::whole_number;
use crate::core::error::Error;
use crate::jetstream::api::{DeliverPolicy, ReplayPolicy};
use crate::jetstream::ordered::{OrderedConfig, OrderedPushConfig};
use crate::jetstream::{OrderedConsumer, OrderedPushConsumer};
use crate::wasm::options::{flag, millis, text};
use crate::wasm::promise;

#[wasm_bindgen(typescript_custom_section)]
const TS_ORDERED: &str = r#"
/** Options of an ordered consumer, as nats.js's `OrderedConsumerOptions`; durations in milliseconds. */
export interface OrderedConsumerOptions {
  /** Only messages on these subjects (default: all of the stream). */
  filter_subjects?: string | string[];
  /** Where reading starts (`"all"`); later consumers resume after the last message read. */
  deliver_policy?: DeliverPolicy;
  /** The first stream sequence, with `deliver_policy` `"by_start_sequence"` (or alone). */
  opt_start_seq?: number;
  /** The first message time (RFC 3339), with `deliver_policy` `"by_start_time"` (or alone). */
  opt_start_time?: string;
  /** `"instant"` (default) or `"original"`: at the pace the messages were stored. */
  replay_policy?: ReplayPolicy;
  /** How long the server keeps a consumer nobody reads (300000). */
  inactive_threshold?: number;
  /** Headers and `Nats-Msg-Size` only, no payloads. */
  headers_only?: boolean;
  /** Put before the unique part of every consumer name. */
  name_prefix?: string;
}

/** Options of an ordered push consumer, as nats.js's `OrderedPushConsumerOptions`. */
export interface OrderedPushConsumerOptions extends OrderedConsumerOptions {
  /** Consumer `n` delivers to `<deliver_prefix>.<n>` (default: a fresh inbox). */
  deliver_prefix?: string;
  /** natsjet: milliseconds between heartbeats of an idle consumer (5000); two missed ones replace it. */
  idle_heartbeat?: number;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "OrderedConsumerOptions")]
    pub type OrderedOptions;
    #[wasm_bindgen(method, getter)]
    fn filter_subjects(this: &OrderedOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn deliver_policy(this: &OrderedOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn opt_start_seq(this: &OrderedOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn opt_start_time(this: &OrderedOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn replay_policy(this: &OrderedOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn inactive_threshold(this: &OrderedOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn headers_only(this: &OrderedOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn name_prefix(this: &OrderedOptions) -> JsValue;

    #[wasm_bindgen(extends = OrderedOptions, typescript_type = "OrderedPushConsumerOptions")]
    pub type OrderedPushOptions;
    #[wasm_bindgen(method, getter)]
    fn deliver_prefix(this: &OrderedPushOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn idle_heartbeat(this: &OrderedPushOptions) -> JsValue;
}

/// An ordered consumer; `next`'s future shares it.
#[wasm_bindgen]
pub struct RawOrderedConsumer {
    consumer: Rc<OrderedConsumer>,
}

#[wasm_bindgen]
impl RawJetStream {
    /// An ordered consumer on `stream`; its first consumer is made now.
    #[wasm_bindgen(js_name = orderedConsumer, unchecked_return_type = "Promise<RawOrderedConsumer>")]
    pub fn ordered_consumer(&self, stream: String, options: Option<OrderedOptions>) -> Result<Promise, JsValue> {
        let config = options.map(|o| ordered_config(&o)).transpose()?.unwrap_or_default();
        let context = self.context.clone();
        Ok(promise(async move {
            let consumer = context.ordered_consumer(stream, config).await?;
            Ok(JsValue::from(RawOrderedConsumer { consumer: Rc::new(consumer) }))
        }))
    }
}

/// An ordered push consumer.
#[wasm_bindgen]
pub struct RawOrderedPushConsumer {
    consumer: OrderedPushConsumer,
}

#[wasm_bindgen]
impl RawJetStream {
    /// An ordered push consumer on `stream`; its first consumer is made now.
    #[wasm_bindgen(js_name = orderedPushConsumer, unchecked_return_type = "Promise<RawOrderedPushConsumer>")]
    pub fn ordered_push_consumer(
        &self,
        stream: String,
        options: Option<OrderedPushOptions>,
    ) -> Result<Promise, JsValue> {
        let config = options.map(|o| ordered_push_config(&o)).transpose()?.unwrap_or_default();
        let context = self.context.clone();
        Ok(promise(async move {
            let consumer = context.ordered_push_consumer(stream, config).await?;
            Ok(JsValue::from(RawOrderedPushConsumer { consumer }))
        }))
    }
}

#[wasm_bindgen]
impl RawOrderedPushConsumer {
    /// The name of the consumer pushing now.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.consumer.name()
    }

    /// Messages the first consumer had to deliver when it was made: what
    /// a read knows it has caught up with.
    #[wasm_bindgen(getter)]
    pub fn pending(&self) -> f64 {
        self.consumer.pending_at_creation() as f64
    }

    /// Reading in order, through new consumers as needed.
    pub fn consume(&self) -> Result<RawConsumerMessages, JsValue> {
        Ok(RawConsumerMessages::new(self.consumer.consume()?))
    }
}

#[wasm_bindgen]
impl RawOrderedConsumer {
    /// The name of the consumer reads go to now.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.consumer.name()
    }

    /// One batch in order; a gap or a lost consumer ends it early.
    pub fn fetch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "FetchOptions | undefined")] options: Option<PullOptions>,
    ) -> Result<RawConsumerMessages, JsValue> {
        Ok(RawConsumerMessages::new(self.consumer.fetch(fetch_options(options)?)?))
    }

    /// Continuous reading in order, through new consumers as needed.
    pub fn consume(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ConsumeOptions | undefined")] options: Option<PullOptions>,
    ) -> Result<RawConsumerMessages, JsValue> {
        Ok(RawConsumerMessages::new(self.consumer.consume(consume_options(options)?)?))
    }

    /// The next message, waiting up to `expires` ms (30000); `null` if none came.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawDelivered | null>")]
    pub fn next(&self, expires: Option<f64>) -> Result<Promise, JsValue> {
        let expires = next_expires(expires)?;
        let consumer = self.consumer.clone();
        Ok(promise(async move { Ok(delivered(consumer.next(expires).await?.into_iter().collect())) }))
    }
}

fn ordered_config(o: &OrderedOptions) -> Result<OrderedConfig, Error> {
    let start_seq: Option<u64> = whole_number(o.opt_start_seq(), "opt_start_seq")?;
    let start_time = text(o.opt_start_time(), "opt_start_time")?;
    let deliver_policy = match (text(o.deliver_policy(), "deliver_policy")?.as_deref(), start_seq, start_time) {
        (None | Some("by_start_sequence"), Some(start_sequence), None) => {
            DeliverPolicy::ByStartSequence { start_sequence }
        }
        (None | Some("by_start_time"), None, Some(start_time)) => DeliverPolicy::ByStartTime { start_time },
        (None | Some("all"), None, None) => DeliverPolicy::All,
        (Some("last"), None, None) => DeliverPolicy::Last,
        (Some("new"), None, None) => DeliverPolicy::New,
        (Some("last_per_subject"), None, None) => DeliverPolicy::LastPerSubject,
        (policy, ..) => {
            let text = format!("deliver_policy {policy:?} does not go with the opt_start_seq and opt_start_time given");
            return Err(Error::InvalidArgument(text));
        }
    };
    let replay_policy = match text(o.replay_policy(), "replay_policy")?.as_deref() {
        None | Some("instant") => ReplayPolicy::Instant,
        Some("original") => ReplayPolicy::Original,
        Some(other) => return Err(Error::InvalidArgument(format!("replay_policy {other:?}: instant or original"))),
    };
    let defaults = OrderedConfig::default();
    Ok(OrderedConfig {
        filter_subjects: subjects(o.filter_subjects())?,
        deliver_policy,
        replay_policy,
        inactive_threshold: millis(o.inactive_threshold(), "inactive_threshold")?
            .filter(|d| *d > Duration::ZERO)
            .unwrap_or(defaults.inactive_threshold),
        headers_only: flag(o.headers_only(), "headers_only")? == Some(true),
        name_prefix: text(o.name_prefix(), "name_prefix")?,
    })
}

fn ordered_push_config(o: &OrderedPushOptions) -> Result<OrderedPushConfig, Error> {
    let defaults = OrderedPushConfig::default();
    Ok(OrderedPushConfig {
        ordered: ordered_config(o)?,
        deliver_prefix: text(o.deliver_prefix(), "deliver_prefix")?,
        idle_heartbeat: millis(o.idle_heartbeat(), "idle_heartbeat")?.unwrap_or(defaults.idle_heartbeat),
    })
}

/// `filter_subjects`: one subject or several.
fn subjects(value: JsValue) -> Result<Vec<String>, Error> {
    if let Some(list) = value.dyn_ref::<Array>() {
        let not_text = || Error::InvalidArgument("filter_subjects: an array of strings".into());
        return list.iter().map(|s| text(s, "filter_subjects")?.ok_or_else(not_text)).collect();
    }
    Ok(text(value, "filter_subjects")?.into_iter().collect())
}
