//! A bucket's [`Config`] and the stream that stores it (ADR-8): history is
//! `max_msgs_per_subject`, the TTL `max_age`, and every bucket has rollups
//! (for purges), direct gets, no deletes of single messages and discard
//! new. [`Status`] reads the stream's info back.

use std::collections::HashMap;
use std::time::Duration;

use super::error::CreateKeyValueErrorKind;
use super::names::{STREAM_PREFIX, bucket_of_stream, check_bucket, stream_name};
use crate::core::error::Error;
use crate::core::jetstream::api::{
    Compression, DiscardPolicy, Placement, Republish, Source, StorageType, StreamConfig, StreamInfo, SubjectTransform,
};

/// The most values a bucket keeps per key.
pub const MAX_HISTORY: i64 = 64;
/// The longest window of publish de-duplication a bucket gets.
const MAX_DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

/// A bucket's settings, as async-nats's `kv::Config`. Zero means the
/// default: one value per key, no TTL, no size limits, one replica.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The bucket's name (`[A-Za-z0-9_-]+`); its stream is `KV_<bucket>`.
    pub bucket: String,
    /// A description of the bucket (the stream's).
    pub description: String,
    /// Largest value accepted, in bytes (0: the server's limit).
    pub max_value_size: i32,
    /// Values kept per key, 1 to 64.
    pub history: i64,
    /// How long a value lives (zero: forever).
    pub max_age: Duration,
    /// Size of the whole bucket (0: unlimited).
    pub max_bytes: i64,
    /// Where the bucket's stream keeps the data (default file).
    pub storage: StorageType,
    /// Replicas of the bucket's stream (0 or 1: one).
    pub num_replicas: usize,
    /// Republishes every change to another subject.
    pub republish: Option<Republish>,
    /// A read-only copy of another bucket (its name, with or without `KV_`).
    pub mirror: Option<Source>,
    /// Buckets whose keys flow into this one.
    pub sources: Option<Vec<Source>>,
    /// Let the mirror answer direct gets for its origin (always on for mirrors).
    pub mirror_direct: bool,
    /// S2 compression of the stored values.
    pub compression: bool,
    /// Which servers of a cluster hold the replicas.
    pub placement: Option<Placement>,
    /// Keep a marker for this long when a limit or a TTL removes a key, so
    /// watchers see it go (server 2.11, API level 1); also allows per-key TTLs.
    pub limit_markers: Option<Duration>,
    /// Free-form key/value pairs of the bucket (the stream's metadata).
    pub metadata: HashMap<String, String>,
}

impl Config {
    /// The config of the bucket's stream. Limit markers also need API
    /// level 1, which the caller checks.
    pub(crate) fn into_stream_config(mut self) -> Result<StreamConfig, (CreateKeyValueErrorKind, Error)> {
        let (mut mirror, mut sources) = (self.mirror.take(), self.sources.take());
        let mut stream = self.into_local_stream_config()?;
        if let Some(mirror) = &mut mirror {
            mirror.name = with_stream_prefix(&mirror.name);
            stream.subjects.clear();
            stream.mirror_direct = true;
            // A mirror takes no publishes: the server gives it no window, nor do other clients.
            stream.duplicate_window = Duration::ZERO;
        } else {
            let bucket = &stream.name[STREAM_PREFIX.len()..];
            for source in sources.iter_mut().flatten() {
                let origin = source.name.strip_prefix(STREAM_PREFIX).unwrap_or(&source.name).to_string();
                source.name = stream_name(&origin);
                // A source's keys land under this bucket's name (nats.go).
                if source.external.is_none() && origin != bucket && source.subject_transforms.is_empty() {
                    let src = format!("$KV.{origin}.>");
                    source.subject_transforms =
                        vec![SubjectTransform { source: src, destination: format!("$KV.{bucket}.>") }];
                }
            }
        }
        stream.mirror = mirror;
        stream.sources = sources.filter(|sources| !sources.is_empty());
        Ok(stream)
    }

    /// [`into_stream_config`](Self::into_stream_config) but for `mirror`
    /// and `sources`, which are not read.
    fn into_local_stream_config(self) -> Result<StreamConfig, (CreateKeyValueErrorKind, Error)> {
        check_bucket(&self.bucket).map_err(|e| (CreateKeyValueErrorKind::InvalidStoreName, e))?;
        if self.history > MAX_HISTORY {
            let text = format!("history {} is over the limit of {MAX_HISTORY}", self.history);
            return Err((CreateKeyValueErrorKind::TooLongHistory, Error::InvalidArgument(text)));
        }
        let duplicate_window = match self.max_age {
            age if !age.is_zero() && age < MAX_DUPLICATE_WINDOW => age,
            _ => MAX_DUPLICATE_WINDOW,
        };
        Ok(StreamConfig {
            name: stream_name(&self.bucket),
            description: Some(self.description).filter(|d| !d.is_empty()),
            subjects: vec![format!("$KV.{}.>", self.bucket)],
            max_messages_per_subject: self.history.max(1),
            max_bytes: if self.max_bytes == 0 { -1 } else { self.max_bytes },
            max_age: self.max_age,
            max_message_size: if self.max_value_size == 0 { -1 } else { self.max_value_size },
            max_messages: -1,
            max_consumers: -1,
            storage: self.storage,
            num_replicas: self.num_replicas.max(1),
            republish: self.republish,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            mirror_direct: self.mirror_direct,
            discard: DiscardPolicy::New,
            duplicate_window,
            compression: self.compression.then_some(Compression::S2),
            placement: self.placement,
            allow_message_ttl: self.limit_markers.is_some(),
            subject_delete_marker_ttl: self.limit_markers.filter(|ttl| !ttl.is_zero()),
            metadata: self.metadata,
            ..StreamConfig::default()
        })
    }
}

