//! The JetStream context: a client plus the API prefix (or domain) and the
//! timeout of API calls. Every management call goes through
//! [`Context::request_json`]: JSON out, the reply's JSON or a typed API error
//! back; the typed calls parse that reply, the JS API hands it over as text.
//! The error kinds of the context's calls are here, as in async-nats.

mod builder;
mod error;

pub use super::kv::{
    CreateKeyValueError, CreateKeyValueErrorKind, KeyValueError, KeyValueErrorKind, UpdateKeyValueError,
    UpdateKeyValueErrorKind,
};
pub use super::object_store::{
    CreateObjectStoreError, CreateObjectStoreErrorKind, DeleteObjectStore, DeleteObjectStoreKind, ObjectStoreError,
    ObjectStoreErrorKind,
};
pub use super::publish::{Publish, PublishAckFuture};
pub use builder::ContextBuilder;
pub use error::*;

use std::time::Duration;

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::api::{self, AccountInfo};
use super::publish::PublishSettings;
use crate::client::Client;
use crate::core::error::{Error, SortCause};

/// Entry point to JetStream, shaped like async-nats's `jetstream::Context`.
#[derive(Debug, Clone)]
pub struct Context {
    client: Client,
    prefix: String,
    timeout: Duration,
    pub(super) publish: PublishSettings,
}

/// A context on the default API prefix (`$JS.API`).
pub fn new(client: Client) -> Context {
    Context::new(client)
}

/// A context for a JetStream domain (`$JS.<domain>.API`).
pub fn with_domain(client: Client, domain: &str) -> Context {
    Context::new(client).with_api_prefix(api::api_prefix(None, Some(domain)))
}

/// A context on a custom API prefix (an imported JetStream account).
pub fn with_prefix(client: Client, prefix: &str) -> Context {
    Context::new(client).with_api_prefix(api::api_prefix(Some(prefix), None))
}

impl Context {
    /// A JetStream context over `client` with the defaults (as [`new`]).
    pub fn new(client: Client) -> Self {
        Context {
            client,
            prefix: api::api_prefix(None, None),
            timeout: Duration::from_secs(5),
            publish: PublishSettings::default(),
        }
    }

    fn with_api_prefix(mut self, prefix: String) -> Self {
        self.prefix = prefix;
        self
    }

    /// Timeout of API calls and of publish acknowledgements (default 5 s).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// How long a JetStream API call waits for its answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The client it runs on.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The API prefix, e.g. `$JS.API`.
    pub fn api_prefix(&self) -> &str {
        &self.prefix
    }

    /// Sends `body` as JSON to the full API `subject` and parses the reply.
    pub async fn request<T: DeserializeOwned>(&self, subject: &str, body: &impl Serialize) -> Result<T, Error> {
        self.request_raw(subject, &encode_request(body)?).await
    }

    /// Like [`request`](Self::request) with an already-encoded body (may be empty).
    pub async fn request_raw<T: DeserializeOwned>(&self, subject: &str, payload: &[u8]) -> Result<T, Error> {
        api::parse_checked(&self.request_json(subject, payload).await?)
    }

    /// Sends `payload` (JSON, may be empty) to the full API `subject` and
    /// returns the reply's JSON unparsed, or the server's error envelope as
    /// [`Error::JetStream`]. No responders means JetStream is not enabled
    /// for this account. Not generic: callers that keep replies as text
    /// (the JS API) compile no deserializer for them.
    pub async fn request_json(&self, subject: &str, payload: &[u8]) -> Result<Bytes, Error> {
        let reply = self.client.request_message(subject, None, payload, Some(self.timeout)).await?;
        api::check_response(&reply.payload)?;
        Ok(reply.payload)
    }

    /// Account limits and usage.
    pub async fn query_account(&self) -> Result<AccountInfo, AccountError> {
        self.request_raw(&api::account_info(&self.prefix), b"").await.map_err(AccountErrorKind::error)
    }
}

/// `body` as the JSON of an API request. Our request types cannot fail to
/// encode (string keys, written to memory), so serde_json's error text is
/// left out: formatting it would link all its messages into the wasm.
pub(crate) fn encode_request(body: &impl Serialize) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(body).map_err(|_| Error::InvalidArgument("cannot encode request".into()))
}

impl Client {
    /// A JetStream context on this connection (default API prefix).
    pub fn jetstream(&self) -> Context {
        Context::new(self.clone())
    }
}
