//! What a checkpoint saves of a ledger: per consumer, the stream sequences
//! whose work the checkpoint holds and whose acks the server has not yet
//! confirmed. After a crash, the union of these states tells a restored
//! ledger which redeliveries are work already applied.

use serde::{Deserialize, Deserializer, Serialize};

use super::ranges::SeqRanges;
use crate::core::error::Error;

/// The format this release writes. A release reads every version up to its
/// own: 1 wrote each range as `[first, last]`; 2 writes them as `runs`.
pub const LEDGER_STATE_VERSION: u32 = 2;

/// A ledger's state at a checkpoint, to save atomically with the engine's
/// own state for that checkpoint. Serializes with serde (in JSON:
/// `{"version":2,"consumers":[{"stream":"S","consumer":"D","runs":[1,9999]}]}`);
/// consecutive sequences are one range, so 100,000 messages without gaps
/// take a few dozen bytes. `runs` is the ranges as differences: the first
/// sequence and how many follow it in the range, then for each next range
/// its distance from the end of the one before and how many follow its
/// first. Workers sharing a durable hold interleaved sequences, many short
/// ranges close together: small numbers, about a third of the
/// `[first, last]` pairs' text, one flat array to read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerState {
    /// The format it was written in ([`LEDGER_STATE_VERSION`] when this release wrote it).
    #[serde(deserialize_with = "known_version")]
    pub version: u32,
    /// One entry per consumer the ledger tracked messages of.
    pub consumers: Vec<ConsumerState>,
}

/// One consumer's applied but not yet confirmed sequences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "WireConsumer", into = "WireConsumer")]
pub struct ConsumerState {
    /// The stream the sequences are of.
    pub stream: String,
    /// The durable consumer the messages came through.
    pub consumer: String,
    /// Inclusive `[first, last]` stream sequence ranges, lowest first.
    pub ranges: Vec<(u64, u64)>,
}

impl LedgerState {
    /// Stream sequences held, over all consumers.
    pub fn len(&self) -> u64 {
        self.consumers.iter().map(ConsumerState::len).sum()
    }

    /// Whether no consumer holds a sequence.
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
    /// Stream sequences held.
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|&(first, last)| last.saturating_sub(first) + 1).sum()
    }

    /// Whether it holds no sequence.
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

    /// The ranges as version 2's `runs` (see [`LedgerState`]), each number
    /// through `number` (the wasm hands JS floats, without JSON).
    pub(crate) fn runs<N>(&self, number: impl Fn(u64) -> N) -> Vec<N> {
        // A ledger's ranges are sorted and apart; ranges made by hand may not be.
        let apart = self.ranges.windows(2).all(|w| w[0].1 < w[1].0 && w[1].0 - w[0].1 > 1);
        let merged;
        let ranges = match apart && self.ranges.iter().all(|&(first, last)| first <= last) {
            true => &self.ranges[..],
            false => {
                merged = self.to_ranges();
                merged.ranges()
            }
        };
        let mut runs = Vec::with_capacity(ranges.len() * 2);
        let mut end = 0;
        for (i, &(first, last)) in ranges.iter().enumerate() {
            runs.push(number(if i == 0 { first } else { first - end }));
            runs.push(number(last - first));
            end = last;
        }
        runs
    }
}

/// [`ConsumerState`] as saved: `runs` (version 2), or `ranges` (version 1).
#[derive(Serialize, Deserialize)]
struct WireConsumer {
    stream: String,
    consumer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ranges: Option<Vec<(u64, u64)>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    runs: Option<Vec<u64>>,
}

impl From<ConsumerState> for WireConsumer {
    fn from(state: ConsumerState) -> Self {
        let runs = state.runs(|n| n);
        WireConsumer { stream: state.stream, consumer: state.consumer, ranges: None, runs: Some(runs) }
    }
}

impl TryFrom<WireConsumer> for ConsumerState {
    type Error = String;

    fn try_from(wire: WireConsumer) -> Result<Self, String> {
        let ranges = match (wire.ranges, wire.runs) {
            (Some(ranges), None) => ranges,
            (None, Some(runs)) => from_runs(&runs).ok_or_else(|| {
                format!(
                    "ledger state of consumer {} of stream {}: runs must be pairs of numbers, each range after the one before",
                    wire.consumer, wire.stream
                )
            })?,
            _ => return Err("ledger state: a consumer needs either ranges or runs".into()),
        };
        Ok(ConsumerState { stream: wire.stream, consumer: wire.consumer, ranges })
    }
}

/// The ranges of `runs`; `None` when they are not pairs or go backwards or past `u64::MAX`.
fn from_runs(runs: &[u64]) -> Option<Vec<(u64, u64)>> {
    if runs.len() % 2 == 1 {
        return None;
    }
    let mut ranges = Vec::with_capacity(runs.len() / 2);
    let mut end = 0u64;
    for (i, pair) in runs.chunks_exact(2).enumerate() {
        let first = if i == 0 { pair[0] } else { end.checked_add(pair[0]).filter(|_| pair[0] > 0)? };
        end = first.checked_add(pair[1])?;
        ranges.push((first, end));
    }
    Some(ranges)
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
