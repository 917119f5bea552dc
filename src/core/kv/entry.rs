//! What a bucket holds for a key: [`Entry`], and its [`Operation`] read
//! from the message's headers — `KV-Operation` written by clients, or the
//! `Nats-Marker-Reason` of a marker the server wrote when a limit or a TTL
//! removed a key (ADR-48).

use std::fmt;
use std::str::FromStr;
use std::time::SystemTime;

use bytes::Bytes;

use crate::core::header::HeaderMap;

/// The header that marks deletes and purges.
pub const KV_OPERATION: &str = "KV-Operation";
/// Why the server wrote a marker: `MaxAge` and `Purge` read as purges, `Remove` as a delete.
pub const NATS_MARKER_REASON: &str = "Nats-Marker-Reason";
/// The size of the payload left out of a headers-only delivery.
pub const NATS_MESSAGE_SIZE: &str = "Nats-Msg-Size";
/// Rolls up a subject: the purge marker replaces every earlier value.
pub const NATS_ROLLUP: &str = "Nats-Rollup";

/// What an entry did to its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// A value was put.
    Put,
    /// The key was deleted; its history stays.
    Delete,
    /// The key was purged: this marker is all that is left.
    Purge,
}

impl Operation {
    /// The wire name: `PUT`, `DEL`, `PURGE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Put => "PUT",
            Operation::Delete => "DEL",
            Operation::Purge => "PURGE",
        }
    }

    /// The operation of a stored message: a put unless its headers say
    /// otherwise. An unknown `KV-Operation` or marker reason reads as a
    /// put, as nats.js and nats.go read it.
    pub fn of(headers: Option<&HeaderMap>) -> Operation {
        let Some(headers) = headers else { return Operation::Put };
        if let Some(operation) = headers.get(KV_OPERATION) {
            return operation.parse().unwrap_or(Operation::Put);
        }
        match headers.get(NATS_MARKER_REASON).map(|v| v.as_str()) {
            Some("MaxAge" | "Purge") => Operation::Purge,
            Some("Remove") => Operation::Delete,
            _ => Operation::Put,
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown operation name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOperationError;

impl fmt::Display for ParseOperationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not PUT, DEL or PURGE")
    }
}

impl std::error::Error for ParseOperationError {}

impl FromStr for Operation {
    type Err = ParseOperationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "PUT" => Ok(Operation::Put),
            "DEL" => Ok(Operation::Delete),
            "PURGE" => Ok(Operation::Purge),
            _ => Err(ParseOperationError),
        }
    }
}

/// A key's value at one revision, as async-nats's `kv::Entry`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The bucket the key is in.
    pub bucket: String,
    /// The key.
    pub key: String,
    /// Empty for deletes and purges, and for watches that asked for headers only.
    pub value: Bytes,
    /// The stream sequence of the message: unique and rising across the bucket.
    pub revision: u64,
    /// Newer entries a watch or history has yet to deliver (0 for a get).
    pub delta: u64,
    /// When the server stored it.
    pub created: SystemTime,
    /// What the entry is: a put, a delete or a purge.
    pub operation: Operation,
    /// Whether the watch has delivered every entry that existed when it
    /// started (this one included). Always `false` for a get.
    pub seen_current: bool,
}

/// The value's size: its length, or for a headers-only delivery the size
/// the server reports in `Nats-Msg-Size`.
pub(crate) fn value_len(headers: Option<&HeaderMap>, value: &Bytes) -> usize {
    headers.and_then(|h| h.get(NATS_MESSAGE_SIZE)).and_then(|n| n.parse().ok()).unwrap_or(value.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        pairs.iter().copied().collect()
    }

    #[test]
    fn operations_from_headers() {
        assert_eq!(Operation::of(None), Operation::Put);
        assert_eq!(Operation::of(Some(&headers(&[("X", "1")]))), Operation::Put);
        assert_eq!(Operation::of(Some(&headers(&[(KV_OPERATION, "DEL")]))), Operation::Delete);
        assert_eq!(Operation::of(Some(&headers(&[(KV_OPERATION, "PURGE")]))), Operation::Purge);
        assert_eq!(Operation::of(Some(&headers(&[(KV_OPERATION, "bogus")]))), Operation::Put);
        for (reason, op) in [("MaxAge", Operation::Purge), ("Purge", Operation::Purge), ("Remove", Operation::Delete)] {
            assert_eq!(Operation::of(Some(&headers(&[(NATS_MARKER_REASON, reason)]))), op, "{reason}");
        }
        assert_eq!(Operation::of(Some(&headers(&[(NATS_MARKER_REASON, "Other")]))), Operation::Put);
        // A client's own operation wins over a marker reason.
        let both = headers(&[(NATS_MARKER_REASON, "MaxAge"), (KV_OPERATION, "DEL")]);
        assert_eq!(Operation::of(Some(&both)), Operation::Delete);
    }

    #[test]
    fn operation_names() {
        for op in [Operation::Put, Operation::Delete, Operation::Purge] {
            assert_eq!(op.as_str().parse::<Operation>(), Ok(op));
            assert_eq!(op.to_string(), op.as_str());
        }
        assert_eq!("put".parse::<Operation>(), Err(ParseOperationError));
    }

    #[test]
    fn value_lengths() {
        let value = Bytes::from_static(b"abc");
        assert_eq!(value_len(None, &value), 3);
        assert_eq!(value_len(Some(&headers(&[(NATS_MESSAGE_SIZE, "1024")])), &Bytes::new()), 1024);
        assert_eq!(value_len(Some(&headers(&[(NATS_MESSAGE_SIZE, "x")])), &value), 3);
    }
}
