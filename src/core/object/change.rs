//! Looking an object up by name and changing its meta, sans-IO, as one
//! [`Procedure`]: the meta read under each subject the name makes (the
//! UTF-8 one and, for a Latin-1 name, nats.js 3.4's), the newer of them
//! the object; then, for a change, the meta the rule decides (a delete,
//! an update or a rename, a link), published with a rollup, and the
//! subjects it replaced purged one after another. For a get, a link is
//! followed to the object it names, in this bucket or another (a link to a
//! bucket or to a link refused, as nats.js and async-nats refuse them).
//! The Rust store and the wasm's `RawProcedure` pump it; a failure tells in
//! which [`Phase`] it came.

use std::collections::VecDeque;
use std::time::SystemTime;

use bytes::Bytes;

use super::error::is_not_found;
use super::info::{ObjectInfo, ObjectLink, ObjectOptions};
use super::lookup::{Found, MetaWrite, Purges, Stored, meta_subjects, meta_write, newer, not_found};
use super::names::{check_bucket, check_name, chunk_subject, meta_subject, stream_name};
use crate::core::error::Error;
use crate::core::jetstream::api::MsgGetRequest;
use crate::core::procedure::{Procedure, Reply, Step, Wait, Yield};
use crate::core::time::Instant;
use crate::core::timer::Deadline;

/// What is done to the object a name finds.
pub(crate) enum Change {
    /// Nothing: the object is the item (a missing one fails with the API's 404).
    Find,
    /// What a get reads: the object, or the one its link names (looked up
    /// in that bucket, read there without direct gets if it is another, as
    /// its stream's `allow_direct` is not known).
    Follow,
    /// Its meta says it is deleted, its chunks go.
    Delete,
    /// Renamed to `new_name` (if given) after `change`; a missing or deleted object is not found.
    Update {
        /// The new name, if it changes.
        new_name: Option<String>,
        /// What changes in the meta besides the name.
        change: Box<dyn FnOnce(&mut ObjectInfo) + Send>,
    },
    /// The name becomes a link to `link` (its chunks token `nuid`), over a
    /// link or a deleted object of that name, never over an object.
    Link {
        /// What it points to.
        link: ObjectLink,
        /// The link meta's token.
        nuid: String,
    },
}

/// Where a change is, and so where it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Looking the name (or an update's new name) up, or refusing a missing object.
    Find,
    /// The rule refused the change (an update's new name or a link's is an
    /// object's), or a get's link leads to a link or names no valid bucket.
    Decide,
    /// A get's link names a whole bucket, not an object.
    Follow,
    /// Publishing the new meta.
    Publish,
    /// Purging what it replaced.
    Purge,
    /// Over.
    Done,
}

/// What a change hands out, once.
#[derive(Clone)]
pub(crate) enum Changed {
    /// The object found ([`Change::Find`]; for [`Change::Follow`], the
    /// object a link names), the bucket holding it and whether its chunks
    /// may be read with direct gets.
    Found {
        /// The object (for a get, never a link).
        found: Found,
        /// Its bucket.
        bucket: String,
        /// The bucket's stream answers direct gets.
        direct: bool,
    },
    /// The meta written, its revision and the messages purged after it.
    Written {
        /// The new meta.
        info: ObjectInfo,
        /// Its stream sequence.
        revision: u64,
        /// The messages purged.
        purged: u64,
    },
}

/// Where a change's requests go.
pub(crate) struct Target<'a> {
    /// The bucket.
    pub bucket: &'a str,
    /// The JetStream API prefix (`$JS.API`).
    pub api_prefix: &'a str,
    /// The stream answers direct gets.
    pub direct: bool,
    /// The wall clock, for the new meta's time.
    pub clock: fn() -> SystemTime,
}

/// The lookup of one name: the subjects left to read, the metas read.
struct Lookup {
    /// The name looked up.
    name: String,
    subjects: VecDeque<String>,
    metas: Vec<Option<Stored>>,
}

