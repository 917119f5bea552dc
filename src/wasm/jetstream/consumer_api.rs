//! Consumer management on `RawJetStream`, the calls of nats.js's `ConsumerAPI`.

use std::time::UNIX_EPOCH;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::context::RawJetStream;
use super::from_json;
use super::lister::RawLister;
use crate::jetstream::api::ConsumerConfig;
use crate::wasm::options::millis;
use crate::wasm::{promise, to_js_object};

#[wasm_bindgen]
impl RawJetStream {
    /// Creates a consumer (action `create`, as nats.js's `add`): one that
    /// exists with another config is an error (10148).
    #[wasm_bindgen(js_name = addConsumer, unchecked_return_type = "Promise<ConsumerInfo>")]
    pub fn add_consumer(&self, stream: String, config: &str) -> Result<Promise, JsValue> {
        let config: ConsumerConfig = from_json(config, "consumer config")?;
        let context = self.context.clone();
        Ok(promise(async move {
            to_js_object(context.create_consumer_strict_on_stream(config, stream).await?.cached_info())
        }))
    }

    /// Replaces an existing consumer's config (action `update`); none is an error (10149).
    #[wasm_bindgen(js_name = updateConsumer, unchecked_return_type = "Promise<ConsumerInfo>")]
    pub fn update_consumer(&self, stream: String, config: &str) -> Result<Promise, JsValue> {
        let config: ConsumerConfig = from_json(config, "consumer config")?;
        let context = self.context.clone();
        Ok(promise(async move { to_js_object(context.update_consumer_on_stream(config, stream).await?.cached_info()) }))
    }

    #[wasm_bindgen(js_name = consumerInfo, unchecked_return_type = "Promise<ConsumerInfo>")]
    pub fn consumer_info(&self, stream: String, name: String) -> Promise {
        let context = self.context.clone();
        promise(async move { to_js_object(&context.consumer_info_from_stream(name, stream).await?) })
    }

    #[wasm_bindgen(js_name = deleteConsumer, unchecked_return_type = "Promise<boolean>")]
    pub fn delete_consumer(&self, stream: String, name: String) -> Promise {
        let context = self.context.clone();
        promise(async move { context.delete_consumer_from_stream(name, stream).await })
    }

    /// Info of every consumer of `stream`.
    #[wasm_bindgen(js_name = listConsumers)]
    pub fn list_consumers(&self, stream: &str) -> RawLister {
        RawLister::json(self.stream(stream).consumers())
    }

    /// Stops delivery until `until` (ms since 1970); acks are still taken.
    #[wasm_bindgen(js_name = pauseConsumer, unchecked_return_type = "Promise<ConsumerPauseResponse>")]
    pub fn pause_consumer(&self, stream: &str, name: String, until: f64) -> Result<Promise, JsValue> {
        let until = UNIX_EPOCH + millis(until.into(), "until")?.unwrap_or_default();
        let stream = self.stream(stream);
        Ok(promise(async move { to_js_object(&stream.pause_consumer(name, until).await?) }))
    }

    #[wasm_bindgen(js_name = resumeConsumer, unchecked_return_type = "Promise<ConsumerPauseResponse>")]
    pub fn resume_consumer(&self, stream: &str, name: String) -> Promise {
        let stream = self.stream(stream);
        promise(async move { to_js_object(&stream.resume_consumer(name).await?) })
    }
}
