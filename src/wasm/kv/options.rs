//! nats.js's `KvOptions` as the Rust [`Config`]: TS hands the values over
//! in two lists (their order in `RawJetStream.kvStream`; durations in
//! milliseconds), the nested ones in two more ([`nested`](super::nested)),
//! and they are checked here, an `INVALID_ARGUMENT` naming the option that
//! is wrong.

use std::time::Duration;

use super::nested::Nested;
use crate::core::error::Error;
use crate::jetstream::kv::Config;
use crate::wasm::options::{pairs, storage, whole};

/// The Rust config from `kvStream`'s lists (a number of 0 is the option's
/// default: one value per key, no limit, no TTL, no markers, one replica)
/// and the nested options.
pub(super) fn config(strings: &[String], numbers: &[f64], nested: Nested) -> Result<Config, Error> {
    let string = |i: usize| strings.get(i).map_or("", String::as_str);
    let storage = storage(string(2))?;
    let number = |i: usize| numbers.get(i).copied().unwrap_or(0.0);
    let [history, max_bytes, max_value_size, ttl, marker_ttl, replicas, compression] = std::array::from_fn(number);
    Ok(Config {
        max_value_size: limit(max_value_size, "maxValueSize")?,
        history: whole(history, "history")?,
        max_age: millis(ttl, "ttl")?,
        max_bytes: limit(max_bytes, "max_bytes")?,
        storage,
        num_replicas: whole(replicas, "replicas")?,
        compression: compression != 0.0,
        limit_markers: Some(millis(marker_ttl, "markerTTL")?).filter(|ttl| !ttl.is_zero()),
        bucket: string(0).to_string(),
        description: string(1).to_string(),
        metadata: pairs(strings.get(3..).unwrap_or_default()),
        // Named, not `..Config::default()`, which would make and drop a whole config.
        republish: nested.republish,
        mirror: nested.mirror,
        sources: nested.sources,
        mirror_direct: false,
        placement: nested.placement,
    })
}

/// A size limit: below zero (nats.js's -1) is none, as is 0.
fn limit<T: TryFrom<u64> + Default>(value: f64, what: &str) -> Result<T, Error> {
    if value >= 0.0 { whole(value, what) } else { Ok(T::default()) }
}

fn millis(value: f64, what: &str) -> Result<Duration, Error> {
    Ok(Duration::from_millis(whole(value, what)?))
}
