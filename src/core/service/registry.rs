//! What a running service keeps: who it is ([`Identity`], fixed at start)
//! and its endpoints with their counters ([`Endpoints`]), from which the
//! PING, INFO and STATS replies are made. No clock: the caller measures
//! each request's processing time and passes it in.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use super::endpoint;
use super::error::Error;
use super::replies::{INFO_RESPONSE_TYPE, Info, PING_RESPONSE_TYPE, PingResponse, STATS_RESPONSE_TYPE, Stats};

/// A service instance as every reply names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    /// Unique per instance.
    pub id: String,
    pub version: String,
    pub description: String,
    pub metadata: HashMap<String, String>,
    pub started: SystemTime,
}

impl Identity {
    pub fn ping(&self) -> PingResponse {
        PingResponse {
            kind: PING_RESPONSE_TYPE.into(),
            name: self.name.clone(),
            id: self.id.clone(),
            version: self.version.clone(),
            metadata: self.metadata.clone(),
        }
    }

    pub fn info(&self, endpoints: &Endpoints) -> Info {
        Info {
            kind: INFO_RESPONSE_TYPE.into(),
            name: self.name.clone(),
            id: self.id.clone(),
            version: self.version.clone(),
            metadata: self.metadata.clone(),
            description: self.description.clone(),
            endpoints: endpoints.entries.iter().map(|e| e.info.clone()).collect(),
        }
    }

    pub fn stats(&self, endpoints: &Endpoints) -> Stats {
        Stats {
            kind: STATS_RESPONSE_TYPE.into(),
            name: self.name.clone(),
            id: self.id.clone(),
            version: self.version.clone(),
            metadata: self.metadata.clone(),
            endpoints: endpoints.stats().map(|(_, stats)| stats).collect(),
            started: self.started,
        }
    }
}

/// A service's endpoints, in the order added, each under a key (its name,
/// else its subject: see [`endpoint_names`](super::names::endpoint_names)).
/// Two endpoints added under one key share one entry, as in async-nats.
#[derive(Debug, Clone, Default)]
pub struct Endpoints {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
struct Entry {
    key: String,
    info: endpoint::Info,
    requests: usize,
    errors: usize,
    processing_time: Duration,
    last_error: Option<Error>,
    data: Option<serde_json::Value>,
}

impl Endpoints {
    /// Adds an endpoint under `key`, unless one is there already.
    pub fn add(&mut self, key: &str, info: endpoint::Info) {
        if self.entry(key).is_none() {
            let entry = Entry {
                key: key.into(),
                info,
                requests: 0,
                errors: 0,
                processing_time: Duration::ZERO,
                last_error: None,
                data: None,
            };
            self.entries.push(entry);
        }
    }

    fn entry(&mut self, key: &str) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.key == key)
    }

    /// One request answered after `elapsed`, with `error` if it failed.
    pub fn record(&mut self, key: &str, error: Option<&Error>, elapsed: Duration) {
        let Some(entry) = self.entry(key) else { return };
        entry.requests += 1;
        entry.processing_time = entry.processing_time.saturating_add(elapsed);
        if let Some(error) = error {
            entry.errors += 1;
            entry.last_error = Some(error.clone());
        }
    }

    /// Zeroes every endpoint's counters and forgets its last error (what
    /// the stats handler returned stays until it is asked again).
    pub fn reset(&mut self) {
        for entry in &mut self.entries {
            entry.requests = 0;
            entry.errors = 0;
            entry.processing_time = Duration::ZERO;
            entry.last_error = None;
        }
    }

    /// Sets the `data` of the endpoint under `key`: what the service's
    /// stats handler made of its key and stats.
    pub fn set_data(&mut self, key: &str, data: serde_json::Value) {
        if let Some(entry) = self.entry(key) {
            entry.data = Some(data);
        }
    }

    /// Each endpoint's key and stats, in the order added.
    pub fn stats(&self) -> impl Iterator<Item = (&str, endpoint::Stats)> {
        self.entries.iter().map(|e| (e.key.as_str(), e.stats()))
    }
}

