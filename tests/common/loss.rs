//! Loss accounting for fault tests: which message ids were published, which
//! the server acknowledged, which consumers processed and acked (and how
//! often), and the one line every fault test prints:
//! `published / acked by the server / consumed and acked / redelivered /
//! duplicates / lost`. Lost counts server-acked ids never consumed and
//! acked; duplicates count extra acked deliveries of an id.

use std::sync::{Arc, Mutex};

/// Per id (ids are small dense integers: indexes): a byte of flags and the
/// count of acked deliveries, so a soak of millions stays a few MiB.
#[derive(Default)]
struct Tally {
    flags: Vec<u8>,
    consumed: Vec<u16>,
    published: u64,
    server_acked: u64,
    distinct_consumed: u64,
    duplicates: u64,
    /// Deliveries whose delivery count was above one.
    redelivered: u64,
}

const PUBLISHED: u8 = 1;
const SERVER_ACKED: u8 = 2;

impl Tally {
    fn slot(&mut self, id: u64) -> usize {
        let i = usize::try_from(id).expect("a small id");
        if i >= self.flags.len() {
            self.flags.resize(i + 1, 0);
            self.consumed.resize(i + 1, 0);
        }
        i
    }

    /// Sets `flag` on `id`; true when it was not set.
    fn mark(&mut self, id: u64, flag: u8) -> bool {
        let i = self.slot(id);
        let new = self.flags[i] & flag == 0;
        self.flags[i] |= flag;
        new
    }

    fn lost(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.flags.len()).filter(|&i| self.flags[i] & SERVER_ACKED != 0 && self.consumed[i] == 0).map(|i| i as u64)
    }
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
        let mut t = self.0.lock().unwrap();
        if t.mark(id, PUBLISHED) {
            t.published += 1;
        }
    }

    /// The server acknowledged id `id` (a PubAck, or a stored message seen later).
    pub fn server_acked(&self, id: u64) {
        let mut t = self.0.lock().unwrap();
        if t.mark(id, SERVER_ACKED) {
            t.server_acked += 1;
        }
    }

    /// A consumer processed id `id` (delivery count `delivered`) and acked it.
    pub fn consumed(&self, id: u64, delivered: i64) {
        let mut t = self.0.lock().unwrap();
        let i = t.slot(id);
        if t.consumed[i] == 0 {
            t.distinct_consumed += 1;
        } else {
            t.duplicates += 1;
        }
        t.consumed[i] = t.consumed[i].saturating_add(1);
        if delivered > 1 {
            t.redelivered += 1;
        }
    }

    /// Distinct ids consumed and acked so far.
    pub fn consumed_count(&self) -> usize {
        self.0.lock().unwrap().distinct_consumed as usize
    }

    /// Ids the server acked that are not consumed yet.
    pub fn backlog(&self) -> u64 {
        let t = self.0.lock().unwrap();
        t.server_acked.saturating_sub(t.distinct_consumed)
    }

    /// Bytes the ledger holds (the soak reports memory beside it).
    pub fn footprint(&self) -> usize {
        let t = self.0.lock().unwrap();
        t.flags.capacity() + t.consumed.capacity() * 2
    }

    /// Server-acked ids not yet consumed and acked.
    pub fn missing(&self) -> Vec<u64> {
        self.0.lock().unwrap().lost().collect()
    }

    pub fn report(&self) -> LossReport {
        let t = self.0.lock().unwrap();
        LossReport {
            published: t.published,
            server_acked: t.server_acked,
            consumed: t.distinct_consumed,
            redelivered: t.redelivered,
            duplicates: t.duplicates,
            lost: t.lost().count() as u64,
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
