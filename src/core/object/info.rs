//! What an object store keeps about its objects and itself: the meta
//! message of each object ([`ObjectInfo`], JSON as nats.go, nats.js and
//! async-nats write it), what a put or an update sets ([`ObjectMetadata`],
//! [`UpdateMetadata`]), a bucket's [`Config`] and the stream it becomes,
//! and its [`Status`].

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::names::{check_bucket, stream_name};
use crate::core::error::Error;
use crate::core::header::HeaderMap;
use crate::core::jetstream::api::{
    Compression, DiscardPolicy, Placement, StorageType, StreamConfig, StreamInfo, timestamp,
};

/// The size of the chunks of a put that sets none.
pub const DEFAULT_CHUNK_SIZE: usize = 128 * 1024;

/// An object as its meta message describes it, as async-nats's `ObjectInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectInfo {
    /// The object's name (any string; its meta subject holds it in base64url).
    pub name: String,
    /// A description of the object.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "empty_as_none")]
    pub description: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "HashMap::is_empty",
        deserialize_with = "crate::core::plain_json::string_map"
    )]
    /// Free-form key/value pairs stored with the object.
    pub metadata: HashMap<String, String>,
    /// Headers stored with the object (in its meta, not on its chunks).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "headers")]
    pub headers: Option<HeaderMap>,
    /// Its chunk size and, for a link, what it points to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<ObjectOptions>,
    /// The bucket the object is in.
    pub bucket: String,
    /// The token of its chunks' subject.
    #[serde(default)]
    pub nuid: String,
    /// The object's size in bytes.
    #[serde(default)]
    pub size: usize,
    /// The number of chunks it is stored in.
    #[serde(default)]
    pub chunks: usize,
    /// When the meta was stored: read from the message, whatever its JSON says.
    #[serde(rename = "mtime", default, skip_serializing_if = "Option::is_none", with = "mtime")]
    pub modified: Option<SystemTime>,
    /// `SHA-256=` and the digest of the object's bytes.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "empty_as_none")]
    pub digest: Option<String>,
    /// A tombstone: the object was deleted and its chunks purged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
}

impl ObjectInfo {
    /// What it links to, if it is a link.
    pub fn link(&self) -> Option<&ObjectLink> {
        self.options.as_ref().and_then(|o| o.link.as_ref())
    }
}

/// Chunk size and link of an object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectOptions {
    /// What this object points to; it then has no data of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<ObjectLink>,
    /// The chunk size the put used, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chunk_size: Option<usize>,
}

/// An object (with `name`) or a whole bucket (without) another object points to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectLink {
    /// The object pointed to; `None` points to the whole bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The bucket pointed to.
    pub bucket: String,
}

/// What a put sets, as async-nats's `ObjectMetadata` (`"name".into()` for a name alone).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectMetadata {
    /// The object's name.
    pub name: String,
    /// A description of the object.
    pub description: Option<String>,
    /// Bytes per chunk (none or 0: [`DEFAULT_CHUNK_SIZE`]; at most the server's `max_payload`).
    pub chunk_size: Option<usize>,
    /// Free-form key/value pairs stored with the object.
    pub metadata: HashMap<String, String>,
    /// Headers stored with the object.
    pub headers: Option<HeaderMap>,
}

impl From<&str> for ObjectMetadata {
    fn from(name: &str) -> Self {
        ObjectMetadata { name: name.to_string(), ..Default::default() }
    }
}

impl From<ObjectInfo> for ObjectMetadata {
    fn from(info: ObjectInfo) -> Self {
        let ObjectInfo { name, description, metadata, headers, .. } = info;
        ObjectMetadata { name, description, metadata, headers, chunk_size: None }
    }
}

/// What an update of an object's meta sets; another `name` renames it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateMetadata {
    /// The object's name after the update (the same name: no rename).
    pub name: String,
    /// The new description (`None` removes it).
    pub description: Option<String>,
    /// The new key/value pairs (they replace the old ones).
    pub metadata: HashMap<String, String>,
    /// The new headers (`None` removes them).
    pub headers: Option<HeaderMap>,
}

