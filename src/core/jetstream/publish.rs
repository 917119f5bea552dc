//! [`Publish`]: a message for a JetStream publish plus the headers that let
//! the stream dedupe it or refuse it (optimistic concurrency), make it a
//! schedule or cancel one (ADR-51), and their names on the wire
//! (`server/stream.go`, ADR-43 for `Nats-TTL`).

use std::time::Duration;

use bytes::Bytes;

use crate::core::error::Error;
use crate::core::header::{HeaderMap, IntoHeaderValue, NATS_EXPECTED_LAST_SUBJECT_SEQUENCE_SUBJECT};
use crate::core::jetstream::schedule::{self, Schedule, write_cancel};

/// De-duplication id: a second message with the same id within the stream's
/// `duplicate_window` is acknowledged as a duplicate and not stored.
pub const NATS_MESSAGE_ID: &str = "Nats-Msg-Id";
/// The stream that must capture the subject.
pub const NATS_EXPECTED_STREAM: &str = "Nats-Expected-Stream";
/// The stream's last sequence must be this.
pub const NATS_EXPECTED_LAST_SEQUENCE: &str = "Nats-Expected-Last-Sequence";
/// The last sequence on this message's subject must be this (0: no message yet).
pub const NATS_EXPECTED_LAST_SUBJECT_SEQUENCE: &str = "Nats-Expected-Last-Subject-Sequence";
/// The stream's last message must have had this `Nats-Msg-Id`.
pub const NATS_EXPECTED_LAST_MESSAGE_ID: &str = "Nats-Expected-Last-Msg-Id";
/// Per-message time to live; the stream needs `allow_msg_ttl`.
pub const NATS_MESSAGE_TTL: &str = "Nats-TTL";

/// A message to publish with [`Context::send_publish`](crate::jetstream::Context::send_publish),
/// built like async-nats's `Publish`: `Publish::build().payload(p).message_id("id")`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Publish {
    pub(crate) payload: Bytes,
    pub(crate) headers: Option<HeaderMap>,
}

impl Publish {
    /// An empty message (no payload, no headers).
    pub fn build() -> Self {
        Self::default()
    }

    /// The headers so far: a Key-Value write from JS goes out through the
    /// JetStream API's publish export with them.
    #[cfg(any(test, all(feature = "wasm-kv", target_arch = "wasm32")))]
    pub(crate) fn header_map(&self) -> Option<&HeaderMap> {
        self.headers.as_ref()
    }

    /// Sets the payload.
    pub fn payload(mut self, payload: Bytes) -> Self {
        self.payload = payload;
        self
    }

