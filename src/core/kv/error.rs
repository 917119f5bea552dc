//! The error kinds of Key-Value operations, named as async-nats 0.52 names
//! them so programs that match on them switch by changing an import. Each
//! error is a [`KindError`]: the kind, and natsjet's [`Error`] as the cause
//! (the server's code and text, the bad key, the payload over the limit).

use crate::core::error::{Error, KindError, error_kinds, is_bad_input, sort_causes};
use crate::core::jetstream::api::ErrorCode;

error_kinds!(
    /// Opening, listing or deleting a bucket.
    #[derive(Copy, Hash)]
    KeyValueErrorKind {
        InvalidStoreName => "invalid Key Value Store name",
        GetBucket => "failed to get the bucket",
        JetStream => "JetStream error",
    }
);

error_kinds!(
    /// Creating a bucket.
    #[derive(Copy, Hash)]
    CreateKeyValueErrorKind {
        InvalidStoreName => "invalid Key Value Store name",
        TooLongHistory => "too long history",
        JetStream => "JetStream error",
        BucketCreate => "bucket creation failed",
        TimedOut => "timed out",
        /// The server's API level is below 1 (nats-server 2.11).
        LimitMarkersNotSupported => "limit markers not supported",
    }
);

error_kinds!(
    /// Updating a bucket's config.
    #[derive(Copy, Hash)]
    UpdateKeyValueErrorKind {
        InvalidStoreName => "invalid Key Value Store name",
        TooLongHistory => "too long history",
        JetStream => "JetStream error",
        BucketUpdate => "bucket update failed",
        TimedOut => "timed out",
        LimitMarkersNotSupported => "limit markers not supported",
        NotFound => "bucket does not exist",
    }
);

error_kinds!(
    /// `Store::status`.
    #[derive(Copy, Hash)]
    StatusErrorKind {
        JetStream => "JetStream error",
        TimedOut => "timed out",
    }
);

error_kinds!(
    /// `Store::create`.
    #[derive(Copy, Hash)]
    CreateErrorKind {
        /// The key has a value (not a delete or purge marker).
        AlreadyExists => "key already exists",
        InvalidKey => "key cannot be empty or start/end with `.`",
        Publish => "failed to create key in store",
        Ack => "ack error",
        Other => "error",
    }
);

error_kinds!(
    /// `Store::put`.
    #[derive(Copy, Hash)]
    PutErrorKind {
        InvalidKey => "key cannot be empty or start/end with `.`",
        /// The message was not sent: too large, connection closed.
        Publish => "failed to put key into store",
        /// The stream refused it or did not answer.
        Ack => "ack error",
    }
);

error_kinds!(
    /// `Store::get`, `entry`, `entry_for_revision`.
    #[derive(Copy, Hash)]
    EntryErrorKind {
        InvalidKey => "key cannot be empty or start/end with `.`",
        TimedOut => "timed out",
        Other => "failed getting entry",
    }
);

error_kinds!(
    /// Starting a watch, a history or a key listing.
    #[derive(Copy, Hash)]
    WatchErrorKind {
        InvalidKey => "key cannot be empty or start/end with `.`",
        TimedOut => "timed out",
        ConsumerCreate => "watch consumer creation failed",
        Other => "watch failed",
    }
);

error_kinds!(
    /// `Store::update`, `delete`, `purge` and their `_expect_revision` forms.
    #[derive(Copy, Hash)]
    UpdateErrorKind {
        InvalidKey => "key cannot be empty or start/end with `.`",
        TimedOut => "timed out",
        /// The key's last revision was not the one expected.
        WrongLastRevision => "wrong last revision",
        Other => "failed getting entry",
    }
);

error_kinds!(
    /// An entry of a running watch, history or listing.
    #[derive(Copy, Hash)]
    WatcherErrorKind {
        Consumer => "watcher consumer error",
        Other => "watcher error",
    }
);

/// The error of an operation: [`KeyValueErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type KeyValueError = KindError<KeyValueErrorKind>;
/// The error of an operation: [`CreateKeyValueErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type CreateKeyValueError = KindError<CreateKeyValueErrorKind>;
/// The error of an operation: [`UpdateKeyValueErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type UpdateKeyValueError = KindError<UpdateKeyValueErrorKind>;
/// The error of an operation: [`StatusErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type StatusError = KindError<StatusErrorKind>;
/// The error of an operation: [`CreateErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type CreateError = KindError<CreateErrorKind>;
/// The error of an operation: [`PutErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type PutError = KindError<PutErrorKind>;
/// The error of an operation: [`EntryErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type EntryError = KindError<EntryErrorKind>;
/// The error of an operation: [`WatchErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type WatchError = KindError<WatchErrorKind>;
/// The error of an operation: [`UpdateErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type UpdateError = KindError<UpdateErrorKind>;
/// The error of an operation: [`WatcherErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type WatcherError = KindError<WatcherErrorKind>;
/// async-nats's name for [`UpdateError`].
pub type DeleteError = UpdateError;
/// async-nats's name for [`UpdateErrorKind`].
pub type DeleteErrorKind = UpdateErrorKind;
/// async-nats's name for [`UpdateError`].
pub type PurgeError = UpdateError;
/// async-nats's name for [`UpdateErrorKind`].
pub type PurgeErrorKind = UpdateErrorKind;
/// async-nats's name for [`WatchError`].
pub type HistoryError = WatchError;
/// async-nats's name for [`WatchErrorKind`].
pub type HistoryErrorKind = WatchErrorKind;

