//! `RawJetStream.objectRead` and `objectWrite`: an object's chunks read
//! (by direct gets or from an ordered push consumer) and checked by the
//! core's procedure (`core::object::read`, the Rust get's too), handed to TS as a [`RawProcedure`] of `Uint8Array` chunks; and an
//! object put by the core's put procedure (`core::object::write`, the Rust
//! put's too), fed the bytes by TS. The digest computed by the host's
//! SHA-256 when TS gives one (Node's `node:crypto`).

use wasm_bindgen::prelude::*;

use js_sys::{Array, Uint8Array};

use crate::core::error::Error;
use crate::core::object::get::{Check, Sha256Host};
use crate::core::object::lookup::{Found, Shadowed};
use crate::core::object::meta_json;
use crate::core::object::names::chunk_subject;
use crate::core::object::read::{Chunks, ObjectRead};
use crate::core::object::write::{ObjectWrite, WriteOptions, Written};
use crate::core::object::{ObjectInfo, ObjectMetadata};
use crate::driver::{DefaultRuntime, Runtime};
use crate::jetstream::object_store::chunk_consumer;
use crate::jetstream::procedure::Pump;
use crate::wasm::error::{Call, to_js};
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::options::millis;
use crate::wasm::procedure::{IntoJs, JsProcedure, RawProcedure, ToJs};

#[wasm_bindgen(typescript_custom_section)]
const TS_HOST_SHA256: &str = r#"
/** A running SHA-256 of the host's, as `node:crypto`'s `Hash`. */
export interface HostSha256 { update(data: Uint8Array): unknown; digest(): Uint8Array; }
"#;

#[wasm_bindgen]
extern "C" {
    /// A running SHA-256 of the host's, as `node:crypto`'s `Hash`.
    #[wasm_bindgen(typescript_type = "HostSha256")]
    pub type HostHasher;
    #[wasm_bindgen(method, catch)]
    fn update(this: &HostHasher, data: &[u8]) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn digest(this: &HostHasher) -> Result<Vec<u8>, JsValue>;
}

impl Sha256Host for HostHasher {
    fn update(&mut self, bytes: &[u8]) -> Result<(), Error> {
        HostHasher::update(self, bytes).map(drop).map_err(failed)
    }

    fn finish(&mut self) -> Result<[u8; 32], Error> {
        let digest = self.digest().map_err(failed)?;
        digest.try_into().map_err(|_| failed(JsValue::from_str("not 32 bytes")))
    }
}

/// The error of a host hasher that threw.
fn failed(e: JsValue) -> Error {
    let why = js_sys::Error::from(e).message();
    Error::Io { kind: std::io::ErrorKind::Other, message: format!("the host's SHA-256 failed: {why}") }
}

#[wasm_bindgen]
impl RawJetStream {
    /// The read of object `name` of `bucket` (`size` bytes in `chunks`
    /// chunks on `$O.<bucket>.C.<nuid>`, `digest` its meta's), checked
    /// against its size and digest: by batched direct gets when `direct`,
    /// else pushed by an ordered push consumer it makes (as the Rust get's).
    /// `hasher` hashes instead of the wasm's SHA-256.
    #[wasm_bindgen(js_name = objectRead)]
    #[allow(clippy::too_many_arguments)]
    pub fn object_read(
        &self,
        bucket: &str,
        name: &str,
        nuid: &str,
        size: f64,
        chunks: f64,
        digest: Option<String>,
        direct: bool,
        hasher: Option<HostHasher>,
    ) -> Result<RawProcedure, JsValue> {
        let mut check = Check::of(name, size as u64, digest.as_deref())?;
        if let Some(hasher) = hasher {
            check = check.with_host(Box::new(hasher));
        }
        let chunks = Chunks { bucket, nuid, size: size as usize, chunks: chunks as usize };
        let context = &self.context;
        let read = ObjectRead::of(check, chunks, direct.then(|| (context.api_prefix(), context.timeout())));
        let pump = Pump::new(context.clone(), Box::new(ToJs(read)) as JsProcedure);
        if direct || size == 0.0 {
            return Ok(RawProcedure::new(pump));
        }
        Ok(RawProcedure::new(pump.pushed_by(Box::pin(chunk_consumer(context.clone(), bucket.into(), nuid.into())))))
    }
}

