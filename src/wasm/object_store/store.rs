//! `RawObjectStore`: one bucket ([`ObjectStore`]), whose rules are here as
//! synchronous calls and whose I/O is in TS, over the generic JetStream
//! exports, so the wasm holds one future for the put alone: a lookup by
//! name is the meta subjects (`subjects`) TS reads and what it read turned
//! into a `RawFound` (`found`); a get is what that lookup leads to
//! (`open`: a link to follow, or a `RawObjectRead` checking the chunks TS
//! reads); listings and watches are TS's. The writes that are not puts
//! (delete, update, link) are decided in one call over lookups (`plan`)
//! and sequenced in TS over the JetStream API's publish and purge. As in
//! nats.js, a get is `null` for a missing or deleted object.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::meta::{from_js, packed};
use super::upload::RawObjectUpload;
use crate::error::Error;
use crate::jetstream::api::timestamp;
use crate::jetstream::object_store::names::{check_name, chunk_subject};
use crate::jetstream::object_store::{
    AddLinkError, Check, Found, ObjectInfo, ObjectLink, ObjectMetadata, ObjectStore, Progress, PutOptions, Stored,
    check_link_name, check_linked, direct_available, is_not_found, link_target, link_to, link_to_bucket, meta_subjects,
    missing_as_none, newer, not_found, per_batch, renames,
};
use crate::wasm::options::{millis, whole};

#[wasm_bindgen(typescript_custom_section)]
const TS_OBJ_STORE: &str = r#"
/** Told of a put's or a get's bytes done out of its total. */
export type RawProgress = (done: number, total?: number) => void;
/** A write decided: its meta's subject, the meta (revision 0), the subjects it replaces, to purge. */
export type RawMetaWrite = [subject: string, meta: RawEntries, purge: string[]];
"#;

/// A bucket.
#[wasm_bindgen]
pub struct RawObjectStore {
    store: ObjectStore,
}

impl RawObjectStore {
    pub(super) fn new(store: ObjectStore) -> Self {
        RawObjectStore { store }
    }
}

#[wasm_bindgen]
impl RawObjectStore {
    /// Whether the bucket's stream has `allow_direct`: its metas are read
    /// with direct gets, else with the stream's own get.
    #[wasm_bindgen(getter)]
    pub fn direct(&self) -> bool {
        self.store.direct
    }

    /// The subjects TS reads the newest meta of object `name` from (the
    /// UTF-8 one, then nats.js 3.4's Latin-1 one if it differs). With
    /// `link`, the meta of what a link named `name` is to point to, that
    /// link is checked first: the lookup is for `plan("link")`.
    pub fn subjects(&self, name: &str, link: Option<String>) -> Result<Vec<String>, JsValue> {
        if let Some(target) = link {
            link_of(&from_js(&target)?).and_then(|_| check_link_name(name)).map_err(Error::from)?;
        }
        let (utf8, latin1) = meta_subjects(&self.store.name, name)?;
        Ok([Some(utf8), latin1].into_iter().flatten().collect())
    }

    /// The lookup of object `name` from the newest message on each of its
    /// `subjects` (payload, stream sequence and RFC 3339 time; a sequence
    /// of 0 when there is none), by the rules of the Rust store's.
    pub fn found(
        &self,
        name: &str,
        utf8: Option<Vec<u8>>,
        latin1: Option<Vec<u8>>,
        seqs: Vec<f64>,
        times: Vec<String>,
    ) -> Result<RawFound, JsValue> {
        let (utf8_subject, latin1_subject) = meta_subjects(&self.store.name, name)?;
        let mut stored = [(utf8, Some(utf8_subject)), (latin1, latin1_subject)].into_iter().enumerate().map(
            |(i, (payload, subject))| match (payload, subject, seqs.get(i).copied().unwrap_or(0.0)) {
                (Some(payload), Some(subject), seq) if seq > 0.0 => {
                    let time = times.get(i).and_then(|t| timestamp::parse_rfc3339(t));
                    missing_as_none(Stored::read(name, subject, &payload, seq as u64, time))
                }
                _ => Ok(None),
            },
        );
        let utf8 = stored.next().transpose()?.flatten();
        let latin1 = stored.next().transpose()?.flatten();
        Ok(RawFound { found: newer(utf8, latin1) })
    }

