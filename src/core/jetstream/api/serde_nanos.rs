//! `Duration` as the integer nanoseconds Go's `time.Duration` puts on the wire.
//!
//! Use with `#[serde(with = "serde_nanos")]`, `serde_nanos::option` or
//! `serde_nanos::vec`. Durations too long for an `i64` saturate; negative
//! values from the server (it sends `-1` for "never") read as zero, or as
//! `None` through [`option`].

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

fn to_nanos(d: &Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

fn from_nanos(n: i64) -> Option<Duration> {
    u64::try_from(n).ok().map(Duration::from_nanos)
}

/// Writes `d` as integer nanoseconds (saturating at `i64::MAX`).
pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_i64(to_nanos(d))
}

/// Reads integer nanoseconds; a negative value reads as zero.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    Ok(from_nanos(i64::deserialize(d)?).unwrap_or_default())
}

/// `Option<Duration>`: absent, `null` or negative is `None`.
pub mod option {
    use super::*;

    /// Writes `Some(d)` as integer nanoseconds, `None` as `null`.
    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        d.as_ref().map(to_nanos).serialize(s)
    }

    /// Reads integer nanoseconds; absent, `null` or negative is `None`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<i64>::deserialize(d)?.and_then(from_nanos))
    }
}

/// `Vec<Duration>`, e.g. a consumer's `backoff`; `null` is empty.
pub mod vec {
    use super::*;

    /// Writes each duration as integer nanoseconds.
    pub fn serialize<S: Serializer>(v: &[Duration], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(to_nanos))
    }

    /// Reads an array of integer nanoseconds; `null` is empty, a negative entry zero.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Duration>, D::Error> {
        let nanos = Option::<Vec<i64>>::deserialize(d)?.unwrap_or_default();
        Ok(nanos.into_iter().map(|n| from_nanos(n).unwrap_or_default()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct T {
        #[serde(with = "super")]
        d: Duration,
        #[serde(default, with = "super::option")]
        o: Option<Duration>,
        #[serde(default, with = "super::vec")]
        v: Vec<Duration>,
    }

    #[test]
    fn round_trips_nanoseconds() {
        let t = T {
            d: Duration::from_secs(30),
            o: Some(Duration::from_millis(5)),
            v: vec![Duration::from_secs(1), Duration::from_micros(2)],
        };
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"{"d":30000000000,"o":5000000,"v":[1000000000,2000]}"#);
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), t);
    }

    #[test]
    fn negative_null_and_huge() {
        let t: T = serde_json::from_str(r#"{"d":-1,"o":-1,"v":null}"#).unwrap();
        assert_eq!(t, T { d: Duration::ZERO, o: None, v: vec![] });
        let t: T = serde_json::from_str(r#"{"d":0,"o":null}"#).unwrap();
        assert_eq!(t.o, None);
        let big = T { d: Duration::MAX, o: None, v: vec![] };
        assert!(serde_json::to_string(&big).unwrap().starts_with(&format!("{{\"d\":{}", i64::MAX)));
    }
}
