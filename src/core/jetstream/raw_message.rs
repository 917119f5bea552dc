//! A message read back from a stream, the same whichever way it was read:
//! `STREAM.MSG.GET` (JSON with a base64 body, served by the stream leader) or
//! `DIRECT.GET` (the message itself with its metadata in `Nats-*` headers,
//! served by any replica). A miss is the same error both ways, so callers
//! match one thing.

use std::time::SystemTime;

use bytes::Bytes;

use super::api::{ErrorCode, JetStreamError, StoredMessage, timestamp};
use crate::core::error::{Error, ProtocolError};
use crate::core::header::{HeaderMap, StatusCode};
use crate::core::message::Message;
use crate::core::proto::parse_headers;

/// Headers a direct get adds to say where the message came from.
const DIRECT_STREAM: &str = "Nats-Stream";
const DIRECT_SEQUENCE: &str = "Nats-Sequence";
const DIRECT_TIME: &str = "Nats-Time-Stamp";
const DIRECT_SUBJECT: &str = "Nats-Subject";

/// A stored message, as async-nats's `StreamMessage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamMessage {
    /// The subject it was published to.
    pub subject: String,
    /// Its stream sequence.
    pub sequence: u64,
    /// The headers it was published with (empty when it had none).
    pub headers: HeaderMap,
    /// Its payload.
    pub payload: Bytes,
    /// When the stream stored it, RFC 3339 as the server wrote it.
    pub time: String,
}

impl StreamMessage {
    /// [`time`](Self::time) as a `SystemTime`.
    pub fn timestamp(&self) -> Option<SystemTime> {
        timestamp::parse_rfc3339(&self.time)
    }

    /// The reply to a direct get: status 404 becomes the API's
    /// [`ErrorCode::NO_MESSAGE_FOUND`], the `Nats-*` metadata headers become
    /// fields.
    pub(crate) fn from_direct_reply(reply: Message) -> Result<Self, Error> {
        match reply.status {
            None => {}
            Some(StatusCode::NOT_FOUND) => return Err(not_found()),
            Some(StatusCode(code)) => {
                let description = reply.description.unwrap_or_default();
                return Err(Error::JetStream(JetStreamError { code, err_code: ErrorCode::default(), description }));
            }
        }
        let mut headers = reply.headers.unwrap_or_default();
        let subject = headers.get(DIRECT_SUBJECT).ok_or_else(|| missing(DIRECT_SUBJECT))?.to_string();
        let sequence =
            headers.get(DIRECT_SEQUENCE).and_then(|s| s.parse().ok()).ok_or_else(|| missing(DIRECT_SEQUENCE))?;
        let time = headers.get(DIRECT_TIME).ok_or_else(|| missing(DIRECT_TIME))?.to_string();
        for name in [DIRECT_STREAM, DIRECT_SEQUENCE, DIRECT_TIME, DIRECT_SUBJECT] {
            headers.remove(name);
        }
        Ok(StreamMessage { subject, sequence, headers, payload: reply.payload, time })
    }
}

impl TryFrom<StoredMessage> for StreamMessage {
    type Error = Error;

    /// Parses the raw header block of a `STREAM.MSG.GET` reply.
    fn try_from(message: StoredMessage) -> Result<Self, Error> {
        let headers = match message.hdrs {
            Some(block) if !block.is_empty() => parse_headers(&block)?.2,
            _ => HeaderMap::new(),
        };
        Ok(StreamMessage {
            subject: message.subject,
            sequence: message.seq,
            headers,
            payload: message.data,
            time: message.time,
        })
    }
}

/// What `STREAM.MSG.GET` answers for a sequence or subject with no message.
fn not_found() -> Error {
    Error::JetStream(JetStreamError {
        code: 404,
        err_code: ErrorCode::NO_MESSAGE_FOUND,
        description: "no message found".to_string(),
    })
}

fn missing(header: &str) -> Error {
    Error::Protocol(ProtocolError::DirectGet(format!("direct get reply without a valid {header} header")))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn reply(status: Option<u16>, headers: &[(&str, &str)], payload: &'static [u8]) -> Message {
        Message {
            subject: "_INBOX.x".into(),
            reply: None,
            payload: Bytes::from_static(payload),
            headers: Some(headers.iter().copied().collect()),
            status: status.map(StatusCode),
            description: status.map(|_| "Message Not Found".into()),
            length: 0,
        }
    }

    const META: [(&str, &str); 4] = [
        ("Nats-Stream", "S"),
        ("Nats-Subject", "orders.1"),
        ("Nats-Sequence", "7"),
        ("Nats-Time-Stamp", "2026-01-02T03:04:05.6Z"),
    ];

    #[test]
    fn direct_reply_metadata_becomes_fields() {
        let m = StreamMessage::from_direct_reply(reply(None, &META, b"hi")).unwrap();
        assert_eq!((m.subject.as_str(), m.sequence, m.time.as_str()), ("orders.1", 7, "2026-01-02T03:04:05.6Z"));
        assert!(m.headers.is_empty());
        assert_eq!(m.payload, "hi");
        assert!(m.timestamp().is_some());

        let with_user = [&META[..], &[("X-Key", "v")]].concat();
        let m = StreamMessage::from_direct_reply(reply(None, &with_user, b"")).unwrap();
        assert_eq!(m.headers, [("X-Key", "v")].into_iter().collect());
    }

    #[test]
    fn direct_reply_errors() {
        assert_eq!(StreamMessage::from_direct_reply(reply(Some(404), &[], b"")), Err(not_found()));
        match StreamMessage::from_direct_reply(reply(Some(408), &[], b"")) {
            Err(Error::JetStream(e)) => assert_eq!(e.code, 408),
            other => panic!("{other:?}"),
        }
        assert!(matches!(StreamMessage::from_direct_reply(reply(None, &META[..3], b"")), Err(Error::Protocol(_))));
    }

    #[test]
    fn stored_message_headers_are_parsed() {
        let stored = |hdrs: Option<&'static [u8]>| StoredMessage {
            subject: "a".into(),
            seq: 3,
            hdrs: hdrs.map(Bytes::from_static),
            data: Bytes::from_static(b"x"),
            time: "t".into(),
        };
        let m = StreamMessage::try_from(stored(Some(b"NATS/1.0\r\nX-Key: v\r\n\r\n"))).unwrap();
        assert_eq!(m.headers.get("X-Key").map(|v| v.as_str()), Some("v"));
        assert!(StreamMessage::try_from(stored(None)).unwrap().headers.is_empty());
        assert!(StreamMessage::try_from(stored(Some(b"garbage"))).is_err());
    }
}
