//! `RawJetStream.objectRead`: an object's chunks read and checked by the
//! core's procedure (`core::object::read`, the Rust get's too), handed to
//! TS as a [`RawProcedure`] of `Uint8Array` chunks; the digest computed by
//! the host's SHA-256 when TS gives one (Node's `node:crypto`).

use wasm_bindgen::prelude::*;

use crate::core::error::Error;
use crate::core::object::get::{Check, Sha256Host};
use crate::core::object::read::{Chunks, ObjectRead};
use crate::jetstream::procedure::Pump;
use crate::wasm::jetstream::RawJetStream;
use crate::wasm::procedure::{RawProcedure, ToJs};

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
    /// else fed by TS (`RawProcedure.feed`). `hasher` hashes instead of the
    /// wasm's SHA-256.
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
        let direct = direct.then(|| (context.api_prefix(), context.timeout()));
        let read = ObjectRead::of(check, chunks, direct);
        Ok(RawProcedure::new(Pump::new(context.clone(), Box::new(ToJs(read)))))
    }
}
