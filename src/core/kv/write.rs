//! The Key-Value store's writes that are more than a publish, sans-IO:
//! the delete and purge markers, and what a create does when its first
//! publish found the key taken, which the create procedure
//! (`core::kv::create`) follows. The `jetstream::kv` API folder and the
//! wasm's run them.

use super::entry::{Entry, KV_OPERATION, NATS_ROLLUP, Operation};
use crate::core::jetstream::api::ErrorCode;
use crate::core::jetstream::publish::Publish;

/// What a create does after its first publish failed (the create procedure's decision).
pub(crate) enum CreateOver {
    /// Publish again, expecting the delete or purge marker at this revision.
    Marker(u64),
    /// The key holds a value.
    Taken,
    /// Fail with the first publish's error.
    Failed,
}

impl CreateOver {
    /// Whether a create that failed with the JetStream error `err_code`
    /// found a message on the key, so its latest entry is worth a look.
    pub(crate) fn looks(err_code: Option<ErrorCode>) -> bool {
        err_code.is_some_and(ErrorCode::is_wrong_last_sequence)
    }

    /// What to do given the key's latest entry.
    pub(crate) fn after(latest: Option<&Entry>) -> CreateOver {
        match latest {
            Some(Entry { operation: Operation::Delete | Operation::Purge, revision, .. }) => {
                CreateOver::Marker(*revision)
            }
            Some(_) => CreateOver::Taken,
            None => CreateOver::Failed,
        }
    }
}

/// The publish of a delete or purge marker, with the headers of `with`,
/// expecting the key's last revision to be `revision` when set.
pub(crate) fn marker(operation: Operation, revision: Option<u64>, with: Publish) -> Publish {
    let mut marker = with.header(KV_OPERATION, operation.as_str());
    if operation == Operation::Purge {
        marker = marker.header(NATS_ROLLUP, "sub");
    }
    match revision {
        Some(revision) => marker.expected_last_subject_sequence(revision),
        None => marker,
    }
}
