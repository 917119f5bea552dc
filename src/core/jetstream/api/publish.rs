//! The acknowledgement a stream sends for a JetStream publish (`server/stream.go`).

use serde::{Deserialize, Serialize};

use super::is_default;

/// The stream stored the message (or already had it: `duplicate`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PubAck {
    pub stream: String,
    /// Sequence the message got, or the original one for a duplicate.
    pub seq: u64,
    #[serde(skip_serializing_if = "is_default")]
    pub duplicate: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// A counter stream's new total, as a decimal string (ADR-49).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub val: Option<String>,
    /// Id of the atomic batch this ack commits (ADR-50).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
    /// Number of messages in that batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::parse_response;

    #[test]
    fn pub_acks() {
        let ack: PubAck = parse_response(br#"{"stream":"ORDERS","seq":22}"#).unwrap();
        assert_eq!(ack, PubAck { stream: "ORDERS".into(), seq: 22, ..Default::default() });
        let ack: PubAck =
            parse_response(br#"{"stream":"S","seq":3,"domain":"hub","duplicate":true,"future":{"x":1}}"#).unwrap();
        assert!(ack.duplicate);
        assert_eq!(ack.domain.as_deref(), Some("hub"));
        let ack: PubAck = parse_response(br#"{"stream":"C","seq":9,"val":"42"}"#).unwrap();
        assert_eq!(ack.val.as_deref(), Some("42"));
        let ack: PubAck = parse_response(br#"{"stream":"B","seq":10,"batch":"b1","count":3}"#).unwrap();
        assert_eq!((ack.batch.as_deref(), ack.count), (Some("b1"), Some(3)));
        assert_eq!(serde_json::to_string(&ack).unwrap(), r#"{"stream":"B","seq":10,"batch":"b1","count":3}"#);
    }
}
