//! Writing an object (ADR-20), sans-IO: the [`Procedure`] every put runs,
//! natively and in wasm. The pump feeds the object's bytes in
//! ([`Reply::Message`], then [`Reply::BatchEnd`] at their end, or
//! [`Reply::BatchFailed`] when reading them failed) whenever the procedure
//! hands out [`Written::Want`]; it cuts them into chunks, hashes them
//! (SHA-256) and publishes each: through the acked-publish window — many
//! acks in flight, bounded in bytes so memory stays flat for any object
//! size — or, where the bucket allows fast ingest (`allow_batched`, server
//! API level 4), as one fast batch (ADR-50) acknowledged every few chunks
//! and committed by the meta. Then the meta, with a rollup, and only once
//! it is stored the purge of what it replaces. A put that fails purges the
//! chunks it wrote (after the acks in flight settle) and ends in its error,
//! [`ObjectWrite::failure`] telling which step failed.
//!
//! Replies that stop coming for the stall time (a lost ack, a lost flow
//! control message) fail the put in [`Error::Timeout`], the deadline's
//! reason being [`Wait::Stall`].

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};

use super::digest::{self, Digest};
use super::error::PutErrorKind;
use super::get::Sha256Host;
use super::info::{ObjectInfo, ObjectMetadata, ObjectOptions};
use super::lookup::{Found, Purges, meta_write};
use super::names::{chunk_subject, meta_subject};
use crate::core::error::Error;
use crate::core::jetstream::api::PublishAck;
use crate::core::jetstream::fast_window::{Control, FastOptions, FastWindow};
use crate::core::jetstream::publish::Publish;
use crate::core::procedure::{Procedure, Reply, Step, Wait, Yield};
use crate::core::time::Instant;
use crate::core::timer::{Deadline, TimerTable};

/// Bytes of chunks in flight per put, at most.
pub const MAX_IN_FLIGHT_BYTES: usize = 8 << 20;

/// What a put hands out.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    /// Room for more bytes: feed the next ones (or their end).
    Want,
    /// Bytes the stream acknowledged so far.
    Acked(u64),
    /// The meta is stored (and what it replaced purged): the object and its revision.
    Stored(Box<ObjectInfo>, u64),
}

/// Where a put is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Taking bytes.
    Writing,
    /// The bytes ended: the last chunks' acks awaited, then the meta.
    Flushing,
    /// The meta was published, its ack awaited.
    Meta,
    /// The meta is stored: purging what it replaced, one subject at a time.
    Purging,
    /// Failed: the acks in flight awaited, then the chunks purged.
    Settling,
    /// Failed: the purge of the chunks asked for.
    Cleaning,
    /// Over.
    Done,
}

/// How the chunks go out.
enum Sender {
    /// Acked publishes, up to `max` in flight; the bytes of each.
    Window { in_flight: VecDeque<u64>, max: usize },
    /// One fast batch; chunks waiting for room; the batch's start acknowledged.
    Fast { window: FastWindow, held: VecDeque<Bytes>, started: bool },
}

/// The put of one object, from its bytes to its stored meta.
pub struct ObjectWrite {
    bucket: String,
    nuid: String,
    /// The chunks' subject.
    subject: String,
    chunk_size: usize,
    stall: Duration,
    meta: ObjectMetadata,
    /// The object this one replaces.
    old: Option<Found>,
    previous_revision: Option<u64>,
    /// The time the meta tells.
    clock: fn() -> SystemTime,
    sender: Sender,
    /// Bytes fed that do not fill a chunk yet.
    partial: BytesMut,
    digest: Option<Digest>,
    /// The host's SHA-256, hashing instead of `digest`.
    host: Option<Box<dyn Sha256Host>>,
    size: u64,
    chunks: usize,
    acked: u64,
    /// The meta stored, its revision, and the subjects left to purge.
    stored: Option<(ObjectInfo, u64)>,
    purges: Purges,
    /// [`Written::Want`] handed out and no bytes since.
    wanted: bool,
    phase: Phase,
    /// What failed, and why.
    failure: Option<(PutErrorKind, Error)>,
    /// Its end (or failure) was handed out.
    over: bool,
    items: VecDeque<Written>,
    steps: VecDeque<Step>,
    timers: TimerTable<Wait>,
}

