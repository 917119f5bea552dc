//! Status messages on a pull consumer's inbox, sorted once.
//!
//! The server answers pulls with header-only messages `NATS/1.0 <code> <text>`
//! (`server/consumer.go`). The code alone is ambiguous (409 means six different
//! things), so [`classify`] reads code and text together, in one table, and
//! the rest of the machine matches on [`StatusKind`], never on strings.

use crate::core::header::StatusCode;
use crate::core::message::Message;

/// Header with the messages a finished pull did not deliver.
pub const PENDING_MESSAGES: &str = "Nats-Pending-Messages";
/// Header with the bytes a finished pull did not deliver.
pub const PENDING_BYTES: &str = "Nats-Pending-Bytes";

/// What a status message means for a pull consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StatusKind {
    /// 100 `Idle Heartbeat`: the server is alive and the pull still waits.
    IdleHeartbeat,
    /// 100 `FlowControl Request`: push consumers only; liveness for us.
    FlowControl,
    /// 404 `No Messages`: a `no_wait` pull found nothing.
    NoMessages,
    /// 408 `Request Timeout`: the pull expired.
    RequestTimeout,
    /// 408 `Interest Expired`: the reply subject lost its interest.
    InterestExpired,
    /// 408 `Requests Pending`: a `no_wait` pull refused while others wait.
    RequestsPending,
    /// 409 `Message Size Exceeds MaxBytes`: the next message does not fit the pull's budget.
    MessageSizeExceedsMaxBytes,
    /// 409 `Batch Completed`: the batch is complete with bytes left over.
    BatchCompleted,
    /// 409 `Server Shutdown`: the server is going away; its pulls are void.
    ServerShutdown,
    /// 409 `Leadership Change`: a new consumer leader forgot every pull.
    LeadershipChange,
    /// 409 `Exceeded MaxWaiting`: too many pulls wait on the consumer.
    ExceededMaxWaiting,
    /// 409 `Exceeded MaxRequestBatch of N`.
    ExceededMaxRequestBatch,
    /// 409 `Exceeded MaxRequestExpires of D`.
    ExceededMaxRequestExpires,
    /// 409 `Exceeded MaxRequestMaxBytes of N`.
    ExceededMaxRequestMaxBytes,
    /// 409 `Consumer Deleted`.
    ConsumerDeleted,
    /// 409 `Consumer is push based`.
    PushBased,
    /// 423 `Nats-Wrong-Pin-Id` or `Nats-Pin-Id mismatch`: our pin id is stale.
    PinIdMismatch,
    /// 412 `Required Api Level`: the server is too old for the request.
    RequiredApiLevel,
    /// 400 `Bad Request - …` (bad JSON, heartbeat too large, priority group errors).
    BadRequest,
    /// 503: no JetStream behind the subject.
    NoResponders,
    /// A status this client does not know.
    Unknown,
}

/// What a status does to the machine. One row per [`StatusKind`], in [`StatusKind::effect`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Liveness only.
    Activity,
    /// A pull ended; what it did not deliver comes back in the pending headers.
    PullEnded,
    /// Like [`Effect::PullEnded`], and worth a warning.
    PullEndedWarn,
    /// The server forgot every pull: pending is void.
    Reset,
    /// The server refused the pull: warn, release it, retry after a backoff.
    Rejected,
    /// The pin id is stale: forget it and pull again.
    PinRejected,
    /// The consumer cannot serve pulls (it may come back: `keep_waiting`).
    Terminal,
    /// The pull itself is wrong: a retry cannot help, even when keeping waiting.
    Fatal,
    /// Unknown: warn, keep going.
    Notice,
}

