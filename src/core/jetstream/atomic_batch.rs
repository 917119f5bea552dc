//! Atomic batch publish (ADR-50, nats-server 2.12, streams with
//! `allow_atomic`), sans-IO: the stream stores every message of a batch or
//! none. Each message carries `Nats-Batch-Id` and a gapless
//! `Nats-Batch-Sequence` (1, 2, …); the last one also `Nats-Batch-Commit: 1`
//! (stored) or `eob` (not stored, server 2.14). The first goes as a request
//! (the server answers an empty message, or the error that refuses the batch:
//! `allow_atomic` off, too many open batches), later ones publish without a
//! reply unless acknowledged on purpose, and the commit's answer is the
//! batch's [`PublishAck`] with its id and size, or the error that threw the
//! whole batch away (an expectation that failed, a lost or abandoned batch,
//! one over the server's size limit).
//!
//! [`AtomicBatch`] numbers the messages, writes their headers, refuses what
//! the server would reject the whole batch for before a byte is written,
//! reads the answers and keeps the deadline of each one awaited. Time is an
//! input. A batch ends committed or closed by its first error (sticky);
//! a closed batch is never committed, so the server drops what it staged.
//! The `jetstream` API (Rust `BatchPublish`, and the wasm's `startBatch`
//! through it) sends what it returns.

use std::time::Duration;

use bytes::Bytes;

use crate::core::error::{Error, ProtocolError};
use crate::core::header::{
    HeaderMap, HeaderValue, NATS_BATCH_COMMIT, NATS_BATCH_ID, NATS_BATCH_SEQUENCE, NATS_EXPECTED_LAST_MESSAGE_ID,
    NATS_EXPECTED_LAST_SEQUENCE,
};
use crate::core::jetstream::api::{self, PublishAck};
use crate::core::jetstream::publish::Publish;
use crate::core::jetstream::schedule;
use crate::core::time::{Clock, Instant};

/// The longest batch id the server takes.
const MAX_BATCH_ID_LEN: usize = 64;

/// One message of the batch, ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchMessage {
    pub subject: String,
    pub headers: HeaderMap,
    pub payload: Bytes,
    /// The batch sequence whose answer to await (send it as a request);
    /// `None`: publish it without a reply.
    pub awaits: Option<u64>,
}

/// An awaited answer, read.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchReply {
    /// The server staged the batch up to this message.
    Staged,
    /// The batch is stored.
    Committed(PublishAck),
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    Open,
    /// The commit is sent; `eob`: without a message of its own.
    Committing {
        eob: bool,
    },
    Committed,
    /// Ended by this error; nothing more is sent.
    Closed(Error),
}

/// The sequence numbers, headers and answers of one atomic batch.
#[derive(Debug)]
pub struct AtomicBatch {
    id: String,
    /// Messages sent: the batch sequence of the last one.
    sent: u64,
    /// Every `n`th message is acknowledged (flow control).
    ack_every: Option<u64>,
    timeout: Duration,
    /// The subject of the first message, where an `eob` commit goes.
    first_subject: Option<String>,
    /// Answers awaited: batch sequence and deadline, oldest first.
    awaiting: Vec<(u64, Instant)>,
    state: State,
    clock: Clock,
}

impl AtomicBatch {
    /// A batch named `id` (a NUID: at most 64 characters, no whitespace)
    /// whose answers are awaited up to `timeout` each, acknowledging every
    /// `ack_every`th message (at least 1) as well as the first.
    pub fn new(id: String, timeout: Duration, ack_every: Option<u64>) -> Self {
        debug_assert!(id.len() <= MAX_BATCH_ID_LEN && !id.contains(char::is_whitespace), "batch id {id}");
        let (awaiting, state, clock) = (Vec::new(), State::Open, Clock::default());
        let ack_every = ack_every.filter(|n| *n > 0);
        AtomicBatch { id, sent: 0, ack_every, timeout, first_subject: None, awaiting, state, clock }
    }

    /// Messages sent so far (the commit included once sent).
    pub fn size(&self) -> u64 {
        self.sent
    }

    /// Whether more messages or the commit may be sent.
    pub fn is_open(&self) -> bool {
        self.state == State::Open
    }

