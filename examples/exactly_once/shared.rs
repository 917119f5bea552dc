//! What the exactly-once example and its crash test must agree on: the
//! message payload, the SQLite schema and the lines the example prints.
// Each binary uses its half of this file.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

/// The tables. `aggregate` is the engine's state: per key, how many values
/// and their sum, which cannot tell a duplicate from a new message.
/// `ledger_state` is the checkpoint ledger's state, one row per worker
/// index, written in the same transaction as the aggregate's deltas.
/// `applied_log` is the crash test's evidence only (how many times each
/// message id's effect was applied); the workers never read it.
const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS aggregate (key INTEGER PRIMARY KEY, count INTEGER NOT NULL, sum INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS ledger_state (worker INTEGER PRIMARY KEY, state TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS applied_log (id INTEGER PRIMARY KEY, times INTEGER NOT NULL);
";

/// Opens (and creates) the database: WAL so that readers never wait for the
/// workers, and a busy timeout so that workers wait for each other's commits
/// instead of failing.
pub fn open_db(path: &Path) -> rusqlite::Result<Connection> {
    let db = Connection::open(path)?;
    db.busy_timeout(Duration::from_secs(30))?;
    db.pragma_update(None, "journal_mode", "WAL")?;
    db.execute_batch(SCHEMA)?;
    Ok(db)
}

/// One input message: an id (unique per message, for the evidence only), a
/// key and a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Input {
    pub id: u64,
    pub key: u32,
    pub value: u64,
}

impl Input {
    pub fn payload(&self) -> String {
        format!("{} {} {}", self.id, self.key, self.value)
    }

    pub fn parse(payload: &[u8]) -> Option<Input> {
        let text = std::str::from_utf8(payload).ok()?;
        let mut words = text.split(' ').map(str::parse::<u64>);
        let (id, key, value) = (words.next()?.ok()?, words.next()?.ok()?, words.next()?.ok()?);
        Some(Input { id, key: u32::try_from(key).ok()?, value })
    }
}

/// Printed by a worker between its database commit and its acks when
/// `NATSJET_PAUSE_AFTER_DB_COMMIT_MS` is set: a kill now must not apply twice.
pub const PAUSE_MARKER: &str = "in-pause-window";
/// Printed once per start of the workers: `ready generation=G workers=N restored=SEQUENCES`.
pub const READY: &str = "ready";
/// Printed after each worker's checkpoint, with its ledger's counts so far.
pub const CHECKPOINT: &str = "checkpoint";
/// The example's last line: the counts of every worker's ledger.
pub const DONE: &str = "exactly_once done:";

/// The `name=value` words of a line, as numbers.
pub fn field(line: &str, name: &str) -> Option<u64> {
    line.split(' ').find_map(|word| word.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
}