sort_causes! { cause;
    PutErrorKind {
        _ if is_bad_input(cause) => PutErrorKind::InvalidKey,
        Error::JetStream(_) | Error::Timeout | Error::NoResponders => PutErrorKind::Ack,
        _ => PutErrorKind::Publish,
    }

    UpdateErrorKind {
        _ if is_bad_input(cause) => UpdateErrorKind::InvalidKey,
        Error::Timeout => UpdateErrorKind::TimedOut,
        Error::JetStream(e) if e.is_wrong_last_sequence() => UpdateErrorKind::WrongLastRevision,
        _ => UpdateErrorKind::Other,
    }

    CreateErrorKind {
        _ if is_bad_input(cause) => CreateErrorKind::InvalidKey,
        Error::JetStream(_) | Error::Timeout | Error::NoResponders => CreateErrorKind::Ack,
        _ => CreateErrorKind::Publish,
    }

    EntryErrorKind {
        _ if is_bad_input(cause) => EntryErrorKind::InvalidKey,
        Error::Timeout => EntryErrorKind::TimedOut,
        _ => EntryErrorKind::Other,
    }

    WatchErrorKind {
        _ if is_bad_input(cause) => WatchErrorKind::InvalidKey,
        Error::Timeout => WatchErrorKind::TimedOut,
        Error::JetStream(_) | Error::NoResponders => WatchErrorKind::ConsumerCreate,
        _ => WatchErrorKind::Other,
    }

    WatcherErrorKind {
        Error::Protocol(_) => WatcherErrorKind::Other,
        _ => WatcherErrorKind::Consumer,
    }

    StatusErrorKind {
        Error::Timeout => StatusErrorKind::TimedOut,
        _ => StatusErrorKind::JetStream,
    }

    KeyValueErrorKind {
        _ if is_bad_input(cause) => KeyValueErrorKind::InvalidStoreName,
        Error::JetStream(e) if e.err_code == ErrorCode::STREAM_NOT_FOUND => KeyValueErrorKind::GetBucket,
        _ => KeyValueErrorKind::JetStream,
    }

    CreateKeyValueErrorKind {
        _ if is_bad_input(cause) => CreateKeyValueErrorKind::InvalidStoreName,
        Error::Timeout => CreateKeyValueErrorKind::TimedOut,
        Error::JetStream(_) => CreateKeyValueErrorKind::BucketCreate,
        _ => CreateKeyValueErrorKind::JetStream,
    }

    UpdateKeyValueErrorKind {
        _ if is_bad_input(cause) => UpdateKeyValueErrorKind::InvalidStoreName,
        Error::Timeout => UpdateKeyValueErrorKind::TimedOut,
        Error::JetStream(e) if e.err_code == ErrorCode::STREAM_NOT_FOUND => UpdateKeyValueErrorKind::NotFound,
        Error::JetStream(_) => UpdateKeyValueErrorKind::BucketUpdate,
        _ => UpdateKeyValueErrorKind::JetStream,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::SortCause;
    use crate::core::jetstream::api::JetStreamError;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn api(err_code: ErrorCode) -> Error {
        Error::JetStream(JetStreamError { code: 400, err_code, description: "x".into() })
    }

    #[test]
    fn causes_sort_as_async_nats_sorts_them() {
        assert_eq!(
            UpdateErrorKind::sort(&api(ErrorCode::STREAM_WRONG_LAST_SEQUENCE)),
            UpdateErrorKind::WrongLastRevision
        );
        assert_eq!(
            UpdateErrorKind::sort(&api(ErrorCode::STREAM_WRONG_LAST_SEQUENCE_CONSTANT)),
            UpdateErrorKind::WrongLastRevision
        );
        assert_eq!(UpdateErrorKind::sort(&Error::Timeout), UpdateErrorKind::TimedOut);
        assert_eq!(UpdateErrorKind::sort(&Error::InvalidArgument("k".into())), UpdateErrorKind::InvalidKey);
        assert_eq!(PutErrorKind::sort(&Error::Closed), PutErrorKind::Publish);
        assert_eq!(PutErrorKind::sort(&api(ErrorCode::STREAM_MESSAGE_EXCEEDS_MAXIMUM)), PutErrorKind::Ack);
        assert_eq!(KeyValueErrorKind::sort(&api(ErrorCode::STREAM_NOT_FOUND)), KeyValueErrorKind::GetBucket);
        assert_eq!(UpdateKeyValueErrorKind::sort(&api(ErrorCode::STREAM_NOT_FOUND)), UpdateKeyValueErrorKind::NotFound);
        assert_eq!(CreateKeyValueErrorKind::sort(&Error::Timeout), CreateKeyValueErrorKind::TimedOut);
    }

    #[test]
    fn errors_keep_their_cause() {
        let e = PutErrorKind::error(Error::PayloadTooLarge { size: 9, max_payload: 8 });
        assert_eq!(e.kind(), PutErrorKind::Publish);
        assert!(e.to_string().starts_with("failed to put key into store: "), "{e}");
        let cause: Error = e.into();
        assert_eq!(cause, Error::PayloadTooLarge { size: 9, max_payload: 8 });
    }
}
