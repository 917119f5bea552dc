//! Buckets on [`Context`]: create, update, open, delete and list them, as
//! async-nats names the calls (the listings as nats.go has them).

use futures_core::Stream;
use futures_util::StreamExt;

use super::config::{Config, Status};
use super::error::*;
use super::names::{bucket_of_stream, check_bucket, stream_name};
use super::store::Store;
use crate::core::error::SortCause;
use crate::core::error::{Error, KindError};
use crate::jetstream::api::{self, DeleteResponse, ErrorCode, StreamInfo};
use crate::jetstream::context::{Context, encode_request};
use crate::jetstream::paging::typed;

/// The API level that brought per-message TTLs and limit markers (nats-server 2.11).
const LIMIT_MARKERS_API_LEVEL: u32 = 1;

impl Context {
    /// Creates bucket `config.bucket`. One that exists with the same config
    /// is returned; with another config it fails with `BucketCreate`
    /// ([`ErrorCode::STREAM_NAME_EXIST`]).
    pub async fn create_key_value(&self, config: Config) -> Result<Store, CreateKeyValueError> {
        let bucket = config.bucket.clone();
        let body = self.bucket_stream(config)?;
        let subject = api::stream_create(self.api_prefix(), &stream_name(&bucket));
        self.bucket_call(&bucket, subject, &body).await.map_err(CreateKeyValueErrorKind::error)
    }

    /// The bucket `config.bucket` as it is, or created from `config` if
    /// there is none (nats.js's `kvm.create`): safe for many clients at once.
    pub async fn get_or_create_key_value(&self, config: Config) -> Result<Store, CreateKeyValueError> {
        let bucket = config.bucket.clone();
        let body = self.bucket_stream(config)?;
        let info = self.get_or_create_stream_json(&stream_name(&bucket), &body).await;
        info.and_then(|info| Store::bind(self.clone(), &bucket, &info)).map_err(CreateKeyValueErrorKind::error)
    }

    /// Changes bucket `config.bucket`; `NotFound` if there is none.
    pub async fn update_key_value(&self, config: Config) -> Result<Store, UpdateKeyValueError> {
        let retyped = |e: CreateKeyValueError| {
            let kind = match e.kind() {
                CreateKeyValueErrorKind::TooLongHistory => UpdateKeyValueErrorKind::TooLongHistory,
                CreateKeyValueErrorKind::LimitMarkersNotSupported => UpdateKeyValueErrorKind::LimitMarkersNotSupported,
                CreateKeyValueErrorKind::InvalidStoreName => UpdateKeyValueErrorKind::InvalidStoreName,
                _ => UpdateKeyValueErrorKind::sort(e.cause()),
            };
            KindError::new(kind, e.into_cause())
        };
        let bucket = config.bucket.clone();
        let body = self.bucket_stream(config).map_err(retyped)?;
        let subject = api::stream_update(self.api_prefix(), &stream_name(&bucket));
        self.bucket_call(&bucket, subject, &body).await.map_err(UpdateKeyValueErrorKind::error)
    }

    /// Updates bucket `config.bucket`, or creates it if there is none.
    pub async fn create_or_update_key_value(&self, config: Config) -> Result<Store, CreateKeyValueError> {
        let bucket = &config.bucket.clone();
        let stream = stream_name(bucket);
        let body = self.bucket_stream(config)?;
        let updated = self.bucket_call(bucket, api::stream_update(self.api_prefix(), &stream), &body).await;
        let store = match updated {
            Err(Error::JetStream(e)) if e.err_code == ErrorCode::STREAM_NOT_FOUND => {
                self.bucket_call(bucket, api::stream_create(self.api_prefix(), &stream), &body).await
            }
            updated => updated,
        };
        store.map_err(CreateKeyValueErrorKind::error)
    }

