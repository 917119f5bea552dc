//! The error kinds of core NATS calls, named as async-nats 0.52 names them
//! (`e.kind() == RequestErrorKind::NoResponders`). Each error is a
//! [`KindError`]: the kind, and natsjet's [`Error`] as the cause.

use crate::core::error::{Error, KindError, ServerErrorKind, error_kinds, is_bad_input, sort_causes};

error_kinds!(
    /// [`connect`](crate::connect) and [`ConnectOptions::connect`](crate::ConnectOptions::connect).
    #[derive(Copy, Hash)]
    ConnectErrorKind {
        /// A server URL that does not parse.
        ServerParse => "failed to parse server or server list",
        Dns => "DNS error",
        /// Credentials that cannot be used (a bad seed or creds file) or that expired.
        Authentication => "failed signing nonce",
        AuthorizationViolation => "authorization violation",
        TimedOut => "timed out",
        Tls => "TLS error",
        Io => "IO error",
        /// The connection closed before the first handshake succeeded.
        MaxReconnects => "reached maximum number of reconnects",
    }
);

error_kinds!(
    /// `Client::publish` and its `_with_*` forms.
    #[derive(Copy, Hash)]
    PublishErrorKind {
        MaxPayloadExceeded => "max payload size exceeded",
        InvalidSubject => "invalid subject",
        /// The client is closed, or its buffer for publishes while
        /// disconnected or its outgoing buffer is full.
        Send => "failed to send message",
    }
);

error_kinds!(
    /// `Client::request` and its forms.
    #[derive(Copy, Hash)]
    RequestErrorKind {
        TimedOut => "request timed out",
        /// Nobody listens on the subject (status 503).
        NoResponders => "no responders",
        InvalidSubject => "invalid subject",
        MaxPayloadExceeded => "max payload size exceeded",
        Other => "request failed",
    }
);

error_kinds!(
    /// `Client::subscribe` and `queue_subscribe`.
    #[derive(Copy, Hash)]
    SubscribeErrorKind {
        InvalidSubject => "invalid subject",
        InvalidQueueName => "invalid queue name",
        Other => "subscribe failed",
    }
);

error_kinds!(
    /// `Client::flush`.
    #[derive(Copy, Hash)]
    FlushErrorKind {
        /// The client was closed before the flush could go out.
        SendError => "failed to send flush request",
        /// The connection was lost before the server answered.
        FlushError => "flush failed",
    }
);

error_kinds!(
    /// `Client::set_server_pool`.
    #[derive(Copy, Hash)]
    SetServerPoolErrorKind {
        /// A server URL that does not parse.
        InvalidAddress => "invalid server address",
        EmptyPool => "server pool cannot be empty",
        /// WebSocket servers mixed with others.
        MixedSchemes => "server pool mixes websocket and non-websocket schemes",
        /// The client is closed.
        Send => "failed to send command",
    }
);

error_kinds!(
    /// `Client::server_pool`.
    #[derive(Copy, Hash)]
    ServerPoolErrorKind {
        /// The client is closed.
        Send => "failed to send command",
    }
);

/// The error of an operation: [`ConnectErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ConnectError = KindError<ConnectErrorKind>;
/// The error of an operation: [`SetServerPoolErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type SetServerPoolError = KindError<SetServerPoolErrorKind>;
/// The error of an operation: [`ServerPoolErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ServerPoolError = KindError<ServerPoolErrorKind>;
/// The error of an operation: [`PublishErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type PublishError = KindError<PublishErrorKind>;
/// The error of an operation: [`RequestErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type RequestError = KindError<RequestErrorKind>;
/// The error of an operation: [`SubscribeErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type SubscribeError = KindError<SubscribeErrorKind>;
/// The error of an operation: [`FlushErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type FlushError = KindError<FlushErrorKind>;

