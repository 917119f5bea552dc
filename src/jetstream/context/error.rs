//! The error kinds of the JetStream context's calls, named as async-nats
//! 0.52 names them in `jetstream::context`: publishing, stream management,
//! consumer info and the account. Each error is a [`KindError`]: the kind,
//! and natsjet's [`Error`] as the cause.

use crate::core::error::{Error, KindError, error_kinds, is_bad_input, sort_causes};
use crate::jetstream::api::{ErrorCode, JetStreamError};
// Raised by publishing, and named here too as async-nats does.
pub use crate::jetstream::publish::{PublishError, PublishErrorKind};

error_kinds!(
    /// A JetStream API request: `Stream::info`, listings.
    #[derive(Copy, Hash)]
    RequestErrorKind {
        NoResponders => "requested JetStream resource does not exist",
        TimedOut => "timed out",
        InvalidSubject => "invalid subject",
        Other => "request failed",
    }
);

error_kinds!(
    /// `Consumer::info`, `get_info` and `Stream::consumer_info`.
    ConsumerInfoErrorKind {
        InvalidName => "invalid consumer name",
        Offline => "consumer is offline",
        NotFound => "consumer not found",
        StreamNotFound => "stream not found",
        Request => "request error",
        JetStream(JetStreamError) => "jetstream error",
        TimedOut => "timed out",
        NoResponders => "no responders",
    }
);

error_kinds!(
    /// `Context::create_stream`, `update_stream`, `get_or_create_stream`.
    CreateStreamErrorKind {
        EmptyStreamName => "stream name cannot be empty",
        InvalidStreamName => "stream name cannot contain `.`, `_`",
        DomainAndExternalSet => "domain and external are both set",
        /// Nobody answered: JetStream is not enabled for the account.
        JetStreamUnavailable => "jetstream unavailable",
        JetStream(JetStreamError) => "jetstream error",
        TimedOut => "jetstream request timed out",
        Response => "response error",
        NotFound => "stream not found",
        ResponseParse => "failed to parse server response",
    }
);

error_kinds!(
    /// `Context::get_stream` and `delete_stream`.
    GetStreamErrorKind {
        EmptyName => "empty name cannot be empty",
        Request => "request error",
        InvalidStreamName => "invalid stream name",
        JetStream(JetStreamError) => "jetstream error",
    }
);

error_kinds!(
    /// `Context::stream_by_subject`.
    GetStreamByNameErrorKind {
        Request => "request error",
        NotFound => "stream not found",
        InvalidSubject => "invalid subject",
        JetStream(JetStreamError) => "jetstream error",
    }
);

error_kinds!(
    /// `Context::query_account`.
    AccountErrorKind {
        TimedOut => "timed out",
        JetStream(JetStreamError) => "JetStream error",
        JetStreamUnavailable => "JetStream unavailable",
        Other => "error",
    }
);

/// The error of an operation: [`RequestErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type RequestError = KindError<RequestErrorKind>;
/// The error of an operation: [`ConsumerInfoErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ConsumerInfoError = KindError<ConsumerInfoErrorKind>;
/// The error of an operation: [`CreateStreamErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type CreateStreamError = KindError<CreateStreamErrorKind>;
/// The error of an operation: [`GetStreamErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type GetStreamError = KindError<GetStreamErrorKind>;
/// The error of an operation: [`GetStreamByNameErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type GetStreamByNameError = KindError<GetStreamByNameErrorKind>;
/// The error of an operation: [`AccountErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type AccountError = KindError<AccountErrorKind>;
/// async-nats's name for [`CreateStreamError`].
pub type UpdateStreamError = CreateStreamError;
/// async-nats's name for [`CreateStreamErrorKind`].
pub type UpdateStreamErrorKind = CreateStreamErrorKind;
/// async-nats's name for [`GetStreamError`].
pub type DeleteStreamError = GetStreamError;
/// async-nats's name for [`GetStreamErrorKind`].
pub type DeleteStreamErrorKind = GetStreamErrorKind;
/// The items of `stream_names()` and `streams()`.
pub type StreamsError = RequestError;
/// async-nats's name for [`RequestErrorKind`].
pub type StreamsErrorKind = RequestErrorKind;

