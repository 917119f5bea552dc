//! An object's SHA-256, computed as its chunks stream by and written as
//! `SHA-256=` + URL-safe base64 with padding. A digest written by another
//! client is also read in hex or in plain base64, padded or not, as nats.js
//! reads it. A host with a native SHA-256 (Node's `node:crypto`, many times
//! faster than the wasm's own software one) can do the hashing: the runtime
//! hands its hasher in as a [`HostHasher`].

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use sha2::{Digest as _, Sha256};

use crate::core::error::Error;

/// What every digest starts with.
pub const PREFIX: &str = "SHA-256=";

/// A SHA-256 the host computes; its errors are the host's text.
pub trait HostHasher: fmt::Debug {
    fn update(&mut self, bytes: &[u8]) -> Result<(), String>;
    fn finish(self: Box<Self>) -> Result<Vec<u8>, String>;
}

/// The running SHA-256 of an object's bytes.
#[derive(Debug, Default)]
pub struct Digest(Hasher);

#[derive(Debug)]
enum Hasher {
    Own(Sha256),
    Host(Box<dyn HostHasher>),
    /// The host's hasher failed, with this: the digest is lost.
    Failed(String),
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher::Own(Sha256::default())
    }
}

impl Digest {
    /// A new digest, computed by natsjet's own SHA-256.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new digest, computed by the host's `hasher`.
    pub fn with_host(hasher: Box<dyn HostHasher>) -> Self {
        Digest(Hasher::Host(hasher))
    }

    pub fn update(&mut self, bytes: &[u8]) {
        match &mut self.0 {
            Hasher::Own(sha) => sha.update(bytes),
            Hasher::Host(sha) => {
                if let Err(e) = sha.update(bytes) {
                    self.0 = Hasher::Failed(e);
                }
            }
            Hasher::Failed(_) => {}
        }
    }

    /// The SHA-256, or the error of a host's hasher that failed: never a
    /// made-up digest a put would store.
    pub fn finish(self) -> Result<[u8; 32], Error> {
        match self.0 {
            Hasher::Own(sha) => Ok(sha.finalize().into()),
            Hasher::Host(sha) => match sha.finish() {
                Ok(sum) => sum.try_into().map_err(|sum: Vec<u8>| host_failed(format!("{} bytes", sum.len()))),
                Err(e) => Err(host_failed(e)),
            },
            Hasher::Failed(message) => Err(host_failed(message)),
        }
    }
}

/// The error of a host's hasher that failed, as an I/O one: the host's.
fn host_failed(message: String) -> Error {
    let message = format!("the host's SHA-256 failed: {message}");
    Error::Io { kind: std::io::ErrorKind::Other, message }
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
        let sum = digest.finish().unwrap();
        assert_eq!(hex(ABC).unwrap(), sum);
        assert_eq!(format(&sum), "SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=");
    }

    /// A host hasher that fails its updates, or gives `len` bytes.
    #[derive(Debug)]
    struct Host {
        fails: bool,
        len: usize,
    }

    impl HostHasher for Host {
        fn update(&mut self, _: &[u8]) -> Result<(), String> {
            if self.fails { Err("gone".into()) } else { Ok(()) }
        }

        fn finish(self: Box<Self>) -> Result<Vec<u8>, String> {
            Ok(vec![7; self.len])
        }
    }

    #[test]
    fn a_host_hasher_is_used_and_its_failures_lose_the_digest() {
        let finish = |fails, len| {
            let mut digest = Digest::with_host(Box::new(Host { fails, len }));
            digest.update(b"abc");
            digest.finish()
        };
        assert_eq!(finish(false, 32).unwrap(), [7; 32]);
        assert!(matches!(finish(true, 32), Err(Error::Io { message, .. }) if message.ends_with("failed: gone")));
        assert!(matches!(finish(false, 31), Err(Error::Io { message, .. }) if message.ends_with("failed: 31 bytes")));
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
