//! Loss accounting for fault tests: which message ids were published, which
//! the server acknowledged, which consumers processed and acked (and how
//! often), and the one line every fault test prints:
//! `published / acked by the server / consumed and acked / redelivered /
//! duplicates / lost`. Lost counts server-acked ids never consumed and
//! acked; duplicates count extra acked deliveries of an id.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Tally {
    published: BTreeSet<u64>,
    server_acked: BTreeSet<u64>,
    /// Acked deliveries per id.
    consumed: BTreeMap<u64, u64>,
    /// Deliveries whose delivery count was above one.
    redelivered: u64,
}

/// Shared by the publisher and every consumer of one test; clones share it.
#[derive(Clone, Default)]
pub struct LossLedger(Arc<Mutex<Tally>>);

/// The figures of one run, as printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossReport {
    pub published: u64,
    pub server_acked: u64,
    pub consumed: u64,
    pub redelivered: u64,
    pub duplicates: u64,
    pub lost: u64,
}

impl LossLedger {
    pub fn new() -> Self {
        Self::default()
    }

    /// Id `id` was handed to the client for publishing (retries count once).
    pub fn published(&self, id: u64) {
        self.0.lock().unwrap().published.insert(id);
    }

    /// The server acknowledged id `id` (a PubAck, or a stored message seen later).
    pub fn server_acked(&self, id: u64) {
        self.0.lock().unwrap().server_acked.insert(id);
    }

    /// A consumer processed id `id` (delivery count `delivered`) and acked it.
    pub fn consumed(&self, id: u64, delivered: i64) {
        let mut t = self.0.lock().unwrap();
        *t.consumed.entry(id).or_default() += 1;
        if delivered > 1 {
            t.redelivered += 1;
        }
    }

    /// Distinct ids consumed and acked so far.
    pub fn consumed_count(&self) -> usize {
        self.0.lock().unwrap().consumed.len()
    }

    /// Server-acked ids not yet consumed and acked.
    pub fn missing(&self) -> Vec<u64> {
        let t = self.0.lock().unwrap();
        t.server_acked.iter().filter(|id| !t.consumed.contains_key(id)).copied().collect()
    }

    pub fn report(&self) -> LossReport {
        let t = self.0.lock().unwrap();
        LossReport {
            published: t.published.len() as u64,
            server_acked: t.server_acked.len() as u64,
            consumed: t.consumed.len() as u64,
            redelivered: t.redelivered,
            duplicates: t.consumed.values().map(|n| n - 1).sum(),
            lost: t.server_acked.iter().filter(|id| !t.consumed.contains_key(id)).count() as u64,
        }
    }

    /// Prints the line for `test` and asserts nothing was lost and at most
    /// `max_duplicates` duplicates.
    pub fn check(&self, test: &str, max_duplicates: u64) -> LossReport {
        let r = self.report();
        println!(
            "fault {test}: published {} / acked by server {} / consumed and acked {} / redelivered {} / duplicates {} / lost {}",
            r.published, r.server_acked, r.consumed, r.redelivered, r.duplicates, r.lost
        );
        assert_eq!(r.lost, 0, "{test}: lost ids {:?}", &self.missing()[..r.lost.min(20) as usize]);
        assert!(
            r.duplicates <= max_duplicates,
            "{test}: {} duplicates, at most {max_duplicates} allowed",
            r.duplicates
        );
        r
    }
}
