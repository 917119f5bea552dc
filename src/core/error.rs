//! The one error type of natsjet.
//!
//! Errors are grouped by who is at fault: the caller ([`Error::InvalidSubject`],
//! [`Error::InvalidArgument`], [`Error::PayloadTooLarge`] for bad input,
//! [`Error::ApiMisuse`] for a call the object's state or kind does not allow),
//! the server ([`Error::Server`], [`Error::Protocol`] with its
//! [`ProtocolError`] cause, [`Error::ConsumerStatus`] with the typed
//! [`PullStatus`], [`Error::NoResponders`]), or the network ([`Error::Io`],
//! [`Error::Tls`], [`Error::Timeout`]). Every variant is
//! `Clone + PartialEq` so a sticky terminal error can be handed to many waiters
//! and compared in tests.

use std::fmt;

use crate::core::jetstream::pull::PullStatus;

/// Everything that can go wrong in natsjet.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A subject, queue group or inbox prefix that could inject protocol text
    /// or that the server would refuse. Nothing was written.
    InvalidSubject {
        /// The subject as given.
        subject: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// An argument or option the API cannot accept. Nothing was written.
    InvalidArgument(String),
    /// A call the object's state or kind does not allow (reading a push
    /// consumer by pulling, a second reader of an ordered consumer, a call
    /// that would have to wait where it cannot). Nothing was written.
    ApiMisuse(&'static str),
    /// The message is larger than the server's `max_payload`. Nothing was written.
    PayloadTooLarge {
        /// The message's size in bytes (headers and payload).
        size: usize,
        /// The server's limit.
        max_payload: usize,
    },
    /// The server sent bytes or answers that break the protocol; the cause says which.
    Protocol(ProtocolError),
    /// The server reported an error with `-ERR`.
    Server(ServerError),
    /// The JetStream API answered a request with an error.
    JetStream(crate::core::jetstream::api::JetStreamError),
    /// A status that ended a pull consumer or fetch (e.g. 409 Consumer Deleted,
    /// 400 Bad Request, 412 Required Api Level): its [`kind`](PullStatus::kind)
    /// to match on, with the server's code and text.
    ConsumerStatus(PullStatus),
    /// The message already had a final ack (ack, nak, term); a message is
    /// acknowledged once, never re-sent.
    AlreadyAcknowledged,
    /// A request was published to a subject nobody listens on (status 503).
    NoResponders,
    /// An operation did not complete in time.
    Timeout,
    /// The client was closed (by the user, by drain, or after reconnects ran out).
    Closed,
    /// The connection is down and the buffer for publishes made while
    /// reconnecting is full: the message was not accepted.
    ReconnectBufferFull {
        /// The buffer's bound in bytes.
        capacity: usize,
    },
    /// More bytes than the outgoing buffer's bound wait to be written (a
    /// caller publishing faster than the connection sends, without waiting):
    /// the message was not accepted; what was accepted before still goes out.
    OutgoingBufferFull {
        /// The bound in bytes.
        capacity: usize,
    },
    /// The connection was lost while the operation was in flight.
    Disconnected,
    /// A socket or transport error.
    Io {
        /// The I/O error's kind.
        kind: std::io::ErrorKind,
        /// The I/O error's text.
        message: String,
    },
    /// TLS set-up or handshake failed.
    Tls(String),
    /// Credentials could not be loaded or used (bad seed, unreadable creds file).
    Credentials(String),
    /// An object store object's bytes do not hash to the digest its meta
    /// holds: what was read is not the object.
    DigestMismatch {
        /// The object's name.
        name: String,
        /// The digest its meta holds.
        expected: String,
        /// The digest of the bytes read.
        computed: String,
    },
    /// An object store object's chunks add up to another size than its meta holds.
    SizeMismatch {
        /// The object's name.
        name: String,
        /// The size its meta holds.
        expected: u64,
        /// The bytes its chunks held.
        received: u64,
    },
    /// Messages of a checkpoint's epoch (by stream sequence) may have been
    /// redelivered to another worker: their ack deadline passed before a
    /// `+WPI` reached the server. Committing the epoch could apply them
    /// twice; abort it instead.
    AtRisk {
        /// The stream sequences of the messages at risk.
        sequences: Vec<u64>,
    },
    /// An error of the program's own code (a payload that is not UTF-8, bad
    /// JSON, its own message), put here by `?` as async-nats's boxed
    /// `Error` takes it. natsjet itself never returns it.
    Other(String),
}

/// Why the server's bytes or answers break the protocol. Each cause keeps a
/// short text for people, quoting at most a preview of the offending input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A control line, message frame or size that is not NATS protocol.
    Frame(String),
    /// A message's header block that cannot be read.
    Headers(String),
    /// The server's INFO is not the JSON it should be.
    Info(String),
    /// The server opened with something other than INFO.
    ExpectedInfo,
    /// The WebSocket handshake failed.
    WebSocket(String),
    /// A JetStream API reply that is not the JSON the call expects, or none where one is due.
    ApiResponse(String),
    /// A JetStream message whose reply is missing or is not an ack subject.
    AckSubject(String),
    /// A direct-get reply without a header it must carry.
    DirectGet(String),
    /// A fast-ingest batch that the server broke off or answered out of turn.
    FastBatch(String),
    /// What a Key-Value or Object Store bucket holds breaks the store's rules
    /// (a watched message outside its keys, an unreadable object meta).
    Store(String),
    /// A value that cannot cross to JavaScript (wasm).
    JsValue(String),
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::ExpectedInfo => f.write_str("expected INFO first"),
            ProtocolError::Frame(text)
            | ProtocolError::Headers(text)
            | ProtocolError::Info(text)
            | ProtocolError::WebSocket(text)
            | ProtocolError::ApiResponse(text)
            | ProtocolError::AckSubject(text)
            | ProtocolError::DirectGet(text)
            | ProtocolError::FastBatch(text)
            | ProtocolError::Store(text)
            | ProtocolError::JsValue(text) => f.write_str(text),
        }
    }
}