    /// The error that closed the batch, if one did.
    pub fn closed_by(&self) -> Option<&Error> {
        match &self.state {
            State::Closed(e) => Some(e),
            _ => None,
        }
    }

    /// The next message: `message`'s payload and headers to `subject`,
    /// awaited when `ack`, when it is the first, or every `ack_every`th.
    /// Refusing it (a header the batch would fail for) leaves the batch as
    /// it was.
    pub fn add(&mut self, subject: &str, message: Publish, ack: bool, now: Instant) -> Result<BatchMessage, Error> {
        self.next(subject, message, ack, None, now)
    }

    /// The last message, with `Nats-Batch-Commit: 1`: stored with the others.
    pub fn commit(&mut self, subject: &str, message: Publish, now: Instant) -> Result<BatchMessage, Error> {
        self.next(subject, message, true, Some(false), now)
    }

    /// Ends the batch without a message of its own (`Nats-Batch-Commit: eob`,
    /// server 2.14): an empty message to the first message's subject that
    /// the server does not store.
    pub fn commit_eob(&mut self, now: Instant) -> Result<BatchMessage, Error> {
        let subject =
            self.first_subject.clone().ok_or(Error::ApiMisuse("an empty batch cannot end without a message"))?;
        self.next(&subject, Publish::build(), true, Some(true), now)
    }

    /// `commit`: `Some(eob)` for the last message.
    fn next(
        &mut self,
        subject: &str,
        message: Publish,
        ack: bool,
        commit: Option<bool>,
        now: Instant,
    ) -> Result<BatchMessage, Error> {
        let now = self.clock.advance(now);
        if self.state != State::Open {
            return Err(Error::ApiMisuse("batch publisher is done"));
        }
        let seq = self.sent + 1;
        let mut headers = message.headers.unwrap_or_default();
        check_headers(&headers, seq)?;
        schedule::check(subject, &headers)?;
        headers.insert(NATS_BATCH_ID, self.id.as_str());
        headers.insert(NATS_BATCH_SEQUENCE, HeaderValue::from(seq));
        if let Some(eob) = commit {
            headers.insert(NATS_BATCH_COMMIT, if eob { "eob" } else { "1" });
            self.state = State::Committing { eob };
        }
        let awaited = ack || seq == 1 || self.ack_every.is_some_and(|n| seq % n == 0);
        if awaited {
            self.awaiting.push((seq, now + self.timeout));
        }
        self.sent = seq;
        self.first_subject.get_or_insert_with(|| subject.to_string());
        let awaits = awaited.then_some(seq);
        Ok(BatchMessage { subject: subject.to_string(), headers, payload: message.payload, awaits })
    }

    /// The answer to message `seq`, or the error its request ended with
    /// (no responders: no stream captures the subject). A refusal closes the
    /// batch; the commit's answer must name this batch and its size.
    pub fn handle_reply(&mut self, seq: u64, answer: Result<&[u8], Error>) -> Result<BatchReply, Error> {
        let Some(at) = self.awaiting.iter().position(|(s, _)| *s == seq) else {
            // Given up on (timed out) or never awaited: the batch's state says.
            return Err(self.closed_by().cloned().unwrap_or(Error::ApiMisuse("no answer awaited for this message")));
        };
        self.awaiting.remove(at);
        let read = answer.and_then(|payload| match self.state {
            State::Committing { eob } if seq == self.sent => self.read_commit(payload, eob).map(BatchReply::Committed),
            _ => api::check_response(payload).map(|()| BatchReply::Staged),
        });
        match &read {
            Ok(BatchReply::Committed(_)) => self.state = State::Committed,
            Ok(BatchReply::Staged) => {}
            Err(e) => self.close(e.clone()),
        }
        read
    }

    fn read_commit(&self, payload: &[u8], eob: bool) -> Result<PublishAck, Error> {
        let ack: PublishAck = api::parse_plain_response(payload)?;
        let stored = self.sent - u64::from(eob);
        if ack.batch_id.as_deref() != Some(self.id.as_str()) || ack.batch_size != Some(stored) {
            let what = "the commit's ack names another batch or another number of messages";
            return Err(Error::Protocol(ProtocolError::ApiResponse(what.into())));
        }
        Ok(ack)
    }

