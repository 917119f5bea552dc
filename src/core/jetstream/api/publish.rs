//! The acknowledgement a stream sends for a JetStream publish (`server/stream.go`).

use serde::{Deserialize, Serialize};

use super::is_default;

/// The stream stored the message (or already had it: `duplicate`), with
/// async-nats's field names (`jetstream::publish::PublishAck`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PublishAck {
    /// The stream that stored the message.
    pub stream: String,
    /// Sequence the message got, or the original one for a duplicate.
    #[serde(rename = "seq")]
    pub sequence: u64,
    /// The stream already had a message with this `Nats-Msg-Id` within its
    /// duplicate window; nothing new was stored.
    #[serde(skip_serializing_if = "is_default")]
    pub duplicate: bool,
    /// The stream's JetStream domain, empty without one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub domain: String,
    /// A counter stream's new total, as a decimal string (ADR-49).
    #[serde(rename = "val", skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Id of the atomic batch this ack commits (ADR-50).
    #[serde(rename = "batch", skip_serializing_if = "Option::is_none")]
    pub batch_id: Option<String>,
    /// Number of messages in that batch.
    #[serde(rename = "count", skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::parse_response;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn pub_acks() {
        let ack: PublishAck = parse_response(br#"{"stream":"ORDERS","seq":22}"#).unwrap();
        assert_eq!(ack, PublishAck { stream: "ORDERS".into(), sequence: 22, ..Default::default() });
        let ack: PublishAck =
            parse_response(br#"{"stream":"S","seq":3,"domain":"hub","duplicate":true,"future":{"x":1}}"#).unwrap();
        assert!(ack.duplicate);
        assert_eq!(ack.domain, "hub");
        let ack: PublishAck = parse_response(br#"{"stream":"C","seq":9,"val":"42"}"#).unwrap();
        assert_eq!(ack.value.as_deref(), Some("42"));
        let ack: PublishAck = parse_response(br#"{"stream":"B","seq":10,"batch":"b1","count":3}"#).unwrap();
        assert_eq!((ack.batch_id.as_deref(), ack.batch_size), (Some("b1"), Some(3)));
        assert_eq!(serde_json::to_string(&ack).unwrap(), r#"{"stream":"B","seq":10,"batch":"b1","count":3}"#);
    }
}