/// A lookup and, for a change, the write it decides.
pub(crate) struct MetaChange {
    bucket: String,
    direct: bool,
    clock: fn() -> SystemTime,
    change: Option<Change>,
    phase: Phase,
    lookup: Option<Lookup>,
    /// The object the name found (an update's, while its new name is looked up).
    found: Option<Found>,
    /// The meta written and its revision.
    written: Option<(ObjectInfo, u64)>,
    purges: Purges,
    steps: VecDeque<Step>,
    outcome: Option<Yield<Changed>>,
}

impl MetaChange {
    /// `change` of the object `name` finds in `target`'s bucket.
    pub(crate) fn new(target: Target<'_>, name: &str, change: Change) -> Self {
        let mut procedure = MetaChange {
            bucket: target.bucket.to_string(),
            direct: target.direct,
            clock: target.clock,
            change: Some(change),
            phase: Phase::Find,
            lookup: None,
            found: None,
            written: None,
            purges: Purges::new(target.api_prefix, target.bucket),
            steps: VecDeque::new(),
            outcome: None,
        };
        procedure.look_up(name.to_string());
        procedure
    }

    /// Where it is, or where it failed.
    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }

    /// Starts the lookup of `name`: its first subject read.
    fn look_up(&mut self, name: String) {
        match meta_subjects(&self.bucket, &name) {
            Ok((utf8, latin1)) => {
                let subjects = std::iter::once(utf8).chain(latin1).collect();
                self.lookup = Some(Lookup { name, subjects, metas: Vec::new() });
                self.read_next();
            }
            Err(e) => self.fail(e),
        }
    }

    /// Asks for the next subject's newest meta, or decides once all are read.
    fn read_next(&mut self) {
        let Some(lookup) = &mut self.lookup else { return };
        match lookup.subjects.front() {
            Some(subject) => {
                let request = MsgGetRequest { last_by_subj: Some(subject.clone()), ..MsgGetRequest::default() };
                let stream = stream_name(&self.bucket);
                self.steps.push_back(Step::GetMessage { stream, direct: self.direct, request });
            }
            None => {
                let Lookup { name, metas, .. } = self.lookup.take().unwrap_or_else(|| unreachable!());
                let mut metas = metas.into_iter();
                let found = newer(metas.next().flatten(), metas.next().flatten());
                self.looked_up(&name, found);
            }
        }
    }

    /// A meta read (or why none was).
    fn stored(&mut self, stored: Result<crate::core::jetstream::raw_message::StreamMessage, Error>) {
        let Some(lookup) = &mut self.lookup else { return };
        let Some(subject) = lookup.subjects.pop_front() else { return };
        let stored = stored.and_then(|m| Stored::read(&lookup.name, subject, &m.payload, m.sequence, m.timestamp()));
        match stored {
            Ok(stored) => lookup.metas.push(Some(stored)),
            Err(e) if is_not_found(&e) => lookup.metas.push(None),
            Err(e) => return self.fail(e),
        }
        self.read_next();
    }

    /// The object `name` found (`None`: no object has it): the change decided.
    fn looked_up(&mut self, name: &str, found: Option<Found>) {
        let Some(change) = self.change.take() else { return };
        match change {
            Change::Follow => self.follow(name, found),
            Change::Find => match found {
                Some(found) => self.found(found),
                None => self.fail(not_found(name)),
            },
            Change::Delete => match found {
                Some(found) => {
                    let write = self.delete_write(found);
                    self.write(write)
                }
                None => self.fail(not_found(name)),
            },
            Change::Update { new_name, change } => match self.found.take() {
                // The new name's lookup: the object renamed over it.
                Some(object) => match found.filter(|taken| !taken.info.deleted) {
                    Some(taken) => self.refuse(&taken.info.name),
                    None => {
                        let write = self.update_write(object, new_name.unwrap_or_default(), change);
                        self.write(write)
                    }
                },
                None => match found.filter(|f| !f.info.deleted) {
                    None => self.fail(not_found(name)),
                    Some(object) => {
                        let new_name = new_name.unwrap_or_else(|| object.info.name.clone());
                        if new_name == object.info.name {
                            let write = self.update_write(object, new_name, change);
                            return self.write(write);
                        }
                        if let Err(e) = check_name(&new_name) {
                            return self.fail(e);
                        }
                        self.found = Some(object);
                        self.change = Some(Change::Update { new_name: Some(new_name.clone()), change });
                        self.look_up(new_name);
                    }
                },
            },
            Change::Link { link, nuid } => match found {
                Some(Found { info, .. }) if !info.deleted && info.link().is_none() => self.refuse(name),
                found => {
                    let write = self.link_write(name.to_string(), link, nuid, found);
                    self.write(write)
                }
            },
        }
    }

    /// What a get's lookup of `name` found: the object; or, for a link (the
    /// first lookup), the lookup of the object it names; or, the link's
    /// object found, that object unless it is a link too.
    fn follow(&mut self, name: &str, found: Option<Found>) {
        let Some(found) = found else { return self.fail(not_found(name)) };
        let followed = self.found.take().is_some();
        let Some(link) = found.info.link() else {
            return self.found(found);
        };
        if followed {
            let why = format!("{:?} is a link to a link", found.info.name);
            return self.refuse_with(Phase::Decide, Error::InvalidArgument(why));
        }
        let Some(target) = link.name.clone() else {
            let why = format!("{:?} links to bucket {:?}", found.info.name, link.bucket);
            return self.refuse_with(Phase::Follow, Error::InvalidArgument(why));
        };
        if let Err(e) = check_bucket(&link.bucket) {
            return self.refuse_with(Phase::Decide, e);
        }
        if link.bucket != self.bucket {
            self.bucket = link.bucket.clone();
            self.direct = false;
        }
        self.found = Some(found);
        self.change = Some(Change::Follow);
        self.look_up(target);
    }

    /// The write deleting the object `found`: its meta says so, its chunks go.
    fn delete_write(&self, found: Found) -> MetaWrite {
        let Found { mut info, subject, shadowed, .. } = found;
        let chunks = chunk_subject(&self.bucket, &info.nuid);
        info.deleted = true;
        info.size = 0;
        info.chunks = 0;
        info.digest = None;
        info.modified = Some((self.clock)());
        meta_write(&self.bucket, subject, info, [Some(chunks), None], shadowed)
    }

    /// The write of the object `found` renamed to `new_name` after `change`.
    fn update_write(
        &self,
        found: Found,
        new_name: String,
        change: Box<dyn FnOnce(&mut ObjectInfo) + Send>,
    ) -> MetaWrite {
        let Found { mut info, subject, shadowed, .. } = found;
        let renamed = new_name != info.name;
        change(&mut info);
        info.name = new_name;
        info.modified = Some((self.clock)());
        let new_subject = if renamed { meta_subject(&self.bucket, &info.name) } else { subject.clone() };
        meta_write(&self.bucket, new_subject, info, [Some(subject), None], shadowed)
    }

    /// The write of link `name` to `link` over `found` (a link or a deleted object, if any).
    fn link_write(&self, name: String, link: ObjectLink, nuid: String, found: Option<Found>) -> MetaWrite {
        let (subject, shadowed) = match found {
            Some(Found { subject, shadowed, .. }) => (subject, shadowed),
            None => (meta_subject(&self.bucket, &name), None),
        };
        let info = ObjectInfo {
            name,
            description: None,
            metadata: Default::default(),
            headers: None,
            options: Some(ObjectOptions { link: Some(link), max_chunk_size: None }),
            bucket: self.bucket.clone(),
            nuid,
            size: 0,
            chunks: 0,
            modified: Some((self.clock)()),
            digest: None,
            deleted: false,
        };
        meta_write(&self.bucket, subject, info, [None, None], shadowed)
    }

    /// Publishes `write`'s meta with a rollup; its purges wait for the ack.
    fn write(&mut self, write: MetaWrite) {
        let publish = write.publish(None);
        let MetaWrite { subject, info, purge } = write;
        self.steps.push_back(Step::Publish { subject, publish });
        self.phase = Phase::Publish;
        self.written = Some((info, 0));
        self.purges.start(purge);
    }

    /// The meta is stored at `revision` (or failed to be).
    fn acked(&mut self, acked: Result<u64, Error>) {
        if self.phase != Phase::Publish {
            return;
        }
        match acked {
            Ok(revision) => {
                if let Some((_, stored)) = &mut self.written {
                    *stored = revision;
                }
                self.phase = Phase::Purge;
                self.purge_next();
            }
            Err(e) => self.fail(e),
        }
    }

    /// Asks for the purge of the next subject, or ends with the meta written.
    fn purge_next(&mut self) {
        match self.purges.next() {
            Some(step) => self.steps.push_back(step),
            None => {
                let (info, revision) = self.written.take().unwrap_or_else(|| unreachable!());
                self.finish(Changed::Written { info, revision, purged: self.purges.purged });
            }
        }
    }

    /// The answer to a purge.
    fn answered(&mut self, answer: Result<Bytes, Error>) {
        if self.phase != Phase::Purge {
            return;
        }
        match self.purges.answered(answer) {
            Ok(()) => self.purge_next(),
            Err(e) => self.fail(e),
        }
    }

    /// The rule refused the change: an object has the name `taken`.
    fn refuse(&mut self, taken: &str) {
        self.refuse_with(Phase::Decide, Error::InvalidArgument(format!("an object named {taken:?} exists")));
    }

    /// The rule refused it in `phase`, for `why`.
    fn refuse_with(&mut self, phase: Phase, why: Error) {
        self.phase = phase;
        self.outcome = Some(Yield::Failed(why));
    }

    /// Fails in the phase it is in.
    fn fail(&mut self, e: Error) {
        self.lookup = None;
        self.outcome = Some(Yield::Failed(e));
    }

    /// Ends with the object `found` in the bucket it looked in.
    fn found(&mut self, found: Found) {
        self.finish(Changed::Found { found, bucket: self.bucket.clone(), direct: self.direct })
    }

    fn finish(&mut self, changed: Changed) {
        self.phase = Phase::Done;
        self.outcome = Some(Yield::Item(changed));
    }
}

