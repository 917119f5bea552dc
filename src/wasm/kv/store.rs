//! `RawKv`: one bucket ([`Store`]), with nats.js's `KV` calls as exports:
//! writes (put, update, create with a per-key TTL, delete and purge with an
//! expected revision and a marker TTL) made into a subject and headers that
//! TS publishes with `RawJetStream.publish` (no future of their own), the
//! create as the core's procedure (`RawProcedure`), get (latest or
//! at a revision, markers included) and reads (watch, history, keys). TTLs are nats.js's
//! strings, sent as they are in `Nats-TTL`; `purgeDeletes`. `status` and `destroy` are the
//! JetStream API's stream info and delete, in TS.

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::core::error::Error;
use crate::core::kv::create::KvCreate;
use crate::jetstream::Publish;
use crate::jetstream::kv::{KEYS, Operation, Reader, Store, WatchInclude, WatchOptions, marker};
use crate::jetstream::procedure::Pump;
use crate::jetstream::publish::NATS_MESSAGE_TTL;
use crate::wasm::entries::Packed;
use crate::wasm::options::whole;
use crate::wasm::procedure::{RawProcedure, ToJs};
use crate::wasm::promise;
use crate::wasm::reader::RawReader;

/// A bucket; calls share it with their futures.
#[wasm_bindgen]
pub struct RawKv {
    store: Rc<Store>,
}

impl RawKv {
    pub(super) fn new(store: Store) -> Self {
        RawKv { store: Rc::new(store) }
    }
}

#[wasm_bindgen]
impl RawKv {
    /// A write at `key` of a value `len` bytes long, for the JetStream
    /// API's publish (`RawJetStream.publish`): its subject, then its
    /// headers' names and values in turn. `"put"` (with `previous`: only if
    /// that is the key's last revision, 0 for none), `"delete"` or `"purge"` (with
    /// `previous` as for a put; a purge marker lives for `ttl`). The ack's
    /// sequence is the revision written.
    #[wasm_bindgen(unchecked_return_type = "[subject: string, ...headers: string[]]")]
    pub fn write(
        &self,
        #[wasm_bindgen(unchecked_param_type = "\"put\" | \"delete\" | \"purge\"")] op: &str,
        key: &str,
        len: usize,
        previous: Option<f64>,
        ttl: Option<String>,
    ) -> Result<Vec<String>, JsValue> {
        let (previous, with) = (revision(previous, "previousSeq")?, with_ttl(ttl));
        let publish = match op {
            "delete" => marker(Operation::Delete, previous, with),
            "purge" => marker(Operation::Purge, previous, with),
            // "put", the one write left (TS passes only the four): never a
            // marker by mistake, which would hide or roll up the key's values.
            _ => match previous {
                Some(revision) => with.expected_last_subject_sequence(revision),
                None => with,
            },
        };
        let mut out = vec![self.store.subject_for(key, len)?];
        for (name, value) in publish.header_map().into_iter().flat_map(|headers| headers.iter()) {
            out.extend([name.to_string(), value.to_string()]);
        }
        Ok(out)
    }

    /// The create of `value` at `key`: the core's procedure (a publish
    /// expecting no message on the key; over a delete or purge marker, one
    /// expecting the marker), whose one item is the revision written.
    /// `ttl`, nats.js's `markerTTL`, makes the value expire.
    pub fn create(&self, key: &str, value: Vec<u8>, ttl: Option<String>) -> Result<RawProcedure, JsValue> {
        let target = self.store.create_target(key, value.len())?;
        let subject = target.write_subject.clone();
        let create = KvCreate::new(target, value.into(), with_ttl(ttl));
        let pump = Pump::new(self.store.context.clone(), Box::new(ToJs(create)) as _);
        Ok(RawProcedure::new(pump).with_subject(subject))
    }

    /// The latest entry of `key`, or the one at `revision`, markers
    /// included; `null` when there is none (or that revision is another
    /// key's).
    #[wasm_bindgen(unchecked_return_type = "Promise<RawEntries | null>")]
    pub fn get(&self, key: String, revision: Option<f64>) -> Result<Promise, JsValue> {
        let (store, at) = (self.store.clone(), self::revision(revision, "revision")?.filter(|r| *r > 0));
        Ok(promise(async move {
            let found = store.entry_at(&key, at).await?;
            let Some((entry, len)) = found else { return Ok(JsValue::NULL) };
            let mut packed = Packed::default();
            packed.entry(&entry, len);
            Ok(packed.to_js(false).into())
        }))
    }

    /// A read: `strings` are its kind, `include`, then the keys; `numbers`
    /// are `ignoreDeletes`, `headers_only` (1 or 0) and `resumeFromRevision`
    /// (0: none). `"watch"` delivers first what `include` says (`""`: the
    /// latest entries, `"history"`: all, `"updates"`: none) or the entries
    /// from `resumeFromRevision` on, then every change; `"history"` every
    /// kept revision, then the end; `"keys"` the keys holding a value, then
    /// the end.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawReader>")]
    pub fn read(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "[kind: \"watch\" | \"history\" | \"keys\", include: string, ...keys: string[]]"
        )]
        mut strings: Vec<String>,
        #[wasm_bindgen(unchecked_param_type = "ArrayLike<number>")] numbers: &[f64],
    ) -> Result<Promise, JsValue> {
        let keys = strings.split_off(strings.len().min(2));
        let string = |i: usize| strings.get(i).map_or("", String::as_str);
        let include = match string(1) {
            "" => WatchInclude::LastValue,
            "history" => WatchInclude::AllHistory,
            "updates" => WatchInclude::UpdatesOnly,
            other => {
                let text = format!("include {other:?}: KvWatchInclude.LastValue, AllHistory or UpdatesOnly");
                return Err(Error::InvalidArgument(text).into());
            }
        };
        let number = |i: usize| numbers.get(i).copied().unwrap_or(0.0);
        let [ignore_deletes, headers_only, resume_from] = std::array::from_fn(number);
        let (ignore_deletes, meta_only) = (ignore_deletes != 0.0, headers_only != 0.0);
        let resume_from_revision = revision(Some(resume_from), "resumeFromRevision")?.filter(|r| *r > 0);
        let options = WatchOptions { include, ignore_deletes, meta_only, resume_from_revision };
        let (options, until_current) = match string(0) {
            "history" => (WatchOptions { include: WatchInclude::AllHistory, meta_only, ..Default::default() }, true),
            "keys" => (KEYS, true),
            _ => (options, false),
        };
        let store = self.store.clone();
        Ok(promise(async move {
            let reader = Reader::open(&store, keys, &options, until_current).await?;
            Ok(RawReader::new(reader).into())
        }))
    }

    /// Removes the history of deleted and purged keys
    /// ([`Store::purge_deletes`]): a marker older than `older_ms` goes with
    /// everything before it, a newer one stays as its key's only message.
    /// The promise gets how many messages went.
    #[wasm_bindgen(js_name = purgeDeletes, unchecked_return_type = "Promise<number>")]
    pub fn purge_deletes(&self, older_ms: f64) -> Result<Promise, JsValue> {
        let older_than = std::time::Duration::from_millis(whole(older_ms, "olderMillis")?);
        let store = self.store.clone();
        Ok(promise(async move { Ok((store.purge_deletes(older_than).await.map_err(Error::from)? as f64).into()) }))
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
