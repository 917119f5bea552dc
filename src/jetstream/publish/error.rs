//! The error of a JetStream publish and its ack, named as async-nats 0.52
//! names it (`jetstream::context::PublishError`, re-exported there).

use crate::core::error::{Error, KindError, error_kinds, sort_causes};
use crate::jetstream::api::ErrorCode;

error_kinds!(
    /// `Context::publish`, `send_publish` and their ack futures.
    #[derive(Copy, Hash)]
    PublishErrorKind {
        /// No stream captures the subject (nobody answered, after the retries).
        StreamNotFound => "no stream found for given subject",
        WrongLastMessageId => "wrong last message id",
        WrongLastSequence => "wrong last sequence",
        TimedOut => "timed out: didn't receive ack in time",
        /// The connection closed before the ack came.
        BrokenPipe => "broken pipe",
        MaxAckPending => "max ack pending reached",
        MaxPayloadExceeded => "max payload size exceeded",
        Other => "publish failed",
    }
);

/// The error of an operation: [`PublishErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type PublishError = KindError<PublishErrorKind>;

sort_causes! { cause;
    PublishErrorKind {
        Error::NoResponders => PublishErrorKind::StreamNotFound,
        Error::JetStream(e) if e.err_code == ErrorCode::STREAM_WRONG_LAST_MESSAGE_ID => {
            PublishErrorKind::WrongLastMessageId
    }
    Error::JetStream(e) if e.is_wrong_last_sequence() => PublishErrorKind::WrongLastSequence,
    Error::Timeout => PublishErrorKind::TimedOut,
    Error::Closed | Error::Disconnected => PublishErrorKind::BrokenPipe,
    Error::PayloadTooLarge { .. } => PublishErrorKind::MaxPayloadExceeded,
    _ => PublishErrorKind::Other,
    }
}