impl From<ProtocolError> for Error {
    fn from(e: ProtocolError) -> Self {
        Error::Protocol(e)
    }
}

/// An error the server sent with `-ERR`, sorted by kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerError {
    /// What kind of error it is.
    pub kind: ServerErrorKind,
    /// The server's text, without quotes.
    pub message: String,
}

/// The kinds of `-ERR` a client must react to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerErrorKind {
    /// Wrong or missing credentials. Terminal for that server.
    AuthorizationViolation,
    /// The user's credentials expired.
    AuthenticationExpired,
    /// The account was revoked or the user's JWT is no longer valid.
    AuthenticationRevoked,
    /// A publish or subscribe the user is not allowed; the connection stays up.
    /// `queue` is the queue group of a refused queue subscription.
    PermissionsViolation {
        /// Whether a publish or a subscription was refused.
        operation: PermissionOp,
        /// The subject refused.
        subject: String,
        /// The queue group of a refused queue subscription.
        queue: Option<String>,
    },
    /// A message over the server's `max_payload`.
    MaximumPayload,
    /// The server found the connection stale (missed PONGs).
    StaleConnection,
    /// Too many connections, or the server refused this one for another reason.
    MaximumConnections,
    /// Any other `-ERR`.
    Other,
}

/// Which operation a permissions violation refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionOp {
    /// A publish was refused.
    Publish,
    /// A subscription was refused.
    Subscribe,
}

impl ServerError {
    /// Sorts the text of a `-ERR` line (quotes already removed).
    pub fn from_message(message: &str) -> Self {
        let lower = message.to_ascii_lowercase();
        const PUBLISH: &str = "permissions violation for publish to";
        const SUBSCRIBE: &str = "permissions violation for subscription to";
        let kind = if lower.starts_with(PUBLISH) {
            violation(PermissionOp::Publish, &message[PUBLISH.len()..])
        } else if lower.starts_with(SUBSCRIBE) {
            violation(PermissionOp::Subscribe, &message[SUBSCRIBE.len()..])
        } else if lower.contains("authorization violation") {
            ServerErrorKind::AuthorizationViolation
        } else if lower.contains("authentication expired") || lower.contains("user authentication expired") {
            ServerErrorKind::AuthenticationExpired
        } else if lower.contains("authentication revoked") || lower.contains("account authentication expired") {
            ServerErrorKind::AuthenticationRevoked
        } else if lower.contains("maximum payload") {
            ServerErrorKind::MaximumPayload
        } else if lower.contains("stale connection") {
            ServerErrorKind::StaleConnection
        } else if lower.contains("maximum connections") || lower.contains("maximum account active connections") {
            ServerErrorKind::MaximumConnections
        } else {
            ServerErrorKind::Other
        };
        ServerError { kind, message: message.to_string() }
    }

