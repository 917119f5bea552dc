//! `RawPushConsumer`: a push consumer (nats.js's
//! `js.consumers.getPushConsumer(stream, name)`) and the options of its
//! `consume`; its messages are a [`RawConsumerMessages`] like a pull reader's.

use wasm_bindgen::prelude::*;

use super::context::RawJetStream;
use super::messages::RawConsumerMessages;
use crate::jetstream::PushConsumer;
use crate::jetstream::api::ConsumerInfo;
use crate::jetstream::push::PushOptions;
use crate::wasm::options::flag;

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
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "PushConsumeOptions")]
    pub type PushOptionsJs;
    #[wasm_bindgen(method, getter)]
    fn abort_on_missing_resource(this: &PushOptionsJs) -> JsValue;
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
        Ok(RawPushConsumer { consumer: PushConsumer::new(self.context.clone(), info)? })
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
