//! Looking an object up by name, sans-IO: the meta subjects to read (a
//! Latin-1 name also has nats.js 3.4's), a meta read from one of them, and
//! which of two metas of one name is the object. And what every write of a
//! meta does (the put's and the change's): the meta published with a
//! rollup ([`MetaWrite::publish`]), then what it replaced purged one
//! subject after another ([`Purges`]).

use std::collections::VecDeque;
use std::time::SystemTime;

use bytes::Bytes;

use super::info::ObjectInfo;
use super::meta_json;
use super::names::{check_name, chunk_subject, latin1_meta_subject, meta_subject, stream_name};
use crate::core::error::Error;
use crate::core::header::{HeaderMap, NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, NATS_ROLLUP};
use crate::core::jetstream::api::{self, PurgeResponse};
use crate::core::jetstream::publish::Publish;
use crate::core::procedure::Step;

/// The subjects object `name`'s meta is looked for under: the one every
/// client but nats.js 3.4 uses and, for a Latin-1 name, nats.js's.
pub(crate) fn meta_subjects(bucket: &str, name: &str) -> Result<(String, Option<String>), Error> {
    check_name(name)?;
    Ok((meta_subject(bucket, name), latin1_meta_subject(bucket, name)))
}

/// A meta to publish on `subject` (with a rollup), then the subjects to purge.
pub(crate) struct MetaWrite {
    pub subject: String,
    pub info: ObjectInfo,
    pub purge: Vec<String>,
}

/// The write of `info` on `written` in `bucket`, purging the `stale`
/// subjects and what `shadowed` holds, never `written` itself.
pub(crate) fn meta_write(
    bucket: &str,
    written: String,
    info: ObjectInfo,
    stale: [Option<String>; 2],
    shadowed: Option<Shadowed>,
) -> MetaWrite {
    let shadowed = shadowed.map(|s| [Some(s.subject), s.nuid.map(|nuid| chunk_subject(bucket, &nuid))]);
    let purge = stale.into_iter().chain(shadowed.into_iter().flatten()).flatten().filter(|s| *s != written).collect();
    MetaWrite { subject: written, info, purge }
}

impl MetaWrite {
    /// The publish of its meta with a rollup, stored only if the subject
    /// is at `expected` when given.
    pub(crate) fn publish(&self, expected: Option<u64>) -> Publish {
        let mut headers = HeaderMap::new();
        headers.insert(NATS_ROLLUP, "sub");
        if let Some(revision) = expected {
            headers.insert(NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, revision.to_string());
        }
        Publish::build().headers(headers).payload(Bytes::from(meta_json::write(&self.info)))
    }
}

/// Subjects of a bucket's stream purged one after another, and the
/// messages purged so far.
pub(crate) struct Purges {
    /// The purge API's subject.
    call: String,
    subjects: VecDeque<String>,
    pub purged: u64,
}

impl Purges {
    /// No purges yet, of `bucket`'s stream through the API under `api_prefix`.
    pub(crate) fn new(api_prefix: &str, bucket: &str) -> Self {
        // A bucket's name makes a valid stream name (checked when the store was opened).
        let call = api::stream_purge(api_prefix, &stream_name(bucket)).unwrap_or_default();
        Purges { call, subjects: VecDeque::new(), purged: 0 }
    }

    /// Purges `subjects`, in their order.
    pub(crate) fn start(&mut self, subjects: Vec<String>) {
        self.subjects = subjects.into();
    }

