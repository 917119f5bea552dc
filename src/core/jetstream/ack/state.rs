//! What a checkpoint saves of a ledger: per consumer, the stream sequences
//! whose work the checkpoint holds and whose acks the server has not yet
//! confirmed. After a crash, the union of these states tells a restored
//! ledger which redeliveries are work already applied.

use serde::{Deserialize, Deserializer, Serialize};

use super::ranges::SeqRanges;
use crate::core::error::Error;

/// The format this release writes. A release reads every version up to its own.
pub const LEDGER_STATE_VERSION: u32 = 1;

/// A ledger's state at a checkpoint, to save atomically with the engine's
/// own state for that checkpoint. Serializes with serde (in JSON:
/// `{"version":1,"consumers":[{"stream":"S","consumer":"D","ranges":[[1,10000]]}]}`);
/// consecutive sequences are one range, so 100,000 messages without gaps
/// take a few dozen bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerState {
    #[serde(deserialize_with = "known_version")]
    pub version: u32,
    pub consumers: Vec<ConsumerState>,
}

/// One consumer's applied but not yet confirmed sequences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsumerState {
    pub stream: String,
    pub consumer: String,
    /// Inclusive `[first, last]` stream sequence ranges, lowest first.
    pub ranges: Vec<(u64, u64)>,
}

impl LedgerState {
    /// Stream sequences held, over all consumers.
    pub fn len(&self) -> u64 {
        self.consumers.iter().map(ConsumerState::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One state holding every sequence of `states`, per consumer: what a
    /// restore takes, and what an engine can save for workers it starts.
    pub fn union<'a>(states: impl IntoIterator<Item = &'a LedgerState>) -> LedgerState {
        let mut consumers: Vec<(ConsumerState, SeqRanges)> = Vec::new();
        for c in states.into_iter().flat_map(|state| &state.consumers) {
            let at = consumers.iter().position(|(k, _)| k.stream == c.stream && k.consumer == c.consumer);
            let at = at.unwrap_or_else(|| {
                let key = ConsumerState { stream: c.stream.clone(), consumer: c.consumer.clone(), ranges: Vec::new() };
                consumers.push((key, SeqRanges::new()));
                consumers.len() - 1
            });
            consumers[at].1.extend(&c.to_ranges());
        }
        let consumers = consumers
            .into_iter()
            .map(|(key, ranges)| ConsumerState { ranges: ranges.ranges().to_vec(), ..key })
            .collect();
        LedgerState { version: LEDGER_STATE_VERSION, consumers }
    }

    /// Checks what serde cannot: the ranges are well formed.
    pub fn validate(&self) -> Result<(), Error> {
        if self.version == 0 || self.version > LEDGER_STATE_VERSION {
            return Err(unknown_version(self.version));
        }
        for c in &self.consumers {
            if c.ranges.iter().any(|&(first, last)| first == 0 || first > last) {
                return Err(Error::InvalidArgument(format!(
                    "ledger state of consumer {} of stream {}: a range is empty or starts at 0",
                    c.consumer, c.stream
                )));
            }
        }
        Ok(())
    }
}

impl ConsumerState {
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|&(first, last)| last.saturating_sub(first) + 1).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges as a set.
    pub fn to_ranges(&self) -> SeqRanges {
        let mut ranges = SeqRanges::new();
        for &(first, last) in &self.ranges {
            ranges.insert_range(first, last);
        }
        ranges
    }
}

fn unknown_version(version: u32) -> Error {
    Error::InvalidArgument(format!(
        "ledger state version {version}: this release reads versions 1 to {LEDGER_STATE_VERSION}"
    ))
}

fn known_version<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let version = u32::deserialize(d)?;
    if version == 0 || version > LEDGER_STATE_VERSION {
        return Err(serde::de::Error::custom(unknown_version(version)));
    }
    Ok(version)
}
