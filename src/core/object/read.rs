//! Reading an object's chunks, sans-IO: the [`Procedure`] every get runs,
//! natively and in wasm. By batched direct gets (ADR-31, server 2.11+,
//! the bucket's stream with `allow_direct`): `{"batch":N,"seq":S,
//! "next_by_subj":<chunk subject>}`, the next batch asked for as soon as
//! one ends while fewer than [`WINDOW`] bytes wait unread, so memory stays
//! bounded by the window and one batch. Or pushed by an ordered consumer
//! its pump reads for it (`Reply::Pushed`): chunks that stop coming for
//! [`STALL_CHECK`] are asked about (`Step::ConsumerInfo`), and a consumer
//! with nothing left to send, that sent nothing not received, ends the
//! read: nothing else tells it that a replace or a delete purged the rest
//! of the chunks under it.
//!
//! A batch that fails, or that sends nothing for the stall time (a server
//! restart, a lost connection), is asked for again from the chunk after
//! the last one received, [`RETRY_AFTER`] later, once the stream info
//! says the stream is still there; one gone ends the read in the server's
//! stream-not-found, and [`RETRIES`] failures in a row in the last error.
//! Chunks purged before or under the read simply never come: the batch
//! ends short, and the size check says so. Every chunk is checked against
//! the meta's size and SHA-256 ([`Check`]); the last one is handed out
//! only once the object checked out.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;

use super::error::GetError;
use super::get::{Check, per_batch};
use super::info::ObjectInfo;
use super::names::chunk_subject;
use crate::core::error::Error;
use crate::core::jetstream::ack::DeliveryNumbers;
use crate::core::jetstream::api::{self, ConsumerInfo, ErrorCode};
use crate::core::procedure::{Procedure, Reply, Step, Wait, Yield};
use crate::core::time::Instant;
use crate::core::timer::{Deadline, TimerTable};

/// Bytes received and not yet read past which no further batch is asked for.
pub const WINDOW: usize = 2 << 20;
/// How long a failed batch waits before it is asked for again.
pub const RETRY_AFTER: Duration = Duration::from_millis(250);
/// Failed batches in a row after which the read ends in the last error.
pub const RETRIES: u32 = 40;
/// How long a read waits for a pushed chunk before it asks whether one will come.
pub const STALL_CHECK: Duration = Duration::from_secs(5);

/// Where the chunks come from.
enum Source {
    /// Nothing to read: the object has no bytes.
    None,
    /// Batched direct gets of `per_batch` chunks on `subject` of `stream`.
    Direct { stream: String, subject: String, per_batch: usize, api_prefix: String, stall: Duration },
    /// An ordered push consumer the pump reads pushes them ([`Reply::Pushed`],
    /// then [`Reply::BatchEnd`]) and asks about ([`Step::ConsumerInfo`]).
    Pushed {
        /// The consumer that sent the last chunk, and its consumer sequence.
        last: Option<(String, u64)>,
        /// Its info was asked for.
        asking: bool,
    },
}

/// An object's chunks, as its meta describes them.
pub(crate) struct Chunks<'a> {
    /// Its bucket.
    pub bucket: &'a str,
    /// The token of its chunks' subject.
    pub nuid: &'a str,
    /// Its bytes.
    pub size: usize,
    /// Its chunks.
    pub chunks: usize,
}

impl Chunks<'_> {
    fn direct(&self, api_prefix: &str, stall: Duration) -> Source {
        Source::Direct {
            stream: format!("OBJ_{}", self.bucket),
            subject: chunk_subject(self.bucket, self.nuid),
            per_batch: per_batch(self.size, self.chunks),
            api_prefix: api_prefix.to_string(),
            stall,
        }
    }
}

/// A batch that failed, and what is done about it.
enum Failure {
    /// Waiting [`RETRY_AFTER`] before asking about the stream.
    Waiting(Error),
    /// The stream's info was asked for.
    Asking(Error),
}

/// The read of one object's chunks, checked as they come.
pub struct ObjectRead {
    check: Check,
    source: Source,
    /// Chunks the running batch brought, if one runs.
    batch: Option<usize>,
    /// The stream sequence the next batch starts from.
    next: u64,
    /// Chunks received and not read, with the chunks the stream holds after each.
    queue: VecDeque<(Bytes, u64)>,
    bytes: usize,
    /// No more chunks will come.
    exhausted: bool,
    failure: Option<Failure>,
    /// Batches failed since a chunk last came.
    tries: u32,
    /// An error that ends the read, for the next [`poll_item`](Procedure::poll_item).
    error: Option<Error>,
    done: bool,
    timers: TimerTable<Wait>,
    steps: VecDeque<Step>,
}

