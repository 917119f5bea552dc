//! The Key-Value store's reads, sans-IO: the entry a get or a watch's
//! message holds, and a watch that leaves deletes and purges out without
//! losing its caught-up signal. The `jetstream::kv` API folder (and the
//! fuzz checks) read through them.

use std::collections::VecDeque;
use std::time::SystemTime;

use super::entry::{Entry, Operation, value_len};
use crate::core::error::{Error, ProtocolError};
use crate::core::jetstream::ack::DeliveryNumbers;
use crate::core::jetstream::api::timestamp;
use crate::core::jetstream::raw_message::StreamMessage;
use crate::core::message::Message;

/// An entry and the size of its value.
pub(crate) type SizedEntry = (Entry, usize);

/// The entry of `key` a get read (its subject `subject`), and its value's
/// size; `None` when the message is another key's.
pub(crate) fn stored_entry(bucket: &str, key: &str, subject: &str, message: StreamMessage) -> Option<(Entry, usize)> {
    if message.subject != subject {
        return None;
    }
    let len = value_len(Some(&message.headers), &message.payload);
    let entry = Entry {
        bucket: bucket.to_string(),
        key: key.to_string(),
        operation: Operation::of(Some(&message.headers)),
        created: message.timestamp().unwrap_or(SystemTime::UNIX_EPOCH),
        value: message.payload,
        revision: message.sequence,
        delta: 0,
        seen_current: false,
    };
    Some((entry, len))
}

/// The entry a watch's message holds: its key is the subject after
/// `prefix` (`$KV.<bucket>.`), its revision and age come from the ack
/// subject's `numbers`.
pub(crate) fn watched_entry(
    bucket: &str,
    prefix: &str,
    seen_current: bool,
    message: Message,
    numbers: DeliveryNumbers,
) -> Result<SizedEntry, Error> {
    let Message { subject, payload: value, headers, .. } = message;
    let Some(key) = subject.strip_prefix(prefix) else {
        return Err(Error::Protocol(ProtocolError::Store(format!("watch got subject {subject:?} outside {prefix:?}"))));
    };
    let headers = headers.as_ref();
    let len = value_len(headers, &value);
    let entry = Entry {
        bucket: bucket.to_string(),
        key: key.to_string(),
        value,
        revision: numbers.stream_sequence,
        delta: numbers.pending,
        created: timestamp::from_unix_nanos(numbers.timestamp_nanos),
        operation: Operation::of(headers),
        seen_current,
    };
    Ok((entry, len))
}

/// Leaves deletes and purges out of a watch without losing the caught-up
/// signal: while initial entries are still to come, the last put is held
/// until the next entry says whether a delete left out completed them.
#[derive(Debug, Default)]
pub(crate) struct PutsOnly {
    held: Option<SizedEntry>,
    ready: VecDeque<SizedEntry>,
}

impl PutsOnly {
    pub(crate) fn handle_entry(&mut self, entry: SizedEntry) {
        match (entry.0.operation, entry.0.seen_current) {
            (Operation::Put, false) => self.ready.extend(self.held.replace(entry)),
            (Operation::Put, true) => {
                self.ready.extend(self.held.take());
                self.ready.push_back(entry);
            }
            (_, false) => {}
            (_, true) => {
                if let Some(mut held) = self.held.take() {
                    held.0.seen_current = true;
                    self.ready.push_back(held);
                }
            }
        }
    }

    /// Nothing more comes to decide about a held entry: hand it out as is.
    pub(crate) fn handle_end(&mut self) {
        self.ready.extend(self.held.take());
    }

    pub(crate) fn poll_entry(&mut self) -> Option<SizedEntry> {
        self.ready.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn entry(revision: u64, operation: Operation, seen_current: bool) -> SizedEntry {
        let key = format!("k{revision}");
        let created = SystemTime::UNIX_EPOCH;
        let value = bytes::Bytes::new();
        (Entry { bucket: "b".into(), key, value, revision, delta: 0, created, operation, seen_current }, 0)
    }

    fn drain(puts: &mut PutsOnly) -> Vec<(u64, bool)> {
        std::iter::from_fn(|| puts.poll_entry()).map(|(e, _)| (e.revision, e.seen_current)).collect()
    }

    #[test]
    fn a_left_out_delete_that_completes_the_initial_entries_marks_the_last_put() {
        let mut puts = PutsOnly::default();
        puts.handle_entry(entry(1, Operation::Put, false));
        assert_eq!(drain(&mut puts), [], "held: a left-out delete may complete them next");
        puts.handle_entry(entry(2, Operation::Put, false));
        assert_eq!(drain(&mut puts), [(1, false)]);
        puts.handle_entry(entry(3, Operation::Delete, false));
        puts.handle_entry(entry(4, Operation::Purge, true));
        assert_eq!(drain(&mut puts), [(2, true)]);
        puts.handle_entry(entry(5, Operation::Delete, true));
        puts.handle_entry(entry(6, Operation::Put, true));
        assert_eq!(drain(&mut puts), [(6, true)], "changes pass, deletes still left out");
    }

    #[test]
    fn a_put_that_completes_the_initial_entries_follows_the_held_one() {
        let mut puts = PutsOnly::default();
        puts.handle_entry(entry(1, Operation::Put, false));
        puts.handle_entry(entry(2, Operation::Put, true));
        assert_eq!(drain(&mut puts), [(1, false), (2, true)]);
    }

    #[test]
    fn the_end_hands_out_what_is_held() {
        let mut puts = PutsOnly::default();
        puts.handle_entry(entry(1, Operation::Put, false));
        puts.handle_end();
        assert_eq!(drain(&mut puts), [(1, false)]);
        puts.handle_entry(entry(2, Operation::Delete, true));
        assert_eq!(drain(&mut puts), [], "no put to carry the signal");
    }
}