    /// Sends a bucket's stream config to `subject`; the bucket it answers with.
    async fn bucket_call(&self, bucket: &str, subject: Result<String, Error>, body: &[u8]) -> Result<Store, Error> {
        let info = self.request_json(&subject?, body).await?;
        Store::bind(self.clone(), bucket, &info)
    }

    /// The JSON of bucket `config`'s stream; limit markers need API level 1,
    /// as the server says in its INFO.
    pub(crate) fn bucket_stream(&self, config: Config) -> Result<Vec<u8>, CreateKeyValueError> {
        check_api_level(&config, self.client().api_level())?;
        let stream = config.into_stream_config().map_err(|(kind, cause)| KindError::new(kind, cause))?;
        encode_request(&stream).map_err(CreateKeyValueErrorKind::error)
    }

    /// An existing bucket; `GetBucket` if there is none.
    pub async fn get_key_value<T: Into<String>>(&self, bucket: T) -> Result<Store, KeyValueError> {
        let bucket = bucket.into();
        let bound = async {
            check_bucket(&bucket)?;
            let info = self.request_json(&api::stream_info(self.api_prefix(), &stream_name(&bucket))?, b"").await?;
            Store::bind(self.clone(), &bucket, &info)
        };
        bound.await.map_err(KeyValueErrorKind::error)
    }

    /// Deletes a bucket and everything in it; `JetStream` if it cannot (none there).
    pub async fn delete_key_value<T: AsRef<str>>(&self, bucket: T) -> Result<DeleteResponse, KeyValueError> {
        let deleted = async {
            let bucket = bucket.as_ref();
            check_bucket(bucket)?;
            let reply = self.request_json(&api::stream_delete(self.api_prefix(), &stream_name(bucket))?, b"").await?;
            api::parse_checked_plain(&reply)
        };
        deleted.await.map_err(|cause| {
            // As async-nats: a failed delete, of a missing bucket too, is a JetStream error.
            let kind = match KeyValueErrorKind::sort(&cause) {
                KeyValueErrorKind::InvalidStoreName => KeyValueErrorKind::InvalidStoreName,
                _ => KeyValueErrorKind::JetStream,
            };
            KindError::new(kind, cause)
        })
    }

    /// Names of all buckets, a page at a time.
    pub fn key_value_store_names(&self) -> impl Stream<Item = Result<String, Error>> + Unpin + use<> {
        self.stream_names_filtered(None).filter_map(|name| {
            let bucket = name.map(|name| bucket_of_stream(&name).map(str::to_string)).transpose();
            std::future::ready(bucket)
        })
    }

    /// The status of every bucket, a page at a time.
    pub fn key_value_stores(&self) -> impl Stream<Item = Result<Status, Error>> + Unpin + use<> {
        let infos = typed::<StreamInfo>(self.list_pages(api::stream_list(self.api_prefix()), None));
        infos.filter_map(|info| std::future::ready(info.map(Status::from_info).transpose()))
    }
}

/// Refuses limit markers on a server below API level 1.
fn check_api_level(config: &Config, level: u32) -> Result<(), CreateKeyValueError> {
    if config.limit_markers.is_none() || level >= LIMIT_MARKERS_API_LEVEL {
        return Ok(());
    }
    let text = format!("limit markers need JetStream API level 1 (nats-server 2.11); the server has {level}");
    Err(KindError::new(CreateKeyValueErrorKind::LimitMarkersNotSupported, Error::InvalidArgument(text)))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn limit_markers_need_api_level_one() {
        let markers = Config { bucket: "b".into(), limit_markers: Some(Duration::from_secs(1)), ..Config::default() };
        let refused = check_api_level(&markers, 0).unwrap_err();
        assert_eq!(refused.kind(), CreateKeyValueErrorKind::LimitMarkersNotSupported);
        assert!(refused.to_string().contains("API level 1"), "{refused}");
        check_api_level(&markers, 1).unwrap();
        check_api_level(&Config { bucket: "b".into(), ..Config::default() }, 0).unwrap();
    }
}