impl Entry {
    fn stats(&self) -> endpoint::Stats {
        let average = match self.requests {
            0 => Duration::ZERO,
            n => Duration::from_nanos((self.processing_time.as_nanos() / n as u128) as u64),
        };
        endpoint::Stats {
            name: self.info.name.clone(),
            subject: self.info.subject.clone(),
            queue_group: self.info.queue_group.clone(),
            requests: self.requests,
            errors: self.errors,
            processing_time: self.processing_time,
            average_processing_time: average,
            last_error: self.last_error.clone(),
            data: self.data.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use serde_json::json;

    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn identity() -> Identity {
        Identity {
            name: "calc".into(),
            id: "ID1".into(),
            version: "1.0.0".into(),
            description: "adds".into(),
            metadata: HashMap::from([("zone".into(), "eu".into())]),
            started: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
        }
    }

    fn info(name: &str, subject: &str) -> endpoint::Info {
        endpoint::Info { name: name.into(), subject: subject.into(), queue_group: "q".into(), metadata: HashMap::new() }
    }

    fn two_endpoints() -> Endpoints {
        let mut endpoints = Endpoints::default();
        endpoints.add("calc.add", info("calc-add", "calc.add"));
        endpoints.add("sub", info("sub", "calc.sub"));
        endpoints
    }

    fn error(code: usize, status: &str) -> Error {
        Error { code, status: status.into() }
    }

    #[test]
    fn counts_requests_errors_and_processing_time() {
        let mut endpoints = two_endpoints();
        endpoints.record("calc.add", None, Duration::from_millis(3));
        endpoints.record("calc.add", Some(&error(400, "bad")), Duration::from_millis(1));
        endpoints.record("calc.add", Some(&error(500, "worse")), Duration::from_millis(2));
        endpoints.record("nobody", None, Duration::from_millis(2));
        let stats: Vec<_> = endpoints.stats().collect();
        assert_eq!(stats.iter().map(|(k, _)| *k).collect::<Vec<_>>(), ["calc.add", "sub"]);
        let add = &stats[0].1;
        assert_eq!((add.name.as_str(), add.subject.as_str(), add.queue_group.as_str()), ("calc-add", "calc.add", "q"));
        assert_eq!((add.requests, add.errors), (3, 2));
        assert_eq!(add.processing_time, Duration::from_millis(6));
        assert_eq!(add.average_processing_time, Duration::from_millis(2));
        assert_eq!(add.last_error, Some(error(500, "worse")));
        let sub = &stats[1].1;
        assert_eq!((sub.requests, sub.errors, sub.average_processing_time), (0, 0, Duration::ZERO));
        assert_eq!(sub.last_error, None);
    }

    #[test]
    fn the_average_is_whole_nanoseconds() {
        let mut endpoints = two_endpoints();
        for nanos in [1, 1, 2] {
            endpoints.record("sub", None, Duration::from_nanos(nanos));
        }
        let (_, sub) = endpoints.stats().nth(1).unwrap();
        assert_eq!(
            (sub.processing_time, sub.average_processing_time),
            (Duration::from_nanos(4), Duration::from_nanos(1))
        );
    }

    #[test]
    fn reset_zeroes_counters_and_keeps_endpoints() {
        let mut endpoints = two_endpoints();
        endpoints.record("sub", Some(&error(503, "busy")), Duration::from_millis(5));
        endpoints.set_data("sub", json!(1));
        endpoints.reset();
        let (_, sub) = endpoints.stats().nth(1).unwrap();
        assert_eq!(
            sub,
            endpoint::Stats {
                name: "sub".into(),
                subject: "calc.sub".into(),
                queue_group: "q".into(),
                data: Some(json!(1)),
                ..Default::default()
            }
        );
    }

    #[test]
    fn a_second_endpoint_under_one_key_shares_the_first() {
        let mut endpoints = two_endpoints();
        endpoints.add("sub", info("other", "calc.other"));
        assert_eq!(identity().info(&endpoints).endpoints, [info("calc-add", "calc.add"), info("sub", "calc.sub")]);
    }

    #[test]
    fn data_is_set_per_key() {
        let mut endpoints = two_endpoints();
        endpoints.set_data("sub", json!({ "hits": 2 }));
        endpoints.set_data("nobody", json!(0));
        let data: Vec<_> = endpoints.stats().map(|(_, s)| s.data).collect();
        assert_eq!(data, [None, Some(json!({ "hits": 2 }))]);
    }

    #[test]
    fn replies_carry_the_identity() {
        let mut endpoints = two_endpoints();
        endpoints.record("sub", None, Duration::from_millis(1));
        let id = identity();
        let ping = id.ping();
        assert_eq!((ping.kind.as_str(), ping.name.as_str(), ping.id.as_str()), (PING_RESPONSE_TYPE, "calc", "ID1"));
        assert_eq!((ping.version.as_str(), &ping.metadata), ("1.0.0", &id.metadata));
        let info = id.info(&endpoints);
        assert_eq!((info.kind.as_str(), info.description.as_str()), (INFO_RESPONSE_TYPE, "adds"));
        assert_eq!(info.endpoints.len(), 2);
        let stats = id.stats(&endpoints);
        assert_eq!(
            (stats.kind.as_str(), stats.started, &stats.metadata),
            (STATS_RESPONSE_TYPE, id.started, &id.metadata)
        );
        assert_eq!(stats.endpoints.iter().map(|e| e.requests).collect::<Vec<_>>(), [0, 1]);
    }
}