impl StatusKind {
    pub(crate) fn effect(self) -> Effect {
        use StatusKind::*;
        match self {
            IdleHeartbeat | FlowControl => Effect::Activity,
            NoMessages | RequestTimeout | InterestExpired | BatchCompleted | ServerShutdown => Effect::PullEnded,
            MessageSizeExceedsMaxBytes => Effect::PullEndedWarn,
            LeadershipChange => Effect::Reset,
            RequestsPending
            | ExceededMaxWaiting
            | ExceededMaxRequestBatch
            | ExceededMaxRequestExpires
            | ExceededMaxRequestMaxBytes
            | NoResponders => Effect::Rejected,
            PinIdMismatch => Effect::PinRejected,
            ConsumerDeleted | PushBased | RequiredApiLevel => Effect::Terminal,
            BadRequest => Effect::Fatal,
            Unknown => Effect::Notice,
        }
    }
}

/// `(code, description prefix, kind)`; an empty prefix matches any text.
/// Specific rows come before the catch-all of their code.
const TABLE: &[(u16, &str, StatusKind)] = &[
    (100, "FlowControl Request", StatusKind::FlowControl),
    (100, "", StatusKind::IdleHeartbeat),
    (400, "", StatusKind::BadRequest),
    (404, "", StatusKind::NoMessages),
    (408, "Request Timeout", StatusKind::RequestTimeout),
    (408, "Interest Expired", StatusKind::InterestExpired),
    (408, "Requests Pending", StatusKind::RequestsPending),
    (409, "Message Size Exceeds MaxBytes", StatusKind::MessageSizeExceedsMaxBytes),
    (409, "Batch Completed", StatusKind::BatchCompleted),
    (409, "Server Shutdown", StatusKind::ServerShutdown),
    (409, "Leadership Change", StatusKind::LeadershipChange),
    (409, "Exceeded MaxWaiting", StatusKind::ExceededMaxWaiting),
    (409, "Exceeded MaxRequestBatch", StatusKind::ExceededMaxRequestBatch),
    (409, "Exceeded MaxRequestExpires", StatusKind::ExceededMaxRequestExpires),
    (409, "Exceeded MaxRequestMaxBytes", StatusKind::ExceededMaxRequestMaxBytes),
    (409, "Consumer Deleted", StatusKind::ConsumerDeleted),
    (409, "Consumer is push based", StatusKind::PushBased),
    (412, "", StatusKind::RequiredApiLevel),
    (423, "", StatusKind::PinIdMismatch),
    (503, "", StatusKind::NoResponders),
];

/// Sorts a status by code and description (prefix, ASCII case ignored).
pub fn classify(code: StatusCode, description: &str) -> StatusKind {
    let description = description.trim().as_bytes();
    TABLE
        .iter()
        .find(|(c, prefix, _)| {
            *c == code.0
                && description.len() >= prefix.len()
                && description[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
        })
        .map_or(StatusKind::Unknown, |(_, _, kind)| *kind)
}

/// A status message as the pull consumer saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullStatus {
    /// What the status means for the consumer.
    pub kind: StatusKind,
    /// The status code, e.g. 408 or 409.
    pub code: StatusCode,
    /// The server's text, e.g. `Exceeded MaxRequestBatch of 100`.
    pub description: String,
}

impl PullStatus {
    /// A status with `code` and the server's `description`, sorted.
    pub fn new(code: StatusCode, description: impl Into<String>) -> PullStatus {
        let description = description.into();
        PullStatus { kind: classify(code, &description), code, description }
    }

    /// The status of `message`, or `None` for a user message.
    pub fn of(message: &Message) -> Option<PullStatus> {
        Some(PullStatus::new(message.status?, message.description.clone().unwrap_or_default()))
    }
}

impl std::fmt::Display for PullStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code, self.description)
    }
}

/// The messages and bytes a finished pull hands back, from its pending
/// headers. Missing or malformed values count as zero; negative ones too (the
/// server computes them as signed numbers).
pub(crate) fn returned_pending(message: &Message) -> Option<(u64, u64)> {
    let headers = message.headers.as_ref()?;
    let read = |name| headers.get(name).map(|v| v.trim().parse::<i64>().map_or(0, |n| n.max(0) as u64));
    match (read(PENDING_MESSAGES), read(PENDING_BYTES)) {
        (None, None) => None,
        (m, b) => Some((m.unwrap_or(0), b.unwrap_or(0))),
    }
}
