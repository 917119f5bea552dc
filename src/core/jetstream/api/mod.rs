//! The JetStream JSON API: request and reply types, subjects, and the error
//! envelope. Pure data (serde only): no connection, no state machine.
//!
//! Field names and omission rules follow nats-server 2.15's Go structs; what
//! the server would fill in itself is left out, so older servers accept what
//! natsjet sends, and fields unknown to natsjet are ignored on the way in.

mod account;
mod consumer;
mod error;
mod publish;
pub mod serde_nanos;
mod stream;
mod subjects;
pub mod timestamp;

pub use account::{AccountInfo, AccountLimits, ApiStats, Tier};
pub use consumer::{
    AckPolicy, ConsumerAction, ConsumerConfig, ConsumerInfo, ConsumerListResponse, ConsumerNamesRequest,
    ConsumerNamesResponse, ConsumerPauseRequest, ConsumerPauseResponse, ConsumerResetRequest, ConsumerResetResponse,
    ConsumerUnpinRequest, CreateConsumerRequest, DeliverPolicy, PriorityGroupState, PriorityPolicy, ReplayPolicy,
    SequenceInfo,
};
pub use error::{ErrorCode, JetStreamError, check_response, parse_empty_response, parse_response};
pub(crate) use error::{bad_response, parse_checked, parse_checked_plain, parse_plain_response};
pub use publish::PublishAck;
pub use stream::{
    ClusterInfo, Compression, ConsumerLimits, DeleteResponse, DiscardPolicy, External, LostStreamData,
    MsgDeleteRequest, MsgGetRequest, MsgGetResponse, PeerInfo, PersistenceMode, Placement, PurgeRequest, PurgeResponse,
    Republish, RetentionPolicy, Source, SourceInfo, StorageType, StoredMessage, StreamAlternate, StreamConfig,
    StreamConsumerSource, StreamInfo, StreamInfoRequest, StreamListResponse, StreamNamesRequest, StreamNamesResponse,
    StreamState, SubjectTransform,
};
pub use subjects::*;

use serde::{Deserialize, Deserializer};

/// For `skip_serializing_if`: leave a field out while it holds its default.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// Go encodes an empty slice or map as `null`; read that as empty.
pub(crate) fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