    /// Whether the server closes the connection after sending this error.
    /// Only permission violations leave it open.
    pub fn is_fatal_for_connection(&self) -> bool {
        !matches!(self.kind, ServerErrorKind::PermissionsViolation { .. })
    }
}

/// The subject (and queue group) of `"subject"` or `"subject" using queue "queue"`.
fn violation(operation: PermissionOp, rest: &str) -> ServerErrorKind {
    let unquote = |s: &str| s.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
    let (subject, queue) = match rest.split_once(" using queue ") {
        Some((subject, queue)) => (unquote(subject), Some(unquote(queue))),
        None => (unquote(rest), None),
    };
    ServerErrorKind::PermissionsViolation { operation, subject, queue }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidSubject { subject, reason } => {
                write!(f, "invalid subject {subject:?}: {reason}")
            }
            Error::InvalidArgument(what) => write!(f, "invalid argument: {what}"),
            Error::ApiMisuse(what) => write!(f, "invalid operation: {what}"),
            Error::PayloadTooLarge { size, max_payload } => {
                write!(f, "message of {size} bytes exceeds the server's max_payload of {max_payload}")
            }
            Error::Protocol(what) => write!(f, "protocol error: {what}"),
            Error::Server(e) => write!(f, "server error: {}", e.message),
            Error::JetStream(e) => write!(f, "JetStream API error: {e}"),
            Error::ConsumerStatus(status) => write!(f, "consumer status {}: {}", status.code.0, status.description),
            Error::AlreadyAcknowledged => f.write_str("message already acknowledged"),
            Error::NoResponders => f.write_str("no responders"),
            Error::Timeout => f.write_str("timed out"),
            Error::Closed => f.write_str("connection closed"),
            Error::ReconnectBufferFull { capacity } => {
                write!(f, "reconnect buffer full ({capacity} bytes): message not accepted")
            }
            Error::OutgoingBufferFull { capacity } => {
                write!(f, "outgoing buffer full ({capacity} bytes wait to be written): message not accepted")
            }
            Error::Disconnected => f.write_str("disconnected while the operation was in flight"),
            Error::Io { kind, message } => write!(f, "i/o error ({kind}): {message}"),
            Error::Tls(what) => write!(f, "tls error: {what}"),
            Error::Credentials(what) => write!(f, "credentials error: {what}"),
            Error::DigestMismatch { name, expected, computed } => {
                write!(f, "object {name:?} is corrupt: its digest is {expected}, its bytes hash to {computed}")
            }
            Error::SizeMismatch { name, expected, received } => {
                write!(f, "object {name:?} is corrupt: {received} bytes arrived of {expected}")
            }
            Error::AtRisk { sequences } => write!(
                f,
                "{} message(s) of this epoch may have been redelivered to another worker (first at stream \
                 sequence {}): abort the epoch rather than commit it",
                sequences.len(),
                sequences.first().copied().unwrap_or(0)
            ),
            Error::Other(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io { kind: e.kind(), message: e.to_string() }
    }
}

/// `?` on a refused [`HeaderValue`](crate::header::HeaderValue) in a program
/// whose errors are natsjet's (async-nats's `Error` takes any error).
impl From<crate::core::header::ParseHeaderValueError> for Error {
    fn from(e: crate::core::header::ParseHeaderValueError) -> Self {
        Error::InvalidArgument(e.to_string())
    }
}

/// Result with natsjet's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of one operation, sorted by a kind of its own, as async-nats's
/// `error::Error<Kind>`: `kind()` answers what async-nats programs match on
/// (`CreateErrorKind::AlreadyExists`), [`cause`](Self::cause) keeps natsjet's
/// [`Error`] with the server's code and text, and `?` turns it into one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindError<K> {
    kind: K,
    cause: Error,
}

