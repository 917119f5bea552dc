//! [`Error`] as JavaScript sees it: an `Error` whose prototype is one of
//! the TS layer's classes (registered once with `setErrorClasses`): the
//! nats.js v3 class of that error (`TimeoutError`, `StreamNotFoundError`…),
//! every one a subclass of `NatsError`, with a switchable `code` and, where
//! the server gave them, `status`, `errCode` and `description`. The code and
//! class tables sit here, next to the variants they mirror; the matches are
//! exhaustive, so a new variant cannot be forgotten. This is the one place
//! that picks an error's class.

use std::cell::RefCell;

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::{Error, PermissionOp, ServerErrorKind};
use crate::jetstream::api::ErrorCode;

#[wasm_bindgen(typescript_custom_section)]
const TS_ERRORS: &str = r#"
/** What went wrong, to switch on; `message` is for people. */
export type ErrorCode =
  | "INVALID_SUBJECT" | "INVALID_ARGUMENT" | "PAYLOAD_TOO_LARGE" | "PROTOCOL"
  | "AUTHORIZATION_VIOLATION" | "AUTHENTICATION_EXPIRED" | "AUTHENTICATION_REVOKED"
  | "PERMISSIONS_VIOLATION" | "STALE_CONNECTION" | "MAX_CONNECTIONS" | "SERVER_ERROR"
  | "JETSTREAM" | "CONSUMER_STATUS" | "ALREADY_ACKNOWLEDGED" | "NO_RESPONDERS"
  | "TIMEOUT" | "CLOSED" | "RECONNECT_BUFFER_FULL" | "OUTGOING_BUFFER_FULL" | "DISCONNECTED" | "IO" | "TLS"
  | "CREDENTIALS" | "DIGEST_MISMATCH" | "SIZE_MISMATCH" | "AT_RISK";
/** A class whose prototype natsjet's errors take (the TS layer's `NatsError` and its subclasses). */
export interface ErrorClass { readonly prototype: Error }
"#;

/// Declares [`Class`], the class names JS registers them under and their
/// TS type `ErrorClasses`, from one list.
macro_rules! classes {
    ($($name:ident),* $(,)?) => {
        /// The JS class of an error: nats.js v3's, `NatsError` where it has none.
        #[derive(Clone, Copy)]
        #[allow(dead_code, reason = "NatsError, first, is only the fallback of a class JS did not register")]
        enum Class { $($name),* }
        const CLASS_NAMES: &[&str] = &[$(stringify!($name)),*];
        #[wasm_bindgen(typescript_custom_section)]
        const TS_ERROR_CLASSES: &str = concat!(
            "/** The classes natsjet's errors take, by name (nats.js v3's). */\n",
            "export interface ErrorClasses {",
            $(" readonly ", stringify!($name), ": ErrorClass;",)*
            " }"
        );
    };
}

classes!(
    NatsError,
    InvalidSubjectError,
    InvalidArgumentError,
    InvalidOperationError,
    ProtocolError,
    AuthorizationError,
    UserAuthenticationExpiredError,
    PermissionViolationError,
    ConnectionError,
    RequestError,
    NoRespondersError,
    TimeoutError,
    ClosedConnectionError,
    JetStreamApiError,
    StreamNotFoundError,
    ConsumerNotFoundError,
    JetStreamNotEnabled,
    JetStreamStatusError,
);

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
    #[wasm_bindgen(method, setter)]
    fn set_subject(this: &Fields, subject: &str);
    #[wasm_bindgen(method, setter)]
    fn set_operation(this: &Fields, operation: &str);
    #[wasm_bindgen(method, setter)]
    fn set_queue(this: &Fields, queue: &str);

    #[wasm_bindgen(typescript_type = "ErrorClasses")]
    pub type ErrorClasses;
}

thread_local! {
    /// The prototype of each [`Class`], in its order; empty until registered.
    static PROTOTYPES: RefCell<Vec<Option<Object>>> = const { RefCell::new(Vec::new()) };
}

/// Makes every error natsjet throws an instance of its class in `classes`
/// (`NatsError` or the nats.js-named subclass); a missing class falls back
/// to `NatsError`.
#[wasm_bindgen(js_name = setErrorClasses)]
pub fn set_error_classes(classes: ErrorClasses) {
    let prototype = |name: &str| {
        let class = Reflect::get(&classes, &JsValue::from_str(name)).ok()?;
        Reflect::get(&class, &JsValue::from_str("prototype")).ok()?.dyn_into::<Object>().ok()
    };
    let prototypes = CLASS_NAMES.iter().map(|name| prototype(name)).collect();
    PROTOTYPES.with(|p| *p.borrow_mut() = prototypes);
}

impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        to_js(&error, None).into()
    }
}