impl ObjectRead {
    /// The read of the chunks of object `info` of `bucket` by batched
    /// direct gets through the API under `api_prefix`, a batch silent for
    /// `stall` given up on; `NotFound` for a deleted object, an error for
    /// one that cannot be checked.
    pub fn direct(info: &ObjectInfo, bucket: &str, api_prefix: &str, stall: Duration) -> Result<Self, GetError> {
        let chunks = Chunks { bucket, nuid: &info.nuid, size: info.size, chunks: info.chunks };
        Ok(Self::of(Check::new(info)?, chunks, Some((api_prefix, stall))))
    }

    /// The read of the chunks of object `info` an ordered push consumer
    /// that the pump reads pushes.
    pub fn pushed(info: &ObjectInfo) -> Result<Self, GetError> {
        Ok(Self::new(Check::new(info)?, PUSHED))
    }

    /// The read `check` checks of the object's `chunks`: by batched direct
    /// gets through the API under `direct`'s prefix, silent batches given
    /// up on after its duration, or (`None`) pushed.
    pub(crate) fn of(check: Check, chunks: Chunks<'_>, direct: Option<(&str, Duration)>) -> Self {
        let source = match direct {
            Some((api_prefix, stall)) => chunks.direct(api_prefix, stall),
            None => PUSHED,
        };
        Self::new(check, source)
    }

    fn new(check: Check, source: Source) -> Self {
        let empty = check.size() == 0;
        ObjectRead {
            check,
            source: if empty { Source::None } else { source },
            batch: None,
            next: 1,
            queue: VecDeque::new(),
            bytes: 0,
            exhausted: empty,
            failure: None,
            tries: 0,
            error: None,
            done: false,
            timers: TimerTable::default(),
            steps: VecDeque::new(),
        }
    }

    /// Bytes received (and hashed) so far.
    pub fn received(&self) -> u64 {
        self.check.received
    }

    /// Stops reading: what arrived can still be read, then it ends.
    pub fn stop(&mut self) {
        let pushing = matches!(self.source, Source::Pushed { .. }) && !self.exhausted;
        if self.batch.take().is_some() || pushing {
            self.steps.push_back(Step::StopBatch);
        }
        self.exhausted = true;
        self.failure = None;
        self.timers.stop_all();
    }

    /// Asks for the next batch if none runs, none failed, and the window has room.
    fn fill(&mut self, now: Instant) {
        let Source::Direct { stream, subject, per_batch, stall, .. } = &self.source else { return };
        if self.batch.is_some() || self.failure.is_some() || self.exhausted || self.bytes >= WINDOW || self.done {
            return;
        }
        let request = format!(r#"{{"batch":{per_batch},"seq":{},"next_by_subj":"{subject}"}}"#, self.next);
        self.steps.push_back(Step::DirectBatch { stream: stream.clone(), request });
        self.timers.set(Wait::Stall, Some(now + *stall));
        self.batch = Some(0);
    }

    /// A batch failed: it is asked for again after a while.
    fn fail(&mut self, now: Instant, error: Error) {
        self.batch = None;
        self.timers.stop(Wait::Stall);
        self.tries += 1;
        self.failure = Some(Failure::Waiting(error));
        self.timers.set(Wait::Retry, Some(now + RETRY_AFTER));
    }

    /// The answer about the stream after a failure.
    fn answered(&mut self, now: Instant, answer: Result<Bytes, Error>, error: Error) {
        match answer {
            Err(Error::JetStream(e)) if e.err_code == ErrorCode::STREAM_NOT_FOUND => {
                self.error = Some(Error::JetStream(e));
            }
            _ if self.tries >= RETRIES => self.error = Some(error),
            // There: the batch is asked for again.
            Ok(_) => self.fill(now),
            // Not answering yet: wait again.
            Err(_) => self.fail(now, error),
        }
    }

    /// Chunks stopped coming for [`STALL_CHECK`]: ask whether more will.
    fn watch(&mut self, now: Instant) {
        if let Source::Pushed { asking: false, .. } = self.source
            && self.timers.get(Wait::Stall).is_none()
        {
            self.timers.set(Wait::Stall, Some(now + STALL_CHECK));
        }
    }

    /// The pushing consumer's info (or why there is none): a consumer that
    /// ran dry ends the read, a stream gone ends it in the server's error.
    fn consumer_answered(&mut self, answer: Result<Bytes, Error>) {
        let Source::Pushed { last, asking } = &mut self.source else { return };
        *asking = false;
        match answer.and_then(|json| ConsumerInfo::from_json_core(&json)) {
            Ok(info) if ran_dry(&info, last.as_ref()) => self.stop(),
            Ok(_) => {}
            Err(Error::JetStream(e)) if e.err_code == ErrorCode::STREAM_NOT_FOUND => {
                self.error = Some(Error::JetStream(e));
            }
            // A consumer being replaced may not answer: ask again later.
            Err(_) => {}
        }
    }

    fn end(&mut self, error: Error) -> Yield<Bytes> {
        self.done = true;
        self.stop();
        Yield::Failed(error)
    }
}

impl Procedure for ObjectRead {
    type Item = Bytes;

