//! `RawSha256`: the `sha2` crate's SHA-256 for the Object Store's digests in
//! the browser (Node's entry hashes with `node:crypto`), shaped like
//! `node:crypto`'s `Hash` so that TS takes either, for a put's digest. A
//! get's check is the core's read procedure's (`object_read`); the rest of
//! the Object Store is TS over the generic JetStream exports (`bindings/obj/`).

use sha2::{Digest as _, Sha256};
use wasm_bindgen::prelude::*;

/// A running SHA-256.
#[wasm_bindgen]
#[derive(Default)]
pub struct RawSha256(Sha256);

#[wasm_bindgen]
impl RawSha256 {
    #[wasm_bindgen(constructor)]
    pub fn new() -> RawSha256 {
        RawSha256::default()
    }

    /// Hashes `data` too.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The 32 bytes of the SHA-256 of everything hashed; the hasher starts over.
    pub fn digest(&mut self) -> Vec<u8> {
        self.0.finalize_reset().to_vec()
    }
}