    /// The request of the next purge; `None` once all are done.
    pub(crate) fn next(&mut self) -> Option<Step> {
        let subject = self.subjects.pop_front()?;
        let payload = Bytes::from(format!(r#"{{"filter":{}}}"#, serde_json::Value::from(subject)));
        Some(Step::Request { subject: self.call.clone(), payload })
    }

    /// The answer to a purge: its messages counted, or its error.
    pub(crate) fn answered(&mut self, answer: Result<Bytes, Error>) -> Result<(), Error> {
        let response = answer.and_then(|body| api::parse_checked_plain::<PurgeResponse>(&body))?;
        self.purged += response.purged;
        Ok(())
    }
}

/// An object's meta and where it was found.
#[derive(Clone)]
pub(crate) struct Found {
    pub info: ObjectInfo,
    /// The meta's stream sequence (nats.js's `revision`).
    pub revision: u64,
    /// The meta subject: the UTF-8 one, or the Latin-1 one nats.js 3.4 wrote.
    pub subject: String,
    /// An older meta of the name under the other subject.
    pub shadowed: Option<Shadowed>,
}

/// The older of two metas of one name: one client keyed it by UTF-8, the
/// other by Latin-1, neither seeing the other's. A write by name purges it
/// (and its chunks), so that the name is left one meta.
#[derive(Clone)]
pub(crate) struct Shadowed {
    pub subject: String,
    /// Its chunks' token, when they are not the newer meta's.
    pub nuid: Option<String>,
}

/// A meta as the stream holds it.
pub(crate) struct Stored {
    pub info: ObjectInfo,
    pub subject: String,
    pub sequence: u64,
}

impl Stored {
    /// The meta `payload` (at `sequence`, stored at `time`) on `subject`
    /// if it is object `name`'s, its time that of the message. The two
    /// encodings meet (nats.js's subject of "Ã©" is the UTF-8 one of "é"),
    /// so a meta of another name is not found here.
    pub(crate) fn read(
        name: &str,
        subject: String,
        payload: &[u8],
        sequence: u64,
        time: Option<SystemTime>,
    ) -> Result<Stored, Error> {
        let mut info = meta_json::read(payload)?;
        if info.name != name {
            return Err(not_found(name));
        }
        info.modified = time;
        Ok(Stored { info, subject, sequence })
    }
}

/// The object of a name from its metas under the UTF-8 and the Latin-1
/// subject: the newer one, shadowing the older.
pub(crate) fn newer(utf8: Option<Stored>, latin1: Option<Stored>) -> Option<Found> {
    let (newer, older) = match (utf8, latin1) {
        (Some(utf8), Some(latin1)) if latin1.sequence > utf8.sequence => (latin1, Some(utf8)),
        (Some(utf8), latin1) => (utf8, latin1),
        (None, latin1) => (latin1?, None),
    };
    let shadowed = older.map(|older| Shadowed {
        nuid: (!older.info.nuid.is_empty() && older.info.nuid != newer.info.nuid).then_some(older.info.nuid),
        subject: older.subject,
    });
    Some(Found { info: newer.info, revision: newer.sequence, subject: newer.subject, shadowed })
}

pub(crate) fn not_found(name: &str) -> Error {
    Error::JetStream(api::JetStreamError {
        code: 404,
        err_code: api::ErrorCode::NO_MESSAGE_FOUND,
        description: format!("no object named {name:?}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn stored(subject: &str, nuid: &str, sequence: u64) -> Option<Stored> {
        let json = format!(r#"{{"name":"é","bucket":"b","nuid":"{nuid}"}}"#);
        Some(Stored { info: meta_json::read(json.as_bytes()).unwrap(), subject: subject.into(), sequence })
    }

    /// `subject` of the object, then `>` the shadowed meta's and `:` the
    /// chunks to purge with it.
    fn picked(found: Option<Found>) -> String {
        let Some(Found { subject, shadowed, .. }) = found else { return "none".into() };
        match shadowed {
            None => subject,
            Some(s) => format!("{subject}>{}:{}", s.subject, s.nuid.as_deref().unwrap_or("-")),
        }
    }

    #[test]
    fn of_two_metas_of_a_name_the_newer_is_the_object() {
        assert_eq!(picked(newer(None, None)), "none");
        assert_eq!(picked(newer(stored("U", "A", 5), None)), "U");
        assert_eq!(picked(newer(None, stored("L", "B", 5))), "L");
        assert_eq!(picked(newer(stored("U", "A", 5), stored("L", "B", 9))), "L>U:A");
        assert_eq!(picked(newer(stored("U", "A", 9), stored("L", "B", 5))), "U>L:B");
        // Chunks both metas point to stay; a meta without chunks has none to purge.
        assert_eq!(picked(newer(stored("U", "A", 9), stored("L", "A", 5))), "U>L:-");
        assert_eq!(picked(newer(stored("U", "A", 9), stored("L", "", 5))), "U>L:-");
    }
}