    /// What a get of the object `found` reads (`linked`: it was found
    /// through a link): `null` for a missing or deleted object, the bucket
    /// and name of the object a link points to, else its chunks' check.
    #[wasm_bindgen(unchecked_return_type = "RawObjectRead | [bucket: string, name: string] | null")]
    pub fn open(&self, found: &RawFound, linked: bool) -> Result<JsValue, JsValue> {
        let Some(Found { info, .. }) = &found.found else { return Ok(JsValue::NULL) };
        if linked {
            check_linked(info).map_err(Error::from)?;
        }
        if let Some((bucket, name)) = link_target(info).map_err(Error::from)? {
            return Ok(Array::of2(&bucket.into(), &name.into()).into());
        }
        let check = match Check::new(info) {
            Err(e) if is_not_found(e.cause()) => return Ok(JsValue::NULL),
            check => check.map_err(Error::from)?,
        };
        let batch = match direct_available(&self.store.context, self.store.direct) {
            true => per_batch(info.size, info.chunks) as u32,
            false => 0,
        };
        Ok(RawObjectRead { check, subject: chunk_subject(&self.store.name, &info.nuid), batch }.into())
    }

    /// Decides a write of object `name` other than a put, by the rules of
    /// the Rust store's own writes: `"delete"`, `"update"` (`meta` holds the
    /// new name, description and metadata, and the headers if they change)
    /// or `"link"` (`name` becomes a link to the object `meta`, or without
    /// its name to the bucket `meta.bucket`). `found` is the lookup of
    /// `name`; a rename returns its new name, to be looked up and given as
    /// `taken`. TS publishes the meta and purges what it replaced.
    #[wasm_bindgen(unchecked_return_type = "RawMetaWrite | string")]
    pub fn plan(
        &self,
        #[wasm_bindgen(unchecked_param_type = "\"delete\" | \"update\" | \"link\"")] op: &str,
        name: String,
        meta: Option<String>,
        found: &RawFound,
        taken: Option<RawFound>,
    ) -> Result<JsValue, JsValue> {
        Ok(self.decide(op, name, meta, found.found.clone(), taken.map(|t| t.found))?)
    }

    /// Starts a put of the object `meta` describes (replacing `found`, the
    /// lookup of its name, once it is stored; a lookup of its own would be
    /// one more future in the wasm): chunks of `meta.options.max_chunk_size`
    /// bytes, each publish waiting `timeout` ms at most; the meta is stored
    /// only if the object's is at `previous_revision` (0: there is none).
    /// `progress` is told of the bytes the stream acknowledged out of `size`.
    pub fn upload(
        &self,
        meta: &str,
        found: &RawFound,
        timeout: Option<f64>,
        previous_revision: Option<f64>,
        size: Option<f64>,
        #[wasm_bindgen(unchecked_param_type = "RawProgress | undefined")] progress: Option<Function>,
    ) -> Result<RawObjectUpload, JsValue> {
        let info = from_js(meta)?;
        check_name(&info.name)?;
        if info.link().is_some() {
            return Err(Error::InvalidArgument("a put cannot set options.link: link() makes links".into()).into());
        }
        let chunk_size = info.options.as_ref().and_then(|o| o.max_chunk_size);
        let metadata = ObjectMetadata { chunk_size, ..ObjectMetadata::from(info) };
        let options = PutOptions {
            progress: progress.map(report),
            size: size.map(|n| whole(n, "size")).transpose()?,
            previous_revision: previous_revision.map(|n| whole(n, "previousRevision")).transpose()?,
        };
        let mut store = self.store.clone();
        if let Some(timeout) = millis(timeout.into(), "timeout")?.filter(|t| !t.is_zero()) {
            store.context.set_timeout(timeout);
        }
        Ok(RawObjectUpload::new(store.upload_over(metadata, options, found.found.clone(), None)))
    }
}

