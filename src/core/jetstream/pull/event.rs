//! What the pull consumer tells its caller.

use super::status::{PullStatus, StatusKind};
use crate::core::jetstream::api::JetStreamError;

/// What [`Machine::handle_input`](crate::core::machine::Machine::handle_input) of [`super::PullConsumer`] made of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// A stream message for the user. It was counted against pending.
    User,
    /// A status the machine consumed; nothing for the user.
    Status(StatusKind),
}

/// Why a `fetch` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchEnd {
    /// All requested messages arrived.
    BatchComplete,
    /// The byte budget was used up.
    MaxBytesReached,
    /// 404: a `no_wait` fetch found nothing.
    NoMessages,
    /// 408 `Request Timeout`: the server expired the pull.
    Expired,
    /// No answer by `expires` plus a margin (client-side deadline).
    TimedOut,
    /// Two heartbeat intervals passed in silence.
    HeartbeatsMissed,
    /// Another status ended the pull (see the `Warning` or `Terminal` event before it).
    Status(PullStatus),
    /// The caller stopped it.
    Stopped,
}

/// Why `consume` dropped its pending counts and pulled afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetReason {
    /// 409 `Leadership Change`: the new leader does not know our pulls.
    LeadershipChange,
    /// The connection came back; pulls made before are void (ADR-37). A
    /// push reader says so too: its subscription was made again.
    Reconnected,
    /// Every pull outlived its `expires` without an end status.
    PullsExpired,
}

/// Events drained with [`super::PullConsumer::poll_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsumerEvent {
    /// `count` heartbeat intervals passed with nothing from the server.
    /// Never terminal for `consume`: it re-pulls by itself.
    HeartbeatsMissed {
        /// Intervals missed in a row.
        count: u32,
    },
    /// A status the user may want to know about (limits exceeded, no
    /// responders, message larger than the byte budget…).
    Warning(PullStatus),
    /// Pending counts were void and a new pull went out.
    Reset(ResetReason),
    /// The server gave us the pin (`Nats-Pin-Id`) of a pinned-client group.
    Pinned {
        /// The pin id, sent as `id` in the group's next pulls.
        id: String,
    },
    /// Our pin id is stale (423); it was dropped and we pull unpinned.
    PinIdMismatch,
    /// The consumer cannot serve us: deleted, push based, bad request, API
    /// level. It ends the reader unless it keeps waiting (not for a bad request).
    Terminal(PullStatus),
    /// The fetch is over; no more messages will be counted for it.
    FetchDone(FetchEnd),
    /// After `stop()`, every pull has ended: the inbox can be unsubscribed.
    Drained,
    /// An ordered reader made consumer `name` (first or after a reset) and reads from it.
    OrderedRecreated {
        /// The new consumer's name.
        name: String,
    },
    /// A push reader asked after missed heartbeats and the server no longer
    /// has the consumer (or its stream): it ends the reader unless it keeps waiting.
    ConsumerGone(JetStreamError),
}
