//! A message as delivered to subscribers and requesters.

use bytes::Bytes;

use crate::core::error::Error;
use crate::core::header::{HeaderMap, StatusCode};
use crate::core::subject::Subject;

/// A message received from the server. Subject, reply and payload share the
/// read buffer (no copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The subject it was published to.
    pub subject: Subject,
    /// Where an answer goes, if the publisher asked for one.
    pub reply: Option<Subject>,
    /// The payload.
    pub payload: Bytes,
    /// The headers, if it had any.
    pub headers: Option<HeaderMap>,
    /// Status code from the header line, for status messages (100, 404, 408, 503…).
    pub status: Option<StatusCode>,
    /// The text after the status code, e.g. `Request Timeout`.
    pub description: Option<String>,
    /// Bytes this message took on the wire: subject, reply, headers and payload.
    /// JetStream pending-byte accounting uses it.
    pub length: usize,
}

impl Message {
    /// This reply as the answer to a request: the server's "no responders"
    /// status (503, no payload) is [`Error::NoResponders`].
    pub(crate) fn into_answer(self) -> Result<Message, Error> {
        if self.status == Some(StatusCode::NO_RESPONDERS) && self.payload.is_empty() {
            return Err(Error::NoResponders);
        }
        Ok(self)
    }
}
