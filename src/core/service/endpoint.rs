//! One endpoint in the INFO and STATS replies (ADR-32's `EndpointInfo` and
//! `EndpointStats`), with async-nats's Rust names (`requests` is
//! `num_requests` on the wire, durations are integer nanoseconds).

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::error::{Error, last_error};
use crate::core::jetstream::api::{null_as_default, serde_nanos};

/// An endpoint as INFO describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// Its name (by default its subject with `-` for `.`).
    pub name: String,
    /// The subject it listens on.
    pub subject: String,
    /// The queue group it joined.
    #[serde(default)]
    pub queue_group: String,
    /// Its own metadata; `null` reads as empty.
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: HashMap<String, String>,
}

/// An endpoint's counters as STATS reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// The endpoint's name.
    pub name: String,
    /// The subject it listens on.
    pub subject: String,
    /// Its queue group (`q` unless named otherwise).
    #[serde(default)]
    pub queue_group: String,
    /// Requests answered (`num_requests`).
    #[serde(rename = "num_requests")]
    pub requests: usize,
    /// Requests answered with an error (`num_errors`).
    #[serde(rename = "num_errors")]
    pub errors: usize,
    /// Time from taking each request to its answer being written, summed.
    #[serde(default, with = "serde_nanos")]
    pub processing_time: Duration,
    /// `processing_time` over `requests`.
    #[serde(default, with = "serde_nanos")]
    pub average_processing_time: Duration,
    /// The last error answered, `""` on the wire when none.
    #[serde(default, with = "last_error")]
    pub last_error: Option<Error>,
    /// What the service's stats handler returned for this endpoint, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}