/// A bucket's settings, as async-nats's `object_store::Config`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The bucket's name (`[A-Za-z0-9_-]+`); its stream is `OBJ_<bucket>`.
    pub bucket: String,
    /// A description of the bucket (the stream's).
    pub description: Option<String>,
    /// How long an object lives (zero: forever).
    pub max_age: Duration,
    /// Size of the whole bucket (0: unlimited).
    pub max_bytes: i64,
    /// Where the bucket's stream keeps the data (default file).
    pub storage: StorageType,
    /// Replicas of the bucket's stream (0 or 1: one).
    pub num_replicas: usize,
    /// S2 compression of the stored chunks.
    pub compression: bool,
    /// Which servers of a cluster hold the replicas.
    pub placement: Option<Placement>,
    /// Free-form key/value pairs of the bucket (the stream's metadata).
    pub metadata: HashMap<String, String>,
    /// natsjet: let puts go as fast batches (ADR-50; the stream's
    /// `allow_batched`, nats-server 2.14). Other clients read and write
    /// such a bucket as any other, but a create of the same bucket with
    /// their default config then finds a different one.
    pub allow_batched: bool,
}

impl Config {
    /// The config of the bucket's stream (ADR-20).
    pub(crate) fn to_stream_config(&self) -> Result<StreamConfig, Error> {
        check_bucket(&self.bucket)?;
        let bucket = &self.bucket;
        Ok(StreamConfig {
            name: stream_name(bucket),
            description: self.description.clone().filter(|d| !d.is_empty()),
            subjects: vec![format!("$O.{bucket}.C.>"), format!("$O.{bucket}.M.>")],
            max_age: self.max_age,
            max_bytes: if self.max_bytes == 0 { -1 } else { self.max_bytes },
            storage: self.storage,
            num_replicas: self.num_replicas.max(1),
            discard: DiscardPolicy::New,
            allow_rollup: true,
            allow_direct: true,
            compression: self.compression.then_some(Compression::S2),
            placement: self.placement.clone(),
            metadata: self.metadata.clone(),
            allow_batch_publish: self.allow_batched,
            ..StreamConfig::default()
        })
    }
}

/// A bucket's state and settings, as nats.go's `ObjectStoreStatus`.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// The info of the bucket's stream.
    pub info: StreamInfo,
    /// The bucket's name.
    pub bucket: String,
}

impl Status {
    /// The status of an object store's stream, `None` for another stream.
    pub fn from_info(info: StreamInfo) -> Option<Status> {
        let bucket = super::names::bucket_of_stream(&info.config.name)?.to_string();
        Some(Status { info, bucket })
    }

    /// The bucket's name.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// The bucket's description.
    pub fn description(&self) -> Option<&str> {
        self.info.config.description.as_deref()
    }

    /// How long an object lives (zero: forever).
    pub fn ttl(&self) -> Duration {
        self.info.config.max_age
    }

    /// Where the bucket keeps its data.
    pub fn storage(&self) -> StorageType {
        self.info.config.storage
    }

    /// Replicas of the bucket's stream.
    pub fn replicas(&self) -> usize {
        self.info.config.num_replicas
    }

    /// A sealed bucket takes no more writes.
    pub fn sealed(&self) -> bool {
        self.info.config.sealed
    }

    /// Bytes stored, chunks and metas.
    pub fn size(&self) -> u64 {
        self.info.state.bytes
    }

    /// The bucket's key/value pairs (its stream's metadata).
    pub fn metadata(&self) -> &HashMap<String, String> {
        &self.info.config.metadata
    }
}

/// `null` or `""` as none: nats.js writes an empty description and digest.
fn empty_as_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.filter(|s| !s.is_empty()))
}

/// Headers as Go writes them: each name with the list of its values.
mod headers {
    use super::*;

