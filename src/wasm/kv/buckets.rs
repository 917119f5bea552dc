//! Buckets on `RawJetStream`, without a round trip of their own: the
//! stream config a bucket is made of (the Rust [`Config`]'s mapping, for
//! TS to send with the JetStream API's get-or-create, as nats.js's
//! `kvm.create` opens an existing bucket whatever its config), a handle on
//! a bucket from its stream's config (`kvm.create`, `kvm.open`), and the
//! bucket of a listed stream.

use std::time::Duration;

use wasm_bindgen::prelude::*;

use super::options::{RawKvOptions, config};
use super::store::RawKv;
use crate::error::Error;
use crate::jetstream::kv::names::{bucket_of_stream, stream_name};
use crate::jetstream::kv::{BucketExternal, BucketFacts, BucketMirror};
use crate::jetstream::kv::{Config, Store};
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::options::{flag, millis, number, text};

#[wasm_bindgen(typescript_custom_section)]
const TS_KV_BUCKETS: &str = r#"
/** What a handle reads of a bucket's stream config (a `STREAM.INFO` reply's `config`). */
export interface RawBucketConfig {
  allow_direct?: boolean;
  max_msg_size?: number;
  max_msgs_per_subject?: number;
  mirror?: { name: string; external?: { api?: string } };
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "RawBucketConfig")]
    pub type RawBucketConfig;
    #[wasm_bindgen(method, getter)]
    fn allow_direct(this: &RawBucketConfig) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn max_msg_size(this: &RawBucketConfig) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn max_msgs_per_subject(this: &RawBucketConfig) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn mirror(this: &RawBucketConfig) -> Option<RawMirror>;

    pub type RawMirror;
    #[wasm_bindgen(method, getter)]
    fn name(this: &RawMirror) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn external(this: &RawMirror) -> Option<RawExternal>;

    pub type RawExternal;
    #[wasm_bindgen(method, getter)]
    fn api(this: &RawExternal) -> JsValue;
}

#[wasm_bindgen]
impl RawJetStream {
    /// The stream config (JSON) of bucket `bucket` made from `options`.
    /// Throws `INVALID_ARGUMENT` naming a bad name or option.
    #[wasm_bindgen(js_name = kvStream)]
    pub fn kv_stream(&self, bucket: String, options: Option<RawKvOptions>) -> Result<String, JsValue> {
        Handle::read(&bucket, options.as_ref())?;
        let config = match &options {
            Some(o) => config(bucket, o)?,
            None => Config { bucket, ..Config::default() },
        };
        let json = self.context.bucket_stream(&config).map_err(Error::from)?;
        Ok(String::from_utf8(json).unwrap_or_default())
    }

    /// A handle on bucket `bucket`, whose stream's config is `stream`.
    #[wasm_bindgen(js_name = kvBind)]
    pub fn kv_bind(
        &self,
        bucket: &str,
        stream: &RawBucketConfig,
        options: Option<RawKvOptions>,
    ) -> Result<RawKv, JsValue> {
        let handle = Handle::read(bucket, options.as_ref())?;
        let mirror = stream.mirror().map(|m| BucketMirror {
            name: text(m.name(), "mirror.name").ok().flatten().unwrap_or_default(),
            external: m
                .external()
                .map(|e| BucketExternal { api: text(e.api(), "api").ok().flatten().unwrap_or_default() }),
        });
        let facts = BucketFacts {
            allow_direct: flag(stream.allow_direct(), "allow_direct")? == Some(true),
            max_msg_size: number(stream.max_msg_size(), "max_msg_size")?.unwrap_or(-1.0) as i64,
            max_msgs_per_subject: number(stream.max_msgs_per_subject(), "max_msgs_per_subject")?.unwrap_or(0.0) as i64,
            mirror,
        };
        let store = Store::from_facts(self.context.clone(), bucket, facts)?;
        Ok(handle.apply(store))
    }

    /// The bucket whose stream `stream` is, if it is a bucket's.
    #[wasm_bindgen(js_name = kvBucketOf)]
    pub fn kv_bucket_of(&self, stream: &str) -> Option<String> {
        bucket_of_stream(stream).map(str::to_string)
    }
}

/// What `options` say about one handle on a bucket, not about the bucket.
#[derive(Default)]
struct Handle {
    timeout: Option<Duration>,
    /// `allow_direct: false`: read from the stream's leader.
    leader_reads: bool,
}

impl Handle {
    fn read(bucket: &str, options: Option<&RawKvOptions>) -> Result<Handle, Error> {
        let Some(o) = options else { return Ok(Handle::default()) };
        if let Some(name) = text(o.stream_name(), "streamName")?.filter(|name| *name != stream_name(bucket)) {
            let text = format!("streamName {name:?}: the stream of bucket {bucket:?} is {}", stream_name(bucket));
            return Err(Error::InvalidArgument(text));
        }
        Ok(Handle {
            timeout: millis(o.timeout(), "timeout")?.filter(|t| !t.is_zero()),
            leader_reads: flag(o.allow_direct(), "allow_direct")? == Some(false),
        })
    }

    fn apply(self, mut store: Store) -> RawKv {
        if let Some(timeout) = self.timeout {
            store.context.set_timeout(timeout);
        }
        store.direct &= !self.leader_reads;
        RawKv::new(store)
    }
}
