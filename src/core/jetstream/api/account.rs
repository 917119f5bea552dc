//! `$JS.API.INFO`: what the account uses and may use (`server/jetstream.go`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::is_default;

/// Account usage and limits; with tiered limits the top level holds totals
/// and `tiers` the per-tier (`R1`, `R3`) figures.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AccountInfo {
    /// Bytes of memory storage in use.
    pub memory: u64,
    /// Bytes of file storage in use.
    pub storage: u64,
    /// Bytes of memory storage reserved by streams that set `max_bytes`.
    pub reserved_memory: u64,
    /// Bytes of file storage reserved by streams that set `max_bytes`.
    pub reserved_storage: u64,
    /// Streams in the account.
    pub streams: usize,
    /// Consumers in the account.
    pub consumers: usize,
    /// What the account may use.
    pub limits: AccountLimits,
    /// The JetStream domain that answered, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// API counters and level (`api` on the wire; async-nats's name).
    #[serde(rename = "api")]
    pub requests: ApiStats,
    /// Usage and limits per tier (`R1`, `R3`, …), with tiered limits.
    #[serde(skip_serializing_if = "HashMap::is_empty")]
    pub tiers: HashMap<String, Tier>,
}

/// Limits of the account (or of one tier); -1 is unlimited.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AccountLimits {
    /// Bytes of memory storage.
    pub max_memory: i64,
    /// Bytes of file storage (`max_storage`).
    pub max_storage: i64,
    /// Streams.
    pub max_streams: i64,
    /// Consumers.
    pub max_consumers: i64,
    /// Largest `max_ack_pending` a consumer may have.
    pub max_ack_pending: i64,
    /// Largest `max_bytes` a memory stream may set.
    pub memory_max_stream_bytes: i64,
    /// Largest `max_bytes` a file stream may set.
    pub storage_max_stream_bytes: i64,
    /// Streams must set `max_bytes`.
    pub max_bytes_required: bool,
}

/// Usage and limits of one tier.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Tier {
    /// Bytes of memory storage in use.
    pub memory: u64,
    /// Bytes of file storage in use.
    pub storage: u64,
    /// Bytes of memory storage reserved by streams that set `max_bytes`.
    pub reserved_memory: u64,
    /// Bytes of file storage reserved by streams that set `max_bytes`.
    pub reserved_storage: u64,
    /// Streams in the tier.
    pub streams: usize,
    /// Consumers in the tier.
    pub consumers: usize,
    /// What the tier may use.
    pub limits: AccountLimits,
}

/// API counters, and the API level the server implements (ADR-44): features
/// such as per-message TTL need a level, and older servers report none (0).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ApiStats {
    /// The API level the server implements (0 before ADR-44, server 2.11).
    pub level: usize,
    /// API requests the server received since it started.
    pub total: u64,
    /// Those of them answered with an error.
    pub errors: u64,
    /// Requests being served right now.
    #[serde(skip_serializing_if = "is_default")]
    pub inflight: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::parse_response;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn account_info_from_server_json() {
        let body = br#"{
            "type": "io.nats.jetstream.api.v1.account_info_response",
            "memory": 0, "storage": 2048, "reserved_memory": 0, "reserved_storage": 0,
            "streams": 2, "consumers": 3,
            "limits": {"max_memory": -1, "max_storage": -1, "max_streams": -1, "max_consumers": -1,
                "max_ack_pending": -1, "memory_max_stream_bytes": -1, "storage_max_stream_bytes": -1,
                "max_bytes_required": false},
            "domain": "hub",
            "api": {"level": 2, "total": 10, "errors": 1},
            "tiers": {"R1": {"memory": 0, "storage": 2048, "reserved_memory": 0, "reserved_storage": 0,
                "streams": 2, "consumers": 3, "limits": {"max_memory": 1024}}}
        }"#;
        let info: AccountInfo = parse_response(body).unwrap();
        assert_eq!((info.storage, info.streams, info.consumers), (2048, 2, 3));
        assert_eq!(info.limits.max_streams, -1);
        assert_eq!(info.domain.as_deref(), Some("hub"));
        assert_eq!(info.requests, ApiStats { level: 2, total: 10, errors: 1, inflight: 0 });
        assert_eq!(info.tiers["R1"].limits.max_memory, 1024);

        // A server before API levels, without tiers or domain.
        let old: AccountInfo = parse_response(
            br#"{"memory":0,"storage":0,"streams":0,"consumers":0,"limits":{},"api":{"total":0,"errors":0}}"#,
        )
        .unwrap();
        assert_eq!((old.requests.level, old.domain, old.tiers.len()), (0, None, 0));
    }
}