    pub fn serialize<S: Serializer>(headers: &Option<HeaderMap>, s: S) -> Result<S::Ok, S::Error> {
        let Some(headers) = headers else { return s.serialize_none() };
        let mut names: Vec<&str> = headers.iter().map(|(name, _)| name).collect();
        names.dedup();
        let mut map = s.serialize_map(Some(names.len()))?;
        for name in names {
            map.serialize_entry(name, &headers.get_all(name).map(|v| v.as_str()).collect::<Vec<_>>())?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<HeaderMap>, D::Error> {
        d.deserialize_option(Headers)
    }

    struct Headers;

    impl<'de> Visitor<'de> for Headers {
        type Value = Option<HeaderMap>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a map of header names to lists of values")
        }

        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut headers = HeaderMap::new();
            while let Some((crate::core::plain_json::Key(name), values)) = map.next_entry::<_, Vec<String>>()? {
                for value in values {
                    headers.append(name.clone(), value);
                }
            }
            Ok(Some(headers))
        }
    }
}

/// `mtime` as an RFC 3339 string; Go's zero time reads as none.
mod mtime {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Option<SystemTime>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&timestamp::format_rfc3339(*t)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SystemTime>, D::Error> {
        Ok(Option::<String>::deserialize(d)?.and_then(|s| timestamp::parse_rfc3339(&s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A meta as nats.js 3.4 writes it (description "", no mtime for a link).
    const NATS_JS: &str = r#"{"name":"a.txt","description":"","options":{"max_chunk_size":131072},
        "metadata":{"k":"v"},"headers":{"X-A":["1","2"]},"bucket":"b","nuid":"N","size":5,"chunks":1,
        "mtime":"2026-01-02T03:04:05.6Z","digest":"SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=","deleted":false}"#;

    #[test]
    fn metas_of_other_clients_read_alike() {
        let info: ObjectInfo = serde_json::from_str(NATS_JS).unwrap();
        assert_eq!(info.description, None);
        assert_eq!(info.headers.as_ref().unwrap().get_all("X-A").collect::<Vec<_>>(), ["1", "2"]);
        assert_eq!((info.size, info.chunks, info.nuid.as_str()), (5, 1, "N"));
        assert!(info.modified.is_some());
        assert_eq!(info.options.as_ref().unwrap().max_chunk_size, Some(131072));
        crate::core::plain_json::assert_same::<ObjectInfo>(NATS_JS.as_bytes());

        let link: ObjectInfo =
            serde_json::from_str(r#"{"name":"l","bucket":"b","options":{"link":{"bucket":"c","name":"o"}}}"#).unwrap();
        assert_eq!(link.link(), Some(&ObjectLink { name: Some("o".into()), bucket: "c".into() }));
        let zero: ObjectInfo =
            serde_json::from_str(r#"{"name":"z","bucket":"b","mtime":"0001-01-01T00:00:00Z","headers":null}"#).unwrap();
        assert_eq!((zero.modified, zero.headers), (None, None));
    }

    #[test]
    fn metas_are_written_without_empty_fields() {
        let info = ObjectInfo {
            name: "a".into(),
            description: None,
            metadata: HashMap::new(),
            headers: Some([("X-A", "1"), ("X-A", "2")].into_iter().collect()),
            options: Some(ObjectOptions { link: None, max_chunk_size: Some(8) }),
            bucket: "b".into(),
            nuid: "N".into(),
            size: 0,
            chunks: 0,
            modified: None,
            digest: None,
            deleted: false,
        };
        assert_eq!(
            serde_json::to_string(&info).unwrap(),
            r#"{"name":"a","headers":{"X-A":["1","2"]},"options":{"max_chunk_size":8},"bucket":"b","nuid":"N","size":0,"chunks":0}"#
        );
    }

    #[test]
    fn bucket_stream() {
        let config = Config { bucket: "b".into(), max_age: Duration::from_secs(60), ..Config::default() };
        let stream = serde_json::to_value(config.to_stream_config().unwrap()).unwrap();
        assert_eq!(
            stream,
            serde_json::json!({
                "name": "OBJ_b",
                "subjects": ["$O.b.C.>", "$O.b.M.>"],
                "max_bytes": -1,
                "max_age": 60_000_000_000u64,
                "discard": "new",
                "num_replicas": 1,
                "allow_rollup_hdrs": true,
                "allow_direct": true,
            })
        );
        assert!(Config { bucket: "a.b".into(), ..Config::default() }.to_stream_config().is_err());
    }
}
