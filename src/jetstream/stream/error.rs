//! The error kinds of a stream's calls, named as async-nats 0.52 names
//! them in `jetstream::stream`: consumer management, reading and removing
//! messages, purging. Each error is a [`KindError`]: the kind, and
//! natsjet's [`Error`] as the cause.

use crate::core::error::{Error, KindError, SortCause, error_kinds, is_bad_input, sort_causes};
use crate::core::header::StatusCode;
use crate::jetstream::api::{ErrorCode, JetStreamError};
// Raised by the consumer, and named here too as async-nats does.
pub use crate::jetstream::consumer::{ConsumerResetError, ConsumerResetErrorKind};
pub use crate::jetstream::context::{RequestError as InfoError, StreamsError as ConsumersError};

error_kinds!(
    /// Creating, getting, deleting, pausing, resuming and unpinning a consumer.
    ConsumerErrorKind {
        TimedOut => "timed out",
        Request => "request failed",
        /// The consumer is of another kind than asked for (a push consumer read as a pull one).
        InvalidConsumerType => "invalid consumer type",
        InvalidName => "invalid consumer name",
        JetStream(JetStreamError) => "JetStream error",
        Other => "consumer error",
    }
);

error_kinds!(
    /// `update_consumer` (server 2.10+: the consumer must exist).
    ConsumerUpdateErrorKind {
        TimedOut => "timed out",
        Request => "request failed",
        InvalidConsumerType => "invalid consumer type",
        InvalidName => "invalid consumer name",
        DoesNotExist => "consumer does not exist",
        JetStream(JetStreamError) => "JetStream error",
        Other => "consumer error",
    }
);

error_kinds!(
    /// `create_consumer_strict` (server 2.10+: the consumer must not exist with another config).
    ConsumerCreateStrictErrorKind {
        TimedOut => "timed out",
        Request => "request failed",
        InvalidConsumerType => "invalid consumer type",
        InvalidName => "invalid consumer name",
        AlreadyExists => "consumer already exists",
        JetStream(JetStreamError) => "JetStream error",
        Other => "consumer error",
    }
);

error_kinds!(
    /// The direct gets (`allow_direct`).
    DirectGetErrorKind {
        NotFound => "message not found",
        InvalidSubject => "invalid subject",
        TimedOut => "timed out",
        Request => "request failed",
        /// The server answered with another status than 404.
        ErrorResponse(StatusCode, String) => "error response",
        Other => "error getting message",
    }
);

error_kinds!(
    /// `delete_message` and `erase_message`.
    DeleteMessageErrorKind {
        Request => "request failed",
        TimedOut => "timed out",
        JetStream(JetStreamError) => "JetStream error",
    }
);

error_kinds!(
    /// `purge`.
    PurgeErrorKind {
        Request => "request failed",
        TimedOut => "timed out",
        JetStream(JetStreamError) => "JetStream error",
    }
);

error_kinds!(
    /// The message gets from the stream leader (`get_raw_message`…).
    LastRawMessageErrorKind {
        NoMessageFound => "no message found",
        InvalidSubject => "invalid subject",
        JetStream(JetStreamError) => "JetStream error",
        Other => "failed to get last raw message",
    }
);

/// The error of an operation: [`ConsumerErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ConsumerError = KindError<ConsumerErrorKind>;
/// The error of an operation: [`ConsumerUpdateErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ConsumerUpdateError = KindError<ConsumerUpdateErrorKind>;
/// The error of an operation: [`ConsumerCreateStrictErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ConsumerCreateStrictError = KindError<ConsumerCreateStrictErrorKind>;
/// The error of an operation: [`DirectGetErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type DirectGetError = KindError<DirectGetErrorKind>;
/// The error of an operation: [`DeleteMessageErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type DeleteMessageError = KindError<DeleteMessageErrorKind>;
/// The error of an operation: [`PurgeErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type PurgeError = KindError<PurgeErrorKind>;
/// The error of an operation: [`LastRawMessageErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type LastRawMessageError = KindError<LastRawMessageErrorKind>;
/// async-nats's name for [`LastRawMessageError`].
pub type RawMessageError = LastRawMessageError;
/// async-nats's name for [`LastRawMessageErrorKind`].
pub type RawMessageErrorKind = LastRawMessageErrorKind;

/// The three consumer kinds share their sorting; each adds its own codes.
macro_rules! consumer_sort {
    ($kind:ident $(, $code:path => $variant:ident)*) => {
        impl SortCause for $kind {
            fn sort(cause: &Error) -> Self {
                match cause {
                    $(Error::JetStream(e) if e.err_code == $code => $kind::$variant,)*
                    Error::JetStream(e) => $kind::JetStream(e.clone()),
                    _ if is_bad_input(cause) => $kind::InvalidName,
                    Error::Timeout => $kind::TimedOut,
                    Error::Protocol(_) => $kind::Other,
                    _ => $kind::Request,
                }
            }
        }
    };
}