/// What a put is told at its start.
pub struct WriteOptions<'a> {
    /// The bucket.
    pub bucket: &'a str,
    /// The JetStream API prefix (`$JS.API`).
    pub api_prefix: &'a str,
    /// The token of the new chunks' subject (a fresh NUID).
    pub nuid: String,
    /// The server's `max_payload`: no chunk is larger.
    pub max_payload: usize,
    /// How long replies may stop coming.
    pub stall: Duration,
    /// The object the name finds now, which the put replaces.
    pub old: Option<Found>,
    /// Store the meta only if the name's meta is at this revision (0: none).
    pub previous_revision: Option<u64>,
    /// The inbox of a fast batch (the bucket allows them), or `None`: acked publishes.
    pub fast: Option<String>,
    /// The wall clock, for the meta's time.
    pub clock: fn() -> SystemTime,
}

impl ObjectWrite {
    /// The put of `meta`'s object as `options` say; nothing is sent before
    /// the first [`poll_step`](Procedure::poll_step).
    pub fn new(meta: ObjectMetadata, options: WriteOptions<'_>) -> Self {
        // 0 is the default, as nats.js reads it; never more than a message holds.
        let chunk_size = meta.chunk_size.filter(|&n| n > 0).unwrap_or(super::DEFAULT_CHUNK_SIZE);
        let chunk_size = chunk_size.min(options.max_payload.max(1));
        let subject = chunk_subject(options.bucket, &options.nuid);
        let mut steps = VecDeque::new();
        let sender = match options.fast {
            Some(inbox) => {
                let window = FastWindow::with_options(inbox, FastOptions::default());
                steps.push_back(Step::Subscribe { subject: window.subscription() });
                Sender::Fast { window, held: VecDeque::new(), started: false }
            }
            None => Sender::Window { in_flight: VecDeque::new(), max: (MAX_IN_FLIGHT_BYTES / chunk_size).max(2) },
        };
        ObjectWrite {
            bucket: options.bucket.to_string(),
            nuid: options.nuid,
            subject,
            chunk_size,
            stall: options.stall,
            meta,
            old: options.old,
            previous_revision: options.previous_revision,
            clock: options.clock,
            sender,
            partial: BytesMut::new(),
            digest: Some(Digest::new()),
            host: None,
            size: 0,
            chunks: 0,
            acked: 0,
            stored: None,
            purges: Purges::new(options.api_prefix, options.bucket),
            wanted: false,
            phase: Phase::Writing,
            failure: None,
            over: false,
            items: VecDeque::new(),
            steps,
            timers: TimerTable::default(),
        }
    }

    /// The bytes per chunk.
    #[cfg(any(test, not(target_arch = "wasm32")))]
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// The same put, hashing with `host` (Node's `node:crypto`).
    #[cfg_attr(not(feature = "wasm-object-store"), allow(dead_code))]
    pub(crate) fn with_host(mut self, host: Box<dyn Sha256Host>) -> Self {
        self.host = Some(host);
        self
    }

    /// Which step failed, once the put ended in an error.
    pub fn failure(&self) -> Option<PutErrorKind> {
        self.failure.as_ref().map(|(kind, _)| *kind)
    }

    /// The object's bytes `data`: cut into chunks, each sent (or held for room).
    fn write(&mut self, now: Instant, mut data: Bytes) {
        self.wanted = false;
        if !self.partial.is_empty() {
            let take = data.len().min(self.chunk_size - self.partial.len());
            self.partial.extend_from_slice(&data.split_to(take));
            if self.partial.len() == self.chunk_size {
                let chunk = self.partial.split().freeze();
                self.chunk(now, chunk);
            }
        }
        while data.len() >= self.chunk_size {
            let chunk = data.split_to(self.chunk_size);
            self.chunk(now, chunk);
        }
        self.partial.extend_from_slice(&data);
    }

    /// Hashes and sends (or holds) the next chunk.
    fn chunk(&mut self, now: Instant, chunk: Bytes) {
        if let Some(host) = &mut self.host {
            if let Err(e) = host.update(&chunk) {
                return self.fail(now, PutErrorKind::Other, e);
            }
        } else if let Some(digest) = &mut self.digest {
            digest.update(&chunk);
        }
        self.size += chunk.len() as u64;
        self.chunks += 1;
        match &mut self.sender {
            Sender::Window { in_flight, .. } => {
                in_flight.push_back(chunk.len() as u64);
                let publish = Publish::build().payload(chunk);
                self.steps.push_back(Step::Publish { subject: self.subject.clone(), publish });
                self.await_replies(now);
            }
            Sender::Fast { held, .. } => {
                held.push_back(chunk);
                self.release(now);
            }
        }
    }

