//! Buckets on `RawJetStream`, without a round trip of their own, as the
//! Key-Value ones: the stream config a bucket is made of (from nats.js's
//! `ObjectStoreOptions`, for TS to send with the JetStream API's
//! get-or-create, as nats.js's `objm.create` opens an existing bucket
//! whatever its config), and a handle on a bucket from its stream's config.

use std::time::Duration;

use wasm_bindgen::prelude::*;

use super::store::RawObjectStore;
use crate::jetstream::object_store::names::check_bucket;
use crate::jetstream::object_store::{Config, ObjectStore};
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::options::{pairs, storage as storage_named, whole};

#[wasm_bindgen(typescript_custom_section)]
const TS_OBJ_BUCKETS: &str = r#"
/** What a handle reads of a bucket's stream config (a `STREAM.INFO` reply's `config`). */
export interface RawObjectBucket {
  allow_direct?: boolean;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "RawObjectBucket")]
    pub type RawObjectBucket;
    #[wasm_bindgen(method, getter)]
    fn allow_direct(this: &RawObjectBucket) -> Option<bool>;
}

#[wasm_bindgen]
impl RawJetStream {
    /// The stream config (JSON) of bucket `bucket` made from nats.js's
    /// `ObjectStoreOptions`, one argument each (`ttl` in nanoseconds,
    /// `metadata` as name, value, name, value…; `allow_batched`: nats.js's
    /// undocumented `allowBatched`, for other clients' puts). Throws
    /// `INVALID_ARGUMENT` naming a bad name or option.
    #[wasm_bindgen(js_name = objStream)]
    #[allow(clippy::too_many_arguments, reason = "one argument per option costs the wasm less than reading an object")]
    pub fn obj_stream(
        &self,
        bucket: String,
        description: Option<String>,
        ttl: Option<f64>,
        storage: Option<String>,
        replicas: Option<f64>,
        max_bytes: Option<f64>,
        metadata: Option<Vec<String>>,
        compression: Option<bool>,
        allow_batched: Option<bool>,
    ) -> Result<String, JsValue> {
        let storage = storage_named(storage.as_deref().unwrap_or("file"))?;
        let config = Config {
            bucket,
            description,
            max_age: Duration::from_nanos(ttl.map_or(Ok(0), |n| whole(n, "ttl"))?),
            // Below zero (nats.js's -1) is no limit, as 0.
            max_bytes: max_bytes.filter(|n| *n >= 0.0).map_or(Ok(0), |n| whole(n, "max_bytes"))?,
            storage,
            num_replicas: replicas.map_or(Ok(1), |n| whole(n, "replicas"))?,
            compression: compression == Some(true),
            placement: None,
            metadata: pairs(&metadata.unwrap_or_default()),
            allow_batched: allow_batched == Some(true),
        };
        let json = self.context.object_bucket_stream(&config)?;
        Ok(String::from_utf8(json).unwrap_or_default())
    }

    /// A handle on bucket `bucket`, whose stream's config is `stream`.
    #[wasm_bindgen(js_name = objBind)]
    pub fn obj_bind(&self, bucket: &str, stream: &RawObjectBucket) -> Result<RawObjectStore, JsValue> {
        check_bucket(bucket)?;
        let direct = stream.allow_direct() == Some(true);
        // The wasm puts without fast batches (see `put`): `allow_batched` is not read.
        Ok(RawObjectStore::new(ObjectStore::from_flags(self.context.clone(), bucket, direct, false)))
    }
}
