//! nats.js authenticators: a JS function from the server's nonce to the
//! credentials for CONNECT, called through [`ConnectOptions::auth_callback`]
//! on every (re)connect. Signing happens in JS (the TS layer's
//! `nkeyAuthenticator` uses `@nats-io/nkeys`), which keeps ed25519 out of
//! the wasm. The signature it returns is read with the platform's `atob`,
//! which keeps base64's decoder out of the wasm too.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::options::text;
use crate::core::conn::{AuthFn, CallbackAuth, credentials_parts};
use crate::core::error::Error;

#[wasm_bindgen(typescript_custom_section)]
const TS_AUTH: &str = r#"
/**
 * nats.js's authenticator: called with the server's nonce (when it sent one)
 * on every (re)connect; the fields it returns go into CONNECT.
 */
export type Authenticator = (nonce?: string) => Auth;
/** What an authenticator returns (nats.js's `Auth`). */
export interface Auth {
  user?: string;
  pass?: string;
  auth_token?: string;
  /** A user JWT. */
  jwt?: string;
  /** The public nkey that made `sig`. */
  nkey?: string;
  /** The nonce signed with the nkey's seed, in base64 or base64url. */
  sig?: string;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "Auth")]
    type Answer;
    #[wasm_bindgen(method, getter)]
    fn user(this: &Answer) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn pass(this: &Answer) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn auth_token(this: &Answer) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn jwt(this: &Answer) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn nkey(this: &Answer) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn sig(this: &Answer) -> JsValue;

    /// The platform's base64 decoder (browsers, Node 16+): the bytes as a
    /// string of chars up to U+00FF; throws on what is not base64.
    #[wasm_bindgen(catch)]
    fn atob(data: &str) -> Result<String, JsValue>;
}

/// `authenticator` as an [`AuthFn`]; `None` when unset.
pub(crate) fn callback(authenticator: JsValue) -> Result<Option<impl AuthFn>, Error> {
    if authenticator.is_undefined() || authenticator.is_null() {
        return Ok(None);
    }
    let f: Function =
        authenticator.dyn_into().map_err(|_| Error::InvalidArgument("authenticator: expected a function".into()))?;
    Ok(Some(move |nonce: &[u8]| call(&f, nonce)))
}

/// Calls the authenticator; a throw or an answer of the wrong shape is a
/// credentials error (which closes the connection: retrying will not help).
fn call(f: &Function, nonce: &[u8]) -> Result<CallbackAuth, Error> {
    let nonce = match std::str::from_utf8(nonce) {
        Ok(nonce) if !nonce.is_empty() => JsValue::from_str(nonce),
        _ => JsValue::UNDEFINED,
    };
    let answer = f.call1(&JsValue::UNDEFINED, &nonce).map_err(|thrown| {
        let why = thrown.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message()));
        Error::Credentials(format!("authenticator failed: {}", why.unwrap_or_else(|| "it threw".into())))
    })?;
    if !answer.is_object() {
        return Err(Error::Credentials("authenticator: expected it to return an object".into()));
    }
    let answer: Answer = answer.unchecked_into();
    let field = |value: JsValue, what: &str| {
        text(value, what).map(|t| t.filter(|t| !t.is_empty())).map_err(|e| Error::Credentials(e.to_string()))
    };
    let signature = field(answer.sig(), "authenticator sig")?
        .map(|sig| {
            // base64url or base64, padded or not.
            let sig = sig.trim_end_matches('=').replace('-', "+").replace('_', "/");
            let bytes = atob(&sig).map_err(|_| Error::Credentials("authenticator sig: expected base64".into()))?;
            Ok::<_, Error>(bytes.chars().map(|c| c as u8).collect::<Vec<u8>>())
        })
        .transpose()?;
    Ok(CallbackAuth {
        jwt: field(answer.jwt(), "authenticator jwt")?,
        nkey: field(answer.nkey(), "authenticator nkey")?,
        signature,
        user: field(answer.user(), "authenticator user")?,
        password: field(answer.pass(), "authenticator pass")?,
        token: field(answer.auth_token(), "authenticator auth_token")?,
    })
}

/// The user JWT and nkey seed of a `.creds` file's contents, for the TS
/// layer's `credsAuthenticator`.
#[wasm_bindgen(js_name = credsParts, unchecked_return_type = "[jwt: string, seed: string]")]
pub fn creds_parts(creds: &str) -> Result<Array, JsValue> {
    let (jwt, seed) = credentials_parts(creds)?;
    Ok(Array::of2(&jwt.into(), &seed.into()))
}