    /// Sends the held chunks of a fast batch while its window has room
    /// (after the first, only once the server took the batch).
    fn release(&mut self, now: Instant) {
        let Sender::Fast { window, held, started } = &mut self.sender else { return };
        while window.has_room() && (window.sent() == 0 || *started) {
            let Some(chunk) = held.pop_front() else { break };
            let reply = window.next_reply(false);
            let publish = Publish::build().payload(chunk);
            self.steps.push_back(Step::Send { subject: self.subject.clone(), reply, publish });
        }
        let waiting = window.sent() > window.acked() || !held.is_empty();
        if self.phase == Phase::Flushing && held.is_empty() {
            self.publish_meta(now);
        } else if waiting {
            self.await_replies(now);
        }
    }

    /// A reply is awaited: the stall deadline runs, unless it does already.
    fn await_replies(&mut self, now: Instant) {
        if self.timers.get(Wait::Stall).is_none() {
            self.timers.set(Wait::Stall, Some(now + self.stall));
        }
    }

    /// A reply came: the stall deadline starts over if more are awaited.
    fn replied(&mut self, now: Instant, more: bool) {
        self.timers.set(Wait::Stall, more.then(|| now + self.stall));
    }

    /// Whether more bytes are wanted now.
    fn has_room(&self) -> bool {
        match &self.sender {
            Sender::Window { in_flight, max } => in_flight.len() < *max,
            Sender::Fast { held, .. } => held.is_empty(),
        }
    }

    /// The bytes ended: the last chunk goes, then (all acknowledged) the meta.
    fn end_of_data(&mut self, now: Instant) {
        self.wanted = false;
        self.phase = Phase::Flushing;
        if !self.partial.is_empty() {
            let chunk = self.partial.split().freeze();
            self.chunk(now, chunk);
        }
        match &self.sender {
            Sender::Window { in_flight, .. } if in_flight.is_empty() => self.publish_meta(now),
            Sender::Window { .. } => {}
            Sender::Fast { .. } => self.release(now),
        }
    }

    /// The meta of the object written, with a rollup: an acked publish, or the fast batch's commit.
    fn publish_meta(&mut self, now: Instant) {
        if self.phase != Phase::Flushing {
            return;
        }
        let sum = match self.host.take() {
            Some(mut host) => match host.finish() {
                Ok(sum) => sum,
                Err(e) => return self.fail(now, PutErrorKind::Other, e),
            },
            None => self.digest.take().unwrap_or_default().finish(),
        };
        self.phase = Phase::Meta;
        let meta = std::mem::take(&mut self.meta);
        let info = ObjectInfo {
            name: meta.name,
            description: meta.description,
            metadata: meta.metadata,
            headers: meta.headers,
            options: Some(ObjectOptions { link: None, max_chunk_size: Some(self.chunk_size) }),
            bucket: self.bucket.clone(),
            nuid: self.nuid.clone(),
            size: self.size as usize,
            chunks: self.chunks,
            modified: Some((self.clock)()),
            digest: Some(digest::format(&sum)),
            deleted: false,
        };
        let subject = meta_subject(&self.bucket, &info.name);
        // What the meta replaces, purged once it is stored.
        let (stale, shadowed) = match self.old.take() {
            Some(old) => {
                let chunks = !old.info.nuid.is_empty() && old.info.nuid != info.nuid;
                // The old meta's subject, when nats.js wrote it under its Latin-1 name: one meta per object.
                ([chunks.then(|| chunk_subject(&self.bucket, &old.info.nuid)), Some(old.subject)], old.shadowed)
            }
            None => ([None, None], None),
        };
        let write = meta_write(&self.bucket, subject, info, stale, shadowed);
        let publish = write.publish(self.previous_revision);
        let subject = write.subject;
        let step = match &mut self.sender {
            Sender::Window { .. } => Step::Publish { subject, publish },
            Sender::Fast { window, .. } => Step::Send { subject, reply: window.next_reply(true), publish },
        };
        self.steps.push_back(step);
        self.await_replies(now);
        self.stored = Some((write.info, 0));
        self.purges.start(write.purge);
    }

    /// The meta is stored at `revision`: the whole object is acknowledged, what it replaces goes.
    fn meta_stored(&mut self, now: Instant, revision: u64) {
        if let Some((_, stored)) = &mut self.stored {
            *stored = revision;
        }
        self.report(self.size);
        self.phase = Phase::Purging;
        self.replied(now, false);
        self.purge_next(now);
    }

    /// Asks for the purge of the next subject, or ends with the object.
    fn purge_next(&mut self, now: Instant) {
        match self.purges.next() {
            Some(step) => self.ask_purge(now, step),
            None => {
                self.phase = Phase::Done;
                if let Some((info, revision)) = self.stored.take() {
                    self.items.push_back(Written::Stored(Box::new(info), revision));
                }
            }
        }
    }

    /// Asks for a purge (`step`).
    fn ask_purge(&mut self, now: Instant, step: Step) {
        self.steps.push_back(step);
        self.await_replies(now);
    }

