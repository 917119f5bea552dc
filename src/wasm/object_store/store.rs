//! `RawObjectStore`: one bucket ([`ObjectStore`]), with nats.js's
//! `ObjectStore` calls as five exports (each export is a future of its own
//! in the wasm): an object's meta, a get (its meta and a reader of its
//! chunks), the reads of metas (a listing, a watch), the writes that are
//! not puts (delete, update, link) and a put. As in nats.js, `info` is
//! `null` for a missing object (a deleted one's meta says so), `get` for a
//! missing or deleted one.

use std::rc::Rc;

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;

use super::meta::{from_js, packed};
use super::upload::RawObjectUpload;
use crate::error::Error;
use crate::jetstream::object_store::{
    ObjectInfo, ObjectMetadata, ObjectStore, Progress, PutOptions, WatchOptions, is_not_found,
};
use crate::wasm::options::{millis, whole};
use crate::wasm::promise;
use crate::wasm::reader::{RawReader, Source};

#[wasm_bindgen(typescript_custom_section)]
const TS_OBJ_STORE: &str = r#"
/** Told of a put's or a get's bytes done out of its total. */
export type RawProgress = (done: number, total?: number) => void;
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
    /// The meta of object `name` (a deleted one's too); `null` if there is none.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawEntries | null>")]
    pub fn info(&self, name: String) -> Promise {
        let store = self.store.clone();
        promise(async move {
            match store.find(&name).await {
                Ok(found) => Ok(packed(&found.info, found.revision)?.into()),
                Err(e) if is_not_found(&e) => Ok(JsValue::NULL),
                Err(e) => Err(e),
            }
        })
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

    /// A write of object `name` other than a put: `"delete"` (resolves to
    /// the chunks purged), `"update"` (`meta` holds the new name,
    /// description and metadata, and the headers if they change) or
    /// `"link"` (`name` becomes a link to the object `meta`, or without its
    /// name to the bucket `meta.bucket`); these resolve to the new meta.
    #[wasm_bindgen(unchecked_return_type = "Promise<number | RawEntries>")]
    pub fn write(
        &self,
        #[wasm_bindgen(unchecked_param_type = "\"delete\" | \"update\" | \"link\"")] op: String,
        name: String,
        meta: Option<String>,
    ) -> Result<Promise, JsValue> {
        let (store, meta) = (self.store.clone(), meta.as_deref().map(from_js).transpose()?);
        let write = match (op.as_str(), meta) {
            ("delete", _) => Write::Delete,
            ("update", Some(meta)) => Write::Update(meta),
            ("link", Some(target)) => Write::Link(target),
            _ => return Err(Error::InvalidArgument(format!("no object store write {op:?} (or no meta for it)")).into()),
        };
        Ok(promise(async move {
            let (info, revision) = match write {
                Write::Delete => return Ok(JsValue::from(store.remove(&name).await? as f64)),
                Write::Update(meta) => {
                    let change = |info: &mut ObjectInfo| {
                        info.description = meta.description;
                        info.metadata = meta.metadata;
                        if meta.headers.is_some() {
                            info.headers = meta.headers;
                        }
                    };
                    store.update(&name, Some(meta.name), change).await?
                }
                Write::Link(target) if target.name.is_empty() => store.link_bucket(name, target.bucket).await?,
                Write::Link(target) => store.link_object(name, &target).await?,
            };
            Ok(JsValue::from(packed(&info, revision)?))
        }))
    }

    /// Starts a put of the object `meta` describes (replacing the one of
    /// that name once it is stored): chunks of `meta.options.max_chunk_size`
    /// bytes, each publish waiting `timeout` ms at most; the meta is stored
    /// only if the object's is at `previous_revision` (0: there is none).
    /// `progress` is told of the bytes the stream acknowledged out of `size`.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawObjectUpload>")]
    pub fn upload(
        &self,
        meta: &str,
        timeout: Option<f64>,
        previous_revision: Option<f64>,
        size: Option<f64>,
        #[wasm_bindgen(unchecked_param_type = "RawProgress | undefined")] progress: Option<Function>,
    ) -> Result<Promise, JsValue> {
        let info = from_js(meta)?;
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
        Ok(promise(async move { Ok(RawObjectUpload::new(store.upload(metadata, options).await?)) }))
    }
}

/// What `write` does: a delete, or an update or link with its meta.
enum Write {
    Delete,
    Update(ObjectInfo),
    Link(ObjectInfo),
}

/// A progress callback made of the JS function `progress`.
fn report(progress: Function) -> Box<dyn FnMut(Progress)> {
    Box::new(move |p: Progress| {
        let total = p.total.map_or(JsValue::UNDEFINED, |t| (t as f64).into());
        // A callback that throws does not stop the transfer.
        let _ = progress.call2(&JsValue::UNDEFINED, &(p.done as f64).into(), &total);
    })
}