    fn handle_reply(&mut self, now: Instant, reply: Reply) {
        if self.done {
            return;
        }
        match reply {
            Reply::Message { sequence, payload, pending } => {
                // None of a batch given up on.
                let Some(count) = &mut self.batch else { return };
                *count += 1;
                self.timers.set(Wait::Stall, self.timers.get(Wait::Stall).map(|_| now + self.stall()));
                self.next = sequence + 1;
                self.bytes += payload.len();
                self.queue.push_back((payload, pending));
                self.tries = 0;
            }
            Reply::Pushed { ack, payload } => {
                let Source::Pushed { last, .. } = &mut self.source else { return };
                let (consumer, numbers) = match DeliveryNumbers::parse_named(&ack) {
                    Ok((_, consumer, numbers)) => (consumer, numbers),
                    Err(e) => return self.error = Some(e),
                };
                match last {
                    Some((name, sequence)) if name == consumer => *sequence = numbers.consumer_sequence,
                    _ => *last = Some((consumer.to_string(), numbers.consumer_sequence)),
                }
                self.timers.stop(Wait::Stall);
                self.bytes += payload.len();
                self.queue.push_back((payload, numbers.pending));
            }
            Reply::BatchEnd => match (&self.source, self.batch.take()) {
                (Source::Pushed { .. }, _) => {
                    self.timers.stop(Wait::Stall);
                    self.exhausted = true;
                }
                (_, Some(count)) => {
                    self.timers.stop(Wait::Stall);
                    // A batch may end short of what it asked for (the
                    // server caps batches): only the pending count says
                    // the stream holds no more.
                    let last_pending = self.queue.back().map_or(1, |c| c.1);
                    self.exhausted = count == 0 || last_pending == 0;
                    self.fill(now);
                }
                (_, None) => {}
            },
            Reply::BatchFailed(error) => match self.source {
                Source::Pushed { .. } => self.error = Some(error),
                _ if self.batch.is_some() => self.fail(now, error),
                _ => {}
            },
            Reply::Answer(answer) if matches!(self.source, Source::Pushed { .. }) => self.consumer_answered(answer),
            Reply::Answer(answer) => {
                if let Some(Failure::Asking(error)) = self.failure.take() {
                    self.answered(now, answer, error);
                }
            }
            // Nothing a read asks for.
            Reply::Acked(_) | Reply::Stored(_) | Reply::Inbox(_) => {}
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        while let Some(timer) = self.timers.pop_expired(now) {
            match timer {
                Wait::Stall => match &mut self.source {
                    Source::Pushed { asking, .. } => {
                        *asking = true;
                        self.steps.push_back(Step::ConsumerInfo);
                    }
                    _ => {
                        self.steps.push_back(Step::StopBatch);
                        self.fail(now, Error::Timeout);
                    }
                },
                Wait::Retry => {
                    let Some(Failure::Waiting(error)) = self.failure.take() else { continue };
                    let Source::Direct { api_prefix, stream, .. } = &self.source else { continue };
                    match api::stream_info(api_prefix, stream) {
                        Ok(subject) => {
                            self.steps.push_back(Step::Request { subject, payload: Bytes::new() });
                            self.failure = Some(Failure::Asking(error));
                        }
                        Err(e) => self.error = Some(e),
                    }
                }
            }
        }
    }

    fn poll_step(&mut self) -> Option<Step> {
        self.steps.pop_front()
    }

    fn poll_item(&mut self, now: Instant) -> Yield<Bytes> {
        loop {
            if self.done {
                return Yield::Done;
            }
            if let Some(error) = self.error.take() {
                return self.end(error);
            }
            let Some((chunk, pending)) = self.queue.pop_front() else {
                if !self.exhausted {
                    self.fill(now);
                    self.watch(now);
                    return Yield::Wait;
                }
                let ended = match self.source {
                    Source::None => self.check.finish(),
                    _ => Err(self.check.size_mismatch()),
                };
                self.done = true;
                return match ended {
                    Ok(()) => Yield::Done,
                    Err(e) => Yield::Failed(e),
                };
            };
            self.bytes -= chunk.len();
            // Room in the window again: ask for the next batch now, not at the next read.
            self.fill(now);
            if let Err(long) = self.check.chunk(&chunk) {
                return self.end(long);
            }
            if pending == 0 {
                if let Err(e) = self.check.finish() {
                    return self.end(e);
                }
                self.done = true;
                self.stop();
            }
            if !chunk.is_empty() {
                return Yield::Item(chunk);
            }
        }
    }

    fn poll_deadline(&self) -> Option<Deadline<Wait>> {
        self.timers.next()
    }
}

impl ObjectRead {
    fn stall(&self) -> Duration {
        match &self.source {
            Source::Direct { stall, .. } => *stall,
            _ => Duration::ZERO,
        }
    }
}

/// A read pushed by an ordered consumer, before its first chunk.
const PUSHED: Source = Source::Pushed { last: None, asking: false };

/// Whether a consumer with `info` has nothing more to send and sent
/// nothing that was not received, `last` the consumer and consumer
/// sequence of the last chunk received (a replaced consumer's count for
/// nothing). Its delivered stream sequence cannot say: it moves past
/// purged messages.
fn ran_dry(info: &ConsumerInfo, last: Option<&(String, u64)>) -> bool {
    let received = match last {
        Some((consumer, sequence)) if *consumer == info.name => *sequence,
        _ => 0,
    };
    info.num_pending == 0 && info.delivered.consumer_sequence <= received
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::JetStreamError;
    use crate::core::object::digest::{self, Digest};
    use crate::core::object::meta_json;
    use crate::core::object::scripted::{self, at};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const STALL: Duration = Duration::from_secs(5);

    /// An object of `chunks` chunks of 4 bytes each, and its meta.
    fn object(chunks: u8) -> (Vec<Bytes>, ObjectInfo) {
        let parts: Vec<Bytes> = (0..chunks).map(|i| Bytes::from(vec![i; 4])).collect();
        let mut digest = Digest::new();
        parts.iter().for_each(|p| digest.update(p));
        let json = format!(
            r#"{{"name":"o","bucket":"b","nuid":"N","size":{},"chunks":{chunks},"digest":"{}"}}"#,
            4 * chunks as usize,
            digest::format(&digest.finish())
        );
        (parts, meta_json::read(json.as_bytes()).unwrap())
    }

    /// The steps asked for, as text.
    fn steps(read: &mut ObjectRead) -> Vec<String> {
        scripted::steps(read, |step| match step {
            Step::Request { subject, .. } => format!("request {subject}"),
            Step::DirectBatch { stream, request } => format!("batch {stream} {request}"),
            Step::StopBatch => "stop".into(),
            other => format!("{other:?}"),
        })
    }

    /// Items until the read waits or ends, as text.
    fn items(read: &mut ObjectRead, now: Instant) -> Vec<String> {
        scripted::items(read, now, |chunk| format!("{:?}", &chunk[..]))
    }

    fn message(parts: &[Bytes], seq: u64, index: usize) -> Reply {
        let pending = (parts.len() - index - 1) as u64;
        Reply::Message { sequence: seq, payload: parts[index].clone(), pending }
    }

    fn batch(seq: u64) -> String {
        format!(r#"batch OBJ_b {{"batch":3,"seq":{seq},"next_by_subj":"$O.b.C.N"}}"#)
    }

    #[test]
    fn a_read_asks_batch_after_batch_and_checks_the_object() {
        let (parts, mut info) = object(3);
        info.chunks = 3;
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        assert_eq!(items(&mut read, at(0)), Vec::<String>::new());
        assert_eq!(steps(&mut read), [batch(1)]);
        read.handle_reply(at(1), message(&parts, 10, 0));
        read.handle_reply(at(1), message(&parts, 12, 1));
        assert_eq!(items(&mut read, at(1)), ["[0, 0, 0, 0]", "[1, 1, 1, 1]"]);
        // The server capped the batch: the next one starts after the last chunk.
        read.handle_reply(at(2), Reply::BatchEnd);
        assert_eq!(steps(&mut read), [batch(13)]);
        read.handle_reply(at(3), message(&parts, 20, 2));
        assert_eq!(items(&mut read, at(3)), ["[2, 2, 2, 2]", "done"]);
        assert_eq!(steps(&mut read), ["stop"], "the last chunk ends the batch");
        assert_eq!(read.received(), 12);
        assert_eq!(read.poll_deadline(), None);
    }

    #[test]
    fn a_lost_batch_is_asked_again_from_the_chunk_after_the_last_received() {
        let (parts, info) = object(3);
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        let _ = read.poll_item(at(0));
        assert_eq!(steps(&mut read), [batch(1)]);
        read.handle_reply(at(100), message(&parts, 4, 0));
        // Nothing more for the stall time: the batch is given up on.
        let stall = read.poll_deadline().unwrap();
        assert_eq!((stall.at, stall.reason), (at(100) + STALL, Wait::Stall));
        read.handle_timeout(at(5099));
        assert_eq!(steps(&mut read), Vec::<String>::new(), "early: nothing fires");
        read.handle_timeout(at(5100));
        assert_eq!(steps(&mut read), ["stop"]);
        // A message of the batch given up on is not taken.
        read.handle_reply(at(5101), message(&parts, 5, 1));
        assert_eq!(items(&mut read, at(5101)), ["[0, 0, 0, 0]"]);
        let retry = read.poll_deadline().unwrap();
        assert_eq!((retry.at, retry.reason), (at(5100) + RETRY_AFTER, Wait::Retry));
        read.handle_timeout(retry.at);
        assert_eq!(steps(&mut read), ["request $JS.API.STREAM.INFO.OBJ_b"]);
        read.handle_reply(at(5400), Reply::Answer(Ok(Bytes::from_static(b"{}"))));
        assert_eq!(steps(&mut read), [batch(5)]);
        read.handle_reply(at(5401), message(&parts, 5, 1));
        read.handle_reply(at(5401), message(&parts, 6, 2));
        assert_eq!(items(&mut read, at(5401)), ["[1, 1, 1, 1]", "[2, 2, 2, 2]", "done"]);
    }

    #[test]
    fn a_restart_mid_get_retries_until_the_stream_answers() {
        let (parts, info) = object(2);
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        let _ = read.poll_item(at(0));
        let _ = steps(&mut read);
        read.handle_reply(at(1), message(&parts, 1, 0));
        read.handle_reply(at(2), Reply::BatchFailed(Error::Disconnected));
        assert_eq!(read.poll_deadline().map(|d| d.reason), Some(Wait::Retry));
        read.handle_timeout(at(252));
        assert_eq!(steps(&mut read), ["request $JS.API.STREAM.INFO.OBJ_b"]);
        // The restarting server does not answer yet: wait again.
        read.handle_reply(at(300), Reply::Answer(Err(Error::Timeout)));
        assert_eq!(steps(&mut read), Vec::<String>::new());
        read.handle_timeout(at(550));
        assert_eq!(steps(&mut read), ["request $JS.API.STREAM.INFO.OBJ_b"]);
        read.handle_reply(at(600), Reply::Answer(Ok(Bytes::new())));
        assert_eq!(steps(&mut read), [r#"batch OBJ_b {"batch":2,"seq":2,"next_by_subj":"$O.b.C.N"}"#]);
        read.handle_reply(at(601), message(&parts, 2, 1));
        assert_eq!(items(&mut read, at(601)), ["[0, 0, 0, 0]", "[1, 1, 1, 1]", "done"]);
    }

    #[test]
    fn a_stream_gone_ends_the_read_in_the_servers_error_and_failures_are_bounded() {
        let (_, info) = object(2);
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        let _ = read.poll_item(at(0));
        let _ = steps(&mut read);
        read.handle_reply(at(1), Reply::BatchFailed(Error::Timeout));
        read.handle_timeout(at(251));
        let gone = Error::JetStream(JetStreamError {
            code: 404,
            err_code: ErrorCode::STREAM_NOT_FOUND,
            description: "stream not found".into(),
        });
        read.handle_reply(at(260), Reply::Answer(Err(gone.clone())));
        assert_eq!(items(&mut read, at(260)), [format!("failed: {gone}")]);
        assert_eq!(read.poll_item(at(261)), Yield::Done);

        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        let _ = read.poll_item(at(0));
        let mut now = 0;
        for _ in 0..RETRIES {
            let _ = steps(&mut read);
            read.handle_reply(at(now), Reply::BatchFailed(Error::Timeout));
            now += 250;
            read.handle_timeout(at(now));
            let _ = steps(&mut read);
            read.handle_reply(at(now), Reply::Answer(Ok(Bytes::new())));
        }
        assert_eq!(items(&mut read, at(now)), ["failed: timed out"]);
    }

    #[test]
    fn a_corrupt_or_short_object_fails_and_its_last_chunk_is_never_handed_out() {
        let (mut parts, info) = object(2);
        parts[1] = Bytes::from_static(b"XXXX");
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        let _ = read.poll_item(at(0));
        let _ = steps(&mut read);
        read.handle_reply(at(1), message(&parts, 1, 0));
        read.handle_reply(at(1), message(&parts, 2, 1));
        let got = items(&mut read, at(1));
        assert_eq!(got[0], "[0, 0, 0, 0]");
        assert!(got[1].starts_with("failed: ") && got[1].contains("digest"), "{got:?}");
        assert_eq!(steps(&mut read), ["stop"]);

        // Chunks purged under the read: the batch ends with none, short of the size.
        let (parts, info) = object(2);
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        let _ = read.poll_item(at(0));
        let _ = steps(&mut read);
        read.handle_reply(at(1), Reply::Message { sequence: 1, payload: parts[0].clone(), pending: 1 });
        read.handle_reply(at(1), Reply::BatchEnd);
        assert_eq!(steps(&mut read), [r#"batch OBJ_b {"batch":2,"seq":2,"next_by_subj":"$O.b.C.N"}"#]);
        read.handle_reply(at(2), Reply::BatchEnd);
        let got = items(&mut read, at(2));
        assert_eq!(got.len(), 2);
        assert!(got[1].contains("4") && got[1].contains("8"), "{got:?}");
        assert_eq!(read.poll_deadline(), None);
    }

    #[test]
    fn a_window_of_unread_bytes_holds_the_next_batch_back() {
        // Chunks of a quarter of the window: a batch of the BATCH bytes brings 2 of them.
        let chunk = WINDOW / 4;
        let parts: Vec<Bytes> = (0..8u8).map(|i| Bytes::from(vec![i; chunk])).collect();
        let mut digest = Digest::new();
        parts.iter().for_each(|p| digest.update(p));
        let json = format!(
            r#"{{"name":"o","bucket":"b","nuid":"N","size":{},"chunks":8,"digest":"{}"}}"#,
            8 * chunk,
            digest::format(&digest.finish())
        );
        let info = meta_json::read(json.as_bytes()).unwrap();
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        let _ = read.poll_item(at(0));
        let mut seq = 0;
        for _ in 0..2 {
            assert_eq!(steps(&mut read).len(), 1);
            for _ in 0..2 {
                read.handle_reply(at(1), message(&parts, seq + 1, seq as usize));
                seq += 1;
            }
            read.handle_reply(at(1), Reply::BatchEnd);
        }
        assert_eq!(steps(&mut read), Vec::<String>::new(), "a full window asks for nothing");
        assert!(matches!(read.poll_item(at(2)), Yield::Item(_)));
        assert_eq!(steps(&mut read).len(), 1, "a chunk read makes room");
    }

    /// Chunk `index` of `parts` as consumer `consumer` pushed it, its
    /// consumer sequence `seq`.
    fn pushed(parts: &[Bytes], consumer: &str, seq: u64, index: usize) -> Reply {
        let pending = parts.len() - index - 1;
        let ack = format!("$JS.ACK.OBJ_b.{consumer}.1.{}.{seq}.1700000000000000000.{pending}", index + 1);
        Reply::Pushed { ack, payload: parts[index].clone() }
    }

    /// A consumer's info: `name`, `num_pending` left, `delivered` its last consumer sequence.
    fn consumer(name: &str, num_pending: u64, delivered: u64) -> Reply {
        // The stream sequence moves past purged chunks: never looked at.
        let json = format!(
            r#"{{"stream_name":"OBJ_b","name":"{name}","config":{{}},"num_pending":{num_pending},
            "delivered":{{"consumer_seq":{delivered},"stream_seq":999}},"ack_floor":{{"consumer_seq":0,"stream_seq":0}}}}"#
        );
        Reply::Answer(Ok(Bytes::from(json)))
    }

    #[test]
    fn a_pushed_read_checks_the_chunks_and_an_empty_object_reads_nothing() {
        let (parts, info) = object(2);
        let mut read = ObjectRead::pushed(&info).unwrap();
        assert_eq!(items(&mut read, at(0)), Vec::<String>::new());
        read.handle_reply(at(0), pushed(&parts, "C_1", 1, 0));
        read.handle_reply(at(0), pushed(&parts, "C_1", 2, 1));
        assert_eq!(items(&mut read, at(0)), ["[0, 0, 0, 0]", "[1, 1, 1, 1]", "done"]);
        assert_eq!(steps(&mut read), ["stop"], "the last chunk stops the consumer's messages");
        assert_eq!(read.poll_deadline(), None);

        let (_, info) = object(0);
        let mut read = ObjectRead::direct(&info, "b", "$JS.API", STALL).unwrap();
        assert_eq!(items(&mut read, at(0)), ["done"]);
        assert_eq!(steps(&mut read), Vec::<String>::new());

        let mut deleted = info.clone();
        deleted.deleted = true;
        assert!(ObjectRead::pushed(&deleted).is_err());
    }

    #[test]
    fn a_stalled_pushed_read_asks_the_consumer_and_ends_once_it_ran_dry() {
        let (parts, info) = object(3);
        let mut read = ObjectRead::pushed(&info).unwrap();
        read.handle_reply(at(0), pushed(&parts, "C_1", 1, 0));
        assert_eq!(items(&mut read, at(10)), ["[0, 0, 0, 0]"]);
        // Nothing for the stall check's time, counted from when the reader found none.
        let check = read.poll_deadline().unwrap();
        assert_eq!((check.at, check.reason), (at(10) + STALL_CHECK, Wait::Stall));
        read.handle_timeout(at(5009));
        assert_eq!(steps(&mut read), Vec::<String>::new(), "early: nothing fires");
        read.handle_timeout(at(5010));
        assert_eq!(steps(&mut read), ["ConsumerInfo"]);
        assert_eq!(read.poll_deadline(), None, "one question at a time");
        // More to send: wait again.
        read.handle_reply(at(5020), consumer("C_1", 2, 1));
        assert_eq!(items(&mut read, at(5020)), Vec::<String>::new());
        assert_eq!(read.poll_deadline().map(|d| d.at), Some(at(5020) + STALL_CHECK));
        // A chunk came: the watch starts again when the reader finds none.
        read.handle_reply(at(6000), pushed(&parts, "C_1", 2, 1));
        assert_eq!(read.poll_deadline(), None);
        assert_eq!(items(&mut read, at(6000)), ["[1, 1, 1, 1]"]);
        read.handle_timeout(at(11000));
        assert_eq!(steps(&mut read), ["ConsumerInfo"]);
        // Sent everything and received all it sent: the rest was purged.
        read.handle_reply(at(11001), consumer("C_1", 0, 2));
        assert_eq!(steps(&mut read), ["stop"]);
        let got = items(&mut read, at(11001));
        assert!(got.len() == 1 && got[0].contains("12") && got[0].contains('8'), "{got:?}");
        assert_eq!(read.poll_deadline(), None);
    }

    #[test]
    fn a_pushed_read_waits_for_what_was_sent_and_for_a_consumer_being_replaced() {
        let (parts, info) = object(3);
        let mut read = ObjectRead::pushed(&info).unwrap();
        read.handle_reply(at(0), pushed(&parts, "C_1", 1, 0));
        let _ = items(&mut read, at(0));
        read.handle_timeout(at(5000));
        assert_eq!(steps(&mut read), ["ConsumerInfo"]);
        // Nothing pending, but one more sent than received: it is on its way.
        read.handle_reply(at(5001), consumer("C_1", 0, 2));
        assert_eq!(items(&mut read, at(5001)), Vec::<String>::new());
        read.handle_timeout(at(10001));
        assert_eq!(steps(&mut read), ["ConsumerInfo"]);
        // A consumer being replaced may not answer: ask again later.
        read.handle_reply(at(10002), Reply::Answer(Err(Error::Timeout)));
        assert_eq!(items(&mut read, at(10002)), Vec::<String>::new());
        assert_eq!(read.poll_deadline().map(|d| d.reason), Some(Wait::Stall));
        read.handle_reply(at(10003), pushed(&parts, "C_1", 2, 1));
        read.handle_reply(at(10003), pushed(&parts, "C_1", 3, 2));
        assert_eq!(items(&mut read, at(10003)), ["[1, 1, 1, 1]", "[2, 2, 2, 2]", "done"]);
    }

    #[test]
    fn a_restart_mid_pushed_read_counts_the_replacement_from_its_start() {
        let (parts, info) = object(3);
        let mut read = ObjectRead::pushed(&info).unwrap();
        read.handle_reply(at(0), pushed(&parts, "C_1", 1, 0));
        read.handle_reply(at(0), pushed(&parts, "C_1", 2, 1));
        let _ = items(&mut read, at(0));
        // The consumer was replaced; its replacement sent nothing and holds nothing.
        read.handle_timeout(at(5000));
        assert_eq!(steps(&mut read), ["ConsumerInfo"]);
        read.handle_reply(at(5001), consumer("C_2", 0, 1));
        assert_eq!(items(&mut read, at(5001)), Vec::<String>::new(), "the replacement sent one not received");
        read.handle_timeout(at(10001));
        let _ = steps(&mut read);
        read.handle_reply(at(10002), consumer("C_2", 0, 0));
        let got = items(&mut read, at(10002));
        assert!(got.len() == 1 && got[0].starts_with("failed: "), "{got:?}");

        // A replacement that delivers the rest: its own sequences count.
        let mut read = ObjectRead::pushed(&info).unwrap();
        read.handle_reply(at(0), pushed(&parts, "C_1", 1, 0));
        read.handle_reply(at(1), pushed(&parts, "C_2", 1, 1));
        let _ = items(&mut read, at(1));
        read.handle_timeout(at(5001));
        let _ = steps(&mut read);
        read.handle_reply(at(5002), consumer("C_2", 1, 1));
        assert_eq!(items(&mut read, at(5002)), Vec::<String>::new(), "more to send");
        read.handle_reply(at(5003), pushed(&parts, "C_2", 2, 2));
        assert_eq!(items(&mut read, at(5003)), ["[2, 2, 2, 2]", "done"]);
    }

    #[test]
    fn a_pushed_read_ends_in_a_lost_stream_a_failure_or_none_pending() {
        let (parts, info) = object(2);
        let gone = Error::JetStream(JetStreamError {
            code: 404,
            err_code: ErrorCode::STREAM_NOT_FOUND,
            description: "stream not found".into(),
        });
        let mut read = ObjectRead::pushed(&info).unwrap();
        let _ = items(&mut read, at(0));
        read.handle_timeout(at(5000));
        assert_eq!(steps(&mut read), ["ConsumerInfo"]);
        read.handle_reply(at(5001), Reply::Answer(Err(gone.clone())));
        assert_eq!(items(&mut read, at(5001)), [format!("failed: {gone}")]);
        assert_eq!(steps(&mut read), ["stop"]);

        let mut read = ObjectRead::pushed(&info).unwrap();
        read.handle_reply(at(0), pushed(&parts, "C_1", 1, 0));
        read.handle_reply(at(0), Reply::BatchFailed(Error::Disconnected));
        assert_eq!(items(&mut read, at(0)), [format!("failed: {}", Error::Disconnected)]);

        // Nothing to deliver when the consumer was made: purged before the read.
        let mut read = ObjectRead::pushed(&info).unwrap();
        read.handle_reply(at(0), Reply::BatchEnd);
        let got = items(&mut read, at(0));
        assert!(got.len() == 1 && got[0].starts_with("failed: "), "{got:?}");
        assert_eq!((steps(&mut read), read.poll_deadline()), (vec![], None));

        // A message that is no JetStream delivery.
        let mut read = ObjectRead::pushed(&info).unwrap();
        read.handle_reply(at(0), Reply::Pushed { ack: "_INBOX.x".into(), payload: parts[0].clone() });
        assert!(items(&mut read, at(0))[0].starts_with("failed: "));
    }

    /// The host's SHA-256 (here `sha2` again), failing after `works` updates.
    struct Host(Digest, usize);

    impl crate::core::object::get::Sha256Host for Host {
        fn update(&mut self, bytes: &[u8]) -> Result<(), Error> {
            if self.1 == 0 {
                return Err(Error::Other("hasher broke".into()));
            }
            self.1 -= 1;
            self.0.update(bytes);
            Ok(())
        }

        fn finish(&mut self) -> Result<[u8; 32], Error> {
            Ok(std::mem::take(&mut self.0).finish())
        }
    }

    #[test]
    fn a_read_of_parts_hashes_with_the_hosts_sha256_and_fails_with_it() {
        let (parts, info) = object(2);
        for (works, ends) in [(2, "done"), (1, "failed: hasher broke")] {
            let check =
                Check::of("o", 8, info.digest.as_deref()).unwrap().with_host(Box::new(Host(Digest::new(), works)));
            let chunks = Chunks { bucket: "b", nuid: "N", size: 8, chunks: 2 };
            let mut read = ObjectRead::of(check, chunks, Some(("$JS.API", STALL)));
            let _ = read.poll_item(at(0));
            assert_eq!(steps(&mut read), [r#"batch OBJ_b {"batch":2,"seq":1,"next_by_subj":"$O.b.C.N"}"#]);
            read.handle_reply(at(1), message(&parts, 1, 0));
            read.handle_reply(at(1), message(&parts, 2, 1));
            assert_eq!(items(&mut read, at(1)).last().unwrap(), ends);
        }
        assert!(Check::of("o", 8, None).is_err(), "no digest to check with");
    }
}
