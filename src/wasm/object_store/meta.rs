//! Metas across the boundary, as JSON both ways. Into Rust: what a put or
//! an update sets, or the object a link points to, as TS writes it in the
//! meta's own layout (nats.js's `ObjectStoreMeta`, headers as
//! `{ name: [values] }`), read by the same parser as stored metas (a
//! parser of its own would cost the wasm more). Out to JS: a meta's JSON
//! and revision as one `RawEntries` entry.

use js_sys::Array;

use crate::error::Error;
use crate::jetstream::object_store::{ObjectInfo, meta_json, parse_meta};
use crate::wasm::entries::Packed;

/// The meta TS wrote as JSON; an `INVALID_ARGUMENT` if it is not one.
pub(super) fn from_js(json: &str) -> Result<ObjectInfo, Error> {
    parse_meta(json.as_bytes()).map_err(|e| Error::InvalidArgument(e.to_string()))
}

/// `info` at `revision` as a `RawEntries` of one meta.
pub(super) fn packed(info: &ObjectInfo, revision: u64) -> Result<Array, Error> {
    let mut packed = Packed::default();
    packed.value(&meta_json(info), revision);
    Ok(packed.to_js(false))
}
