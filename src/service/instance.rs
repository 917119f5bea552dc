//! [`Service`]: a running service instance, its groups and endpoints, its
//! stats, and [`stop`](Service::stop).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{Config, EndpointBuilder, Group, Info, Shared, endpoint, verbs};
use crate::client::{Client, unique_token};
use crate::core::error::Error;
use crate::core::service::names::{DEFAULT_QUEUE_GROUP, check_service};
use crate::core::service::{Endpoints, Identity};
use crate::driver::{DefaultRuntime, Runtime};
use crate::runtime::queue::lock;

/// A service instance: it answers PING, INFO and STATS on `$SRV.*` and
/// hands out its endpoints' requests, until [`stop`](Self::stop) or until
/// it is dropped. Dropping it unsubscribes at once, without the drain
/// (async-nats's endpoints too stop taking requests when their service is
/// dropped).
#[derive(Debug)]
pub struct Service {
    shared: Arc<Shared>,
    queue_group: String,
}

impl Service {
    pub(super) async fn add(client: Client, config: Config) -> Result<Service, Error> {
        check_service(&config.name, &config.version)?;
        let identity = Identity {
            name: config.name,
            id: unique_token()?,
            version: config.version,
            description: config.description.unwrap_or_default(),
            metadata: config.metadata.unwrap_or_default(),
            started: DefaultRuntime::wall_clock(),
        };
        let shared = Arc::new(Shared {
            client,
            identity,
            endpoints: Mutex::new(Endpoints::default()),
            subscriptions: Mutex::default(),
        });
        let requests = verbs::subscribe(&shared)?;
        DefaultRuntime::spawn(verbs::answer(shared.clone(), requests, config.stats_handler));
        let queue_group = config.queue_group.unwrap_or_else(|| DEFAULT_QUEUE_GROUP.into());
        Ok(Service { shared, queue_group })
    }

    /// Stops this instance: drains its subscriptions (requests already on
    /// their way are still handed out, then the endpoints' streams end) and
    /// stops answering PING, INFO and STATS. Returns once the server has
    /// taken the unsubscriptions, so from then on a request reaches the
    /// other instances of the service, or no responders if there are none.
    pub async fn stop(self) -> Result<(), Error> {
        let sids = std::mem::take(&mut *lock(&self.shared.subscriptions));
        let mut draining = Vec::new();
        {
            let mut inner = self.shared.client.shared().lock();
            for sid in sids {
                match inner.drain_subscription(sid) {
                    Ok(Some(flushed)) => draining.push((sid, flushed)),
                    Ok(None) => {}
                    // Closed: nothing reaches it any more.
                    Err(_) => {
                        let _ = inner.unsubscribe(sid);
                    }
                }
            }
        }
        for (sid, flushed) in draining {
            // Lost or closed meanwhile: the subscription ends all the same.
            let _ = flushed.await;
            self.shared.client.shared().lock().end_drained(sid);
        }
        Ok(())
    }

    /// Unsubscribes everything [`stop`](Self::stop) would drain, now.
    fn unsubscribe_all(&self) {
        let sids = std::mem::take(&mut *lock(&self.shared.subscriptions));
        let mut inner = self.shared.client.shared().lock();
        for sid in sids {
            // Closed: nothing reaches it any more.
            let _ = inner.unsubscribe(sid);
        }
    }

    /// Zeroes every endpoint's requests, errors and processing times and
    /// forgets its last error.
    pub async fn reset(&mut self) {
        lock(&self.shared.endpoints).reset();
    }

    /// Each endpoint's stats, by its key (its name, else its subject).
    pub async fn stats(&self) -> HashMap<String, endpoint::Stats> {
        lock(&self.shared.endpoints).stats().map(|(key, stats)| (key.to_string(), stats)).collect()
    }

    /// What INFO answers: the service and its endpoints.
    pub async fn info(&self) -> Info {
        self.shared.identity.info(&lock(&self.shared.endpoints))
    }

    /// Endpoints under the subject prefix `prefix`, in the service's queue group.
    pub fn group<S: ToString>(&self, prefix: S) -> Group {
        self.group_with_queue_group(prefix, self.queue_group.clone())
    }

    /// Endpoints under the subject prefix `prefix`, in `queue_group`.
    pub fn group_with_queue_group<S: ToString, Z: ToString>(&self, prefix: S, queue_group: Z) -> Group {
        Group::new(self.shared.clone(), prefix.to_string(), queue_group.to_string())
    }

    /// A builder for an endpoint with a name, metadata or queue group of its own.
    pub fn endpoint_builder(&self) -> EndpointBuilder {
        EndpointBuilder::new(self.shared.clone(), String::new(), self.queue_group.clone())
    }

    /// An endpoint on `subject`, named after it, in the service's queue group.
    pub async fn endpoint<S: ToString>(&self, subject: S) -> Result<endpoint::Endpoint, Error> {
        self.endpoint_builder().add(subject).await
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.unsubscribe_all();
    }
}
