//! An object's SHA-256, computed as its chunks stream by and written as
//! `SHA-256=` + URL-safe base64 with padding. A digest written by another
//! client is also read in hex or in plain base64, padded or not, as nats.js
//! reads it. (The npm package hashes in TS: Node's `node:crypto`, or in the
//! browser the wasm's `RawSha256`, this same `sha2`.)

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use sha2::{Digest as _, Sha256};

/// What every digest starts with.
pub const PREFIX: &str = "SHA-256=";

/// The running SHA-256 of an object's bytes.
#[derive(Debug, Default)]
pub struct Digest(Sha256);

impl Digest {
    /// The digest of nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next bytes of the object.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The SHA-256 of every byte added.
    pub fn finish(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

/// The digest as an object's meta holds it.
pub fn format(digest: &[u8; 32]) -> String {
    format!("{PREFIX}{}", URL_SAFE.encode(digest))
}

/// The 32 bytes of a meta's digest, whichever encoding wrote them.
pub fn parse(text: &str) -> Option<[u8; 32]> {
    let value = text.strip_prefix(PREFIX)?;
    let bytes = match value.len() {
        64 if value.bytes().all(|b| b.is_ascii_hexdigit()) => hex(value)?,
        _ => {
            let unpadded = value.trim_end_matches('=');
            let standard = unpadded.replace('-', "+").replace('_', "/");
            URL_SAFE_NO_PAD.decode(unpadded).or_else(|_| STANDARD_NO_PAD.decode(standard)).ok()?
        }
    };
    bytes.try_into().ok()
}

fn hex(text: &str) -> Option<Vec<u8>> {
    let digit = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    text.as_bytes().chunks(2).map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// SHA-256 of "abc" (FIPS 180-2).
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn digests_are_sha256_in_padded_url_safe_base64() {
        let mut digest = Digest::new();
        digest.update(b"a");
        digest.update(b"bc");
        let sum = digest.finish();
        assert_eq!(hex(ABC).unwrap(), sum);
        assert_eq!(format(&sum), "SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=");
    }

    #[test]
    fn digests_are_read_in_every_encoding_other_clients_use() {
        let sum: [u8; 32] = hex(ABC).unwrap().try_into().unwrap();
        for text in [
            "SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=",
            "SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0",
            "SHA-256=ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=",
            &format!("SHA-256={ABC}"),
            &format!("SHA-256={}", ABC.to_uppercase()),
        ] {
            assert_eq!(parse(text), Some(sum), "{text}");
        }
        for bad in ["", "SHA-256=", "SHA-512=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=", "SHA-256=abc", "SHA-256=!!"]
        {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