    /// Ends the waits whose deadline passed at `now`, and with them the batch
    /// ([`Error::Timeout`]; for the commit that is ambiguous: the batch may
    /// be stored). Returns the sequences given up on.
    pub fn handle_timeout(&mut self, now: Instant) -> Vec<u64> {
        let now = self.clock.advance(now);
        let expired: Vec<u64> = self.awaiting.iter().filter(|(_, at)| *at <= now).map(|(seq, _)| *seq).collect();
        if !expired.is_empty() {
            self.awaiting.retain(|(_, at)| *at > now);
            self.close(Error::Timeout);
        }
        expired
    }

    /// Stops awaiting message `seq`'s answer (its waiter is gone); what the
    /// server made of it shows at the commit.
    pub fn forget(&mut self, seq: u64) {
        self.awaiting.retain(|(s, _)| *s != seq);
    }

    /// The deadline of message `seq`'s answer, while awaited.
    pub fn deadline(&self, seq: u64) -> Option<Instant> {
        self.awaiting.iter().find(|(s, _)| *s == seq).map(|(_, at)| *at)
    }

    /// Gives the batch up (the server drops what it staged once idle); a
    /// first error is kept.
    pub fn close(&mut self, error: Error) {
        if !matches!(self.state, State::Closed(_) | State::Committed) {
            self.state = State::Closed(error);
        }
    }
}

