//! [`Group`]: endpoints under a common subject prefix, with a queue group
//! of their own if wanted.

use std::sync::Arc;

use super::{EndpointBuilder, Shared, endpoint};
use crate::core::error::Error;
use crate::core::service::names::join_subject;

/// Endpoints of a service under one subject prefix ([`Service::group`](super::Service::group)).
pub struct Group {
    shared: Arc<Shared>,
    prefix: String,
    queue_group: String,
}

impl Group {
    pub(super) fn new(shared: Arc<Shared>, prefix: String, queue_group: String) -> Self {
        Group { shared, prefix, queue_group }
    }

    /// A group under this one: `<this prefix>.<prefix>`, in this group's queue group.
    pub fn group<S: ToString>(&self, prefix: S) -> Group {
        self.group_with_queue_group(prefix, self.queue_group.clone())
    }

    /// A group under this one: `<this prefix>.<prefix>`, in `queue_group`.
    pub fn group_with_queue_group<S: ToString, Z: ToString>(&self, prefix: S, queue_group: Z) -> Group {
        let prefix = join_subject(&self.prefix, &prefix.to_string());
        Group::new(self.shared.clone(), prefix, queue_group.to_string())
    }

    /// An endpoint on `<prefix>.<subject>`, named after it, in the group's queue group.
    pub async fn endpoint<S: ToString>(&self, subject: S) -> Result<endpoint::Endpoint, Error> {
        self.endpoint_builder().add(subject).await
    }

    /// A builder for an endpoint under the group's prefix.
    pub fn endpoint_builder(&self) -> EndpointBuilder {
        EndpointBuilder::new(self.shared.clone(), self.prefix.clone(), self.queue_group.clone())
    }
}
