//! `RawJetStream.objectChange`: an object looked up by name and its meta
//! changed (deleted, updated or renamed, made a link) by the core's
//! procedure (`core::object::change`, the Rust store's too), handed to TS
//! as a [`RawProcedure`] of one item. What TS already holds (a new name,
//! a description, metadata, headers, a link's target) comes in as plain
//! values, not as a meta's JSON.

use wasm_bindgen::prelude::*;

use js_sys::{Array, Uint8Array};

use crate::core::header::HeaderMap;
use crate::core::object::change::{Change, Changed, MetaChange, Target};
use crate::core::object::{ObjectInfo, ObjectLink, meta_json};
use crate::driver::{DefaultRuntime, Runtime};
use crate::jetstream::procedure::Pump;
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::procedure::{IntoJs, RawProcedure, ToJs};

/// A change's item in JS: `[metaJson bytes, revision, subject, shadowed
/// subject?, shadowed chunks' nuid?, bucket, direct]` for an object found
/// (for a get, in the bucket a link led to), `[metaJson bytes, revision,
/// purged]` for a meta written.
impl IntoJs for Changed {
    fn into_js(self) -> JsValue {
        let meta = |info: &ObjectInfo| JsValue::from(Uint8Array::from(&meta_json::write(info)[..]));
        match self {
            Changed::Found { found, bucket, direct } => {
                let shadowed = found.shadowed.as_ref();
                let item = Array::of3(&meta(&found.info), &(found.revision as f64).into(), &found.subject.into());
                item.push(&shadowed.map(|s| s.subject.as_str()).into());
                item.push(&shadowed.and_then(|s| s.nuid.as_deref()).into());
                item.push(&bucket.into());
                item.push(&direct.into());
                item.into()
            }
            Changed::Written { info, revision, purged } => {
                Array::of3(&meta(&info), &(revision as f64).into(), &(purged as f64).into()).into()
            }
        }
    }
}

/// `[k0, v0, k1, v1, ...]` as pairs.
fn pairs(flat: Vec<String>) -> impl Iterator<Item = (String, String)> {
    let mut flat = flat.into_iter();
    std::iter::from_fn(move || Some((flat.next()?, flat.next()?)))
}

#[wasm_bindgen]
impl RawJetStream {
    /// `op` of object `name` of `bucket` (read with direct gets when
    /// `direct`): `"find"` (the object, or the API's 404), `"get"` (the
    /// object a get reads: the one a link names followed), `"delete"`,
    /// `"update"` (to `newName` if given, with `description`, `metadata`
    /// as `[key, value, ...]` and, if given, `headers` as `[name, value,
    /// ...]`) or `"link"` (to object `linkName` of bucket `linkBucket`, or
    /// without a name to the bucket).
    #[wasm_bindgen(js_name = objectChange)]
    #[allow(clippy::too_many_arguments)]
    pub fn object_change(
        &self,
        bucket: &str,
        direct: bool,
        name: &str,
        op: &str,
        new_name: Option<String>,
        description: Option<String>,
        metadata: Option<Vec<String>>,
        headers: Option<Vec<String>>,
        link_bucket: Option<String>,
        link_name: Option<String>,
    ) -> RawProcedure {
        let context = &self.context;
        let change = match op {
            "delete" => Change::Delete,
            "get" => Change::Follow,
            "update" => Change::Update {
                new_name,
                change: Box::new(move |info: &mut ObjectInfo| {
                    info.description = description;
                    info.metadata = pairs(metadata.unwrap_or_default()).collect();
                    if let Some(headers) = headers {
                        let mut map = HeaderMap::new();
                        pairs(headers).for_each(|(name, value)| map.append(name, value));
                        info.headers = (!map.is_empty()).then_some(map);
                    }
                }),
            },
            "link" => Change::Link {
                link: ObjectLink { name: link_name, bucket: link_bucket.unwrap_or_default() },
                nuid: context.client().new_nuid(),
            },
            _ => Change::Find,
        };
        let target = Target { bucket, api_prefix: context.api_prefix(), direct, clock: DefaultRuntime::wall_clock };
        let change = MetaChange::new(target, name, change);
        RawProcedure::new(Pump::new(context.clone(), Box::new(ToJs(change)))).with_subject(String::new())
    }
}