consumer_sort!(ConsumerErrorKind);
consumer_sort!(ConsumerUpdateErrorKind, ErrorCode::CONSUMER_DOES_NOT_EXIST => DoesNotExist);
consumer_sort!(ConsumerCreateStrictErrorKind, ErrorCode::CONSUMER_ALREADY_EXISTS => AlreadyExists);

sort_causes! { cause;
    ConsumerResetErrorKind {
        Error::JetStream(e)
            if matches!(e.err_code, ErrorCode::CONSUMER_NOT_FOUND | ErrorCode::STREAM_NOT_FOUND) =>
        {
            ConsumerResetErrorKind::NotFound
    }
    Error::JetStream(e) if e.err_code == ErrorCode::CONSUMER_INVALID_RESET => {
        ConsumerResetErrorKind::InvalidReset
    }
    Error::JetStream(e) => ConsumerResetErrorKind::JetStream(e.clone()),
    Error::Timeout => ConsumerResetErrorKind::TimedOut,
    _ => ConsumerResetErrorKind::Request,
    }

    DirectGetErrorKind {
        Error::JetStream(e) if e.err_code == ErrorCode::NO_MESSAGE_FOUND => DirectGetErrorKind::NotFound,
        Error::JetStream(e) => DirectGetErrorKind::ErrorResponse(StatusCode(e.code), e.description.clone()),
        _ if is_bad_input(cause) => DirectGetErrorKind::InvalidSubject,
        Error::Timeout => DirectGetErrorKind::TimedOut,
        Error::Protocol(_) => DirectGetErrorKind::Other,
        _ => DirectGetErrorKind::Request,
    }

    DeleteMessageErrorKind {
        Error::JetStream(e) => DeleteMessageErrorKind::JetStream(e.clone()),
        Error::Timeout => DeleteMessageErrorKind::TimedOut,
        _ => DeleteMessageErrorKind::Request,
    }

    PurgeErrorKind {
        Error::JetStream(e) => PurgeErrorKind::JetStream(e.clone()),
        Error::Timeout => PurgeErrorKind::TimedOut,
        _ => PurgeErrorKind::Request,
    }

    LastRawMessageErrorKind {
        Error::JetStream(e) if e.err_code == ErrorCode::NO_MESSAGE_FOUND => LastRawMessageErrorKind::NoMessageFound,
        Error::JetStream(e) => LastRawMessageErrorKind::JetStream(e.clone()),
        _ if is_bad_input(cause) => LastRawMessageErrorKind::InvalidSubject,
        _ => LastRawMessageErrorKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16, err_code: ErrorCode) -> Error {
        Error::JetStream(JetStreamError { code, err_code, description: "x".into() })
    }

    #[test]
    fn causes_sort_as_async_nats_sorts_them() {
        assert_eq!(
            ConsumerUpdateErrorKind::sort(&api(404, ErrorCode::CONSUMER_DOES_NOT_EXIST)),
            ConsumerUpdateErrorKind::DoesNotExist
        );
        assert_eq!(
            ConsumerCreateStrictErrorKind::sort(&api(400, ErrorCode::CONSUMER_ALREADY_EXISTS)),
            ConsumerCreateStrictErrorKind::AlreadyExists
        );
        assert!(matches!(
            ConsumerErrorKind::sort(&api(404, ErrorCode::CONSUMER_NOT_FOUND)),
            ConsumerErrorKind::JetStream(e) if e.err_code == ErrorCode::CONSUMER_NOT_FOUND
        ));
        assert_eq!(ConsumerErrorKind::sort(&Error::InvalidArgument("name".into())), ConsumerErrorKind::InvalidName);
        assert_eq!(DirectGetErrorKind::sort(&api(404, ErrorCode::NO_MESSAGE_FOUND)), DirectGetErrorKind::NotFound);
        assert_eq!(
            DirectGetErrorKind::sort(&api(408, ErrorCode::default())),
            DirectGetErrorKind::ErrorResponse(StatusCode(408), "x".into())
        );
        assert_eq!(
            LastRawMessageErrorKind::sort(&api(404, ErrorCode::NO_MESSAGE_FOUND)),
            LastRawMessageErrorKind::NoMessageFound
        );
        assert_eq!(
            ConsumerResetErrorKind::sort(&api(404, ErrorCode::STREAM_NOT_FOUND)),
            ConsumerResetErrorKind::NotFound
        );
        assert_eq!(PurgeErrorKind::sort(&Error::Timeout), PurgeErrorKind::TimedOut);
    }
}
