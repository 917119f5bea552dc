//! `RawPushConsumer`: a push consumer (nats.js's
//! `js.consumers.getPushConsumer(stream, name)`, or bound by its deliver
//! subject: `getBoundPushConsumer(opts)`) and the options of its `consume`;
//! its messages are a [`RawConsumerMessages`] like a pull reader's.

use std::time::Duration;

use wasm_bindgen::prelude::*;

use super::context::RawJetStream;
use super::messages::RawConsumerMessages;
use super::whole_number;
use crate::core::error::Error;
use crate::jetstream::api::ConsumerInfo;
use crate::jetstream::push::PushOptions;
use crate::jetstream::{BoundPushConfig, PushConsumer};
use crate::wasm::options::{flag, text};

#[wasm_bindgen(typescript_custom_section)]
const TS_PUSH: &str = r#"
/** Options of a push consumer's `consume`, as nats.js's `PushConsumerOptions`. */
export interface PushConsumeOptions {
  /**
   * `true`: end with a `JETSTREAM` error (10014, or 10059 for the stream)
   * when, after missed heartbeats, the consumer turns out to be deleted. By
   * default (`false`), as nats.js, report it by `status()`
   * (`consumer_deleted`) and keep listening, in case it comes back.
   * Needs `idle_heartbeat` in the consumer's config: the server tells a push
   * consumer nothing when it is deleted.
   */
  abort_on_missing_resource?: boolean;
}

/**
 * A push consumer known by its deliver settings alone, as nats.js's
 * `BoundPushConsumerOptions`: they must match the consumer's config.
 */
export interface BoundPushConsumerOptions {
  /** The consumer's `deliver_subject`. */
  deliver_subject: string;
  /** The consumer's `deliver_group`: listen as one member of that queue group. */
  deliver_group?: string;
  /**
   * The consumer's `idle_heartbeat` in nanoseconds, to watch for missed
   * heartbeats; one that does not match gives false or late alarms.
   */
  idle_heartbeat?: number;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "PushConsumeOptions")]
    pub type PushOptionsJs;
    #[wasm_bindgen(method, getter)]
    fn abort_on_missing_resource(this: &PushOptionsJs) -> JsValue;

    #[wasm_bindgen(typescript_type = "BoundPushConsumerOptions")]
    pub type BoundPushOptions;
    #[wasm_bindgen(method, getter)]
    fn deliver_subject(this: &BoundPushOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn deliver_group(this: &BoundPushOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn idle_heartbeat(this: &BoundPushOptions) -> JsValue;
}

/// A push consumer: its names and deliver settings (its info stays in TS).
#[wasm_bindgen]
pub struct RawPushConsumer {
    consumer: PushConsumer,
}

#[wasm_bindgen]
impl RawJetStream {
    /// A push consumer handle from its info (a `CONSUMER.INFO` reply);
    /// `INVALID_ARGUMENT` for a pull consumer.
    #[wasm_bindgen(js_name = pushConsumer)]
    pub fn push_consumer(&self, info: &str) -> Result<RawPushConsumer, JsValue> {
        let info = ConsumerInfo::from_json_core(info.as_bytes())?;
        Ok(RawPushConsumer { consumer: PushConsumer::try_new(self.context.clone(), info)? })
    }

    /// A push consumer known by its deliver settings (no API call).
    #[wasm_bindgen(js_name = boundPushConsumer)]
    pub fn bound_push_consumer(&self, options: BoundPushOptions) -> Result<RawPushConsumer, JsValue> {
        let deliver_subject = text(options.deliver_subject(), "deliver_subject")?
            .ok_or_else(|| Error::InvalidArgument("deliver_subject is required".into()))?;
        let config = BoundPushConfig {
            deliver_subject,
            deliver_group: text(options.deliver_group(), "deliver_group")?,
            idle_heartbeat: Duration::from_nanos(
                whole_number(options.idle_heartbeat(), "idle_heartbeat")?.unwrap_or(0),
            ),
        };
        Ok(RawPushConsumer { consumer: self.context.bound_push_consumer(config)? })
    }
}

#[wasm_bindgen]
impl RawPushConsumer {
    /// Listens on the deliver subject (in the deliver group, if any).
    pub fn consume(&self, options: Option<PushOptionsJs>) -> Result<RawConsumerMessages, JsValue> {
        let abort = options.map(|o| flag(o.abort_on_missing_resource(), "abort_on_missing_resource")).transpose()?;
        let keep_waiting = abort.flatten() != Some(true);
        Ok(RawConsumerMessages::new(self.consumer.consume_with(PushOptions { keep_waiting })?))
    }
}
