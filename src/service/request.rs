//! [`Request`]: one request to an endpoint, answered with a payload or a
//! service error; the answer counts in the endpoint's stats.

use std::sync::Arc;

use bytes::Bytes;

use super::{Shared, error};
use crate::client::{PublishError, PublishErrorKind};
use crate::core::error::Error;
use crate::core::header::HeaderMap;
use crate::core::message::Message;
use crate::core::service::{NATS_SERVICE_ERROR, NATS_SERVICE_ERROR_CODE};
use crate::core::time::Instant;
use crate::runtime::queue::lock;

/// A request an [`Endpoint`](super::endpoint::Endpoint) handed out. Its
/// processing time runs from then until [`respond`](Self::respond) is
/// called.
#[derive(Debug)]
pub struct Request {
    issued: Instant,
    shared: Arc<Shared>,
    /// The endpoint's key in the service's stats.
    key: String,
    /// The request as it arrived (its reply subject is where the answer goes).
    pub message: Message,
}

impl Request {
    pub(super) fn new(shared: Arc<Shared>, key: String, message: Message) -> Self {
        Request { issued: shared.client.now(), shared, key, message }
    }

    /// Answers with `response`: its payload, or an error in the
    /// `Nats-Service-Error` and `Nats-Service-Error-Code` headers with an
    /// empty payload.
    pub async fn respond(&self, response: Result<Bytes, error::Error>) -> Result<(), PublishError> {
        self.respond_with_headers(response, HeaderMap::new()).await
    }

    /// [`respond`](Self::respond) with `headers` too; an error's two headers
    /// replace any of the same names in them.
    pub async fn respond_with_headers(
        &self,
        response: Result<Bytes, error::Error>,
        mut headers: HeaderMap,
    ) -> Result<(), PublishError> {
        let Some(reply) = &self.message.reply else {
            let cause = Error::InvalidSubject { subject: String::new(), reason: "the request has no reply subject" };
            return Err(PublishError::new(PublishErrorKind::InvalidSubject, cause));
        };
        // Counted before the answer goes out, so whoever has it sees it in STATS.
        let client = &self.shared.client;
        let elapsed = client.now().saturating_duration_since(self.issued);
        lock(&self.shared.endpoints).record(&self.key, response.as_ref().err(), elapsed);
        match response {
            Ok(payload) if headers.is_empty() => client.publish(reply, payload).await,
            Ok(payload) => client.publish_with_headers(reply, headers, payload).await,
            Err(failure) => {
                headers.insert(NATS_SERVICE_ERROR, failure.status.as_str());
                headers.insert(NATS_SERVICE_ERROR_CODE, failure.code.to_string());
                client.publish_with_headers(reply, headers, Bytes::new()).await
            }
        }
    }
}
