//! An object's SHA-256, computed as its chunks stream by and written as
//! `SHA-256=` + URL-safe base64 with padding. A digest written by another
//! client is also read in hex or in plain base64, padded or not, as nats.js
//! reads it. In wasm, a host that has a native SHA-256 (Node's `node:crypto`)
//! can take the hashing over ([`set_sha256_factory`]): the wasm's own is a
//! small software one, many times slower.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use sha2::{Digest as _, Sha256};

use crate::error::Error;

/// What every digest starts with.
pub const PREFIX: &str = "SHA-256=";

/// The running SHA-256 of an object's bytes.
#[derive(Debug, Default)]
pub struct Digest(Hasher);

#[derive(Debug)]
enum Hasher {
    Own(Sha256),
    /// The host's, from the factory registered when this digest began.
    #[cfg(all(feature = "wasm", target_arch = "wasm32"))]
    Host(host::Sha256Host),
    /// The host's hasher failed, with this: the digest is lost.
    #[cfg(all(feature = "wasm", target_arch = "wasm32"))]
    Failed(String),
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher::Own(Sha256::default())
    }
}

impl Digest {
    /// A new digest, with the host's hasher where one is registered.
    pub fn new() -> Self {
        #[cfg(all(feature = "wasm", target_arch = "wasm32"))]
        if let Some(hasher) = host::hasher() {
            return Digest(Hasher::Host(hasher));
        }
        Self::default()
    }

    pub fn update(&mut self, bytes: &[u8]) {
        match &mut self.0 {
            Hasher::Own(sha) => sha.update(bytes),
            #[cfg(all(feature = "wasm", target_arch = "wasm32"))]
            Hasher::Host(sha) => {
                if let Err(e) = sha.update(bytes) {
                    self.0 = Hasher::Failed(host::message(&e));
                }
            }
            #[cfg(all(feature = "wasm", target_arch = "wasm32"))]
            Hasher::Failed(_) => {}
        }
    }

    /// The SHA-256, or the error of a host's hasher that failed: never a
    /// made-up digest a put would store.
    pub fn finish(self) -> Result<[u8; 32], Error> {
        match self.0 {
            Hasher::Own(sha) => Ok(sha.finalize().into()),
            #[cfg(all(feature = "wasm", target_arch = "wasm32"))]
            Hasher::Host(sha) => match sha.digest() {
                Ok(sum) => sum.try_into().map_err(|sum: Vec<u8>| host::failed(format!("{} bytes", sum.len()))),
                Err(e) => Err(host::failed(host::message(&e))),
            },
            #[cfg(all(feature = "wasm", target_arch = "wasm32"))]
            Hasher::Failed(message) => Err(host::failed(message)),
        }
    }
}

/// The host's SHA-256, registered from JS.
#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
mod host {
    use std::cell::RefCell;

    use sha2::{Digest as _, Sha256};
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(typescript_custom_section)]
    const SHA256_FACTORY_TS: &str = r#"
/** Makes a SHA-256 hasher, e.g. `() => createHash("sha256")` from `node:crypto`. */
export type Sha256Factory = () => { update(data: Uint8Array): unknown; digest(): Uint8Array };
"#;

    #[wasm_bindgen]
    extern "C" {
        /// A hasher made by the registered factory.
        #[derive(Debug)]
        pub type Sha256Host;
        /// Hashes `data`, a view of wasm memory used only during the call.
        #[wasm_bindgen(method, catch)]
        pub fn update(this: &Sha256Host, data: &[u8]) -> Result<(), JsValue>;
        #[wasm_bindgen(method, catch)]
        pub fn digest(this: &Sha256Host) -> Result<Vec<u8>, JsValue>;
    }

    thread_local! {
        static FACTORY: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    }

    /// Object store digests begun from now on are computed by hashers that
    /// `factory` makes (Node's entry registers `node:crypto`'s), not by the
    /// wasm's own SHA-256; `null` goes back to it. A factory whose hasher
    /// does not give the SHA-256 of `"abc"` is refused.
    #[wasm_bindgen(js_name = setSha256Factory)]
    pub fn set_sha256_factory(
        #[wasm_bindgen(unchecked_param_type = "Sha256Factory | null")] factory: JsValue,
    ) -> Result<(), JsValue> {
        if factory.is_null() || factory.is_undefined() {
            FACTORY.with(|f| *f.borrow_mut() = None);
            return Ok(());
        }
        let Some(factory) = factory.dyn_ref::<js_sys::Function>() else {
            return Err(js_sys::TypeError::new("setSha256Factory: expected a function").into());
        };
        let works = (|| {
            let hasher: Sha256Host = factory.call0(&JsValue::NULL).ok()?.unchecked_into();
            hasher.update(b"a").ok()?;
            hasher.update(b"bc").ok()?;
            Some(hasher.digest().ok()? == Sha256::digest(b"abc").as_slice())
        })();
        if works != Some(true) {
            return Err(js_sys::TypeError::new("setSha256Factory: its hasher does not compute SHA-256").into());
        }
        FACTORY.with(|f| *f.borrow_mut() = Some(factory.clone()));
        Ok(())
    }

    /// The error of a host's hasher that failed, as an I/O one: the host's.
    pub fn failed(message: String) -> crate::error::Error {
        let message = format!("the host's SHA-256 failed: {message}");
        crate::error::Error::Io { kind: std::io::ErrorKind::Other, message }
    }

    /// What a JS exception says.
    pub fn message(e: &JsValue) -> String {
        match e.dyn_ref::<js_sys::Error>() {
            Some(e) => String::from(e.message()),
            None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
        }
    }

    /// A hasher from the registered factory, if there is one and it makes one.
    pub fn hasher() -> Option<Sha256Host> {
        let factory = FACTORY.with(|f| f.borrow().clone())?;
        Some(factory.call0(&JsValue::NULL).ok()?.unchecked_into())
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
