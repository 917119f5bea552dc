//! Services (ADR-32, "micro"), shaped like async-nats's `service` module: a
//! named, versioned service whose endpoints are queue subscriptions handing
//! out [`Request`]s, discoverable and observable by anyone through
//! `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS` (for all services, those of a
//! name, or one instance by its id).
//!
//! The rules need no connection and live in the core (`src/core/service`:
//! names and versions, subjects, the replies' JSON, the stats kept per
//! endpoint); this folder subscribes and answers over a [`Client`].
//!
//! ```no_run
//! # async fn f(client: natsjet::Client) -> Result<(), natsjet::Error> {
//! use futures_util::StreamExt;
//! use natsjet::service::{self, ServiceExt};
//!
//! let service = client.service_builder().description("adds numbers").start("calc", "1.0.0").await?;
//! let mut add = service.group("calc").endpoint("add").await?; // listens on calc.add, queue group q
//! while let Some(request) = add.next().await {
//!     let answer = match std::str::from_utf8(&request.message.payload) {
//!         Ok(text) => Ok(text.len().to_string().into()),
//!         Err(_) => Err(service::error::Error { status: "not UTF-8".into(), code: 400 }),
//!     };
//!     request.respond(answer).await?;
//! }
//! # Ok(()) }
//! ```

mod builder;
mod endpoint_builder;
mod group;
mod instance;
mod request;
mod verbs;

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::core::conn::Sid;
use crate::core::error::Error;
use crate::core::service::{Endpoints, Identity};
use crate::driver::BoxFuture;

pub use crate::core::service::{
    DEFAULT_QUEUE_GROUP, INFO_RESPONSE_TYPE, Info, NATS_SERVICE_ERROR, NATS_SERVICE_ERROR_CODE, PING_RESPONSE_TYPE,
    PingResponse, SERVICE_API_PREFIX, STATS_RESPONSE_TYPE, Stats, Verb, is_valid_name, is_valid_version,
};
pub use builder::ServiceBuilder;
pub use endpoint_builder::EndpointBuilder;
pub use group::Group;
pub use instance::Service;
pub use request::Request;

/// async-nats's path of a request's error.
pub mod error {
    pub use crate::core::service::error::Error;
}

/// An endpoint's stream of requests, and how INFO and STATS describe it.
pub mod endpoint {
    pub use super::endpoint_builder::Endpoint;
    pub use crate::core::service::endpoint::{Info, Stats};
}

/// A service's settings, for [`ServiceExt::add_service`].
#[derive(Debug, Serialize, Deserialize)]
pub struct Config {
    /// What kind of service it is, shared by its instances: `A-Z`, `a-z`,
    /// `0-9`, `-` and `_` only.
    pub name: String,
    /// What the service does, shown by INFO.
    pub description: Option<String>,
    /// A semantic version (semver.org).
    pub version: String,
    /// Makes each endpoint's `data` in the STATS reply.
    #[serde(skip)]
    pub stats_handler: Option<StatsHandler>,
    /// Shown by PING, INFO and STATS; fixed once the service started.
    pub metadata: Option<HashMap<String, String>>,
    /// The queue group of its endpoints unless a group or endpoint names
    /// another; `q` when `None`.
    pub queue_group: Option<String>,
}

/// Called on each STATS request with every endpoint's key (its name, else
/// its subject) and stats; what it returns is the endpoint's `data`.
pub struct StatsHandler(pub Box<dyn FnMut(String, endpoint::Stats) -> serde_json::Value + Send>);

impl std::fmt::Debug for StatsHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatsHandler")
    }
}

/// Services on a [`Client`].
pub trait ServiceExt {
    /// What [`add_service`](Self::add_service) returns: the started service, or why not.
    type Output: Future<Output = Result<Service, Error>>;

    /// Starts a service as `config` describes it.
    fn add_service(&self, config: Config) -> Self::Output;

    /// A builder for a service, started by [`ServiceBuilder::start`].
    fn service_builder(&self) -> ServiceBuilder;
}

impl ServiceExt for Client {
    type Output = BoxFuture<Result<Service, Error>>;

    fn add_service(&self, config: Config) -> Self::Output {
        Box::pin(Service::add(self.clone(), config))
    }

    fn service_builder(&self) -> ServiceBuilder {
        ServiceBuilder::new(self.clone())
    }
}

/// What a service's handles (the service, its groups, endpoints and
/// requests) share.
#[derive(Debug)]
struct Shared {
    client: Client,
    identity: Identity,
    endpoints: Mutex<Endpoints>,
    /// The subscriptions [`Service::stop`] drains: the verbs' and the endpoints'.
    subscriptions: Mutex<Vec<Sid>>,
}