/// What the server would throw the whole batch away for, refused for one
/// message before it is sent: batch headers set by hand, a
/// `Nats-Expected-Last-Msg-Id` (unsupported in batches) and a
/// `Nats-Expected-Last-Sequence` after the first message (ADR-50).
fn check_headers(headers: &HeaderMap, seq: u64) -> Result<(), Error> {
    let refuse = |why: &str| Err(Error::InvalidArgument(why.to_string()));
    if [NATS_BATCH_ID, NATS_BATCH_SEQUENCE, NATS_BATCH_COMMIT].iter().any(|h| headers.get(h).is_some()) {
        return refuse("Nats-Batch-Id, Nats-Batch-Sequence and Nats-Batch-Commit are the batch's to set");
    }
    if headers.get(NATS_EXPECTED_LAST_MESSAGE_ID).is_some() {
        return refuse("an atomic batch does not support Nats-Expected-Last-Msg-Id (expect.lastMsgID)");
    }
    if seq > 1 && headers.get(NATS_EXPECTED_LAST_SEQUENCE).is_some() {
        return refuse("only the first message of an atomic batch may expect a last sequence");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::ErrorCode;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const T0: Instant = Instant::ZERO;
    const TIMEOUT: Duration = Duration::from_secs(5);

    fn batch() -> AtomicBatch {
        AtomicBatch::new("B1".into(), TIMEOUT, None)
    }

    fn data(s: &'static str) -> Publish {
        Publish::build().payload(Bytes::from_static(s.as_bytes()))
    }

    fn headers(m: &BatchMessage) -> Vec<(&str, &str)> {
        m.headers.iter().collect()
    }

    const REFUSED: &[u8] = br#"{"error":{"code":400,"err_code":10174,"description":"atomic publish is disabled"}}"#;

    #[test]
    fn messages_are_numbered_and_the_first_is_a_request() {
        let mut b = batch();
        let first = b.add("orders.1", data("a").message_id("m1"), false, T0).unwrap();
        assert_eq!(first.awaits, Some(1));
        assert_eq!(headers(&first), [("Nats-Msg-Id", "m1"), ("Nats-Batch-Id", "B1"), ("Nats-Batch-Sequence", "1")]);
        assert_eq!((first.subject.as_str(), &first.payload[..]), ("orders.1", &b"a"[..]));
        assert_eq!(b.handle_reply(1, Ok(b"")), Ok(BatchReply::Staged));
        let second = b.add("orders.2", data("b"), false, T0).unwrap();
        assert_eq!((second.awaits, headers(&second)[1]), (None, ("Nats-Batch-Sequence", "2")));
        let acked = b.add("orders.3", data("c"), true, T0).unwrap();
        assert_eq!(acked.awaits, Some(3));
        let commit = b.commit("orders.4", data("d"), T0).unwrap();
        assert_eq!(commit.awaits, Some(4));
        assert_eq!(&headers(&commit)[1..], [("Nats-Batch-Sequence", "4"), ("Nats-Batch-Commit", "1")]);
        assert_eq!(b.size(), 4);
        assert_eq!((b.deadline(1), b.deadline(3), b.deadline(4)), (None, Some(T0 + TIMEOUT), Some(T0 + TIMEOUT)));
        assert_eq!(b.handle_reply(3, Ok(b"")), Ok(BatchReply::Staged));
        let ack = b.handle_reply(4, Ok(br#"{"stream":"ORDERS","seq":9,"batch":"B1","count":4}"#)).unwrap();
        let BatchReply::Committed(ack) = ack else { panic!("{ack:?}") };
        assert_eq!((ack.stream.as_str(), ack.sequence, ack.batch_size), ("ORDERS", 9, Some(4)));
        assert!(!b.is_open() && b.closed_by().is_none());
        assert_eq!(b.add("orders.5", data("e"), false, T0), Err(Error::ApiMisuse("batch publisher is done")));
    }

    #[test]
    fn every_nth_message_is_acknowledged() {
        let mut b = AtomicBatch::new("B".into(), TIMEOUT, Some(3));
        let awaited: Vec<_> = (0..7).map(|_| b.add("s", data("x"), false, T0).unwrap().awaits).collect();
        assert_eq!(awaited, [Some(1), None, Some(3), None, None, Some(6), None]);
        let mut none = AtomicBatch::new("B".into(), TIMEOUT, Some(0));
        let awaited: Vec<_> = (0..3).map(|_| none.add("s", data("x"), false, T0).unwrap().awaits).collect();
        assert_eq!(awaited, [Some(1), None, None], "every 0th: none");
    }

    #[test]
    fn a_refused_start_closes_the_batch_with_the_servers_error() {
        let mut b = batch();
        b.add("orders.1", data("a"), false, T0).unwrap();
        let refused = b.handle_reply(1, Ok(REFUSED)).unwrap_err();
        assert!(matches!(&refused, Error::JetStream(e) if e.err_code == ErrorCode::ATOMIC_PUBLISH_DISABLED));
        assert_eq!(b.closed_by(), Some(&refused));
        assert_eq!(b.commit("orders.2", data("b"), T0), Err(Error::ApiMisuse("batch publisher is done")));
        let mut nobody = batch();
        nobody.add("nostream", data("a"), false, T0).unwrap();
        assert_eq!(nobody.handle_reply(1, Err(Error::NoResponders)), Err(Error::NoResponders));
        assert!(!nobody.is_open());
    }

    #[test]
    fn a_failed_commit_carries_the_servers_reason() {
        let mut b = batch();
        b.add("a", data("1").expected_last_sequence(7), false, T0).unwrap();
        b.handle_reply(1, Ok(b"")).unwrap();
        b.commit("a", data("2"), T0).unwrap();
        let wrong = br#"{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 0"}}"#;
        let e = b.handle_reply(2, Ok(wrong)).unwrap_err();
        assert!(matches!(&e, Error::JetStream(e) if e.is_wrong_last_sequence()), "{e:?}");
        assert_eq!(b.closed_by(), Some(&e));
    }

    #[test]
    fn headers_the_batch_would_fail_for_are_refused_before_sending() {
        let mut b = batch();
        let refused = b.add("a", data("1").expected_last_message_id("m0"), false, T0);
        assert!(matches!(refused, Err(Error::InvalidArgument(why)) if why.contains("Nats-Expected-Last-Msg-Id")));
        let by_hand = b.add("a", data("1").header("Nats-Batch-Commit", "1"), false, T0);
        assert!(matches!(by_hand, Err(Error::InvalidArgument(_))));
        assert_eq!(b.size(), 0, "nothing sent, the batch stays open");
        assert!(b.add("a", data("1").expected_last_sequence(0), false, T0).is_ok(), "the first may expect");
        let later = b.add("a", data("2").expected_last_sequence(1), false, T0);
        assert!(matches!(later, Err(Error::InvalidArgument(why)) if why.contains("only the first")));
        let per_subject = b.add("a", data("2").expected_last_subject_sequence(1), false, T0).unwrap();
        assert_eq!(per_subject.headers.get("Nats-Batch-Sequence").map(|v| v.as_str()), Some("2"));
        assert!(b.is_open());
    }

    #[test]
    fn an_eob_commit_goes_to_the_first_subject_and_counts_the_messages_before_it() {
        assert_eq!(batch().commit_eob(T0), Err(Error::ApiMisuse("an empty batch cannot end without a message")));
        let mut b = batch();
        b.add("orders.1", data("a"), false, T0).unwrap();
        b.add("orders.2", data("b"), false, T0).unwrap();
        let eob = b.commit_eob(T0).unwrap();
        assert_eq!((eob.subject.as_str(), eob.payload.len(), eob.awaits), ("orders.1", 0, Some(3)));
        assert_eq!(&headers(&eob)[1..], [("Nats-Batch-Sequence", "3"), ("Nats-Batch-Commit", "eob")]);
        b.handle_reply(1, Ok(b"")).unwrap();
        let ack = b.handle_reply(3, Ok(br#"{"stream":"S","seq":2,"batch":"B1","count":2}"#));
        assert!(matches!(ack, Ok(BatchReply::Committed(a)) if a.sequence == 2));
    }

    #[test]
    fn a_commit_answered_for_another_batch_or_size_is_a_protocol_error() {
        for answer in [&br#"{"stream":"S","seq":2,"batch":"B2","count":2}"#[..], br#"{"stream":"S","seq":2,"count":1}"#]
        {
            let mut b = batch();
            b.add("a", data("1"), false, T0).unwrap();
            b.commit("a", data("2"), T0).unwrap();
            assert!(matches!(b.handle_reply(2, Ok(answer)), Err(Error::Protocol(ProtocolError::ApiResponse(_)))));
        }
    }

    #[test]
    fn an_answer_that_does_not_come_in_time_closes_the_batch() {
        let mut b = batch();
        b.add("a", data("1"), false, T0).unwrap();
        b.handle_reply(1, Ok(b"")).unwrap();
        let t1 = T0 + Duration::from_secs(1);
        b.add("a", data("2"), true, t1).unwrap();
        b.add("a", data("3"), true, t1 + Duration::from_secs(1)).unwrap();
        assert_eq!(b.deadline(2), Some(t1 + TIMEOUT));
        assert!(b.handle_timeout(t1 + (TIMEOUT - Duration::from_millis(1))).is_empty());
        assert!(b.is_open());
        assert_eq!(b.handle_timeout(t1 + TIMEOUT), [2]);
        assert_eq!(b.closed_by(), Some(&Error::Timeout));
        assert_eq!(b.deadline(3), Some(t1 + Duration::from_secs(1) + TIMEOUT), "3 still awaited");
        // The late answer finds the batch closed; time running backwards changes nothing.
        assert_eq!(b.handle_reply(2, Ok(b"")), Err(Error::Timeout));
        assert!(b.handle_timeout(T0).is_empty());
        assert_eq!(b.handle_reply(3, Ok(b"")), Ok(BatchReply::Staged), "an answer still awaited is read");
        assert_eq!(b.add("a", data("4"), false, t1), Err(Error::ApiMisuse("batch publisher is done")));
    }

    #[test]
    fn a_forgotten_answer_neither_times_out_nor_closes_the_batch() {
        let mut b = batch();
        b.add("a", data("1"), false, T0).unwrap();
        b.handle_reply(1, Ok(b"")).unwrap();
        b.add("a", data("2"), true, T0).unwrap();
        b.forget(2);
        assert!(b.handle_timeout(T0 + TIMEOUT).is_empty());
        assert!(b.is_open());
        b.commit("a", data("3"), T0 + TIMEOUT).unwrap();
        let ack = b.handle_reply(3, Ok(br#"{"stream":"S","seq":3,"batch":"B1","count":3}"#));
        assert!(matches!(ack, Ok(BatchReply::Committed(_))));
    }

    #[test]
    fn a_commit_that_times_out_is_ambiguous_and_final() {
        let mut b = batch();
        b.add("a", data("1"), false, T0).unwrap();
        b.handle_reply(1, Ok(b"")).unwrap();
        b.commit("a", data("2"), T0).unwrap();
        assert_eq!(b.handle_timeout(T0 + TIMEOUT), [2]);
        assert_eq!(b.closed_by(), Some(&Error::Timeout));
        assert!(b.deadline(2).is_none());
    }
}
