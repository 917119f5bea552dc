//! [`Error`] as JavaScript sees it: an `Error` whose prototype is the TS
//! layer's `NatsError` (registered once with `setErrorClass`), with a
//! switchable `code` and, where the server gave them, `status`, `errCode`
//! and `description`. The code table sits here, next to the variants it
//! mirrors; the match is exhaustive, so a new variant cannot be forgotten.

use std::cell::RefCell;

use js_sys::Object;
use wasm_bindgen::prelude::*;

use crate::error::{Error, ServerErrorKind};

#[wasm_bindgen(typescript_custom_section)]
const TS_ERRORS: &str = r#"
/** What went wrong, to switch on; `message` is for people. */
export type ErrorCode =
  | "INVALID_SUBJECT" | "INVALID_ARGUMENT" | "PAYLOAD_TOO_LARGE" | "PROTOCOL"
  | "AUTHORIZATION_VIOLATION" | "AUTHENTICATION_EXPIRED" | "AUTHENTICATION_REVOKED"
  | "PERMISSIONS_VIOLATION" | "STALE_CONNECTION" | "MAX_CONNECTIONS" | "SERVER_ERROR"
  | "JETSTREAM" | "CONSUMER_STATUS" | "ALREADY_ACKNOWLEDGED" | "NO_RESPONDERS"
  | "TIMEOUT" | "CLOSED" | "RECONNECT_BUFFER_FULL" | "DISCONNECTED" | "IO" | "TLS"
  | "CREDENTIALS";
/** A class whose prototype natsjet's errors take (the TS layer's `NatsError`). */
export interface ErrorClass { readonly prototype: Error }
"#;

#[wasm_bindgen]
extern "C" {
    /// A fresh `Error` while natsjet fills in its fields.
    #[wasm_bindgen(extends = js_sys::Error)]
    type Fields;
    #[wasm_bindgen(method, setter)]
    fn set_code(this: &Fields, code: &str);
    #[wasm_bindgen(method, setter)]
    fn set_status(this: &Fields, status: u16);
    #[wasm_bindgen(method, setter = errCode)]
    fn set_err_code(this: &Fields, err_code: f64);
    #[wasm_bindgen(method, setter)]
    fn set_description(this: &Fields, description: &str);

    #[wasm_bindgen(typescript_type = "ErrorClass")]
    pub type ErrorClass;
    #[wasm_bindgen(method, getter)]
    fn prototype(this: &ErrorClass) -> Object;
}

thread_local! {
    static PROTOTYPE: RefCell<Option<Object>> = const { RefCell::new(None) };
}

/// Makes every error natsjet throws an instance of `class` (`NatsError`).
#[wasm_bindgen(js_name = setErrorClass)]
pub fn set_error_class(class: ErrorClass) {
    PROTOTYPE.with(|p| *p.borrow_mut() = Some(class.prototype()));
}

impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        to_js(&error).into()
    }
}

pub(crate) fn to_js(error: &Error) -> js_sys::Error {
    let js: Fields = js_sys::Error::new(&error.to_string()).unchecked_into();
    js.set_name("NatsError");
    js.set_code(code(error));
    match error {
        Error::Server(e) => js.set_description(&e.message),
        Error::JetStream(e) => {
            js.set_status(e.code);
            js.set_err_code(e.err_code.0 as f64);
            js.set_description(&e.description);
        }
        Error::ConsumerStatus { code, description } => {
            js.set_status(*code);
            js.set_description(description);
        }
        Error::NoResponders => js.set_status(503),
        _ => {}
    }
    PROTOTYPE.with(|p| {
        if let Some(prototype) = p.borrow().as_ref() {
            Object::set_prototype_of(&js, prototype);
        }
    });
    js.unchecked_into()
}

fn code(error: &Error) -> &'static str {
    match error {
        Error::InvalidSubject { .. } => "INVALID_SUBJECT",
        Error::InvalidArgument(_) => "INVALID_ARGUMENT",
        Error::PayloadTooLarge { .. } => "PAYLOAD_TOO_LARGE",
        Error::Protocol(_) => "PROTOCOL",
        Error::Server(e) => match e.kind {
            ServerErrorKind::AuthorizationViolation => "AUTHORIZATION_VIOLATION",
            ServerErrorKind::AuthenticationExpired => "AUTHENTICATION_EXPIRED",
            ServerErrorKind::AuthenticationRevoked => "AUTHENTICATION_REVOKED",
            ServerErrorKind::PermissionsViolation { .. } => "PERMISSIONS_VIOLATION",
            ServerErrorKind::MaximumPayload => "PAYLOAD_TOO_LARGE",
            ServerErrorKind::StaleConnection => "STALE_CONNECTION",
            ServerErrorKind::MaximumConnections => "MAX_CONNECTIONS",
            ServerErrorKind::Other => "SERVER_ERROR",
        },
        Error::JetStream(_) => "JETSTREAM",
        Error::ConsumerStatus { .. } => "CONSUMER_STATUS",
        Error::AlreadyAcknowledged => "ALREADY_ACKNOWLEDGED",
        Error::NoResponders => "NO_RESPONDERS",
        Error::Timeout => "TIMEOUT",
        Error::Closed => "CLOSED",
        Error::ReconnectBufferFull { .. } => "RECONNECT_BUFFER_FULL",
        Error::Disconnected => "DISCONNECTED",
        Error::Io { .. } => "IO",
        Error::Tls(_) => "TLS",
        Error::Credentials(_) => "CREDENTIALS",
    }
}