/// A put's items in JS: `true` wants the next bytes (`feed`), a number
/// is the bytes acknowledged, `[metaJson bytes, revision]` the object stored.
impl IntoJs for Written {
    fn into_js(self) -> JsValue {
        match self {
            Written::Want => JsValue::TRUE,
            Written::Acked(bytes) => JsValue::from_f64(bytes as f64),
            Written::Stored(info, revision) => {
                let meta = Uint8Array::from(&meta_json::write(&info)[..]);
                Array::of2(&meta, &JsValue::from_f64(revision as f64)).into()
            }
        }
    }
}

/// The meta of `json`, as a meta's JSON: a JS `InvalidArgumentError` if it is not one.
fn meta_of(json: &str) -> Result<ObjectInfo, JsValue> {
    meta_json::read(json.as_bytes()).map_err(|e| to_js(&e, Call::Other("")).into())
}

#[wasm_bindgen]
impl RawJetStream {
    /// The put of the object `meta` (a meta's JSON: name, description,
    /// headers, metadata, `options.max_chunk_size`) in `bucket`, as the
    /// core's procedure does it: `feed` it bytes whenever it hands out
    /// `true`, `feed(undefined)` at their end. It replaces `old` (the meta's
    /// JSON the name finds, on `oldSubject`, and the older meta it
    /// shadows), stores the meta only if at `previousRevision` when given,
    /// and sends the chunks as one fast batch when `fast`; replies that stop
    /// coming for `timeout` ms (the JetStream timeout) fail it. `hasher` hashes
    /// instead of the wasm's SHA-256.
    #[wasm_bindgen(js_name = objectWrite)]
    #[allow(clippy::too_many_arguments)]
    pub fn object_write(
        &self,
        bucket: &str,
        meta: &str,
        previous_revision: Option<f64>,
        fast: bool,
        timeout: Option<f64>,
        old: Option<String>,
        old_subject: Option<String>,
        shadowed_subject: Option<String>,
        shadowed_nuid: Option<String>,
        hasher: Option<HostHasher>,
    ) -> Result<RawProcedure, JsValue> {
        let info = meta_of(meta)?;
        let chunk_size = info.options.as_ref().and_then(|o| o.max_chunk_size);
        let meta = ObjectMetadata { chunk_size, ..ObjectMetadata::from(info) };
        let old = match (old, old_subject) {
            (Some(old), Some(subject)) => Some(Found {
                info: meta_of(&old)?,
                revision: 0,
                subject,
                shadowed: shadowed_subject.map(|subject| Shadowed { subject, nuid: shadowed_nuid }),
            }),
            _ => None,
        };
        let context = &self.context;
        let client = context.client();
        let nuid = client.new_nuid();
        let subject = chunk_subject(bucket, &nuid);
        let options = WriteOptions {
            bucket,
            api_prefix: context.api_prefix(),
            nuid,
            max_payload: client.server_info().max_payload,
            stall: millis(timeout.into(), "timeout")?.unwrap_or(context.timeout()),
            old,
            previous_revision: previous_revision.map(|r| r as u64),
            fast: fast.then(|| client.new_inbox()),
            clock: DefaultRuntime::wall_clock,
        };
        let mut write = ObjectWrite::new(meta, options);
        if let Some(hasher) = hasher {
            write = write.with_host(Box::new(hasher));
        }
        Ok(RawProcedure::new(Pump::new(context.clone(), Box::new(ToJs(write)))).with_subject(subject))
    }
}
