//! The host's SHA-256 for object digests, registered from JS
//! (`setSha256Factory`; Node's entry registers `node:crypto`'s): many times
//! faster than the wasm's own. The core's digest takes its hashers as
//! [`HostHasher`]s.

use std::cell::RefCell;

use sha2::{Digest as _, Sha256};
use wasm_bindgen::prelude::*;

use crate::core::object::digest::HostHasher;

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

/// What a JS exception says.
fn message(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(e) => String::from(e.message()),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

/// A hasher from the registered factory, if there is one and it makes one.
pub(crate) fn hasher() -> Option<Box<dyn HostHasher>> {
    let factory = FACTORY.with(|f| f.borrow().clone())?;
    let hasher: Sha256Host = factory.call0(&JsValue::NULL).ok()?.unchecked_into();
    Some(Box::new(hasher))
}

impl HostHasher for Sha256Host {
    fn update(&mut self, bytes: &[u8]) -> Result<(), String> {
        Sha256Host::update(self, bytes).map_err(|e| message(&e))
    }

    fn finish(self: Box<Self>) -> Result<Vec<u8>, String> {
        self.digest().map_err(|e| message(&e))
    }
}
