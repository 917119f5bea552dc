//! nats.js's `KvOptions` as the Rust [`Config`]: TS hands the values over
//! one by one (their nats.js names, durations in milliseconds) and they are
//! checked here, an `INVALID_ARGUMENT` naming the option that is wrong.

use crate::error::Error;
use crate::jetstream::api::StorageType;
use crate::jetstream::kv::Config;
use crate::wasm::options::whole;

/// A bucket's options as nats.js names them.
pub(super) struct KvOptions {
    pub description: Option<String>,
    pub history: Option<f64>,
    pub max_bytes: Option<f64>,
    pub max_value_size: Option<f64>,
    pub ttl: Option<f64>,
    pub marker_ttl: Option<f64>,
    pub storage: Option<String>,
    pub replicas: Option<f64>,
    pub compression: bool,
    /// Names and values in turn.
    pub metadata: Vec<String>,
}

impl KvOptions {
    /// The Rust config of bucket `bucket`.
    pub fn config(self, bucket: String) -> Result<Config, Error> {
        let storage = match self.storage.as_deref() {
            None | Some("file") => StorageType::File,
            Some("memory") => StorageType::Memory,
            Some(other) => return Err(Error::InvalidArgument(format!("storage {other:?}: \"file\" or \"memory\""))),
        };
        let mut metadata = self.metadata.into_iter();
        Ok(Config {
            bucket,
            description: self.description.unwrap_or_default(),
            max_value_size: limit(self.max_value_size, "maxValueSize")?,
            history: whole_or(self.history, "history", 1)?,
            max_age: millis(self.ttl, "ttl")?,
            max_bytes: limit(self.max_bytes, "max_bytes")?,
            storage,
            num_replicas: whole_or(self.replicas, "replicas", 1)?,
            compression: self.compression,
            limit_markers: Some(millis(self.marker_ttl, "markerTTL")?).filter(|ttl| !ttl.is_zero()),
            metadata: std::iter::from_fn(|| Some((metadata.next()?, metadata.next()?))).collect(),
            ..Config::default()
        })
    }
}

fn whole_or<T: TryFrom<u64>>(value: Option<f64>, what: &str, default: T) -> Result<T, Error> {
    value.map_or(Ok(default), |n| whole(n, what))
}

/// A size limit: below zero (nats.js's -1) is none, as is 0.
fn limit<T: TryFrom<u64> + Default>(value: Option<f64>, what: &str) -> Result<T, Error> {
    match value {
        Some(n) if n >= 0.0 => whole(n, what),
        _ => Ok(T::default()),
    }
}

fn millis(value: Option<f64>, what: &str) -> Result<std::time::Duration, Error> {
    Ok(std::time::Duration::from_millis(value.map_or(Ok(0), |n| whole(n, what))?))
}
