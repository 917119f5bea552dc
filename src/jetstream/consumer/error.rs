//! The error kinds of reading a consumer, named as async-nats 0.52 names
//! them: starting a reader ([`StreamErrorKind`], [`BatchErrorKind`]) and
//! what ends one ([`MessagesErrorKind`], [`OrderedErrorKind`]), and a
//! reset ([`ConsumerResetErrorKind`], also named in `stream` as async-nats
//! names it). async-nats
//! has a pull and a push enum of each of the last two; natsjet's readers
//! are one type for both, so each is one enum with the variants of both.

use crate::core::error::{Error, KindError, SortCause, error_kinds, is_bad_input, sort_causes};
use crate::jetstream::api::{ErrorCode, JetStreamError};
use crate::jetstream::pull::StatusKind;

error_kinds!(
    /// `reset_consumer` and `Consumer::reset` (server 2.14+).
    ConsumerResetErrorKind {
        TimedOut => "timed out",
        Request => "request failed",
        NotFound => "stream or consumer not found",
        InvalidReset => "invalid reset",
        JetStream(JetStreamError) => "JetStream error",
    }
);

error_kinds!(
    /// Starting a continuous reader (`messages()`, `stream().messages()`).
    #[derive(Copy, Hash)]
    StreamErrorKind {
        TimedOut => "timed out",
        Other => "failed",
    }
);

error_kinds!(
    /// Starting a batch (`fetch()` or `batch()` then `messages()`).
    #[derive(Copy, Hash)]
    BatchErrorKind {
        Subscribe => "subscribe failed",
        /// The pull request could not be sent, or its options are refused.
        Pull => "pull request failed",
        Flush => "flush failed",
        Serialize => "serialize failed",
        PinnedClient => "pinned client consumers need a pull stream",
    }
);

error_kinds!(
    /// What ends a pull or push reader.
    #[derive(Copy, Hash)]
    MessagesErrorKind {
        MissingHeartbeat => "missed idle heartbeat",
        /// The consumer (or its stream) is gone.
        ConsumerDeleted => "consumer deleted",
        Pull => "pull request failed",
        PushBasedConsumer => "cannot use with push consumer",
        PullBasedConsumer => "cannot use with pull consumer",
        NoResponders => "no responders",
        /// A pull asked for more than the consumer allows (409 Exceeded Max…).
        RequestLimitExceeded => "pull request exceeded consumer limits",
        Other => "error",
    }
);

error_kinds!(
    /// What ends an ordered reader.
    #[derive(Copy, Hash)]
    OrderedErrorKind {
        MissingHeartbeat => "missed idle heartbeat",
        ConsumerDeleted => "consumer deleted",
        Pull => "pull request failed",
        PushBasedConsumer => "cannot use with push consumer",
        PullBasedConsumer => "cannot use with pull consumer",
        /// Making the next consumer of the chain failed for good.
        Recreate => "consumer recreation failed",
        NoResponders => "no responders",
        RequestLimitExceeded => "pull request exceeded consumer limits",
        Other => "error",
    }
);

/// The error of an operation: [`ConsumerResetErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ConsumerResetError = KindError<ConsumerResetErrorKind>;
/// The error of an operation: [`StreamErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type StreamError = KindError<StreamErrorKind>;
/// The error of an operation: [`BatchErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type BatchError = KindError<BatchErrorKind>;
/// The error of an operation: [`MessagesErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type MessagesError = KindError<MessagesErrorKind>;
/// The error of an operation: [`OrderedErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type OrderedError = KindError<OrderedErrorKind>;

sort_causes! { cause;
    StreamErrorKind {
        Error::Timeout => StreamErrorKind::TimedOut,
        _ => StreamErrorKind::Other,
    }

    BatchErrorKind {
        Error::InvalidSubject { .. } => BatchErrorKind::Subscribe,
        _ => BatchErrorKind::Pull,
    }
}

/// How the end of a reader sorts, the same for plain and ordered readers.
pub(crate) enum MessagesSort {
    MissingHeartbeat,
    ConsumerDeleted,
    PushBasedConsumer,
    PullBasedConsumer,
    NoResponders,
    RequestLimitExceeded,
    Pull,
    Other,
}

