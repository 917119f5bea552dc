//! [`EndpointBuilder`] and the [`Endpoint`] it adds: a queue subscription
//! whose messages come out as [`Request`]s, timed from when they are taken.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_core::Stream;

use super::{Request, Shared};
use crate::client::Subscriber;
use crate::core::conn::Sid;
use crate::core::error::Error;
use crate::core::service::endpoint::Info;
use crate::core::service::names::{endpoint_names, join_subject};
use crate::runtime::queue::lock;

/// Adds an endpoint with a name, metadata or queue group of its own.
#[derive(Debug)]
pub struct EndpointBuilder {
    shared: Arc<Shared>,
    prefix: String,
    queue_group: String,
    name: Option<String>,
    metadata: Option<HashMap<String, String>>,
}

impl EndpointBuilder {
    pub(super) fn new(shared: Arc<Shared>, prefix: String, queue_group: String) -> Self {
        EndpointBuilder { shared, prefix, queue_group, name: None, metadata: None }
    }

    /// Its name in INFO and STATS, and its key in [`Service::stats`](super::Service::stats)
    /// (by default its subject; with `-` for `.` in INFO and STATS).
    pub fn name<S: ToString>(mut self, name: S) -> EndpointBuilder {
        self.name = Some(name.to_string());
        self
    }

    /// The endpoint's own metadata, in INFO.
    pub fn metadata(mut self, metadata: HashMap<String, String>) -> EndpointBuilder {
        self.metadata = Some(metadata);
        self
    }

    /// Its queue group, instead of its group's or service's.
    pub fn queue_group<S: ToString>(mut self, queue_group: S) -> EndpointBuilder {
        self.queue_group = queue_group.to_string();
        self
    }

    /// Subscribes on `subject` (under the group's prefix) and adds the
    /// endpoint to the service's INFO and STATS.
    pub async fn add<S: ToString>(self, subject: S) -> Result<Endpoint, Error> {
        let subject = join_subject(&self.prefix, &subject.to_string());
        let (key, name) = endpoint_names(self.name.as_deref(), &subject);
        let requests = self.shared.client.queue_subscribe(&subject, self.queue_group.clone()).await?;
        let metadata = self.metadata.unwrap_or_default();
        lock(&self.shared.endpoints).add(&key, Info { name, subject, queue_group: self.queue_group, metadata });
        lock(&self.shared.subscriptions).push(Sid(requests.sid()));
        Ok(Endpoint { requests, shared: self.shared, key })
    }
}

/// An endpoint's requests, as a `Stream`; it ends after
/// [`Service::stop`](super::Service::stop) or [`stop`](Self::stop).
pub struct Endpoint {
    requests: Subscriber,
    shared: Arc<Shared>,
    key: String,
}

impl Endpoint {
    /// Unsubscribes this endpoint (it stays in INFO and STATS).
    pub async fn stop(&mut self) -> Result<(), std::io::Error> {
        self.requests.unsubscribe().await.map_err(|e| std::io::Error::other(format!("failed to unsubscribe: {e}")))
    }
}

impl Stream for Endpoint {
    type Item = Request;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Request>> {
        let this = &mut *self;
        Pin::new(&mut this.requests)
            .poll_next(cx)
            .map(|message| message.map(|message| Request::new(this.shared.clone(), this.key.clone(), message)))
    }
}