impl<K: Clone> KindError<K> {
    /// An error of `kind` caused by `cause`.
    pub fn new(kind: K, cause: Error) -> Self {
        KindError { kind, cause }
    }

    /// The kind of failure, as async-nats names it, to match on.
    pub fn kind(&self) -> K {
        self.kind.clone()
    }

    /// What went wrong, as natsjet's one error type.
    pub fn cause(&self) -> &Error {
        &self.cause
    }

    /// What went wrong, as natsjet's one error type, taken out.
    pub fn into_cause(self) -> Error {
        self.cause
    }
}

impl<K: fmt::Display> fmt::Display for KindError<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.cause)
    }
}

impl<K: fmt::Debug + fmt::Display> std::error::Error for KindError<K> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

/// Declares an error-kind enum (async-nats's names) and its `Display`
/// from a table of texts. Variants may carry values, as async-nats's
/// `JetStream(jetstream::Error)`; kinds without any add `#[derive(Copy, Hash)]`.
macro_rules! error_kinds {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident $(($($field:ty),+))? => $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* #[doc = ""] #[doc = concat!("Its text: \"", $text, "\".")] $variant $(($($field),+))?,)*
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(match self {
                    $(Self::$variant { .. } => $text,)*
                })
            }
        }
    };
}
pub(crate) use error_kinds;

/// Sorts a cause into an operation's kind: what the error is, then what the
/// call was doing.
pub(crate) trait SortCause: Sized + Clone {
    fn sort(cause: &Error) -> Self;

    fn error(cause: Error) -> KindError<Self> {
        KindError::new(Self::sort(&cause), cause)
    }
}

/// Implements [`SortCause`] for each kind enum from its `match` arms over the
/// cause, named by the caller (`sort_causes! { cause; Kind { arms } ... }`),
/// so each operation's table reads as its rules and nothing else.
macro_rules! sort_causes {
    ($cause:ident; $($kind:ident { $($arm:tt)* })*) => {
        $(impl $crate::core::error::SortCause for $kind {
            fn sort($cause: &$crate::core::error::Error) -> Self {
                match $cause { $($arm)* }
            }
        })*
    };
}
pub(crate) use sort_causes;

/// The caller's mistake: nothing was sent.
pub(crate) fn is_bad_input(cause: &Error) -> bool {
    matches!(cause, Error::InvalidArgument(_) | Error::InvalidSubject { .. } | Error::ApiMisuse(_))
}

impl<K> From<KindError<K>> for Error {
    fn from(e: KindError<K>) -> Self {
        e.cause
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn sorts_server_errors() {
        let e = ServerError::from_message("Permissions Violation for Publish to \"secret.x\"");
        assert_eq!(
            e.kind,
            ServerErrorKind::PermissionsViolation {
                operation: PermissionOp::Publish,
                subject: "secret.x".into(),
                queue: None
            }
        );
        let e =
            ServerError::from_message("Permissions Violation for Subscription to \"jobs.>\" using queue \"workers\"");
        assert_eq!(
            e.kind,
            ServerErrorKind::PermissionsViolation {
                operation: PermissionOp::Subscribe,
                subject: "jobs.>".into(),
                queue: Some("workers".into())
            }
        );
        assert!(!e.is_fatal_for_connection());
        let e = ServerError::from_message("Permissions Violation for Subscription to foo.>");
        assert!(
            matches!(e.kind, ServerErrorKind::PermissionsViolation { operation: PermissionOp::Subscribe, ref subject, queue: None } if subject == "foo.>")
        );
        assert_eq!(ServerError::from_message("Authorization Violation").kind, ServerErrorKind::AuthorizationViolation);
        assert_eq!(ServerError::from_message("Stale Connection").kind, ServerErrorKind::StaleConnection);
        assert_eq!(ServerError::from_message("Maximum Payload Violation").kind, ServerErrorKind::MaximumPayload);
        assert_eq!(
            ServerError::from_message("User Authentication Expired").kind,
            ServerErrorKind::AuthenticationExpired
        );
        assert_eq!(ServerError::from_message("something new").kind, ServerErrorKind::Other);
        assert!(ServerError::from_message("Authorization Violation").is_fatal_for_connection());
    }
}