sort_causes! { cause;
    ConnectErrorKind {
        _ if is_bad_input(cause) => ConnectErrorKind::ServerParse,
        Error::Server(e) if e.kind == ServerErrorKind::AuthorizationViolation => {
            ConnectErrorKind::AuthorizationViolation
    }
    Error::Server(e)
        if matches!(
            e.kind,
            ServerErrorKind::AuthenticationExpired | ServerErrorKind::AuthenticationRevoked
        ) =>
    {
        ConnectErrorKind::Authentication
    }
    Error::Credentials(_) => ConnectErrorKind::Authentication,
    Error::Timeout => ConnectErrorKind::TimedOut,
    Error::Tls(_) => ConnectErrorKind::Tls,
    Error::Closed => ConnectErrorKind::MaxReconnects,
    _ => ConnectErrorKind::Io,
    }

    PublishErrorKind {
        Error::PayloadTooLarge { .. } => PublishErrorKind::MaxPayloadExceeded,
        _ if is_bad_input(cause) => PublishErrorKind::InvalidSubject,
        _ => PublishErrorKind::Send,
    }

    RequestErrorKind {
        Error::Timeout => RequestErrorKind::TimedOut,
        Error::NoResponders => RequestErrorKind::NoResponders,
        Error::PayloadTooLarge { .. } => RequestErrorKind::MaxPayloadExceeded,
        _ if is_bad_input(cause) => RequestErrorKind::InvalidSubject,
        _ => RequestErrorKind::Other,
    }

    SubscribeErrorKind {
        _ if is_bad_input(cause) => SubscribeErrorKind::InvalidSubject,
        _ => SubscribeErrorKind::Other,
    }

    FlushErrorKind {
        Error::Closed => FlushErrorKind::SendError,
        _ => FlushErrorKind::FlushError,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::{ServerError, SortCause};

    #[test]
    fn causes_sort_as_async_nats_sorts_them() {
        assert_eq!(RequestErrorKind::sort(&Error::NoResponders), RequestErrorKind::NoResponders);
        assert_eq!(RequestErrorKind::sort(&Error::Timeout), RequestErrorKind::TimedOut);
        assert_eq!(RequestErrorKind::sort(&Error::Closed), RequestErrorKind::Other);
        let too_big = Error::PayloadTooLarge { size: 2, max_payload: 1 };
        assert_eq!(PublishErrorKind::sort(&too_big), PublishErrorKind::MaxPayloadExceeded);
        assert_eq!(PublishErrorKind::sort(&Error::InvalidArgument("x".into())), PublishErrorKind::InvalidSubject);
        assert_eq!(PublishErrorKind::sort(&Error::ReconnectBufferFull { capacity: 1 }), PublishErrorKind::Send);
        assert_eq!(PublishErrorKind::sort(&Error::OutgoingBufferFull { capacity: 1 }), PublishErrorKind::Send);
        let refused = Error::Server(ServerError::from_message("Authorization Violation"));
        assert_eq!(ConnectErrorKind::sort(&refused), ConnectErrorKind::AuthorizationViolation);
        assert_eq!(ConnectErrorKind::sort(&Error::Credentials("bad seed".into())), ConnectErrorKind::Authentication);
        assert_eq!(ConnectErrorKind::sort(&Error::InvalidArgument("url".into())), ConnectErrorKind::ServerParse);
        assert_eq!(FlushErrorKind::sort(&Error::Disconnected), FlushErrorKind::FlushError);
    }
}

/// `?` on an I/O error (reading a JWT, a key) where a program returns a
/// [`ConnectError`], as async-nats allows.
impl From<std::io::Error> for ConnectError {
    fn from(e: std::io::Error) -> Self {
        crate::core::error::SortCause::error(Error::from(e))
    }
}

/// A program's `tokio::time::timeout(..)?` and `handle.await?` in code that
/// returns natsjet's [`Error`], as async-nats's boxed `Error` takes them.
#[cfg(feature = "native")]
mod tokio_errors {
    use crate::core::error::Error;

    impl From<tokio::time::error::Elapsed> for Error {
        fn from(_: tokio::time::error::Elapsed) -> Self {
            Error::Timeout
        }
    }

    impl From<tokio::task::JoinError> for Error {
        fn from(e: tokio::task::JoinError) -> Self {
            Error::Other(e.to_string())
        }
    }
}
