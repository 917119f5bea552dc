//! [`Error`] as JavaScript sees it: an `Error` whose prototype is one of
//! the TS layer's classes (registered once with `setErrorClasses`): the
//! nats.js v3 class of that error (`TimeoutError`, `StreamNotFoundError`…),
//! with nats.js's message, `code` and `status` (JetStream API errors: the
//! `err_code` and the HTTP-like code; status errors: the status), nats.js's
//! cause where it wraps one, and natsjet's string `kind`. The kind and
//! class tables sit here, next to the variants they mirror; the matches are
//! exhaustive, so a new variant cannot be forgotten. This is the one place
//! that picks an error's class.

use std::cell::RefCell;

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::core::error::{Error, PermissionOp, ServerErrorKind};
use crate::jetstream::api::ErrorCode;

#[wasm_bindgen(typescript_custom_section)]
const TS_ERRORS: &str = r#"
/** natsjet's kind of error, to switch on (`kind`); `message` is for people. */
export type ErrorKind =
  | "INVALID_SUBJECT" | "INVALID_ARGUMENT" | "PAYLOAD_TOO_LARGE" | "PROTOCOL"
  | "AUTHORIZATION_VIOLATION" | "AUTHENTICATION_EXPIRED" | "AUTHENTICATION_REVOKED"
  | "PERMISSIONS_VIOLATION" | "STALE_CONNECTION" | "MAX_CONNECTIONS" | "SERVER_ERROR"
  | "JETSTREAM" | "CONSUMER_STATUS" | "ALREADY_ACKNOWLEDGED" | "NO_RESPONDERS"
  | "TIMEOUT" | "CLOSED" | "RECONNECT_BUFFER_FULL" | "OUTGOING_BUFFER_FULL" | "DISCONNECTED" | "IO" | "TLS"
  | "CREDENTIALS" | "DIGEST_MISMATCH" | "SIZE_MISMATCH" | "AT_RISK";
/** A class whose prototype natsjet's errors take (the TS layer's `NatsError` and its subclasses). */
export interface ErrorClass { readonly prototype: Error }
/** The JetStream API's error body (thrown as a `NatsError` with code `JETSTREAM`). */
export interface ApiError { code: number; err_code: number; description: string }
/** A duration in nanoseconds, as the server (and nats.js) has them in configs and infos. */
export type Nanos = number;
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
    fn set_kind(this: &Fields, kind: &str);
    #[wasm_bindgen(method, setter)]
    fn set_code(this: &Fields, code: f64);
    #[wasm_bindgen(method, setter)]
    fn set_status(this: &Fields, status: u16);
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

/// The call an error ended: nats.js wraps "no responders" differently for each.
#[derive(Clone, Copy)]
pub(crate) enum Call<'a> {
    /// Any other call, with the subject it asked ("" where not known here);
    /// no responders there can only answer a JetStream request, which
    /// nats.js reports as JetStream being off.
    Other(&'a str),
    /// The answer to a request to `subject`: no responders is a
    /// `RequestError` caused by a `NoRespondersError`.
    Request(&'a str),
    /// The replies of a request for many to `subject`: no responders is a
    /// `NoRespondersError`.
    RequestMany(&'a str),
    /// A connection event (`status()`'s `error`): the error as it is.
    Event,
    /// The messages of a batched direct get: no responders is the
    /// `JetStreamStatusError` 503 nats.js makes of the status.
    #[cfg(feature = "wasm-jetstream")]
    DirectBatch,
}

impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        to_js(&error, Call::Other("")).into()
    }
}

/// The JS error for `error`, which ended `call`: nats.js's error for it,
/// with nats.js's cause where nats.js gives one.
pub(crate) fn to_js(error: &Error, call: Call) -> js_sys::Error {
    let js = match (error, call) {
        (Error::NoResponders, Call::RequestMany(subject)) => no_responders(subject).1,
        (Error::NoResponders, Call::Request(subject)) => request_error(subject),
        // Closing ends the wait for answers with a RequestError in nats.js
        // (a call made after is refused with a ClosedConnectionError).
        (Error::Closed, Call::Request(_) | Call::RequestMany(_)) => {
            new(Class::RequestError, "connection closed", error)
        }
        // A refused publish fails only requests (never answered); nats.js
        // wraps what a request rejects with in a RequestError, save for a
        // request for many.
        (Error::Server(e), Call::Request(_) | Call::Other(_)) if refused_publish(&e.kind) => {
            caused(Class::RequestError, &e.message, error, &fields(error, Class::PermissionViolationError))
        }
        #[cfg(feature = "wasm-jetstream")]
        (Error::NoResponders, Call::DirectBatch) => {
            let js = new(Class::JetStreamStatusError, "no responders", error);
            js.set_code(503.0);
            js
        }
        (Error::NoResponders, Call::Other(subject)) => {
            caused(Class::JetStreamNotEnabled, "jetstream is not enabled", error, &request_error(subject))
        }
        (Error::JetStream(e), _) if jetstream_off(e.err_code) => {
            // nats.js: the API's error, as its cause.
            caused(Class::JetStreamNotEnabled, &e.description, error, &fields(error, Class::JetStreamApiError))
        }
        _ => fields(error, class(error)),
    };
    js.unchecked_into()
}

