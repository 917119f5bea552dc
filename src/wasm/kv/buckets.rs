//! Buckets on `RawJetStream`: nats.js's `kvm.create` (the Rust
//! `Context::get_or_create_key_value`: an existing bucket is opened
//! whatever its config), `kvm.open` (`Context::get_key_value`), the bucket
//! of a listed stream, and what the options say about one handle.

use std::time::Duration;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::options::{RawKvOptions, config};
use super::store::RawKv;
use crate::error::Error;
use crate::jetstream::kv::names::{bucket_of_stream, stream_name};
use crate::jetstream::kv::{Config, Store};
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::options::{flag, millis, text};
use crate::wasm::promise;

#[wasm_bindgen]
impl RawJetStream {
    /// Bucket `bucket` as it is, or made from `options` if there is none.
    #[wasm_bindgen(js_name = kvCreate, unchecked_return_type = "Promise<RawKv>")]
    pub fn kv_create(&self, bucket: String, options: Option<RawKvOptions>) -> Result<Promise, JsValue> {
        let handle = Handle::read(&bucket, options.as_ref())?;
        let config = match &options {
            Some(o) => config(bucket, o)?,
            None => Config { bucket, ..Config::default() },
        };
        let context = self.context.clone();
        Ok(promise(async move { Ok(handle.apply(context.get_or_create_key_value(config).await?)) }))
    }

    /// The existing bucket `bucket`; rejects (`JETSTREAM`, 10059) if there is none.
    #[wasm_bindgen(js_name = kvOpen, unchecked_return_type = "Promise<RawKv>")]
    pub fn kv_open(&self, bucket: String, options: Option<RawKvOptions>) -> Result<Promise, JsValue> {
        let handle = Handle::read(&bucket, options.as_ref())?;
        let context = self.context.clone();
        Ok(promise(async move { Ok(handle.apply(context.get_key_value(bucket).await?)) }))
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
