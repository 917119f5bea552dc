//! The replies to `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS` (ADR-32), field
//! by field, with async-nats's Rust names (`kind` is the JSON `type`).
//! Reading is lenient where other services write less: a `null` map or
//! list is empty, a missing description is empty.

use std::collections::HashMap;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::endpoint;
use crate::core::jetstream::api::{null_as_default, timestamp};

/// The `type` of a PING reply.
pub const PING_RESPONSE_TYPE: &str = "io.nats.micro.v1.ping_response";
/// The `type` of an INFO reply.
pub const INFO_RESPONSE_TYPE: &str = "io.nats.micro.v1.info_response";
/// The `type` of a STATS reply.
pub const STATS_RESPONSE_TYPE: &str = "io.nats.micro.v1.stats_response";

/// The reply to PING: who answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PingResponse {
    /// [`PING_RESPONSE_TYPE`].
    #[serde(rename = "type")]
    pub kind: String,
    /// The service's name, shared by its instances.
    pub name: String,
    /// This instance's unique id.
    pub id: String,
    /// The service's semantic version.
    pub version: String,
    /// The service's metadata.
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: HashMap<String, String>,
}

/// The reply to INFO: the service and its endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// [`INFO_RESPONSE_TYPE`].
    #[serde(rename = "type")]
    pub kind: String,
    /// The service's name, shared by its instances.
    pub name: String,
    /// This instance's unique id.
    pub id: String,
    /// The service's semantic version.
    pub version: String,
    /// The service's metadata.
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: HashMap<String, String>,
    /// What the service does.
    #[serde(default)]
    pub description: String,
    /// In the order they were added.
    #[serde(default, deserialize_with = "null_as_default")]
    pub endpoints: Vec<endpoint::Info>,
}

