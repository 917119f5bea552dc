//! Entries packed for one crossing of the wasm boundary (`RawEntries`),
//! as messages are in [`crate::wasm::batch`]: one `Uint8Array` with every
//! entry's key and value, one `Float64Array` with its numbers: Key-Value
//! entries (keys too: entries without values).

use std::time::UNIX_EPOCH;

use js_sys::{Array, Float64Array, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::jetstream::kv::{Entry, Operation};

#[wasm_bindgen(typescript_custom_section)]
const TS_ENTRIES: &str = r#"
/**
 * Entries packed for one crossing. `bytes` holds each entry's key, then its
 * value; `meta` holds 7 numbers per entry: the end of its key and of its
 * value in `bytes`, its revision, delta, creation time (Unix ms), the
 * value's length (also for headers only) and flags (operation: 0 PUT, 1 DEL,
 * 2 PURGE; + 4 when the watch has caught up with it). `caughtUp`: the watch
 * has handed out, with the last entry here, all that existed when it started.
 */
export type RawEntries = [bytes: Uint8Array, meta: Float64Array, caughtUp: boolean];
"#;

/// Numbers per entry in `meta`.
const FIELDS: usize = 7;
/// The flag of an entry the watch caught up with.
const CAUGHT_UP: u8 = 4;

/// Entries (or keys) on their way to JS.
#[derive(Default)]
pub(crate) struct Packed {
    bytes: Vec<u8>,
    meta: Vec<f64>,
}

impl Packed {
    /// Adds `entry`, whose value is `len` bytes long.
    pub(crate) fn entry(&mut self, entry: &Entry, len: usize) {
        // Whole milliseconds without a u128 (whose conversion to f64 the wasm would link).
        let created = entry
            .created
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs() as f64 * 1e3 + f64::from(d.subsec_millis()));
        let operation = match entry.operation {
            Operation::Put => 0,
            Operation::Delete => 1,
            Operation::Purge => 2,
        };
        let flags = operation | if entry.seen_current { CAUGHT_UP } else { 0 };
        let numbers = [entry.revision as f64, entry.delta as f64, created, len as f64, f64::from(flags)];
        self.push(entry.key.as_bytes(), &entry.value, numbers);
    }

    fn push(&mut self, key: &[u8], value: &[u8], numbers: [f64; FIELDS - 2]) {
        self.bytes.extend_from_slice(key);
        self.meta.push(self.bytes.len() as f64);
        self.bytes.extend_from_slice(value);
        self.meta.push(self.bytes.len() as f64);
        self.meta.extend_from_slice(&numbers);
    }

    /// The `RawEntries` of what was added.
    pub(crate) fn to_js(&self, caught_up: bool) -> Array {
        let bytes = Uint8Array::from(&self.bytes[..]);
        Array::of3(&bytes, &Float64Array::from(&self.meta[..]), &caught_up.into())
    }
}