    /// The answer to a purge.
    fn answered(&mut self, now: Instant, answer: Result<Bytes, Error>) {
        self.replied(now, false);
        let purged = self.purges.answered(answer);
        match self.phase {
            Phase::Purging => match purged {
                Ok(()) => self.purge_next(now),
                Err(e) => {
                    // The object is stored; what it replaced stays.
                    self.failure = Some((PutErrorKind::PurgeOldChunks, e));
                    self.phase = Phase::Done;
                }
            },
            // Best effort: a sealed bucket or a lost connection refuses this too.
            Phase::Cleaning => self.phase = Phase::Done,
            _ => {}
        }
    }

    /// Bytes up to `acked` are stored: said if it moved (or of an object without bytes).
    fn report(&mut self, acked: u64) {
        if acked <= self.acked && acked != 0 {
            return;
        }
        self.acked = acked;
        self.items.push_back(Written::Acked(acked));
    }

    /// The put failed in `kind`'s step: the acks in flight settle, then its chunks are purged.
    fn fail(&mut self, now: Instant, kind: PutErrorKind, cause: Error) {
        if matches!(self.phase, Phase::Settling | Phase::Cleaning | Phase::Done) {
            return;
        }
        let kind = match cause {
            Error::Timeout => PutErrorKind::TimedOut,
            _ if kind == PutErrorKind::PublishChunks => crate::core::error::SortCause::sort(&cause),
            _ => kind,
        };
        self.failure = Some((kind, cause));
        self.wanted = false;
        self.phase = Phase::Settling;
        if let Sender::Fast { held, .. } = &mut self.sender {
            held.clear();
        }
        self.settle(now);
        if self.phase == Phase::Settling {
            self.await_replies(now);
        }
    }

    /// Purges the chunks once no ack is in flight.
    fn settle(&mut self, now: Instant) {
        let in_flight = match &self.sender {
            Sender::Window { in_flight, .. } => in_flight.len(),
            Sender::Fast { .. } => 0,
        };
        if self.phase == Phase::Settling && in_flight == 0 {
            self.phase = Phase::Cleaning;
            self.replied(now, false);
            self.purges.start(vec![self.subject.clone()]);
            if let Some(step) = self.purges.next() {
                self.ask_purge(now, step);
            }
        }
    }

    /// The ack of the oldest publish in flight (a chunk, or the meta).
    fn acked(&mut self, now: Instant, ack: Result<u64, Error>) {
        match self.phase {
            Phase::Meta => match ack {
                Ok(revision) => self.meta_stored(now, revision),
                Err(e) => self.fail(now, PutErrorKind::PublishMetadata, e),
            },
            Phase::Writing | Phase::Flushing | Phase::Settling => {
                let Sender::Window { in_flight, .. } = &mut self.sender else {
                    // A fast batch's send that failed.
                    if let Err(e) = ack {
                        self.fail(now, PutErrorKind::PublishChunks, e);
                    }
                    return;
                };
                let len = in_flight.pop_front().unwrap_or_default();
                let more = !in_flight.is_empty();
                match ack {
                    _ if self.phase == Phase::Settling => {
                        self.replied(now, more);
                        self.settle(now);
                    }
                    Ok(_) => {
                        self.replied(now, more);
                        self.report(self.acked + len);
                        if !more {
                            self.publish_meta(now);
                        }
                    }
                    Err(e) => {
                        self.replied(now, more);
                        self.fail(now, PutErrorKind::PublishChunks, e);
                    }
                }
            }
            Phase::Purging | Phase::Cleaning | Phase::Done => {}
        }
    }

    /// A control message of the fast batch.
    fn control(&mut self, now: Instant, control: Result<Bytes, Error>) {
        let Sender::Fast { window, started, .. } = &mut self.sender else { return };
        if matches!(self.phase, Phase::Settling | Phase::Cleaning | Phase::Done | Phase::Purging) {
            return;
        }
        let control = control.and_then(|payload| window.handle(&payload));
        let kind = if self.phase == Phase::Meta { PutErrorKind::PublishMetadata } else { PutErrorKind::PublishChunks };
        match control {
            Ok(Control::Ack { .. }) | Ok(Control::Gap { .. }) => {
                *started = true;
                let acked = (window.acked() * self.chunk_size as u64).min(self.size);
                self.replied(now, false);
                if acked > 0 {
                    self.report(acked);
                }
                self.release(now);
                if self.phase == Phase::Meta {
                    self.await_replies(now);
                }
            }
            Ok(Control::Done(PublishAck { sequence, .. })) if self.phase == Phase::Meta => {
                self.meta_stored(now, sequence)
            }
            Ok(Control::Done(_)) => {
                let e = Error::Protocol(crate::core::error::ProtocolError::FastBatch("committed early".into()));
                self.fail(now, kind, e)
            }
            Err(e) => self.fail(now, kind, e),
        }
    }
}