/// Whether `kind` is a publish the permissions refused.
fn refused_publish(kind: &ServerErrorKind) -> bool {
    matches!(kind, ServerErrorKind::PermissionsViolation { operation: PermissionOp::Publish, .. })
}

/// nats.js's `RequestError` for no responders to `subject`: the same
/// message, the `NoRespondersError` its cause.
fn request_error(subject: &str) -> Fields {
    let (message, cause) = no_responders(subject);
    caused(Class::RequestError, &message, &Error::NoResponders, &cause)
}

/// nats.js's `NoRespondersError` for `subject`, and its message.
fn no_responders(subject: &str) -> (String, Fields) {
    let message = format!("no responders: '{subject}'");
    let js = new(Class::NoRespondersError, &message, &Error::NoResponders);
    js.set_subject(subject);
    (message, js)
}

/// An error of `class` that wraps `cause`, of `error`'s kind.
fn caused(class: Class, message: &str, error: &Error, cause: &Fields) -> Fields {
    let js = new(class, message, error);
    js.set_cause(cause);
    js
}

/// A fresh JS error of `class` with `error`'s kind and `message`.
fn new(class: Class, message: &str, error: &Error) -> Fields {
    let js: Fields = js_sys::Error::new(message).unchecked_into();
    js.set_kind(kind(error));
    PROTOTYPES.with(|p| {
        let p = p.borrow();
        if let Some(prototype) = p.get(class as usize).or(p.first()).and_then(Option::as_ref) {
            Object::set_prototype_of(&js, prototype);
        }
    });
    js
}

/// A fresh JS error of `class` with `error`'s message and fields.
fn fields(error: &Error, class: Class) -> Fields {
    let js = new(class, &message(error), error);
    match error {
        Error::Server(e) => {
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
            js.set_code(e.err_code.0 as f64);
            js.set_status(e.code);
        }
        Error::ConsumerStatus(status) => js.set_code(status.code.0.into()),
        _ => {}
    }
    js
}

/// Whether the API's `err_code` says JetStream is off for the account.
fn jetstream_off(err_code: ErrorCode) -> bool {
    matches!(err_code, ErrorCode::JETSTREAM_NOT_ENABLED_FOR_ACCOUNT | ErrorCode::JETSTREAM_NOT_ENABLED)
}

/// nats.js's message where it has one for the same error; else natsjet's
/// text, without the prefix the class already says.
fn message(error: &Error) -> String {
    match error {
        Error::InvalidSubject { subject, reason } => format!("illegal subject: '{subject}' ({reason})"),
        Error::InvalidArgument(what) => what.clone(),
        Error::ApiMisuse(what) => what.to_string(),
        Error::Protocol(what) => what.to_string(),
        Error::Server(e) => e.message.clone(),
        Error::JetStream(e) => e.description.clone(),
        // nats.js lowercases a status's description ("consumer deleted").
        Error::ConsumerStatus(status) => status.description.to_ascii_lowercase(),
        Error::Timeout => "timeout".into(),
        Error::Closed => "closed connection".into(),
        Error::Disconnected => "connection disconnected".into(),
        _ => error.to_string(),
    }
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
        // JetStream being off wraps its API error (see `to_js`).
        Error::JetStream(e) => match e.err_code {
            ErrorCode::STREAM_NOT_FOUND => Class::StreamNotFoundError,
            ErrorCode::CONSUMER_NOT_FOUND => Class::ConsumerNotFoundError,
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

fn kind(error: &Error) -> &'static str {
    match error {
        Error::InvalidSubject { .. } => "INVALID_SUBJECT",
        // nats.js's InvalidOperationError, whose kind natsjet's TS layer already gives.
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