impl Procedure for MetaChange {
    type Item = Changed;

    fn handle_reply(&mut self, _now: Instant, reply: Reply) {
        if self.outcome.is_some() {
            return;
        }
        match reply {
            Reply::Stored(stored) => self.stored(stored),
            Reply::Acked(acked) => self.acked(acked),
            Reply::Answer(answer) => self.answered(answer),
            // A change reads no batch and no inbox.
            _ => {}
        }
    }

    fn handle_timeout(&mut self, _now: Instant) {}

    fn poll_step(&mut self) -> Option<Step> {
        self.steps.pop_front()
    }

    fn poll_item(&mut self, _now: Instant) -> Yield<Changed> {
        match self.outcome.take() {
            None => Yield::Wait,
            Some(outcome) => {
                // Once handed out, it is over.
                self.outcome = Some(Yield::Done);
                outcome
            }
        }
    }

    fn poll_deadline(&self) -> Option<Deadline<Wait>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::header::{HeaderMap, NATS_ROLLUP};
    use crate::core::jetstream::api::{ErrorCode, JetStreamError};
    use crate::core::jetstream::raw_message::StreamMessage;
    use crate::core::object::meta_json;
    use crate::core::object::scripted::{self, purged};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn epoch() -> SystemTime {
        SystemTime::UNIX_EPOCH
    }

