//! Buckets on `RawJetStream`, without a round trip of their own: the
//! stream config a bucket is made of (the Rust `Config`'s mapping, for
//! TS to send with the JetStream API's get-or-create, as nats.js's
//! `kvm.create` opens an existing bucket whatever its config), a handle on
//! a bucket from its stream's config (`kvm.create`, `kvm.open`), and the
//! bucket of a listed stream. Values cross as a list of strings and one
//! of numbers: the smallest glue (reading them from JS objects would link
//! a getter for each, and every argument costs the wasm its conversion).

use std::time::Duration;

use wasm_bindgen::prelude::*;

use super::store::RawKv;
use super::{nested, options};
use crate::core::error::Error;
use crate::jetstream::kv::names::bucket_of_stream;
use crate::jetstream::kv::{BucketExternal, BucketFacts, BucketMirror, Store};
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::options::whole;

#[wasm_bindgen]
impl RawJetStream {
    /// The stream config (JSON) of a bucket made from nats.js's
    /// `KvOptions`: `strings` are the bucket's name, `description`,
    /// `storage`, then `metadata`'s names and values in turn; `numbers` are
    /// `history`, `max_bytes`, `maxValueSize`, `ttl`, `markerTTL`,
    /// `replicas` and `compression` (1 or 0), each 0 when unset (which
    /// means the default for all of them); `nested` and `nested_numbers`
    /// are `mirror`, `sources`, `placement` and `republish` as
    /// [`nested`](super::nested) reads them. Throws `INVALID_ARGUMENT`
    /// naming a bad name or option.
    #[wasm_bindgen(js_name = kvStream)]
    pub fn kv_stream(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "[bucket: string, description: string, storage: string, ...metadata: string[]]"
        )]
        strings: Vec<String>,
        #[wasm_bindgen(unchecked_param_type = "ArrayLike<number>")] numbers: &[f64],
        nested: Vec<String>,
        #[wasm_bindgen(js_name = nestedNumbers, unchecked_param_type = "ArrayLike<number>")] nested_numbers: &[f64],
    ) -> Result<String, JsValue> {
        let config = options::config(&strings, numbers, nested::nested(&nested, nested_numbers)?)?;
        let json = self.context.bucket_stream(config).map_err(Error::from)?;
        Ok(String::from_utf8(json).unwrap_or_default())
    }

    /// A handle on bucket `bucket` from what its stream's config says:
    /// `numbers` are `allow_direct` (1 or 0), `max_msg_size` (-1 when
    /// unset), `max_msgs_per_subject` (0 when unset), then the handle's
    /// `timeout` (ms; 0: the JetStream context's) and whether it reads
    /// from the stream's leader (1 or 0); `mirror` and `mirror_api` are
    /// the mirror's stream and external API prefix.
    #[wasm_bindgen(js_name = kvBind)]
    pub fn kv_bind(
        &self,
        bucket: &str,
        #[wasm_bindgen(unchecked_param_type = "ArrayLike<number>")] numbers: &[f64],
        mirror: Option<String>,
        mirror_api: Option<String>,
    ) -> Result<RawKv, JsValue> {
        let number = |i: usize| numbers.get(i).copied().unwrap_or(0.0);
        let [allow_direct, max_msg_size, max_msgs_per_subject, timeout, leader_reads] = std::array::from_fn(number);
        let mirror = mirror.map(|name| BucketMirror { name, external: mirror_api.map(|api| BucketExternal { api }) });
        let facts = BucketFacts {
            allow_direct: allow_direct != 0.0 && leader_reads == 0.0,
            max_msg_size: max_msg_size as i64,
            max_msgs_per_subject: max_msgs_per_subject as i64,
            mirror,
        };
        let mut store = Store::from_facts(self.context.clone(), bucket, facts)?;
        if timeout > 0.0 {
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