impl MessagesSort {
    pub(crate) fn of(cause: &Error) -> Self {
        match cause {
            Error::ConsumerStatus(status) => match status.kind {
                StatusKind::ConsumerDeleted => MessagesSort::ConsumerDeleted,
                StatusKind::ExceededMaxWaiting
                | StatusKind::ExceededMaxRequestBatch
                | StatusKind::ExceededMaxRequestExpires
                | StatusKind::ExceededMaxRequestMaxBytes => MessagesSort::RequestLimitExceeded,
                StatusKind::PushBased => MessagesSort::PushBasedConsumer,
                _ => MessagesSort::Pull,
            },
            Error::JetStream(e)
                if matches!(e.err_code, ErrorCode::CONSUMER_NOT_FOUND | ErrorCode::STREAM_NOT_FOUND) =>
            {
                MessagesSort::ConsumerDeleted
            }
            Error::NoResponders => MessagesSort::NoResponders,
            Error::Timeout => MessagesSort::MissingHeartbeat,
            _ if is_bad_input(cause) => MessagesSort::PullBasedConsumer,
            _ => MessagesSort::Other,
        }
    }
}

impl SortCause for MessagesErrorKind {
    fn sort(cause: &Error) -> Self {
        match MessagesSort::of(cause) {
            MessagesSort::MissingHeartbeat => MessagesErrorKind::MissingHeartbeat,
            MessagesSort::ConsumerDeleted => MessagesErrorKind::ConsumerDeleted,
            MessagesSort::PushBasedConsumer => MessagesErrorKind::PushBasedConsumer,
            MessagesSort::PullBasedConsumer => MessagesErrorKind::PullBasedConsumer,
            MessagesSort::NoResponders => MessagesErrorKind::NoResponders,
            MessagesSort::RequestLimitExceeded => MessagesErrorKind::RequestLimitExceeded,
            MessagesSort::Pull => MessagesErrorKind::Pull,
            MessagesSort::Other => MessagesErrorKind::Other,
        }
    }
}

impl SortCause for OrderedErrorKind {
    fn sort(cause: &Error) -> Self {
        match MessagesSort::of(cause) {
            MessagesSort::MissingHeartbeat => OrderedErrorKind::MissingHeartbeat,
            MessagesSort::ConsumerDeleted => OrderedErrorKind::ConsumerDeleted,
            MessagesSort::PushBasedConsumer => OrderedErrorKind::PushBasedConsumer,
            MessagesSort::PullBasedConsumer => OrderedErrorKind::PullBasedConsumer,
            MessagesSort::NoResponders => OrderedErrorKind::NoResponders,
            MessagesSort::RequestLimitExceeded => OrderedErrorKind::RequestLimitExceeded,
            MessagesSort::Pull => OrderedErrorKind::Pull,
            MessagesSort::Other if matches!(cause, Error::JetStream(_)) => OrderedErrorKind::Recreate,
            MessagesSort::Other => OrderedErrorKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::header::StatusCode;
    use crate::jetstream::api::JetStreamError;
    use crate::jetstream::pull::PullStatus;

    fn status(code: u16, description: &str) -> Error {
        Error::ConsumerStatus(PullStatus::new(StatusCode(code), description))
    }

    #[test]
    fn ends_sort_as_async_nats_sorts_them() {
        assert_eq!(MessagesErrorKind::sort(&status(409, "Consumer Deleted")), MessagesErrorKind::ConsumerDeleted);
        assert_eq!(
            MessagesErrorKind::sort(&status(409, "Exceeded MaxRequestBatch of 1")),
            MessagesErrorKind::RequestLimitExceeded
        );
        assert_eq!(MessagesErrorKind::sort(&status(400, "Bad Request")), MessagesErrorKind::Pull);
        let gone = Error::JetStream(JetStreamError {
            code: 404,
            err_code: ErrorCode::CONSUMER_NOT_FOUND,
            ..Default::default()
        });
        assert_eq!(MessagesErrorKind::sort(&gone), MessagesErrorKind::ConsumerDeleted);
        assert_eq!(OrderedErrorKind::sort(&gone), OrderedErrorKind::ConsumerDeleted);
        let refused =
            Error::JetStream(JetStreamError { code: 400, err_code: ErrorCode::BAD_REQUEST, ..Default::default() });
        assert_eq!(OrderedErrorKind::sort(&refused), OrderedErrorKind::Recreate);
        assert_eq!(StreamErrorKind::sort(&Error::Timeout), StreamErrorKind::TimedOut);
    }
}