sort_causes! { cause;
    RequestErrorKind {
        Error::NoResponders => RequestErrorKind::NoResponders,
        Error::Timeout => RequestErrorKind::TimedOut,
        _ if is_bad_input(cause) => RequestErrorKind::InvalidSubject,
        _ => RequestErrorKind::Other,
    }

    ConsumerInfoErrorKind {
        _ if is_bad_input(cause) => ConsumerInfoErrorKind::InvalidName,
        Error::JetStream(e) => match e.err_code {
            ErrorCode::CONSUMER_NOT_FOUND => ConsumerInfoErrorKind::NotFound,
            ErrorCode::STREAM_NOT_FOUND => ConsumerInfoErrorKind::StreamNotFound,
            ErrorCode::CONSUMER_OFFLINE => ConsumerInfoErrorKind::Offline,
            _ => ConsumerInfoErrorKind::JetStream(e.clone()),
        },
        Error::Timeout => ConsumerInfoErrorKind::TimedOut,
        Error::NoResponders => ConsumerInfoErrorKind::NoResponders,
        _ => ConsumerInfoErrorKind::Request,
    }

    CreateStreamErrorKind {
        _ if is_bad_input(cause) => CreateStreamErrorKind::InvalidStreamName,
        Error::JetStream(e) => CreateStreamErrorKind::JetStream(e.clone()),
        Error::Timeout => CreateStreamErrorKind::TimedOut,
        Error::NoResponders => CreateStreamErrorKind::JetStreamUnavailable,
        Error::Protocol(_) => CreateStreamErrorKind::ResponseParse,
        _ => CreateStreamErrorKind::Response,
    }

    GetStreamErrorKind {
        _ if is_bad_input(cause) => GetStreamErrorKind::InvalidStreamName,
        Error::JetStream(e) => GetStreamErrorKind::JetStream(e.clone()),
        _ => GetStreamErrorKind::Request,
    }

    GetStreamByNameErrorKind {
        _ if is_bad_input(cause) => GetStreamByNameErrorKind::InvalidSubject,
        Error::JetStream(e) if e.err_code == ErrorCode::STREAM_NOT_FOUND => GetStreamByNameErrorKind::NotFound,
        Error::JetStream(e) => GetStreamByNameErrorKind::JetStream(e.clone()),
        _ => GetStreamByNameErrorKind::Request,
    }

    AccountErrorKind {
        Error::Timeout => AccountErrorKind::TimedOut,
        Error::NoResponders => AccountErrorKind::JetStreamUnavailable,
        Error::JetStream(e) => AccountErrorKind::JetStream(e.clone()),
        _ => AccountErrorKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::SortCause;

    fn api(err_code: ErrorCode) -> Error {
        Error::JetStream(JetStreamError { code: 400, err_code, description: "x".into() })
    }

    #[test]
    fn causes_sort_as_async_nats_sorts_them() {
        assert_eq!(PublishErrorKind::sort(&Error::NoResponders), PublishErrorKind::StreamNotFound);
        assert_eq!(
            PublishErrorKind::sort(&api(ErrorCode::STREAM_WRONG_LAST_SEQUENCE_CONSTANT)),
            PublishErrorKind::WrongLastSequence
        );
        assert_eq!(
            PublishErrorKind::sort(&api(ErrorCode::STREAM_WRONG_LAST_MESSAGE_ID)),
            PublishErrorKind::WrongLastMessageId
        );
        let exists = JetStreamError { code: 400, err_code: ErrorCode::STREAM_NAME_EXIST, description: "x".into() };
        assert_eq!(
            CreateStreamErrorKind::sort(&Error::JetStream(exists.clone())),
            CreateStreamErrorKind::JetStream(exists)
        );
        assert_eq!(CreateStreamErrorKind::sort(&Error::NoResponders), CreateStreamErrorKind::JetStreamUnavailable);
        let bad_name = Error::InvalidArgument("stream name \"a.b\" contains '.', '*' or '>'".into());
        assert_eq!(GetStreamErrorKind::sort(&bad_name), GetStreamErrorKind::InvalidStreamName);
        assert_eq!(ConsumerInfoErrorKind::sort(&api(ErrorCode::CONSUMER_NOT_FOUND)), ConsumerInfoErrorKind::NotFound);
        assert_eq!(AccountErrorKind::sort(&Error::NoResponders), AccountErrorKind::JetStreamUnavailable);
        assert_eq!(RequestErrorKind::sort(&Error::Timeout), RequestErrorKind::TimedOut);
    }
}