/// The reply to STATS: the service's endpoints and their counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// [`STATS_RESPONSE_TYPE`].
    #[serde(rename = "type")]
    pub kind: String,
    /// The service's name, shared by its instances.
    pub name: String,
    /// This instance's unique id.
    pub id: String,
    /// The service's semantic version.
    pub version: String,
    /// The service's metadata (ADR-32 has it in STATS; async-nats's
    /// `Stats` leaves it out and ignores it when reading).
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: HashMap<String, String>,
    /// In the order they were added.
    #[serde(default, deserialize_with = "null_as_default")]
    pub endpoints: Vec<endpoint::Stats>,
    /// When the service started, in UTC (RFC 3339 on the wire).
    #[serde(with = "timestamp::rfc3339")]
    pub started: SystemTime,
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use serde_json::{Value, json};

    use super::*;
    use crate::core::service::error::Error;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn meta(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn as_value<T: Serialize>(reply: &T) -> Value {
        serde_json::to_value(reply).unwrap()
    }

    // ADR-32's examples, as a Go or nats.js service writes them.
    const PING: &str = r#"{"type":"io.nats.micro.v1.ping_response","name":"calc","id":"Cx7PKbRr9pbEZFBpnvuUbE",
        "version":"1.2.3","metadata":{"zone":"eu"}}"#;
    const INFO: &str = r#"{"type":"io.nats.micro.v1.info_response","name":"calc","id":"Cx7PKbRr9pbEZFBpnvuUbE",
        "version":"1.2.3","metadata":{},"description":"adds numbers",
        "endpoints":[{"name":"add","subject":"calc.add","queue_group":"q","metadata":{"unit":"int"}},
                     {"name":"sub","subject":"calc.sub","queue_group":"workers","metadata":null}]}"#;
    const STATS: &str = r#"{"type":"io.nats.micro.v1.stats_response","name":"calc","id":"Cx7PKbRr9pbEZFBpnvuUbE",
        "version":"1.2.3","metadata":{"zone":"eu"},"started":"2024-02-29T12:30:45.25Z",
        "endpoints":[{"name":"add","subject":"calc.add","queue_group":"q","num_requests":4,"num_errors":1,
            "processing_time":1500000,"average_processing_time":375000,"last_error":"400:bad operand",
            "data":{"cache_hits":3}},
          {"name":"sub","subject":"calc.sub","queue_group":"q","num_requests":0,"num_errors":0,
            "processing_time":0,"average_processing_time":0,"last_error":""}]}"#;

    fn info_fixture() -> Info {
        Info {
            kind: INFO_RESPONSE_TYPE.into(),
            name: "calc".into(),
            id: "Cx7PKbRr9pbEZFBpnvuUbE".into(),
            version: "1.2.3".into(),
            metadata: HashMap::new(),
            description: "adds numbers".into(),
            endpoints: vec![
                endpoint::Info {
                    name: "add".into(),
                    subject: "calc.add".into(),
                    queue_group: "q".into(),
                    metadata: meta(&[("unit", "int")]),
                },
                endpoint::Info {
                    name: "sub".into(),
                    subject: "calc.sub".into(),
                    queue_group: "workers".into(),
                    metadata: HashMap::new(),
                },
            ],
        }
    }

    fn stats_fixture() -> Stats {
        Stats {
            kind: STATS_RESPONSE_TYPE.into(),
            name: "calc".into(),
            id: "Cx7PKbRr9pbEZFBpnvuUbE".into(),
            version: "1.2.3".into(),
            metadata: meta(&[("zone", "eu")]),
            started: UNIX_EPOCH + Duration::new(1_709_209_845, 250_000_000),
            endpoints: vec![
                endpoint::Stats {
                    name: "add".into(),
                    subject: "calc.add".into(),
                    queue_group: "q".into(),
                    requests: 4,
                    errors: 1,
                    processing_time: Duration::from_micros(1500),
                    average_processing_time: Duration::from_micros(375),
                    last_error: Some(Error { code: 400, status: "bad operand".into() }),
                    data: Some(json!({"cache_hits": 3})),
                },
                endpoint::Stats {
                    name: "sub".into(),
                    subject: "calc.sub".into(),
                    queue_group: "q".into(),
                    ..Default::default()
                },
            ],
        }
    }

    #[test]
    fn ping_reads_and_writes_adr_32() {
        let ping = PingResponse {
            kind: PING_RESPONSE_TYPE.into(),
            name: "calc".into(),
            id: "Cx7PKbRr9pbEZFBpnvuUbE".into(),
            version: "1.2.3".into(),
            metadata: meta(&[("zone", "eu")]),
        };
        assert_eq!(serde_json::from_str::<PingResponse>(PING).unwrap(), ping);
        assert_eq!(as_value(&ping), serde_json::from_str::<Value>(PING).unwrap());
    }

    #[test]
    fn info_reads_and_writes_adr_32() {
        assert_eq!(serde_json::from_str::<Info>(INFO).unwrap(), info_fixture());
        // Written back, the `null` metadata is `{}`: every field is there.
        let mut expected: Value = serde_json::from_str(INFO).unwrap();
        expected["endpoints"][1]["metadata"] = json!({});
        assert_eq!(as_value(&info_fixture()), expected);
    }

    #[test]
    fn stats_reads_and_writes_adr_32() {
        assert_eq!(serde_json::from_str::<Stats>(STATS).unwrap(), stats_fixture());
        assert_eq!(as_value(&stats_fixture()), serde_json::from_str::<Value>(STATS).unwrap());
    }

    #[test]
    fn field_names_and_types_are_adr_32s() {
        let keys = |v: &Value| {
            let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        let stats = as_value(&stats_fixture());
        assert_eq!(keys(&stats), ["endpoints", "id", "metadata", "name", "started", "type", "version"]);
        assert_eq!(
            keys(&stats["endpoints"][0]),
            [
                "average_processing_time",
                "data",
                "last_error",
                "name",
                "num_errors",
                "num_requests",
                "processing_time",
                "queue_group",
                "subject"
            ]
        );
        // No handler, no `data`.
        assert!(stats["endpoints"][1].get("data").is_none());
        let info = as_value(&info_fixture());
        assert_eq!(keys(&info), ["description", "endpoints", "id", "metadata", "name", "type", "version"]);
        assert_eq!(keys(&info["endpoints"][0]), ["metadata", "name", "queue_group", "subject"]);
        assert_eq!(PING_RESPONSE_TYPE, "io.nats.micro.v1.ping_response");
        assert_eq!(INFO_RESPONSE_TYPE, "io.nats.micro.v1.info_response");
        assert_eq!(STATS_RESPONSE_TYPE, "io.nats.micro.v1.stats_response");
    }

    #[test]
    fn started_is_utc_rfc3339_and_durations_are_nanoseconds() {
        let mut stats = stats_fixture();
        stats.started = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
        stats.endpoints[0].processing_time = Duration::new(2, 5);
        let value = as_value(&stats);
        assert_eq!(value["started"], "2023-11-14T22:13:20.123456789Z");
        assert_eq!(value["endpoints"][0]["processing_time"], 2_000_000_005_u64);
        stats.started = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(as_value(&stats)["started"], "2023-11-14T22:13:20Z");
        // Another service's offset reads as the same instant.
        let shifted = STATS.replace("2024-02-29T12:30:45.25Z", "2024-02-29T14:30:45.25+02:00");
        assert_eq!(serde_json::from_str::<Stats>(&shifted).unwrap().started, stats_fixture().started);
        let bad = STATS.replace("2024-02-29T12:30:45.25Z", "yesterday");
        assert!(serde_json::from_str::<Stats>(&bad).is_err());
    }

    #[test]
    fn sparse_replies_read_as_empty() {
        let info: Info = serde_json::from_str(
            r#"{"type":"io.nats.micro.v1.info_response","name":"a","id":"b","version":"0.1.0",
                "metadata":null,"endpoints":null}"#,
        )
        .unwrap();
        assert!(info.metadata.is_empty() && info.endpoints.is_empty() && info.description.is_empty());
        let ping: PingResponse =
            serde_json::from_str(r#"{"type":"io.nats.micro.v1.ping_response","name":"a","id":"b","version":"0.1.0"}"#)
                .unwrap();
        assert!(ping.metadata.is_empty());
    }
}
