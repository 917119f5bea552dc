//! `stream.purge()`: a builder awaited directly, as in async-nats
//! (`stream.purge().filter("orders.*").keep(10).await`).

use std::future::IntoFuture;

use super::api::{self, PurgeRequest, PurgeResponse};
use super::context::Context;
use super::stream::{PurgeError, PurgeErrorKind};
use crate::core::error::{Error, SortCause};
use crate::core::subject::validate_subject;
use crate::driver::BoxFuture;

/// A purge of one stream; without options it removes every message.
#[derive(Debug, Clone)]
#[must_use = "a purge does nothing until awaited"]
pub struct Purge {
    context: Context,
    stream: String,
    request: PurgeRequest,
}

impl Purge {
    pub(crate) fn new(context: Context, stream: String) -> Self {
        Purge { context, stream, request: PurgeRequest::default() }
    }

    /// Only messages whose subject matches `subject` (wildcards allowed).
    pub fn filter(mut self, subject: impl Into<String>) -> Self {
        self.request.filter = Some(subject.into());
        self
    }

    /// Keep the newest `count` messages (per subject with a filter).
    /// Excludes [`sequence`](Self::sequence).
    pub fn keep(mut self, count: u64) -> Self {
        self.request.keep = Some(count);
        self
    }

    /// Remove messages below `sequence` (it and later ones stay).
    /// Excludes [`keep`](Self::keep).
    pub fn sequence(mut self, sequence: u64) -> Self {
        self.request.seq = Some(sequence);
        self
    }

    async fn send(self) -> Result<PurgeResponse, Error> {
        if self.request.keep.is_some() && self.request.seq.is_some() {
            return Err(Error::InvalidArgument("purge takes keep or sequence, not both".into()));
        }
        if let Some(filter) = &self.request.filter {
            validate_subject(filter)?;
        }
        let subject = api::stream_purge(self.context.api_prefix(), &self.stream)?;
        self.context.request(&subject, &self.request).await
    }
}

impl IntoFuture for Purge {
    type Output = Result<PurgeResponse, PurgeError>;
    type IntoFuture = BoxFuture<Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { self.send().await.map_err(PurgeErrorKind::error) })
    }
}
