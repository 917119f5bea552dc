//! nats.js's `KvOptions` as the Rust [`Config`]: TS hands the values over
//! in two lists (their order in `RawJetStream.kvStream`; durations in
//! milliseconds) and they are checked here, an `INVALID_ARGUMENT` naming
//! the option that is wrong.

use std::time::Duration;

use crate::error::Error;
use crate::jetstream::api::StorageType;
use crate::jetstream::kv::Config;
use crate::wasm::options::whole;

/// A bucket's options as nats.js names them.
pub(super) struct KvOptions;

impl KvOptions {
    /// The Rust config from `kvStream`'s lists (a number of 0 is the
    /// option's default: one value per key, no limit, no TTL, no markers,
    /// one replica).
    pub fn config(strings: Vec<String>, numbers: &[f64]) -> Result<Config, Error> {
        let mut strings = strings.into_iter();
        let (bucket, description, storage) = (next(&mut strings), next(&mut strings), next(&mut strings));
        let storage = match storage.as_str() {
            "file" => StorageType::File,
            "memory" => StorageType::Memory,
            other => return Err(Error::InvalidArgument(format!("storage {other:?}: \"file\" or \"memory\""))),
        };
        let number = |i: usize| numbers.get(i).copied().unwrap_or(0.0);
        let [history, max_bytes, max_value_size, ttl, marker_ttl, replicas, compression] = std::array::from_fn(number);
        Ok(Config {
            bucket,
            description,
            max_value_size: limit(max_value_size, "maxValueSize")?,
            history: whole(history, "history")?,
            max_age: millis(ttl, "ttl")?,
            max_bytes: limit(max_bytes, "max_bytes")?,
            storage,
            num_replicas: whole(replicas, "replicas")?,
            compression: compression != 0.0,
            limit_markers: Some(millis(marker_ttl, "markerTTL")?).filter(|ttl| !ttl.is_zero()),
            metadata: std::iter::from_fn(|| Some((strings.next()?, strings.next()?))).collect(),
            ..Config::default()
        })
    }
}

fn next(strings: &mut impl Iterator<Item = String>) -> String {
    strings.next().unwrap_or_default()
}

/// A size limit: below zero (nats.js's -1) is none, as is 0.
fn limit<T: TryFrom<u64> + Default>(value: f64, what: &str) -> Result<T, Error> {
    if value >= 0.0 { whole(value, what) } else { Ok(T::default()) }
}

fn millis(value: f64, what: &str) -> Result<Duration, Error> {
    Ok(Duration::from_millis(whole(value, what)?))
}