/// The JS error for `error`; `subject` is the request's, where the caller
/// knows it (a `NoRespondersError`'s `subject`, else `""`).
pub(crate) fn to_js(error: &Error, subject: Option<&str>) -> js_sys::Error {
    let js = fields(error, subject);
    if let Error::NoResponders = error {
        // nats.js rejects with a RequestError caused by a NoRespondersError;
        // ours is both, and carries one as its cause for that idiom too.
        js.set_cause(&fields(error, subject));
    }
    js.unchecked_into()
}

/// A fresh JS error of `error`'s class with its fields set.
fn fields(error: &Error, subject: Option<&str>) -> Fields {
    let js: Fields = js_sys::Error::new(&error.to_string()).unchecked_into();
    js.set_name("NatsError");
    js.set_code(code(error));
    match error {
        Error::Server(e) => {
            js.set_description(&e.message);
            if let ServerErrorKind::PermissionsViolation { operation, subject, queue } = &e.kind {
                js.set_operation(match operation {
                    PermissionOp::Publish => "publish",
                    PermissionOp::Subscribe => "subscription",
                });
                js.set_subject(subject);
                if let Some(queue) = queue {
                    js.set_queue(queue);
                }
            }
        }
        Error::JetStream(e) => {
            js.set_status(e.code);
            js.set_err_code(e.err_code.0 as f64);
            js.set_description(&e.description);
        }
        Error::ConsumerStatus(status) => {
            js.set_status(status.code.0);
            js.set_description(&status.description);
        }
        Error::NoResponders => {
            js.set_status(503);
            js.set_subject(subject.unwrap_or_default());
        }
        _ => {}
    }
    PROTOTYPES.with(|p| {
        let p = p.borrow();
        if let Some(prototype) = p.get(class(error) as usize).or(p.first()).and_then(Option::as_ref) {
            Object::set_prototype_of(&js, prototype);
        }
    });
    js
}

/// The nats.js v3 class of `error`.
fn class(error: &Error) -> Class {
    match error {
        Error::InvalidSubject { .. } => Class::InvalidSubjectError,
        Error::InvalidArgument(_) | Error::PayloadTooLarge { .. } => Class::InvalidArgumentError,
        Error::ApiMisuse(_) => Class::InvalidOperationError,
        Error::Protocol(_) => Class::ProtocolError,
        Error::Server(e) => match e.kind {
            ServerErrorKind::AuthorizationViolation | ServerErrorKind::AuthenticationRevoked => {
                Class::AuthorizationError
            }
            ServerErrorKind::AuthenticationExpired => Class::UserAuthenticationExpiredError,
            ServerErrorKind::PermissionsViolation { .. } => Class::PermissionViolationError,
            // nats.js makes every other -ERR a ProtocolError.
            ServerErrorKind::MaximumPayload
            | ServerErrorKind::StaleConnection
            | ServerErrorKind::MaximumConnections
            | ServerErrorKind::Other => Class::ProtocolError,
        },
        Error::JetStream(e) => match e.err_code {
            ErrorCode::STREAM_NOT_FOUND => Class::StreamNotFoundError,
            ErrorCode::CONSUMER_NOT_FOUND => Class::ConsumerNotFoundError,
            ErrorCode::JETSTREAM_NOT_ENABLED_FOR_ACCOUNT | ErrorCode::JETSTREAM_NOT_ENABLED => {
                Class::JetStreamNotEnabled
            }
            _ => Class::JetStreamApiError,
        },
        Error::ConsumerStatus { .. } => Class::JetStreamStatusError,
        Error::AlreadyAcknowledged => Class::InvalidOperationError,
        Error::NoResponders => Class::NoRespondersError,
        Error::Timeout => Class::TimeoutError,
        Error::Closed => Class::ClosedConnectionError,
        // nats.js rejects requests in flight with a RequestError on a disconnect.
        Error::Disconnected => Class::RequestError,
        Error::ReconnectBufferFull { .. }
        | Error::OutgoingBufferFull { .. }
        | Error::Io { .. }
        | Error::Tls(_)
        | Error::Credentials(_) => Class::ConnectionError,
        // Never made by natsjet: only a Rust program's own `?` makes it.
        Error::DigestMismatch { .. } | Error::SizeMismatch { .. } | Error::AtRisk { .. } | Error::Other(_) => {
            Class::NatsError
        }
    }
}

fn code(error: &Error) -> &'static str {
    match error {
        Error::InvalidSubject { .. } => "INVALID_SUBJECT",
        // nats.js's InvalidOperationError, whose code natsjet's TS layer already gives.
        Error::InvalidArgument(_) | Error::ApiMisuse(_) => "INVALID_ARGUMENT",
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
        Error::OutgoingBufferFull { .. } => "OUTGOING_BUFFER_FULL",
        Error::Disconnected => "DISCONNECTED",
        Error::Io { .. } => "IO",
        Error::Tls(_) => "TLS",
        Error::Credentials(_) => "CREDENTIALS",
        Error::DigestMismatch { .. } => "DIGEST_MISMATCH",
        Error::SizeMismatch { .. } => "SIZE_MISMATCH",
        Error::AtRisk { .. } => "AT_RISK",
        Error::Other(_) => "OTHER",
    }
}