    fn change(name: &str, change: Change) -> MetaChange {
        let target = Target { bucket: "b", api_prefix: "$JS.API", direct: true, clock: epoch };
        MetaChange::new(target, name, change)
    }

    fn now() -> Instant {
        scripted::at(0)
    }

    /// The steps asked for, as text.
    fn steps(p: &mut MetaChange) -> Vec<String> {
        scripted::steps(p, |step| match step {
            Step::GetMessage { stream, direct, request } => {
                format!("get {stream} {direct} {}", request.last_by_subj.unwrap_or_default())
            }
            Step::Publish { subject, publish } => {
                let rollup =
                    publish.headers.as_ref().and_then(|h| h.get(NATS_ROLLUP)).map_or("-", |v| v.as_str()).to_string();
                let meta = meta_json::read(&publish.payload).unwrap();
                let deleted = if meta.deleted { " deleted" } else { "" };
                format!("publish {subject} rollup={rollup} name={}{deleted}", meta.name)
            }
            Step::Request { subject, payload } => format!("{subject} {}", String::from_utf8_lossy(&payload)),
            other => format!("{other:?}"),
        })
    }

    /// A stored meta of `name` with chunks `nuid` at `sequence`.
    fn meta(name: &str, nuid: &str, sequence: u64, extra: &str) -> Reply {
        let payload = format!(r#"{{"name":"{name}","bucket":"b","nuid":"{nuid}","size":4,"chunks":1{extra}}}"#);
        Reply::Stored(Ok(StreamMessage {
            subject: String::new(),
            sequence,
            headers: HeaderMap::new(),
            payload: Bytes::from(payload),
            time: "2026-12-07T20:00:00Z".into(),
        }))
    }

    fn missing() -> Reply {
        let e =
            JetStreamError { code: 404, err_code: ErrorCode::NO_MESSAGE_FOUND, description: "no message found".into() };
        Reply::Stored(Err(Error::JetStream(e)))
    }

    fn written(p: &mut MetaChange) -> (String, u64, u64) {
        match p.poll_item(now()) {
            Yield::Item(Changed::Written { info, revision, purged }) => (info.name, revision, purged),
            _ => panic!("nothing written"),
        }
    }

    fn failed(p: &mut MetaChange) -> Error {
        match p.poll_item(now()) {
            Yield::Failed(e) => e,
            _ => panic!("not failed"),
        }
    }

    const M_O: &str = "$O.b.M.bw==";

    #[test]
    fn find_reads_the_meta_and_hands_out_the_object() {
        let mut p = change("o", Change::Find);
        assert_eq!(steps(&mut p), [format!("get OBJ_b true {M_O}")]);
        assert!(matches!(p.poll_item(now()), Yield::Wait));
        p.handle_reply(now(), meta("o", "N", 7, ""));
        assert!(steps(&mut p).is_empty());
        let Yield::Item(Changed::Found { found, .. }) = p.poll_item(now()) else { panic!("not found") };
        assert_eq!((found.revision, found.subject.as_str(), found.info.nuid.as_str()), (7, M_O, "N"));
        assert!(found.info.modified.is_some(), "its time is the message's");
        assert!(matches!(p.poll_item(now()), Yield::Done));
    }

    #[test]
    fn a_latin1_name_reads_both_subjects_and_the_newer_shadows_the_older() {
        let mut p = change("é", Change::Delete);
        assert_eq!(steps(&mut p), ["get OBJ_b true $O.b.M.w6k="]);
        p.handle_reply(now(), meta("é", "A", 3, ""));
        assert_eq!(steps(&mut p), ["get OBJ_b true $O.b.M.6Q=="]);
        p.handle_reply(now(), meta("é", "B", 9, ""));
        // Latin-1's is newer: deleted there; its chunks, the UTF-8 meta and that meta's chunks purged.
        assert_eq!(steps(&mut p), ["publish $O.b.M.6Q== rollup=sub name=é deleted",]);
        p.handle_reply(now(), Reply::Acked(Ok(10)));
        assert_eq!(steps(&mut p), [r#"$JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.B"}"#]);
        p.handle_reply(now(), purged(1));
        assert_eq!(steps(&mut p), [r#"$JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.M.w6k="}"#]);
        p.handle_reply(now(), purged(1));
        assert_eq!(steps(&mut p), [r#"$JS.API.STREAM.PURGE.OBJ_b {"filter":"$O.b.C.A"}"#]);
        p.handle_reply(now(), purged(2));
        assert_eq!(written(&mut p), ("é".into(), 10, 4));
    }

    #[test]
    fn a_missing_object_is_the_apis_404() {
        for c in [Change::Find, Change::Delete] {
            let mut p = change("o", c);
            let _ = steps(&mut p);
            p.handle_reply(now(), missing());
            assert!(steps(&mut p).is_empty());
            assert!(is_not_found(&failed(&mut p)));
            assert_eq!(p.phase(), Phase::Find);
        }
    }

    #[test]
    fn a_meta_of_another_name_is_not_the_object() {
        let mut p = change("o", Change::Find);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("other", "N", 7, ""));
        assert!(is_not_found(&failed(&mut p)));
    }

    #[test]
    fn a_bad_meta_or_a_failed_read_fails_the_lookup() {
        let mut p = change("o", Change::Find);
        let _ = steps(&mut p);
        p.handle_reply(now(), Reply::Stored(Err(Error::Timeout)));
        assert_eq!(failed(&mut p), Error::Timeout);
        let mut p = change("o", Change::Delete);
        let _ = steps(&mut p);
        let junk = StreamMessage {
            subject: String::new(),
            sequence: 1,
            headers: HeaderMap::new(),
            payload: Bytes::from_static(b"[1,"),
            time: String::new(),
        };
        p.handle_reply(now(), Reply::Stored(Ok(junk)));
        assert!(steps(&mut p).is_empty(), "nothing written over a meta it cannot read");
        assert!(matches!(failed(&mut p), Error::Protocol(_)));
    }

    #[test]
    fn a_bad_name_fails_before_any_request() {
        let mut p = change("", Change::Find);
        assert!(steps(&mut p).is_empty());
        assert!(matches!(failed(&mut p), Error::InvalidArgument(_)));
    }

    #[test]
    fn a_failed_publish_or_purge_tells_its_phase() {
        let mut p = change("o", Change::Delete);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "N", 7, ""));
        let _ = steps(&mut p);
        p.handle_reply(now(), Reply::Acked(Err(Error::Timeout)));
        assert_eq!((failed(&mut p), p.phase()), (Error::Timeout, Phase::Publish));

        let mut p = change("o", Change::Delete);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "N", 7, ""));
        let _ = steps(&mut p);
        p.handle_reply(now(), Reply::Acked(Ok(8)));
        let _ = steps(&mut p);
        // The pump's request checks the API's error.
        let sealed = JetStreamError { code: 400, err_code: ErrorCode(10071), description: "sealed".into() };
        p.handle_reply(now(), Reply::Answer(Err(Error::JetStream(sealed))));
        assert!(steps(&mut p).is_empty());
        let e = failed(&mut p);
        assert_eq!(p.phase(), Phase::Purge);
        assert!(matches!(e, Error::JetStream(JetStreamError { code: 400, .. })), "{e:?}");
        assert!(matches!(p.poll_item(now()), Yield::Done));
    }

    /// The object a get reads: its name, nuid, revision, bucket and whether read directly.
    fn object(p: &mut MetaChange) -> (String, String, u64, String, bool) {
        match p.poll_item(now()) {
            Yield::Item(Changed::Found { found, bucket, direct }) => {
                (found.info.name, found.info.nuid, found.revision, bucket, direct)
            }
            _ => panic!("no object"),
        }
    }

    fn linked(bucket: &str, name: Option<&str>) -> String {
        let name = name.map(|n| format!(r#","name":"{n}""#)).unwrap_or_default();
        format!(r#","options":{{"link":{{"bucket":"{bucket}"{name}}}}}"#)
    }

    #[test]
    fn a_get_of_an_object_reads_it_where_it_is() {
        let mut p = change("o", Change::Follow);
        assert_eq!(steps(&mut p), [format!("get OBJ_b true {M_O}")]);
        p.handle_reply(now(), meta("o", "N", 7, ""));
        assert!(steps(&mut p).is_empty());
        assert_eq!(object(&mut p), ("o".into(), "N".into(), 7, "b".into(), true));
        assert!(matches!(p.poll_item(now()), Yield::Done));
        // A deleted object is handed out as such: the get says it is not found.
        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "", 8, r#","deleted":true"#));
        assert!(matches!(p.poll_item(now()), Yield::Item(Changed::Found { found, .. }) if found.info.deleted));
    }

    #[test]
    fn a_get_follows_a_link_in_its_bucket_with_direct_gets() {
        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "L", 7, &linked("b", Some("t"))));
        assert_eq!(steps(&mut p), ["get OBJ_b true $O.b.M.dA=="]);
        assert!(matches!(p.poll_item(now()), Yield::Wait));
        p.handle_reply(now(), meta("t", "N", 3, ""));
        assert_eq!(object(&mut p), ("t".into(), "N".into(), 3, "b".into(), true));
    }

    #[test]
    fn a_get_follows_a_link_to_another_bucket_with_its_streams_own_get() {
        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "L", 7, &linked("c", Some("t"))));
        assert_eq!(steps(&mut p), ["get OBJ_c false $O.c.M.dA=="]);
        p.handle_reply(now(), meta("t", "N", 3, ""));
        assert_eq!(object(&mut p), ("t".into(), "N".into(), 3, "c".into(), false));
    }

    #[test]
    fn a_get_refuses_a_link_to_a_bucket_or_to_a_link_and_misses_a_missing_target() {
        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "L", 7, &linked("c", None)));
        assert!(steps(&mut p).is_empty());
        assert!(matches!(failed(&mut p), Error::InvalidArgument(why) if why.contains("links to bucket \"c\"")));
        assert_eq!(p.phase(), Phase::Follow);

        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "L", 7, &linked("c", Some("t"))));
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("t", "K", 3, &linked("b", Some("o"))));
        assert!(steps(&mut p).is_empty(), "a link to a link is not followed further");
        assert!(matches!(failed(&mut p), Error::InvalidArgument(why) if why.contains("link to a link")));
        assert_eq!(p.phase(), Phase::Decide);

        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "L", 7, &linked("not.a.bucket", Some("t"))));
        assert!(steps(&mut p).is_empty());
        assert!(matches!(failed(&mut p), Error::InvalidArgument(_)));
        assert_eq!(p.phase(), Phase::Decide);

        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "L", 7, &linked("c", Some("t"))));
        let _ = steps(&mut p);
        p.handle_reply(now(), missing());
        assert!(is_not_found(&failed(&mut p)));
        assert_eq!(p.phase(), Phase::Find);
        // A missing name is the same 404.
        let mut p = change("o", Change::Follow);
        let _ = steps(&mut p);
        p.handle_reply(now(), missing());
        assert!(is_not_found(&failed(&mut p)));
    }

    fn describe(text: &'static str) -> Change {
        let change = Box::new(move |info: &mut ObjectInfo| info.description = Some(text.into()));
        Change::Update { new_name: None, change }
    }

    fn rename(to: &str) -> Change {
        Change::Update { new_name: Some(to.into()), change: Box::new(|_| {}) }
    }

    #[test]
    fn an_update_in_place_rewrites_the_meta_on_its_subject() {
        let mut p = change("o", describe("d"));
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "N", 7, ""));
        assert_eq!(steps(&mut p), [format!("publish {M_O} rollup=sub name=o")]);
        p.handle_reply(now(), Reply::Acked(Ok(8)));
        // Its own subject is never purged.
        assert!(steps(&mut p).is_empty());
        let Yield::Item(Changed::Written { info, revision: 8, purged: 0 }) = p.poll_item(now()) else { panic!() };
        assert_eq!((info.description.as_deref(), info.modified), (Some("d"), Some(epoch())));
        assert_eq!(info.nuid, "N", "the chunks stay");
    }

    #[test]
    fn a_rename_looks_the_new_name_up_then_purges_the_old_meta() {
        let mut p = change("o", rename("p"));
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "N", 7, ""));
        assert_eq!(steps(&mut p), ["get OBJ_b true $O.b.M.cA=="]);
        // A deleted object's name may be taken.
        p.handle_reply(now(), meta("p", "", 5, r#","deleted":true"#));
        assert_eq!(steps(&mut p), ["publish $O.b.M.cA== rollup=sub name=p"]);
        p.handle_reply(now(), Reply::Acked(Ok(8)));
        assert_eq!(steps(&mut p), [format!(r#"$JS.API.STREAM.PURGE.OBJ_b {{"filter":"{M_O}"}}"#)]);
        p.handle_reply(now(), purged(1));
        assert_eq!(written(&mut p), ("p".into(), 8, 1));
    }

    #[test]
    fn a_rename_over_an_object_is_refused() {
        let mut p = change("o", rename("p"));
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "N", 7, ""));
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("p", "M", 9, ""));
        assert!(steps(&mut p).is_empty());
        assert!(matches!(failed(&mut p), Error::InvalidArgument(why) if why.contains("\"p\" exists")));
        assert_eq!(p.phase(), Phase::Decide);
    }

    #[test]
    fn an_update_of_a_deleted_object_or_to_a_bad_name_fails_in_the_lookup() {
        let mut p = change("o", describe("d"));
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "", 7, r#","deleted":true"#));
        assert!(is_not_found(&failed(&mut p)));
        let mut p = change("o", rename(""));
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "N", 7, ""));
        assert!(steps(&mut p).is_empty());
        assert!(matches!(failed(&mut p), Error::InvalidArgument(_)));
        assert_eq!(p.phase(), Phase::Find);
    }

    fn link() -> Change {
        Change::Link { link: ObjectLink { name: Some("t".into()), bucket: "b".into() }, nuid: "L".into() }
    }

    #[test]
    fn a_link_is_written_where_no_object_is() {
        let mut p = change("o", link());
        let _ = steps(&mut p);
        p.handle_reply(now(), missing());
        assert_eq!(steps(&mut p), [format!("publish {M_O} rollup=sub name=o")]);
        p.handle_reply(now(), Reply::Acked(Ok(3)));
        let Yield::Item(Changed::Written { info, revision: 3, purged: 0 }) = p.poll_item(now()) else { panic!() };
        assert_eq!((info.nuid.as_str(), info.link().and_then(|l| l.name.as_deref())), ("L", Some("t")));
    }

    #[test]
    fn a_link_replaces_a_link_but_not_an_object() {
        let mut p = change("o", link());
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "K", 2, r#","options":{"link":{"bucket":"x"}}"#));
        assert_eq!(steps(&mut p), [format!("publish {M_O} rollup=sub name=o")]);
        let mut p = change("o", link());
        let _ = steps(&mut p);
        p.handle_reply(now(), meta("o", "N", 2, ""));
        assert!(steps(&mut p).is_empty());
        assert!(matches!(failed(&mut p), Error::InvalidArgument(why) if why.contains("exists")));
        assert_eq!(p.phase(), Phase::Decide);
    }

    #[test]
    fn replies_after_the_end_change_nothing() {
        let mut p = change("o", Change::Find);
        let _ = steps(&mut p);
        p.handle_reply(now(), missing());
        p.handle_reply(now(), meta("o", "N", 7, ""));
        assert!(steps(&mut p).is_empty());
        assert!(is_not_found(&failed(&mut p)));
        assert!(matches!(p.poll_item(now()), Yield::Done));
        assert_eq!(p.poll_deadline(), None);
    }
}
