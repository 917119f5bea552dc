//! The error kinds of object store operations, named as async-nats 0.52
//! names them; each error is a [`KindError`] whose cause is natsjet's
//! [`Error`] (the server's code and text, the bad name, the digest that
//! did not match).

use crate::core::error::{Error, KindError, SortCause, error_kinds, is_bad_input, sort_causes};
use crate::core::jetstream::api::ErrorCode;
pub use crate::core::kv::CreateKeyValueErrorKind as CreateObjectStoreErrorKind;

error_kinds!(
    /// Opening or deleting a bucket.
    #[derive(Copy, Hash)]
    ObjectStoreErrorKind {
        InvalidBucketName => "invalid Object Store bucket name",
        GetStore => "failed to get Object Store",
    }
);

error_kinds!(
    /// `ObjectStore::info`.
    #[derive(Copy, Hash)]
    InfoErrorKind {
        InvalidName => "invalid object name",
        NotFound => "not found",
        Other => "getting info failed",
        TimedOut => "timed out",
    }
);

error_kinds!(
    /// `ObjectStore::get`, and reading the object.
    #[derive(Copy, Hash)]
    GetErrorKind {
        InvalidName => "invalid object name",
        ConsumerCreate => "failed creating consumer for fetching object",
        NotFound => "object not found",
        /// The name links to a whole bucket, not an object.
        BucketLink => "object is a link to a bucket",
        Other => "getting object failed",
        TimedOut => "timed out",
    }
);

error_kinds!(
    /// `ObjectStore::delete`.
    #[derive(Copy, Hash)]
    DeleteErrorKind {
        TimedOut => "timed out",
        NotFound => "object not found",
        Metadata => "failed rolling up metadata",
        InvalidName => "invalid object name",
        Chunks => "failed purging chunks",
        Other => "delete failed",
    }
);

error_kinds!(
    /// `ObjectStore::put`.
    #[derive(Copy, Hash)]
    PutErrorKind {
        InvalidName => "invalid object name",
        ReadChunks => "error while reading the content",
        PublishChunks => "failed publishing object chunks",
        PublishMetadata => "failed publishing metadata",
        PurgeOldChunks => "failed purging old chunks",
        TimedOut => "timed out",
        Other => "put failed",
    }
);

error_kinds!(
    /// `ObjectStore::add_link` and `add_bucket_link`.
    #[derive(Copy, Hash)]
    AddLinkErrorKind {
        EmptyName => "empty name",
        ObjectRequired => "the linked object has no name",
        Deleted => "the linked object is deleted",
        LinkToLink => "a link cannot point to a link",
        PublishMetadata => "failed publishing link metadata",
        AlreadyExists => "an object with that name exists",
        Other => "adding the link failed",
    }
);

error_kinds!(
    /// `ObjectStore::update_metadata`.
    #[derive(Copy, Hash)]
    UpdateMetadataErrorKind {
        InvalidName => "invalid object name",
        NotFound => "object not found",
        TimedOut => "timed out",
        Other => "updating metadata failed",
        PublishMetadata => "failed publishing metadata",
        NameAlreadyInUse => "an object with that name exists",
        Purge => "failed purging the old name's metadata",
    }
);

error_kinds!(
    /// Starting a watch or a listing.
    #[derive(Copy, Hash)]
    WatchErrorKind {
        TimedOut => "timed out",
        ConsumerCreate => "watch consumer creation failed",
        Other => "watch failed",
    }
);

error_kinds!(
    /// `ObjectStore::seal`.
    #[derive(Copy, Hash)]
    SealErrorKind {
        TimedOut => "timed out",
        Other => "sealing failed",
        Info => "failed getting the bucket's info",
        Update => "failed updating the bucket",
    }
);

error_kinds!(
    /// An item of a running watch or listing.
    #[derive(Copy, Hash)]
    WatcherErrorKind {
        ConsumerError => "watcher consumer error",
        Other => "watcher error",
    }
);

error_kinds!(
    /// `ObjectStore::status`.
    #[derive(Copy, Hash)]
    StatusErrorKind {
        JetStream => "JetStream error",
        TimedOut => "timed out",
    }
);