impl Procedure for ObjectWrite {
    type Item = Written;

    fn handle_reply(&mut self, now: Instant, reply: Reply) {
        match reply {
            Reply::Message { payload, .. } if self.phase == Phase::Writing => self.write(now, payload),
            Reply::BatchEnd if self.phase == Phase::Writing => self.end_of_data(now),
            Reply::BatchFailed(e) if self.phase == Phase::Writing => self.fail(now, PutErrorKind::ReadChunks, e),
            Reply::Acked(ack) => self.acked(now, ack),
            Reply::Inbox(control) => self.control(now, control),
            Reply::Answer(answer) => self.answered(now, answer),
            // Bytes after their end or after a failure, and what a put never asks for.
            Reply::Message { .. }
            | Reply::Pushed { .. }
            | Reply::BatchEnd
            | Reply::BatchFailed(_)
            | Reply::Stored(_) => {}
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        while let Some(timer) = self.timers.pop_expired(now) {
            if timer != Wait::Stall {
                continue;
            }
            match self.phase {
                Phase::Writing | Phase::Flushing => {
                    // The acks in flight are given up on: the chunks are purged at once.
                    if let Sender::Window { in_flight, .. } = &mut self.sender {
                        in_flight.clear();
                    }
                    self.fail(now, PutErrorKind::PublishChunks, Error::Timeout)
                }
                Phase::Meta => self.fail(now, PutErrorKind::PublishMetadata, Error::Timeout),
                Phase::Purging => {
                    self.failure = Some((PutErrorKind::PurgeOldChunks, Error::Timeout));
                    self.phase = Phase::Done;
                }
                // The acks in flight are given up on: the chunks are purged now.
                Phase::Settling => {
                    if let Sender::Window { in_flight, .. } = &mut self.sender {
                        in_flight.clear();
                    }
                    self.settle(now);
                }
                Phase::Cleaning => self.phase = Phase::Done,
                Phase::Done => {}
            }
        }
    }

    fn poll_step(&mut self) -> Option<Step> {
        self.steps.pop_front()
    }

    fn poll_item(&mut self, _now: Instant) -> Yield<Written> {
        if let Some(item) = self.items.pop_front() {
            return Yield::Item(item);
        }
        match self.phase {
            Phase::Writing if !self.wanted && self.has_room() => {
                self.wanted = true;
                Yield::Item(Written::Want)
            }
            Phase::Done if self.over => Yield::Done,
            Phase::Done => {
                self.over = true;
                self.timers.stop_all();
                match &self.failure {
                    Some((_, e)) => Yield::Failed(e.clone()),
                    None => Yield::Done,
                }
            }
            _ => Yield::Wait,
        }
    }

    fn poll_deadline(&self) -> Option<Deadline<Wait>> {
        self.timers.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::header::NATS_ROLLUP;
    use crate::core::jetstream::api::{ErrorCode, JetStreamError};
    use crate::core::object::lookup::Shadowed;
    use crate::core::object::meta_json;
    use crate::core::object::scripted::{self, at, purged};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const STALL: Duration = Duration::from_secs(5);

    fn clock() -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }

    /// A put of object "o" of bucket "b" in chunks of `chunk` bytes over `old`.
    fn put(chunk: usize, old: Option<Found>, fast: bool) -> ObjectWrite {
        let meta = ObjectMetadata { name: "o".into(), chunk_size: Some(chunk), ..Default::default() };
        let options = WriteOptions {
            bucket: "b",
            api_prefix: "$JS.API",
            nuid: "NEW".into(),
            max_payload: 1 << 20,
            stall: STALL,
            old,
            previous_revision: None,
            fast: fast.then(|| "_INBOX.F".to_string()),
            clock,
        };
        ObjectWrite::new(meta, options)
    }

    /// The steps asked for, as text.
    fn steps(put: &mut ObjectWrite) -> Vec<String> {
        scripted::steps(put, |step| match step {
            Step::Publish { subject, publish } => match &publish.headers {
                Some(h) => format!("publish {subject} rollup={:?}", h.get(NATS_ROLLUP).map(|v| v.to_string())),
                None => format!("publish {subject} {:?}", &publish.payload[..]),
            },
            Step::Send { subject, reply, .. } => format!("send {subject} {reply}"),
            Step::Subscribe { subject } => format!("subscribe {subject}"),
            Step::Request { subject, payload } => format!("request {subject} {}", String::from_utf8_lossy(&payload)),
            other => format!("{other:?}"),
        })
    }

    /// Items until the put waits or ends, as text.
    fn items(put: &mut ObjectWrite, now: Instant) -> Vec<String> {
        scripted::items(put, now, |item| match item {
            Written::Stored(info, revision) => {
                format!("stored {} {} {} rev {revision}", info.size, info.chunks, info.digest.unwrap())
            }
            item => format!("{item:?}"),
        })
    }

    fn data(bytes: &[u8]) -> Reply {
        Reply::Message { sequence: 0, payload: Bytes::copy_from_slice(bytes), pending: 0 }
    }

    fn digest_of(bytes: &[u8]) -> String {
        let mut digest = Digest::new();
        digest.update(bytes);
        digest::format(&digest.finish())
    }

    #[test]
    fn a_put_chunks_hashes_and_stores_the_meta_once_every_chunk_is_acked() {
        let mut put = put(4, None, false);
        assert_eq!(items(&mut put, at(0)), ["Want"]);
        assert_eq!(items(&mut put, at(0)), Vec::<String>::new(), "wanted once until fed");
        put.handle_reply(at(1), data(b"abcdefghij"));
        assert_eq!(
            steps(&mut put),
            ["publish $O.b.C.NEW [97, 98, 99, 100]", "publish $O.b.C.NEW [101, 102, 103, 104]"]
        );
        assert_eq!(put.poll_deadline().map(|d| (d.at, d.reason)), Some((at(1) + STALL, Wait::Stall)));
        assert_eq!(items(&mut put, at(1)), ["Want"]);
        put.handle_reply(at(2), Reply::BatchEnd);
        assert_eq!(steps(&mut put), ["publish $O.b.C.NEW [105, 106]"]);
        put.handle_reply(at(3), Reply::Acked(Ok(1)));
        put.handle_reply(at(3), Reply::Acked(Ok(2)));
        assert_eq!(steps(&mut put), Vec::<String>::new(), "no meta before the last ack");
        put.handle_reply(at(4), Reply::Acked(Ok(3)));
        assert_eq!(steps(&mut put), ["publish $O.b.M.bw== rollup=Some(\"sub\")"]);
        assert_eq!(items(&mut put, at(4)), ["Acked(4)", "Acked(8)", "Acked(10)"]);
        put.handle_reply(at(5), Reply::Acked(Ok(4)));
        let stored = format!("stored 10 3 {} rev 4", digest_of(b"abcdefghij"));
        assert_eq!(items(&mut put, at(5)), [stored.as_str(), "done"]);
        assert_eq!(put.poll_deadline(), None);
        assert_eq!(put.failure(), None);
    }

    #[test]
    fn the_window_wants_no_bytes_while_it_is_full() {
        // Asked for 4 MiB chunks, cut at the server's max_payload: 1 MiB.
        let mut put = put(4 << 20, None, false);
        assert_eq!(put.chunk_size(), 1 << 20);
        assert_eq!(items(&mut put, at(0)), ["Want"]);
        put.handle_reply(
            at(0),
            Reply::Message { sequence: 0, payload: Bytes::from(vec![1; MAX_IN_FLIGHT_BYTES]), pending: 0 },
        );
        assert_eq!(steps(&mut put).len(), 8);
        assert_eq!(items(&mut put, at(0)), Vec::<String>::new(), "eight chunks in flight: full");
        put.handle_reply(at(1), Reply::Acked(Ok(1)));
        assert_eq!(items(&mut put, at(1)), [format!("Acked({})", 1 << 20), "Want".into()]);
    }

    #[test]
    fn an_object_without_bytes_is_a_meta_alone() {
        let mut put = put(4, None, false);
        assert_eq!(items(&mut put, at(0)), ["Want"]);
        put.handle_reply(at(0), Reply::BatchEnd);
        assert_eq!(steps(&mut put), ["publish $O.b.M.bw== rollup=Some(\"sub\")"]);
        put.handle_reply(at(1), Reply::Acked(Ok(1)));
        let stored = format!("stored 0 0 {} rev 1", digest_of(b""));
        assert_eq!(items(&mut put, at(1)), ["Acked(0)", stored.as_str(), "done"]);
    }

    #[test]
    fn replacing_an_object_purges_the_old_chunks_after_the_new_meta_lands() {
        let old = Found {
            info: meta_json::read(br#"{"name":"o","bucket":"b","nuid":"OLD","size":3,"chunks":1}"#).unwrap(),
            revision: 7,
            subject: "$O.b.M.bw==".into(),
            shadowed: Some(Shadowed { subject: "$O.b.M.latin1".into(), nuid: Some("SHADOW".into()) }),
        };
        let mut put = put(4, Some(old), false);
        let _ = items(&mut put, at(0));
        put.handle_reply(at(0), data(b"abc"));
        put.handle_reply(at(0), Reply::BatchEnd);
        put.handle_reply(at(1), Reply::Acked(Ok(8)));
        assert_eq!(steps(&mut put), ["publish $O.b.C.NEW [97, 98, 99]", "publish $O.b.M.bw== rollup=Some(\"sub\")"]);
        assert_eq!(items(&mut put, at(1)), ["Acked(3)"], "nothing purged before the meta is stored");
        put.handle_reply(at(2), Reply::Acked(Ok(9)));
        assert_eq!(steps(&mut put), [r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.OLD"}"#]);
        put.handle_reply(at(3), purged(1));
        assert_eq!(steps(&mut put), [r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.M.latin1"}"#]);
        put.handle_reply(at(4), purged(1));
        assert_eq!(steps(&mut put), [r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.SHADOW"}"#]);
        assert_eq!(items(&mut put, at(4)), Vec::<String>::new());
        put.handle_reply(at(5), purged(1));
        let stored = format!("stored 3 1 {} rev 9", digest_of(b"abc"));
        assert_eq!(items(&mut put, at(5)), [stored.as_str(), "done"]);
    }

    #[test]
    fn a_purge_of_the_old_chunks_that_fails_says_so_with_the_object_stored() {
        let old = Found {
            info: meta_json::read(br#"{"name":"o","bucket":"b","nuid":"OLD","size":3,"chunks":1}"#).unwrap(),
            revision: 7,
            subject: "$O.b.M.bw==".into(),
            shadowed: None,
        };
        let mut put = put(4, Some(old), false);
        put.handle_reply(at(0), Reply::BatchEnd);
        put.handle_reply(at(1), Reply::Acked(Ok(8)));
        let _ = steps(&mut put);
        put.handle_reply(at(2), Reply::Answer(Err(Error::Timeout)));
        assert_eq!(items(&mut put, at(2)), ["Acked(0)", "failed: timed out"]);
        assert_eq!(put.failure(), Some(PutErrorKind::PurgeOldChunks));
        assert_eq!(steps(&mut put), Vec::<String>::new(), "the new chunks stay");
    }

    #[test]
    fn a_failed_put_settles_its_acks_then_purges_its_chunks() {
        let mut put = put(2, None, false);
        put.handle_reply(at(0), data(b"abcdef"));
        assert_eq!(steps(&mut put).len(), 3);
        let refused =
            JetStreamError { code: 503, err_code: ErrorCode(10077), description: "maximum bytes exceeded".into() };
        put.handle_reply(at(1), Reply::Acked(Ok(1)));
        put.handle_reply(at(2), Reply::Acked(Err(Error::JetStream(refused))));
        assert_eq!(steps(&mut put), Vec::<String>::new(), "one ack still in flight");
        assert_eq!(items(&mut put, at(2)), ["Acked(2)"]);
        put.handle_reply(at(3), data(b"late"));
        put.handle_reply(at(3), Reply::Acked(Ok(3)));
        assert_eq!(steps(&mut put), [r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.NEW"}"#]);
        assert_eq!(items(&mut put, at(3)), Vec::<String>::new(), "the error waits for the purge");
        put.handle_reply(at(4), purged(3));
        let out = items(&mut put, at(4));
        assert!(out[0].starts_with("failed: ") && out[0].contains("maximum bytes exceeded"), "{out:?}");
        assert_eq!(put.failure(), Some(PutErrorKind::PublishChunks));
        assert_eq!(items(&mut put, at(4)), ["done"]);
    }

    #[test]
    fn bytes_that_cannot_be_read_fail_the_put_and_purge_its_chunks() {
        let mut put = put(2, None, false);
        put.handle_reply(at(0), data(b"ab"));
        put.handle_reply(at(1), Reply::Acked(Ok(1)));
        let io = Error::Io { kind: std::io::ErrorKind::Other, message: "disk gone".into() };
        put.handle_reply(at(2), Reply::BatchFailed(io));
        assert_eq!(
            steps(&mut put),
            ["publish $O.b.C.NEW [97, 98]", r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.NEW"}"#]
        );
        put.handle_reply(at(3), Reply::Answer(Err(Error::Closed)));
        let out = items(&mut put, at(3));
        assert_eq!(out.last().map(|s| s.contains("disk gone")), Some(true), "{out:?}");
        assert_eq!(put.failure(), Some(PutErrorKind::ReadChunks));
    }

    #[test]
    fn a_lost_ack_times_out_with_its_reason_and_the_chunks_are_purged() {
        let mut put = put(4, None, false);
        put.handle_reply(at(0), data(b"abcd"));
        put.handle_reply(at(0), Reply::BatchEnd);
        let _ = steps(&mut put);
        let deadline = put.poll_deadline().unwrap();
        assert_eq!((deadline.at, deadline.reason), (at(0) + STALL, Wait::Stall));
        put.handle_timeout(at(1000));
        assert_eq!(steps(&mut put), Vec::<String>::new(), "early: nothing");
        // The ack never came: given up on, the chunks purged at once.
        put.handle_timeout(deadline.at);
        assert_eq!(steps(&mut put), [r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.NEW"}"#]);
        assert_eq!(items(&mut put, deadline.at), Vec::<String>::new(), "the error waits for the purge");
        put.handle_reply(deadline.at, purged(1));
        assert_eq!(items(&mut put, deadline.at), ["failed: timed out"]);
        assert_eq!(put.failure(), Some(PutErrorKind::TimedOut));
    }

    #[test]
    fn a_meta_refused_fails_the_put_and_purges_the_new_chunks() {
        let mut put = put(4, None, false);
        put.handle_reply(at(0), data(b"ab"));
        put.handle_reply(at(0), Reply::BatchEnd);
        put.handle_reply(at(1), Reply::Acked(Ok(1)));
        let wrong =
            JetStreamError { code: 400, err_code: ErrorCode(10071), description: "wrong last sequence: 3".into() };
        put.handle_reply(at(2), Reply::Acked(Err(Error::JetStream(wrong))));
        let steps = steps(&mut put);
        assert_eq!(steps.last().unwrap(), r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.NEW"}"#);
        put.handle_reply(at(3), purged(1));
        assert!(items(&mut put, at(3)).last().unwrap().contains("wrong last sequence"));
        assert_eq!(put.failure(), Some(PutErrorKind::PublishMetadata));
    }

    #[test]
    fn a_fast_put_streams_its_chunks_in_the_flow_window_and_commits_with_the_meta() {
        let mut put = put(1, None, true);
        assert_eq!(steps(&mut put), ["subscribe _INBOX.F.>"]);
        assert_eq!(items(&mut put, at(0)), ["Want"]);
        put.handle_reply(at(0), data(&[7; 25]));
        assert_eq!(
            steps(&mut put),
            ["send $O.b.C.NEW _INBOX.F.10.fail.1.0.$FI"],
            "the start waits for the server's word"
        );
        assert_eq!(items(&mut put, at(0)), Vec::<String>::new(), "chunks held: no more wanted");
        put.handle_reply(at(1), Reply::Inbox(Ok(Bytes::from_static(br#"{"type":"ack","seq":0,"msgs":10}"#))));
        assert_eq!(steps(&mut put).len(), 19, "the window holds two intervals");
        put.handle_reply(at(2), Reply::Inbox(Ok(Bytes::from_static(br#"{"type":"ack","seq":10,"msgs":10}"#))));
        assert_eq!(steps(&mut put).len(), 5);
        assert_eq!(items(&mut put, at(2)), ["Acked(10)", "Want"]);
        put.handle_reply(at(3), Reply::BatchEnd);
        assert_eq!(steps(&mut put), ["send $O.b.M.bw== _INBOX.F.10.fail.26.2.$FI"]);
        let ack = br#"{"stream":"OBJ_b","seq":26,"batch":"F","count":26}"#;
        put.handle_reply(at(4), Reply::Inbox(Ok(Bytes::from_static(ack))));
        let stored = format!("stored 25 25 {} rev 26", digest_of(&[7; 25]));
        assert_eq!(items(&mut put, at(4)), ["Acked(25)", stored.as_str(), "done"]);
    }

    #[test]
    fn a_fast_batch_the_stream_refuses_fails_the_put_and_purges_its_chunks() {
        let mut put = put(4, None, true);
        let _ = steps(&mut put);
        put.handle_reply(at(0), data(b"abcd"));
        let _ = steps(&mut put);
        let refused = br#"{"error":{"code":400,"err_code":10205,"description":"batch publish not enabled"}}"#;
        put.handle_reply(at(1), Reply::Inbox(Ok(Bytes::from_static(refused))));
        assert_eq!(steps(&mut put), [r#"request $JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.NEW"}"#]);
        put.handle_reply(at(2), purged(0));
        assert!(items(&mut put, at(2)).last().unwrap().contains("batch publish not enabled"));
        assert_eq!(put.failure(), Some(PutErrorKind::PublishChunks));
    }
}
