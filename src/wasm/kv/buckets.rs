//! Buckets on `RawJetStream`, without a round trip of their own: the
//! stream config a bucket is made of (the Rust `Config`'s mapping, for
//! TS to send with the JetStream API's get-or-create, as nats.js's
//! `kvm.create` opens an existing bucket whatever its config), a handle on
//! a bucket from its stream's config (`kvm.create`, `kvm.open`), and the
//! bucket of a listed stream. Values cross one by one: reading them from
//! JS objects would link a getter for each.

use std::time::Duration;

use wasm_bindgen::prelude::*;

use super::options::KvOptions;
use super::store::RawKv;
use crate::error::Error;
use crate::jetstream::kv::names::bucket_of_stream;
use crate::jetstream::kv::{BucketExternal, BucketFacts, BucketMirror, Config, Store};
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::options::whole;

#[wasm_bindgen]
impl RawJetStream {
    /// The stream config (JSON) of bucket `bucket` made from nats.js's
    /// `KvOptions` (`metadata`: names and values in turn). Throws
    /// `INVALID_ARGUMENT` naming a bad name or option.
    #[wasm_bindgen(js_name = kvStream)]
    #[allow(clippy::too_many_arguments, reason = "the options one by one: no getters to link")]
    pub fn kv_stream(
        &self,
        bucket: String,
        description: Option<String>,
        history: Option<f64>,
        max_bytes: Option<f64>,
        max_value_size: Option<f64>,
        ttl: Option<f64>,
        marker_ttl: Option<f64>,
        storage: Option<String>,
        replicas: Option<f64>,
        compression: bool,
        metadata: Vec<String>,
    ) -> Result<String, JsValue> {
        let options = KvOptions {
            description,
            history,
            max_bytes,
            max_value_size,
            ttl,
            marker_ttl,
            storage,
            replicas,
            compression,
            metadata,
        };
        let config = options.config(bucket)?;
        let json = self.context.bucket_stream_with(config, Config::into_local_stream_config).map_err(Error::from)?;
        Ok(String::from_utf8(json).unwrap_or_default())
    }

    /// A handle on bucket `bucket` from what its stream's config says
    /// (`allow_direct`, `max_msg_size`, `max_msgs_per_subject`, the mirror's
    /// stream and external API prefix); `timeout` (ms) bounds its calls,
    /// `leader_reads` reads from the stream's leader.
    #[wasm_bindgen(js_name = kvBind)]
    #[allow(clippy::too_many_arguments, reason = "the stream's settings one by one")]
    pub fn kv_bind(
        &self,
        bucket: &str,
        allow_direct: bool,
        max_msg_size: Option<f64>,
        max_msgs_per_subject: Option<f64>,
        mirror: Option<String>,
        mirror_api: Option<String>,
        timeout: Option<f64>,
        leader_reads: bool,
    ) -> Result<RawKv, JsValue> {
        let mirror = mirror.map(|name| BucketMirror { name, external: mirror_api.map(|api| BucketExternal { api }) });
        let facts = BucketFacts {
            allow_direct: allow_direct && !leader_reads,
            max_msg_size: max_msg_size.unwrap_or(-1.0) as i64,
            max_msgs_per_subject: max_msgs_per_subject.unwrap_or(0.0) as i64,
            mirror,
        };
        let mut store = Store::from_facts(self.context.clone(), bucket, facts)?;
        if let Some(timeout) = timeout.filter(|t| *t > 0.0) {
            store.context.set_timeout(Duration::from_millis(whole(timeout, "timeout")?));
        }
        Ok(RawKv::new(store))
    }

    /// The bucket whose stream `stream` is, if it is a bucket's.
    #[wasm_bindgen(js_name = kvBucketOf)]
    pub fn kv_bucket_of(&self, stream: &str) -> Option<String> {
        bucket_of_stream(stream).map(str::to_string)
    }
}
