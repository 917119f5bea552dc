//! Object store buckets on [`Context`]: create, open, delete and list them,
//! as async-nats names the calls (the listings as nats.go has them).

use futures_core::Stream;
use futures_util::StreamExt;

use super::error::*;
use super::info::{Config, Status};
use super::names::{bucket_of_stream, check_bucket, stream_name};
use super::store::ObjectStore;
use crate::core::error::SortCause;
use crate::core::error::{Error, KindError};
use crate::jetstream::api::{self, DeleteResponse, ErrorCode, StreamInfo};
use crate::jetstream::context::{Context, encode_request};
use crate::jetstream::paging::typed;
use crate::jetstream::publish::FAST_INGEST_API_LEVEL;

impl Context {
    /// Creates bucket `config.bucket`. One that exists with the same config
    /// is returned; with another config it fails (`BucketCreate`,
    /// [`ErrorCode::STREAM_NAME_EXIST`]).
    pub async fn create_object_store(&self, config: Config) -> Result<ObjectStore, CreateObjectStoreError> {
        let created = async {
            let body = self.object_bucket_stream(&config)?;
            let subject = api::stream_create(self.api_prefix(), &stream_name(&config.bucket))?;
            let info = self.request_json(&subject, &body).await?;
            ObjectStore::bind(self.clone(), &config.bucket, &info)
        };
        created.await.map_err(create_error)
    }

    /// The bucket `config.bucket` as it is, or created from `config` if
    /// there is none (nats.js's `objm.create`): safe for many clients at once.
    pub async fn get_or_create_object_store(&self, config: Config) -> Result<ObjectStore, CreateObjectStoreError> {
        let opened = async {
            let body = self.object_bucket_stream(&config)?;
            let info = self.get_or_create_stream_json(&stream_name(&config.bucket), &body).await?;
            ObjectStore::bind(self.clone(), &config.bucket, &info)
        };
        opened.await.map_err(create_error)
    }

    /// The JSON of bucket `config`'s stream; fast batches need API level 4.
    pub(crate) fn object_bucket_stream(&self, config: &Config) -> Result<Vec<u8>, Error> {
        let level = self.client().api_level();
        if config.allow_batched && level < FAST_INGEST_API_LEVEL {
            let text = format!("fast batches need JetStream API level 4 (nats-server 2.14); the server has {level}");
            return Err(Error::InvalidArgument(text));
        }
        encode_request(&config.to_stream_config()?)
    }

    /// An existing bucket; `GetStore` if there is none.
    pub async fn get_object_store<T: AsRef<str>>(&self, bucket: T) -> Result<ObjectStore, ObjectStoreError> {
        let bucket = bucket.as_ref();
        let opened = async {
            check_bucket(bucket)?;
            let info = self.request_json(&api::stream_info(self.api_prefix(), &stream_name(bucket))?, b"").await?;
            ObjectStore::bind(self.clone(), bucket, &info)
        };
        opened.await.map_err(ObjectStoreErrorKind::error)
    }

    /// Deletes a bucket and every object in it.
    pub async fn delete_object_store<T: AsRef<str>>(&self, bucket: T) -> Result<(), DeleteObjectStore> {
        let deleted = async {
            let bucket = bucket.as_ref();
            check_bucket(bucket)?;
            let reply = self.request_json(&api::stream_delete(self.api_prefix(), &stream_name(bucket))?, b"").await?;
            api::parse_checked_plain::<DeleteResponse>(&reply).map(drop)
        };
        deleted.await.map_err(ObjectStoreErrorKind::error)
    }

    /// Names of all object store buckets, a page at a time.
    pub fn object_store_names(&self) -> impl Stream<Item = Result<String, Error>> + Unpin + use<> {
        self.stream_names_filtered(None).filter_map(|name| {
            let bucket = name.map(|name| bucket_of_stream(&name).map(str::to_string)).transpose();
            std::future::ready(bucket)
        })
    }

    /// The status of every object store bucket, a page at a time.
    pub fn object_stores(&self) -> impl Stream<Item = Result<Status, Error>> + Unpin + use<> {
        let infos = typed::<StreamInfo>(self.list_pages(api::stream_list(self.api_prefix()), None));
        infos.filter_map(|info| std::future::ready(info.map(Status::from_info).transpose()))
    }
}

/// A create's cause sorted as async-nats sorts it (the KV kinds).
fn create_error(cause: Error) -> CreateObjectStoreError {
    let kind = match &cause {
        Error::InvalidArgument(_) | Error::InvalidSubject { .. } => CreateObjectStoreErrorKind::InvalidStoreName,
        Error::Timeout => CreateObjectStoreErrorKind::TimedOut,
        Error::JetStream(e) if e.err_code != ErrorCode::JETSTREAM_NOT_ENABLED_FOR_ACCOUNT => {
            CreateObjectStoreErrorKind::BucketCreate
        }
        _ => CreateObjectStoreErrorKind::JetStream,
    };
    KindError::new(kind, cause)
}
