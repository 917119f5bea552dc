//! `RawObjectStore`: one bucket ([`ObjectStore`]), with nats.js's
//! `ObjectStore` calls as four async exports (each export is a future of
//! its own in the wasm): the lookup of an object by name, a get (its meta
//! and a reader of its chunks), the reads of metas (a listing, a watch) and
//! a put. The writes that are not puts (delete, update, link) are decided
//! here in one synchronous call over lookups (`plan`) and sequenced in TS
//! over the JetStream API's publish and purge, so the wasm holds no second
//! copy of their I/O. As in nats.js, `get` is `null` for a missing or
//! deleted object.

use std::rc::Rc;

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;

use super::meta::{from_js, packed};
use super::upload::RawObjectUpload;
use crate::error::Error;
use crate::jetstream::object_store::names::check_name;
use crate::jetstream::object_store::{
    AddLinkError, Found, ObjectInfo, ObjectLink, ObjectMetadata, ObjectStore, Progress, PutOptions, WatchOptions,
    check_link_name, is_not_found, link_to, link_to_bucket, not_found, renames,
};
use crate::wasm::options::{millis, whole};
use crate::wasm::promise;
use crate::wasm::reader::{RawReader, Source};

#[wasm_bindgen(typescript_custom_section)]
const TS_OBJ_STORE: &str = r#"
/** Told of a put's or a get's bytes done out of its total. */
export type RawProgress = (done: number, total?: number) => void;
/** A write decided: its meta's subject, the meta (revision 0), the subjects it replaces, to purge. */
export type RawMetaWrite = [subject: string, meta: RawEntries, purge: string[]];
"#;

/// A bucket; calls share it with their futures.
#[wasm_bindgen]
pub struct RawObjectStore {
    store: Rc<ObjectStore>,
}

impl RawObjectStore {
    pub(super) fn new(store: ObjectStore) -> Self {
        RawObjectStore { store: Rc::new(store) }
    }
}

#[wasm_bindgen]
impl RawObjectStore {
    /// The lookup of object `name` (a deleted one's meta too). With
    /// `link`, the meta of what a link named `name` is to point to, that
    /// link is checked first: the lookup is for `plan("link")`.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawFound>")]
    pub fn info(&self, name: String, link: Option<String>) -> Result<Promise, JsValue> {
        if let Some(target) = link {
            link_of(&from_js(&target)?).and_then(|_| check_link_name(&name)).map_err(Error::from)?;
        }
        let store = self.store.clone();
        Ok(promise(async move {
            match store.find(&name).await {
                Ok(found) => Ok(RawFound { found: Some(found) }),
                Err(e) if is_not_found(&e) => Ok(RawFound { found: None }),
                Err(e) => Err(e),
            }
        }))
    }

    /// Object `name` (followed if it is a link): its meta, and a reader of
    /// its chunks that ends only once their size and digest matched the
    /// meta; `progress` is told of the bytes received. `null` for a missing
    /// or deleted object.
    #[wasm_bindgen(unchecked_return_type = "Promise<[RawEntries, RawReader] | null>")]
    pub fn get(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_param_type = "RawProgress | undefined")] progress: Option<Function>,
    ) -> Promise {
        let store = self.store.clone();
        promise(async move {
            let object = match store.get(&name).await {
                Ok(object) => object,
                Err(e) if is_not_found(e.cause()) => return Ok(JsValue::NULL),
                Err(e) => return Err(e.into()),
            };
            let meta = packed(&object.info, object.revision())?;
            let object = match progress {
                Some(progress) => object.with_progress(report(progress)),
                None => object,
            };
            let reader = RawReader::new(Source::Chunks(Box::new(object)));
            Ok(Array::of2(&meta, &reader.into()).into())
        })
    }

    /// A read of the bucket's metas: `"list"` (every object not deleted,
    /// then the end) or `"watch"` (every object's meta first with
    /// `include_history`, then changes; `ignore_deletes` leaves deleted
    /// objects out).
    #[wasm_bindgen(unchecked_return_type = "Promise<RawReader>")]
    pub fn read(
        &self,
        #[wasm_bindgen(unchecked_param_type = "\"list\" | \"watch\"")] kind: String,
        include_history: bool,
        ignore_deletes: bool,
    ) -> Promise {
        let store = self.store.clone();
        promise(async move {
            let source = match kind.as_str() {
                "list" => Source::Objects(store.list().await?),
                _ => Source::ObjectWatch(store.watch_with(WatchOptions { include_history, ignore_deletes }).await?),
            };
            Ok(RawReader::new(source))
        })
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
        let mut store = ObjectStore::clone(&self.store);
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
