//! The body of a `CONSUMER.MSG.NEXT` pull request.
//!
//! Field names and units follow the server's `JSApiConsumerGetNextRequest`
//! (`server/jetstream_api.go`): durations are integer nanoseconds and every
//! field left at its default is omitted, so the server applies its own.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One pull request, published to `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>`
/// with the consumer's inbox as reply subject.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    /// Messages asked for. Zero is omitted (the server then sends one).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub batch: u64,
    /// How long the server keeps the request waiting.
    #[serde(default, with = "nanos", skip_serializing_if = "Option::is_none")]
    pub expires: Option<Duration>,
    /// Byte budget (subject + reply + headers + payload of each message).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_bytes: u64,
    /// Answer at once (404 or what is there) instead of waiting.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_wait: bool,
    /// Interval of the server's `100 Idle Heartbeat`; at most half of `expires`.
    #[serde(default, with = "nanos", skip_serializing_if = "Option::is_none")]
    pub idle_heartbeat: Option<Duration>,
    /// Priority group (ADR-42).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Overflow policy: deliver only while the consumer has at least this many pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_pending: Option<i64>,
    /// Overflow policy: deliver only while at least this many acks are pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ack_pending: Option<i64>,
    /// Pinned-client policy: the pin id the server gave us in `Nats-Pin-Id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Prioritized policy: 0 (highest) to 9.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
}

impl PullRequest {
    /// The JSON body to publish.
    pub fn to_json(&self) -> Vec<u8> {
        // Plain fields with string keys: serialization cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `Option<Duration>` as integer nanoseconds, saturating at `i64::MAX` like Go.
mod nanos {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_i64(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let n = Option::<i64>::deserialize(d)?;
        Ok(n.and_then(|n| u64::try_from(n).ok()).map(Duration::from_nanos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn defaults_are_omitted() {
        assert_eq!(PullRequest::default().to_json(), b"{}");
    }

    #[test]
    fn durations_are_nanoseconds_and_round_trip() {
        let req = PullRequest {
            batch: 10,
            expires: Some(Duration::from_secs(30)),
            max_bytes: 1024,
            no_wait: true,
            idle_heartbeat: Some(Duration::from_secs(15)),
            group: Some("g".into()),
            min_pending: Some(5),
            min_ack_pending: Some(7),
            id: Some("pin".into()),
            priority: Some(3),
        };
        let json = String::from_utf8(req.to_json()).unwrap();
        assert_eq!(
            json,
            r#"{"batch":10,"expires":30000000000,"max_bytes":1024,"no_wait":true,"idle_heartbeat":15000000000,"group":"g","min_pending":5,"min_ack_pending":7,"id":"pin","priority":3}"#
        );
        assert_eq!(serde_json::from_str::<PullRequest>(&json).unwrap(), req);
    }
}