    /// Replaces every header set so far.
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        self.headers = Some(headers);
        self
    }

    /// Sets one header, replacing its earlier values.
    pub fn header(mut self, name: impl Into<String>, value: impl IntoHeaderValue) -> Self {
        self.headers.get_or_insert_with(HeaderMap::new).insert(name, value);
        self
    }

    /// Sets `Nats-Msg-Id`: the stream stores a message with an id it saw within
    /// its `duplicate_window` only once (the ack then says `duplicate`).
    pub fn message_id(self, id: impl AsRef<str>) -> Self {
        self.header(NATS_MESSAGE_ID, id.as_ref())
    }

    /// Sets `Nats-Expected-Stream`: refused (10060) unless the subject is
    /// stored by the stream of this name.
    pub fn expected_stream(self, stream: impl AsRef<str>) -> Self {
        self.header(NATS_EXPECTED_STREAM, stream.as_ref())
    }

    /// Sets `Nats-Expected-Last-Sequence`: refused (10071) unless the stream's
    /// last sequence is `sequence`.
    pub fn expected_last_sequence(self, sequence: u64) -> Self {
        self.header(NATS_EXPECTED_LAST_SEQUENCE, sequence.to_string())
    }

    /// Sets `Nats-Expected-Last-Subject-Sequence`: refused (10071) unless the
    /// last message on this subject has sequence `sequence` (0: there is none).
    pub fn expected_last_subject_sequence(self, sequence: u64) -> Self {
        self.header(NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, sequence.to_string())
    }

    /// Checks [`expected_last_subject_sequence`](Self::expected_last_subject_sequence)
    /// on `subject` (wildcards allowed) instead of the message's own subject.
    pub fn expected_last_subject_sequence_subject(self, subject: impl AsRef<str>) -> Self {
        self.header(NATS_EXPECTED_LAST_SUBJECT_SEQUENCE_SUBJECT, subject.as_ref())
    }

    /// Sets `Nats-Expected-Last-Msg-Id`: refused (10070) unless the stream's
    /// last message has this `Nats-Msg-Id`.
    pub fn expected_last_message_id(self, id: impl AsRef<str>) -> Self {
        self.header(NATS_EXPECTED_LAST_MESSAGE_ID, id.as_ref())
    }

    /// The message expires `ttl` after it is stored. The server counts whole
    /// seconds (at least one), so a fractional `ttl` is sent as a Go duration
    /// and truncated there, never rounded here.
    pub fn ttl(self, ttl: Duration) -> Self {
        self.header(NATS_MESSAGE_TTL, ttl_value(ttl))
    }

    /// Makes the message a schedule (ADR-51; the stream needs
    /// `allow_msg_schedules`): the stream publishes it to the schedule's
    /// target when it says. One schedule per subject: a new one replaces it.
    pub fn schedule(mut self, schedule: Schedule) -> Self {
        schedule.write(self.headers.get_or_insert_with(HeaderMap::new));
        self
    }

    /// Stops the schedule stored on `schedule_subject` when this message is
    /// stored, atomically (server 2.14): publish it to the schedule's target
    /// to fire early, or to any other subject but the schedule's own.
    pub fn cancel_schedule(mut self, schedule_subject: impl AsRef<str>) -> Self {
        write_cancel(schedule_subject.as_ref(), self.headers.get_or_insert_with(HeaderMap::new));
        self
    }

    /// Refuses, before a byte is written, schedule headers nats.js refuses
    /// for a message to `subject` (see [`schedule::check`](super::schedule::check)).
    pub(crate) fn check_for(&self, subject: &str) -> Result<(), Error> {
        match &self.headers {
            Some(headers) => schedule::check(subject, headers),
            None => Ok(()),
        }
    }
}

/// `ttl` as `Nats-TTL` and `Nats-Schedule-TTL` take it: whole seconds, or a
/// Go duration in nanoseconds when fractional (the server truncates).
pub(crate) fn ttl_value(ttl: Duration) -> String {
    if ttl.subsec_nanos() == 0 { ttl.as_secs().to_string() } else { format!("{}ns", ttl.as_nanos()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn builder_sets_the_wire_headers() {
        let publish = Publish::build()
            .payload(Bytes::from_static(b"data"))
            .message_id("m1")
            .expected_stream("ORDERS")
            .expected_last_sequence(7)
            .expected_last_subject_sequence(0)
            .expected_last_subject_sequence_subject("orders.*")
            .expected_last_message_id("m0")
            .ttl(Duration::from_secs(90));
        let headers = publish.headers.unwrap();
        let pairs: Vec<_> = headers.iter().collect();
        assert_eq!(
            pairs,
            [
                ("Nats-Msg-Id", "m1"),
                ("Nats-Expected-Stream", "ORDERS"),
                ("Nats-Expected-Last-Sequence", "7"),
                ("Nats-Expected-Last-Subject-Sequence", "0"),
                ("Nats-Expected-Last-Subject-Sequence-Subject", "orders.*"),
                ("Nats-Expected-Last-Msg-Id", "m0"),
                ("Nats-TTL", "90"),
            ]
        );
        assert_eq!(publish.payload, "data");
    }

    #[test]
    fn later_headers_replace_earlier_ones() {
        let mut base = HeaderMap::new();
        base.insert("X", "1");
        let publish = Publish::build().message_id("lost").headers(base).message_id("a").message_id("b");
        let headers = publish.headers.unwrap();
        assert_eq!(headers.iter().collect::<Vec<_>>(), [("X", "1"), ("Nats-Msg-Id", "b")]);
    }

    #[test]
    fn fractional_ttl_is_a_go_duration() {
        let publish = Publish::build().ttl(Duration::from_millis(1500));
        assert_eq!(publish.headers.unwrap().get(NATS_MESSAGE_TTL).map(|v| v.as_str()), Some("1500000000ns"));
    }
}