/// The error of an operation: [`CreateObjectStoreErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type CreateObjectStoreError = KindError<CreateObjectStoreErrorKind>;
/// The error of an operation: [`ObjectStoreErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type ObjectStoreError = KindError<ObjectStoreErrorKind>;
/// async-nats's name for [`ObjectStoreError`].
pub type DeleteObjectStore = ObjectStoreError;
/// async-nats's name for [`ObjectStoreErrorKind`].
pub type DeleteObjectStoreKind = ObjectStoreErrorKind;
/// The error of an operation: [`InfoErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type InfoError = KindError<InfoErrorKind>;
/// The error of an operation: [`GetErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type GetError = KindError<GetErrorKind>;
/// The error of an operation: [`DeleteErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type DeleteError = KindError<DeleteErrorKind>;
/// The error of an operation: [`PutErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type PutError = KindError<PutErrorKind>;
/// The error of an operation: [`AddLinkErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type AddLinkError = KindError<AddLinkErrorKind>;
/// The error of an operation: [`UpdateMetadataErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type UpdateMetadataError = KindError<UpdateMetadataErrorKind>;
/// The error of an operation: [`WatchErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type WatchError = KindError<WatchErrorKind>;
/// async-nats's name for [`WatchError`].
pub type ListError = WatchError;
/// async-nats's name for [`WatchErrorKind`].
pub type ListErrorKind = WatchErrorKind;
/// The error of an operation: [`SealErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type SealError = KindError<SealErrorKind>;
/// The error of an operation: [`WatcherErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type WatcherError = KindError<WatcherErrorKind>;
/// async-nats's name for [`WatcherError`].
pub type ListerError = WatcherError;
/// async-nats's name for [`WatcherErrorKind`].
pub type ListerErrorKind = WatcherErrorKind;
/// The error of an operation: [`StatusErrorKind`] from `kind()`, natsjet's [`Error`](crate::Error) from `cause()`.
pub type StatusError = KindError<StatusErrorKind>;

/// The server's "no such message" (a missing meta).
pub(crate) fn is_not_found(cause: &Error) -> bool {
    matches!(cause, Error::JetStream(e) if e.err_code == ErrorCode::NO_MESSAGE_FOUND)
}

/// One sorting rule per kind enum: bad input, time-outs, misses, the rest.
macro_rules! sorts {
    ($($kind:ident { $bad:ident, $timeout:ident, $missing:ident, $other:ident })*) => {
        $(impl SortCause for $kind {
            fn sort(cause: &Error) -> Self {
                match cause {
                    _ if is_bad_input(cause) => $kind::$bad,
                    Error::Timeout => $kind::$timeout,
                    _ if is_not_found(cause) => $kind::$missing,
                    _ => $kind::$other,
                }
            }
        })*
    };
}

sorts! {
    InfoErrorKind { InvalidName, TimedOut, NotFound, Other }
    GetErrorKind { InvalidName, TimedOut, NotFound, Other }
    DeleteErrorKind { InvalidName, TimedOut, NotFound, Other }
    UpdateMetadataErrorKind { InvalidName, TimedOut, NotFound, Other }
}

sort_causes! { cause;
    PutErrorKind {
        _ if is_bad_input(cause) => PutErrorKind::InvalidName,
        Error::Timeout => PutErrorKind::TimedOut,
        _ => PutErrorKind::PublishChunks,
    }

    AddLinkErrorKind {
        _ if is_bad_input(cause) => AddLinkErrorKind::EmptyName,
        Error::JetStream(_) | Error::Timeout | Error::NoResponders => AddLinkErrorKind::PublishMetadata,
        _ => AddLinkErrorKind::Other,
    }

    WatchErrorKind {
        Error::Timeout => WatchErrorKind::TimedOut,
        Error::JetStream(_) | Error::NoResponders => WatchErrorKind::ConsumerCreate,
        _ => WatchErrorKind::Other,
    }

    WatcherErrorKind {
        Error::Protocol(_) => WatcherErrorKind::Other,
        _ => WatcherErrorKind::ConsumerError,
    }

    SealErrorKind {
        Error::Timeout => SealErrorKind::TimedOut,
        Error::JetStream(_) => SealErrorKind::Update,
        _ => SealErrorKind::Other,
    }

    StatusErrorKind {
        Error::Timeout => StatusErrorKind::TimedOut,
        _ => StatusErrorKind::JetStream,
    }

    ObjectStoreErrorKind {
        _ if is_bad_input(cause) => ObjectStoreErrorKind::InvalidBucketName,
        _ => ObjectStoreErrorKind::GetStore,
    }
}
