//! [`ServiceBuilder`]: a service's settings one call at a time, then
//! [`start`](ServiceBuilder::start).

use std::collections::HashMap;

use super::{Config, Service, StatsHandler, endpoint};
use crate::client::Client;
use crate::core::error::Error;

/// Builds a service on a client ([`ServiceExt::service_builder`](super::ServiceExt::service_builder)).
pub struct ServiceBuilder {
    client: Client,
    description: Option<String>,
    stats_handler: Option<StatsHandler>,
    metadata: Option<HashMap<String, String>>,
    queue_group: Option<String>,
}

impl ServiceBuilder {
    pub(super) fn new(client: Client) -> Self {
        ServiceBuilder { client, description: None, stats_handler: None, metadata: None, queue_group: None }
    }

    /// What the service does, for people (INFO's `description`).
    pub fn description<S: ToString>(mut self, description: S) -> Self {
        self.description = Some(description.to_string());
        self
    }

    /// Makes each endpoint's `data` in the STATS reply from its key and stats.
    pub fn stats_handler<F>(mut self, handler: F) -> Self
    where
        F: FnMut(String, endpoint::Stats) -> serde_json::Value + Send + Sync + 'static,
    {
        self.stats_handler = Some(StatsHandler(Box::new(handler)));
        self
    }

    /// The service's metadata, in every discovery reply.
    pub fn metadata(mut self, metadata: HashMap<String, String>) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// The queue group of its endpoints (`q` unless set).
    pub fn queue_group<S: ToString>(mut self, queue_group: S) -> Self {
        self.queue_group = Some(queue_group.to_string());
        self
    }

    /// Starts the service: checks the version (semver) and the name, then
    /// answers PING, INFO and STATS until [`Service::stop`].
    pub async fn start<N: ToString, V: ToString>(self, name: N, version: V) -> Result<Service, Error> {
        let config = Config {
            name: name.to_string(),
            description: self.description,
            version: version.to_string(),
            stats_handler: self.stats_handler,
            metadata: self.metadata,
            queue_group: self.queue_group,
        };
        Service::add(self.client, config).await
    }
}