fn with_stream_prefix(name: &str) -> String {
    match name.starts_with(STREAM_PREFIX) {
        true => name.to_string(),
        false => stream_name(name),
    }
}

/// A bucket's state and settings, as async-nats's `kv::bucket::Status`.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// The info of the bucket's stream.
    pub info: StreamInfo,
    /// The bucket's name.
    pub bucket: String,
}

impl Status {
    /// The status of a bucket's stream, `None` for another stream.
    pub fn from_info(info: StreamInfo) -> Option<Status> {
        let bucket = bucket_of_stream(&info.config.name)?.to_string();
        Some(Status { info, bucket })
    }

    /// The bucket's name.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// Messages stored: values, deletes and purges of every kept revision.
    pub fn values(&self) -> u64 {
        self.info.state.messages
    }

    /// Values kept per key.
    pub fn history(&self) -> i64 {
        self.info.config.max_messages_per_subject
    }

    /// How long a value lives (zero: forever).
    pub fn max_age(&self) -> Duration {
        self.info.config.max_age
    }

    /// Bytes stored.
    pub fn size(&self) -> u64 {
        self.info.state.bytes
    }

    /// How long limit markers live, if the bucket has them.
    pub fn limit_markers(&self) -> Option<Duration> {
        self.info.config.subject_delete_marker_ttl.filter(|ttl| !ttl.is_zero())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn json(config: &Config) -> serde_json::Value {
        serde_json::to_value(config.clone().into_stream_config().unwrap()).unwrap()
    }

    #[test]
    fn default_bucket_stream() {
        let config = Config { bucket: "b".into(), ..Config::default() };
        assert_eq!(
            json(&config),
            serde_json::json!({
                "name": "KV_b",
                "subjects": ["$KV.b.>"],
                "max_consumers": -1,
                "max_msgs": -1,
                "max_bytes": -1,
                "max_msgs_per_subject": 1,
                "max_msg_size": -1,
                "discard": "new",
                "num_replicas": 1,
                "duplicate_window": 120_000_000_000u64,
                "deny_delete": true,
                "allow_rollup_hdrs": true,
                "allow_direct": true,
            })
        );
    }

    #[test]
    fn limits_and_options() {
        let config = Config {
            bucket: "b".into(),
            description: "d".into(),
            history: 5,
            max_age: Duration::from_secs(30),
            max_bytes: 1024,
            max_value_size: 128,
            num_replicas: 3,
            storage: StorageType::Memory,
            compression: true,
            limit_markers: Some(Duration::from_secs(5)),
            metadata: [("k".to_string(), "v".to_string())].into(),
            ..Config::default()
        };
        let stream = config.into_stream_config().unwrap();
        assert_eq!(stream.description.as_deref(), Some("d"));
        assert_eq!((stream.max_messages_per_subject, stream.max_bytes, stream.max_message_size), (5, 1024, 128));
        assert_eq!((stream.num_replicas, stream.storage), (3, StorageType::Memory));
        assert_eq!(stream.duplicate_window, Duration::from_secs(30), "at most the TTL");
        assert_eq!(stream.compression, Some(Compression::S2));
        assert!(stream.allow_message_ttl);
        assert_eq!(stream.subject_delete_marker_ttl, Some(Duration::from_secs(5)));
        assert_eq!(stream.metadata.get("k").map(String::as_str), Some("v"));
    }

    #[test]
    fn mirrors_and_sources() {
        let mirror = Source { name: "origin".into(), ..Source::default() };
        let config = Config { bucket: "m".into(), mirror: Some(mirror), ..Config::default() };
        let stream = config.into_stream_config().unwrap();
        assert_eq!(stream.mirror.unwrap().name, "KV_origin");
        assert!(stream.mirror_direct && stream.subjects.is_empty());
        assert!(stream.duplicate_window.is_zero(), "no de-duplication of publishes a mirror never takes");

        let sources =
            vec![Source { name: "KV_a".into(), ..Source::default() }, Source { name: "s".into(), ..Source::default() }];
        let config = Config { bucket: "s".into(), sources: Some(sources), ..Config::default() };
        let stream = config.into_stream_config().unwrap();
        assert_eq!(stream.subjects, ["$KV.s.>"]);
        assert_eq!(stream.sources.as_ref().unwrap()[0].name, "KV_a");
        assert_eq!(
            stream.sources.as_ref().unwrap()[0].subject_transforms,
            [SubjectTransform { source: "$KV.a.>".into(), destination: "$KV.s.>".into() }]
        );
        assert_eq!(stream.sources.as_ref().unwrap()[1].name, "KV_s");
        assert!(
            stream.sources.as_ref().unwrap()[1].subject_transforms.is_empty(),
            "a source of the same name keeps its subjects"
        );
    }

    #[test]
    fn refusals() {
        let long = Config { bucket: "b".into(), history: 65, ..Config::default() };
        assert_eq!(long.into_stream_config().unwrap_err().0, CreateKeyValueErrorKind::TooLongHistory);
        let bad = Config { bucket: "a.b".into(), ..Config::default() };
        assert_eq!(bad.into_stream_config().unwrap_err().0, CreateKeyValueErrorKind::InvalidStoreName);
    }
}
