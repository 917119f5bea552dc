//! nats.js's `KvOptions` read into the Rust [`Config`] with typed getters,
//! as the connection options are: the same names, durations in
//! milliseconds. A wrong type is an `INVALID_ARGUMENT` that names the
//! option. The nested settings (`mirror`, `sources`, `placement`,
//! `republish`) are refused by name: reading and writing them cost the
//! package's wasm about 4.5 KB gzip, for buckets a browser rarely makes
//! (the Rust API makes them; `kvm.open` opens them).

use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::jetstream::api::StorageType;
use crate::jetstream::kv::Config;
use crate::wasm::options::{flag, millis, number, string_map, text, whole};

#[wasm_bindgen(typescript_custom_section)]
const TS_KV_OPTIONS: &str = r#"
/** What `kvCreate` and `kvOpen` read of nats.js's `KvOptions` (its names; durations in ms). */
export interface RawKvOptions {
  description?: string;
  replicas?: number;
  history?: number;
  max_bytes?: number;
  maxValueSize?: number;
  ttl?: number;
  markerTTL?: number;
  storage?: StorageType;
  /** Refused: natsjet's JS Key-Value makes no mirrors, sourced or placed buckets, nor republishing ones. */
  placement?: Placement;
  republish?: Republish;
  mirror?: StreamSource;
  sources?: StreamSource[];
  compression?: boolean;
  metadata?: Record<string, string>;
  timeout?: number;
  streamName?: string;
  allow_direct?: boolean;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "RawKvOptions")]
    pub type RawKvOptions;
    #[wasm_bindgen(method, getter)]
    fn description(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn replicas(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn history(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn max_bytes(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter = maxValueSize)]
    fn max_value_size(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn ttl(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter = markerTTL)]
    fn marker_ttl(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn storage(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn placement(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn republish(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn mirror(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn sources(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn compression(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn metadata(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub(super) fn timeout(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter = streamName)]
    pub(super) fn stream_name(this: &RawKvOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub(super) fn allow_direct(this: &RawKvOptions) -> JsValue;

}

/// nats.js's bucket options as the Rust [`Config`].
pub(super) fn config(bucket: String, o: &RawKvOptions) -> Result<Config, Error> {
    let storage = match text(o.storage(), "storage")?.as_deref() {
        None | Some("file") => StorageType::File,
        Some("memory") => StorageType::Memory,
        Some(other) => return Err(Error::InvalidArgument(format!("storage {other:?}: \"file\" or \"memory\""))),
    };
    let nested =
        [(o.mirror(), "mirror"), (o.sources(), "sources"), (o.placement(), "placement"), (o.republish(), "republish")];
    if let Some((_, name)) = nested.iter().find(|(value, _)| !value.is_undefined() && !value.is_null()) {
        let text = format!("{name}: not supported by natsjet's JS Key-Value; make the bucket with the Rust API");
        return Err(Error::InvalidArgument(text));
    }
    Ok(Config {
        bucket,
        description: text(o.description(), "description")?.unwrap_or_default(),
        max_value_size: limit(o.max_value_size(), "maxValueSize")?,
        history: whole_or(o.history(), "history", 1)?,
        max_age: millis(o.ttl(), "ttl")?.unwrap_or_default(),
        max_bytes: limit(o.max_bytes(), "max_bytes")?,
        storage,
        num_replicas: whole_or(o.replicas(), "replicas", 1)?,
        compression: flag(o.compression(), "compression")? == Some(true),
        limit_markers: millis(o.marker_ttl(), "markerTTL")?.filter(|ttl| !ttl.is_zero()),
        metadata: string_map(o.metadata(), "metadata")?,
        ..Config::default()
    })
}

fn whole_or<T: TryFrom<u64>>(value: JsValue, what: &str, default: T) -> Result<T, Error> {
    number(value, what)?.map_or(Ok(default), |n| whole(n, what))
}

/// A size limit: below zero (nats.js's -1) is none, as is 0.
fn limit<T: TryFrom<u64> + Default>(value: JsValue, what: &str) -> Result<T, Error> {
    match number(value, what)? {
        Some(n) if n >= 0.0 => whole(n, what),
        _ => Ok(T::default()),
    }
}