impl RawObjectStore {
    /// [`plan`](Self::plan); `taken`: `None` before the new name's lookup.
    fn decide(
        &self,
        op: &str,
        name: String,
        meta: Option<String>,
        found: Option<Found>,
        taken: Option<Option<Found>>,
    ) -> Result<JsValue, Error> {
        let meta = meta.as_deref().map(from_js).transpose()?;
        let store = &self.store;
        let write = match (op, meta) {
            ("delete", _) => store.delete_write(found.ok_or_else(|| not_found(&name))?),
            ("update", Some(meta)) => {
                if renames(found.as_ref(), &name, &meta.name)? && taken.is_none() {
                    return Ok(meta.name.into());
                }
                let found = found.ok_or_else(|| not_found(&name))?;
                let change = |info: &mut ObjectInfo| {
                    info.description = meta.description;
                    info.metadata = meta.metadata;
                    if meta.headers.is_some() {
                        info.headers = meta.headers;
                    }
                };
                store.update_write(found, meta.name, taken.flatten().as_ref(), change)?
            }
            ("link", Some(target)) => store.link_write(name, link_of(&target)?, found)?,
            _ => return Err(Error::InvalidArgument(format!("no object store write {op:?} (or no meta for it)"))),
        };
        let purge: Array = write.purge.into_iter().map(JsValue::from).collect();
        let meta = packed(&write.info, 0)?;
        Ok(Array::of3(&write.subject.into(), &meta, &purge).into())
    }
}

/// The link to `target`: the object it names, or without a name its bucket.
fn link_of(target: &ObjectInfo) -> Result<ObjectLink, AddLinkError> {
    match target.name.is_empty() {
        true => link_to_bucket(target.bucket.clone()),
        false => link_to(target),
    }
}

/// The chunks of an object being got, checked as TS reads them: an
/// object's last chunk is handed out only after its size and SHA-256
/// matched its meta.
#[wasm_bindgen]
pub struct RawObjectRead {
    check: Check,
    subject: String,
    batch: u32,
}

#[wasm_bindgen]
impl RawObjectRead {
    /// The subject of the object's chunks.
    #[wasm_bindgen(getter)]
    pub fn subject(&self) -> String {
        self.subject.clone()
    }

    /// Chunks a batched direct get asks for; 0 when the stream or the
    /// server has none (an ordered push consumer reads them).
    #[wasm_bindgen(getter)]
    pub fn batch(&self) -> u32 {
        self.batch
    }

    /// Checks `chunk`, after which the stream holds `pending` more: with
    /// none, whether the object is whole too (then `true`).
    pub fn chunk(&mut self, chunk: &[u8], pending: f64) -> Result<bool, JsValue> {
        self.check.chunk(chunk)?;
        if pending > 0.0 {
            return Ok(false);
        }
        self.check.finish()?;
        Ok(true)
    }

    /// No more chunks came (or the object has none): whether it is whole.
    pub fn end(&mut self) -> Result<(), JsValue> {
        Ok(self.check.finish()?)
    }
}

/// A lookup of an object by name: its meta and where it is, or none.
#[wasm_bindgen]
pub struct RawFound {
    found: Option<Found>,
}

#[wasm_bindgen]
impl RawFound {
    /// The meta found (a deleted object's too); `null` if there is none.
    #[wasm_bindgen(unchecked_return_type = "RawEntries | null")]
    pub fn entries(&self) -> Result<JsValue, JsValue> {
        match &self.found {
            Some(found) => Ok(packed(&found.info, found.revision)?.into()),
            None => Ok(JsValue::NULL),
        }
    }
}

/// A progress callback made of the JS function `progress`.
fn report(progress: Function) -> Box<dyn FnMut(Progress)> {
    Box::new(move |p: Progress| {
        let total = p.total.map_or(JsValue::UNDEFINED, |t| (t as f64).into());
        // A callback that throws does not stop the transfer.
        let _ = progress.call2(&JsValue::UNDEFINED, &(p.done as f64).into(), &total);
    })
}
