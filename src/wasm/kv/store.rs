//! `RawKv`: one bucket ([`Store`]), with nats.js's `KV` calls: put (also
//! with an expected revision: nats.js's update), create (with a per-key
//! TTL), delete and purge (with an expected revision, a purge with a marker
//! TTL), get (latest or at a revision, markers included), watch, history,
//! keys and status. TTLs are nats.js's strings, sent as they are in
//! `Nats-TTL`. `destroy` is the JetStream API's stream delete, in TS.

use std::rc::Rc;

use bytes::Bytes;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::entries::Packed;
use super::reader::RawKvReader;
use crate::error::Error;
use crate::jetstream::Publish;
use crate::jetstream::kv::{Operation, Store, WatchInclude, WatchOptions};
use crate::jetstream::publish::NATS_MESSAGE_TTL;
use crate::wasm::jetstream::reply_text;
use crate::wasm::options::{millis, whole};
use crate::wasm::promise;

/// A bucket; calls share it with their futures.
#[wasm_bindgen]
pub struct RawKv {
    store: Rc<Store>,
}

impl RawKv {
    pub(super) fn new(store: Store) -> Self {
        RawKv { store: Rc::new(store) }
    }

    /// The store, waiting `timeout` ms for the server when set.
    fn within(&self, timeout: Option<f64>) -> Result<Rc<Store>, Error> {
        match millis(timeout.into(), "timeout")?.filter(|t| !t.is_zero()) {
            Some(timeout) => {
                let mut store = Store::clone(&self.store);
                store.context.set_timeout(timeout);
                Ok(Rc::new(store))
            }
            None => Ok(self.store.clone()),
        }
    }
}

#[wasm_bindgen]
impl RawKv {
    /// The bucket's name.
    #[wasm_bindgen(getter)]
    pub fn bucket(&self) -> String {
        self.store.name.clone()
    }

    /// The bucket's stream, `KV_<bucket>`.
    #[wasm_bindgen(getter = streamName)]
    pub fn stream_name(&self) -> String {
        self.store.stream_name.clone()
    }

    /// Puts `value` at `key`; with `previous_seq`, only if that is the key's
    /// last revision (0: the key has no message). Resolves to the revision.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn put(
        &self,
        key: String,
        value: Vec<u8>,
        previous_seq: Option<f64>,
        timeout: Option<f64>,
    ) -> Result<Promise, JsValue> {
        let (store, previous) = (self.within(timeout)?, revision(previous_seq, "previousSeq")?);
        let value = Bytes::from(value);
        Ok(promise(async move {
            let revision = match previous {
                Some(previous) => store.update(&key, value, previous).await?,
                None => store.put(&key, value).await?,
            };
            Ok(revision as f64)
        }))
    }

    /// Puts `value` at `key` if the key has no value (never written,
    /// deleted or purged); `marker_ttl` (`"10s"`, `"1h"`) makes it expire.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn create(&self, key: String, value: Vec<u8>, marker_ttl: Option<String>) -> Promise {
        let store = self.store.clone();
        promise(async move { Ok(store.create_with(&key, Bytes::from(value), with_ttl(marker_ttl)).await? as f64) })
    }

    /// Writes a delete (or, with `purge`, a purge) marker at `key`; with
    /// `previous_seq`, only if that is the key's last revision; a purge
    /// marker lives for `ttl` when given.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn remove(
        &self,
        key: String,
        purge: bool,
        previous_seq: Option<f64>,
        ttl: Option<String>,
    ) -> Result<Promise, JsValue> {
        let (store, previous) = (self.store.clone(), revision(previous_seq, "previousSeq")?);
        let operation = if purge { Operation::Purge } else { Operation::Delete };
        Ok(promise(async move {
            store.remove(&key, operation, previous, with_ttl(ttl)).await?;
            Ok(JsValue::UNDEFINED)
        }))
    }

    /// The latest entry of `key`, or the one at `revision`, markers
    /// included; `null` when there is none (or that revision is another key's).
    #[wasm_bindgen(unchecked_return_type = "Promise<RawKvEntries | null>")]
    pub fn get(&self, key: String, revision: Option<f64>) -> Result<Promise, JsValue> {
        let (store, at) = (self.store.clone(), self::revision(revision, "revision")?.filter(|r| *r > 0));
        Ok(promise(async move {
            let Some((entry, len)) = store.entry_at(&key, at).await? else { return Ok(JsValue::NULL) };
            let mut packed = Packed::default();
            packed.entry(&entry, len);
            Ok(packed.to_js(false).into())
        }))
    }

    /// A watch of `keys`: first what `include` says (`""`: the latest
    /// entries, `"history"`: all, `"updates"`: none), or the entries from
    /// `resume_from` on, then every change.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawKvReader>")]
    pub fn watch(
        &self,
        keys: Vec<String>,
        include: Option<String>,
        ignore_deletes: bool,
        headers_only: bool,
        resume_from: Option<f64>,
    ) -> Result<Promise, JsValue> {
        let include = match include.as_deref() {
            None | Some("") => WatchInclude::LastValue,
            Some("history") => WatchInclude::AllHistory,
            Some("updates") => WatchInclude::UpdatesOnly,
            Some(other) => {
                let text = format!("include {other:?}: KvWatchInclude.LastValue, AllHistory or UpdatesOnly");
                return Err(Error::InvalidArgument(text).into());
            }
        };
        let resume_from_revision = revision(resume_from, "resumeFromRevision")?.filter(|r| *r > 0);
        let options = WatchOptions { include, ignore_deletes, meta_only: headers_only, resume_from_revision };
        let store = self.store.clone();
        Ok(promise(async move { Ok(RawKvReader::watch(store.watch_with(keys, options).await?)) }))
    }

    /// Every kept revision of `keys`, oldest first, then the end.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawKvReader>")]
    pub fn history(&self, keys: Vec<String>, headers_only: bool) -> Promise {
        let store = self.store.clone();
        promise(async move { Ok(RawKvReader::history(store.history_with(keys, headers_only).await?)) })
    }

    /// The keys matching `filters` that hold a value, then the end.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawKvReader>")]
    pub fn keys(&self, filters: Vec<String>) -> Promise {
        let store = self.store.clone();
        promise(async move { Ok(RawKvReader::keys(store.keys_filtered(filters).await?)) })
    }

    /// The info of the bucket's stream, as the server's JSON.
    #[wasm_bindgen(unchecked_return_type = "Promise<string>")]
    pub fn status(&self) -> Promise {
        let store = self.store.clone();
        promise(async move { reply_text(store.status_json().await?) })
    }
}

/// A revision from JS, checked.
fn revision(value: Option<f64>, what: &str) -> Result<Option<u64>, Error> {
    value.map(|n| whole(n, what)).transpose()
}

/// A publish with nats.js's TTL string, if there is one.
fn with_ttl(ttl: Option<String>) -> Publish {
    match ttl.filter(|ttl| !ttl.is_empty()) {
        Some(ttl) => Publish::build().header(NATS_MESSAGE_TTL, ttl),
        None => Publish::build(),
    }
}
