//! Options of `fetch` and `consume`, their defaults (ADR-37) and the checks
//! that keep the server from refusing our pulls.

use std::time::Duration;

use crate::core::error::Error;

/// `batch` sent with byte-limited pulls: with 0 the server would send one message (ADR-37).
pub const BYTES_MODE_BATCH: u64 = 1_000_000;
/// Messages per pull of `fetch` when neither limit is given.
pub const DEFAULT_MAX_MESSAGES: u64 = 100;
/// `consume`: messages kept requested ahead (pending on the server plus
/// delivered and not yet taken) when neither limit is given. It bounds what
/// the client holds, and how long a message can wait in it before its
/// handler runs: up to this many handler runs, which must fit the
/// consumer's `ack_wait` or the message comes again (30 s: 100 ms each,
/// as with async-nats's defaults, which hold up to 300 too; nats.js 100).
/// Refilled at [`DEFAULT_CONSUME_THRESHOLD_MESSAGES`], by 200: every pull
/// costs the server a request to parse, queue and retire (and, with the
/// bytes bound below, a `409 Batch Completed`), and larger bursts to the
/// client pack more acks into each of its writes. On a durable drained as
/// fast as the server can, 300 refilled by 200 took less CPU per message
/// than 200 refilled by 100, in the server and in the client: the rate
/// went up 1.05x (1 worker) and 1.08x (4 workers) natively, 1.00-1.05x in
/// Node and 1.14-1.22x in Chromium (`benches/consume.rs` `CONSUME_SWEEP`,
/// `bench/js/ab_drain.mjs`).
pub const DEFAULT_CONSUME_MAX_MESSAGES: u64 = 300;
/// `consume` with neither limit given: pull again when this many messages
/// are left requested ahead (async-nats's shape: pulls of 200 from 100 left).
pub const DEFAULT_CONSUME_THRESHOLD_MESSAGES: u64 = 100;
/// `consume` with neither limit given: bytes kept requested ahead at most,
/// beside the 300 messages, so large messages cannot fill memory (without
/// it the bound would be 300 x the server's `max_payload`). Each pull asks
/// for a quarter of it (4 MiB) as its `max_bytes`,
/// and no pull goes out while what is requested ahead (pending plus
/// delivered and not yet taken) and a new pull's budget would exceed it.
/// With small messages the 300 messages bind first, so the default drain is
/// unchanged but for one `409 Batch Completed` per pull (its unused budget
/// given back); with large ones a slow handler holds 16 MiB at most. A
/// message larger than a pull's budget (a server with `max_payload` above
/// 4 MiB) doubles the budget and the bound until it fits.
pub const DEFAULT_CONSUME_MAX_BYTES: u64 = 16 << 20;
/// A default pull's budget doubles for a message too large for it up to this, at most.
const MAX_PULL_BYTES: u64 = 1 << 30;
/// How long each pull waits on the server.
pub const DEFAULT_EXPIRES: Duration = Duration::from_secs(30);
/// Upper bound of the default idle heartbeat (ADR-37).
pub const MAX_IDLE_HEARTBEAT: Duration = Duration::from_secs(30);
/// Lower bound of a consume idle heartbeat (ADR-37).
pub const MIN_IDLE_HEARTBEAT: Duration = Duration::from_millis(500);
/// Shortest consume `expires` (ADR-37).
pub const MIN_CONSUME_EXPIRES: Duration = Duration::from_secs(1);

/// Priority-group fields of every pull (ADR-42).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriorityOptions {
    /// The consumer's priority group (required by priority consumers).
    pub group: String,
    /// Overflow policy: only receive while the consumer has at least this many pending.
    pub min_pending: Option<i64>,
    /// Overflow policy: only receive while at least this many acks are pending.
    pub min_ack_pending: Option<i64>,
    /// Prioritized policy: 0 (first served) to 9.
    pub priority: Option<u8>,
    /// A pin id kept from an earlier fetch (pinned-client policy); the
    /// machine updates it from `Nats-Pin-Id` and drops it on 423.
    pub pin_id: Option<String>,
}

/// One pull request and its wait: `fetch` and `next`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// Messages to fetch.
    pub max_messages: u64,
    /// Byte budget; use [`FetchOptions::bytes`] to fetch by size alone.
    pub max_bytes: Option<u64>,
    /// How long the server waits for messages. With `no_wait` it is not sent
    /// (the server answers at once) and only bounds the client's wait.
    pub expires: Duration,
    /// Return what is there now (404 `No Messages` when nothing is).
    pub no_wait: bool,
    /// Server heartbeat while the pull waits. `None`: on only when `expires`
    /// exceeds 30 s (ADR-37), at half of `expires`, capped at 30 s.
    pub idle_heartbeat: Option<Duration>,
    /// The priority group to pull from, for consumers with `priority_groups`
    /// (ADR-42).
    pub priority: Option<PriorityOptions>,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions::messages(DEFAULT_MAX_MESSAGES)
    }
}

impl FetchOptions {
    /// Fetch up to `n` messages.
    pub fn messages(n: u64) -> Self {
        FetchOptions {
            max_messages: n,
            max_bytes: None,
            expires: DEFAULT_EXPIRES,
            no_wait: false,
            idle_heartbeat: None,
            priority: None,
        }
    }

    /// Fetch up to `n` bytes of messages, however many that is.
    pub fn bytes(n: u64) -> Self {
        FetchOptions { max_bytes: Some(n), ..FetchOptions::messages(BYTES_MODE_BATCH) }
    }

    pub(crate) fn heartbeat(&self) -> Result<Option<Duration>, Error> {
        if self.max_messages == 0 || self.max_bytes == Some(0) {
            return Err(invalid("fetch needs max_messages and max_bytes above zero"));
        }
        if self.expires.is_zero() {
            return Err(invalid("fetch needs an expires above zero: it bounds the wait"));
        }
        if self.no_wait {
            // The server does not wait, so it never sends heartbeats.
            return Ok(None);
        }
        match self.idle_heartbeat {
            Some(hb) => check_heartbeat(hb, self.expires, Duration::ZERO).map(Some),
            None if self.expires > MAX_IDLE_HEARTBEAT => Ok(Some(default_heartbeat(self.expires))),
            None => Ok(None),
        }
    }
}

/// Continuous pulling: `consume`. Set `max_messages` or `max_bytes`, not both.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsumeOptions {
    /// Messages kept requested ahead (pending plus delivered and not yet
    /// taken); default 300 when `max_bytes` is unset too, with a bound of
    /// 16 MiB as well ([`DEFAULT_CONSUME_MAX_BYTES`]). A slow handler's
    /// messages wait up to this many handler runs, within `ack_wait`. Set
    /// either limit to choose it alone (ADR-37: one or the other).
    pub max_messages: Option<u64>,
    /// Bytes kept requested ahead, instead of a message count.
    pub max_bytes: Option<u64>,
    /// Pull more when pending messages fall to this; default half of
    /// `max_messages`, or 100 when neither limit is given.
    pub threshold_messages: Option<u64>,
    /// Pull more when pending bytes fall to this; default half of `max_bytes`.
    pub threshold_bytes: Option<u64>,
    /// Lifetime of each pull on the server; default 30 s, at least 1 s.
    pub expires: Option<Duration>,
    /// Server heartbeat; default half of `expires` capped at 30 s, within 0.5–30 s.
    pub idle_heartbeat: Option<Duration>,
    /// The priority group to pull from, for consumers with `priority_groups`
    /// (ADR-42).
    pub priority: Option<PriorityOptions>,
    /// After a terminal status (consumer deleted, push based, API level)
    /// keep pulling with a backoff instead of ending, e.g. when the consumer
    /// may be recreated; the status is then a `Terminal` event, not an error
    /// item. A 400 bad request ends the reader even so: a retry cannot help.
    pub keep_waiting: bool,
}

/// `consume` options checked and filled with defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConsumePlan {
    /// Buffer size in messages ([`BYTES_MODE_BATCH`] when limited by bytes).
    pub max_messages: u64,
    /// Buffer size in bytes; 0 when limited by messages.
    pub max_bytes: u64,
    /// Refill at or below this many pending messages (messages mode).
    pub threshold_messages: Option<u64>,
    /// Refill at or below this many pending bytes (bytes mode).
    pub threshold_bytes: Option<u64>,
    /// Messages mode with the defaults: bytes requested ahead at most, each
    /// pull asking for a quarter of it ([`DEFAULT_CONSUME_MAX_BYTES`]); 0: none.
    pub bound_bytes: u64,
    pub expires: Duration,
    pub idle_heartbeat: Duration,
    pub keep_waiting: bool,
}

impl ConsumeOptions {
    pub(crate) fn plan(&self) -> Result<ConsumePlan, Error> {
        let expires = self.expires.unwrap_or(DEFAULT_EXPIRES);
        if expires < MIN_CONSUME_EXPIRES {
            return Err(invalid("consume expires must be at least 1s"));
        }
        let idle_heartbeat = match self.idle_heartbeat {
            Some(hb) => check_heartbeat(hb, expires, MIN_IDLE_HEARTBEAT)?,
            None => default_heartbeat(expires),
        };
        let defaults = self.max_messages.is_none() && self.max_bytes.is_none();
        let (max_messages, max_bytes, threshold_messages, threshold_bytes) = match (self.max_messages, self.max_bytes) {
            (Some(_), Some(_)) => {
                return Err(invalid("set max_messages or max_bytes, not both"));
            }
            (_, Some(bytes)) => {
                if self.threshold_messages.is_some() {
                    return Err(invalid("threshold_messages needs max_messages"));
                }
                let threshold = threshold(self.threshold_bytes, bytes, "bytes")?;
                (BYTES_MODE_BATCH, bytes, None, Some(threshold))
            }
            (messages, None) => {
                if self.threshold_bytes.is_some() {
                    return Err(invalid("threshold_bytes needs max_bytes"));
                }
                let messages = messages.unwrap_or(DEFAULT_CONSUME_MAX_MESSAGES);
                let given = self.threshold_messages.or(defaults.then_some(DEFAULT_CONSUME_THRESHOLD_MESSAGES));
                let threshold = threshold(given, messages, "messages")?;
                (messages, 0, Some(threshold), None)
            }
        };
        Ok(ConsumePlan {
            max_messages,
            max_bytes,
            threshold_messages,
            threshold_bytes,
            bound_bytes: if defaults { DEFAULT_CONSUME_MAX_BYTES } else { 0 },
            expires,
            idle_heartbeat,
            keep_waiting: self.keep_waiting,
        })
    }
}

impl ConsumePlan {
    /// The `max_bytes` of each pull in messages mode (0: none).
    pub(crate) fn pull_bytes(&self) -> u64 {
        self.bound_bytes / 4
    }

    /// A message did not fit a whole pull's budget: doubles the budget (and
    /// the bound), so that a server with a larger `max_payload` still
    /// delivers it. Whether it grew.
    pub(crate) fn grow_pull_bytes(&mut self) -> bool {
        if self.bound_bytes == 0 || self.pull_bytes() >= MAX_PULL_BYTES {
            return false;
        }
        self.bound_bytes *= 2;
        true
    }
}

pub(crate) fn check_priority(priority: Option<&PriorityOptions>) -> Result<(), Error> {
    match priority {
        Some(p) if p.group.is_empty() => Err(invalid("a priority group needs a name")),
        Some(p) if p.priority.is_some_and(|n| n > 9) => Err(invalid("priority must be between 0 and 9")),
        _ => Ok(()),
    }
}

fn default_heartbeat(expires: Duration) -> Duration {
    (expires / 2).min(MAX_IDLE_HEARTBEAT)
}

/// The server refuses a heartbeat above half of `expires` (400 Bad Request).
fn check_heartbeat(hb: Duration, expires: Duration, min: Duration) -> Result<Duration, Error> {
    if hb.is_zero() || hb < min || hb > MAX_IDLE_HEARTBEAT {
        let min = min.as_millis() as u64;
        return Err(invalid(&format!("idle_heartbeat must be above zero, at least {min} ms and at most 30 s")));
    }
    if hb > expires / 2 {
        return Err(invalid("idle_heartbeat must be at most half of expires"));
    }
    Ok(hb)
}

fn threshold(given: Option<u64>, max: u64, unit: &str) -> Result<u64, Error> {
    if max == 0 {
        return Err(invalid(&format!("max_{unit} must be above zero")));
    }
    match given {
        Some(t) if t > max => Err(invalid(&format!("threshold_{unit} cannot exceed max_{unit}"))),
        Some(t) => Ok(t),
        None => Ok(max / 2),
    }
}

fn invalid(what: &str) -> Error {
    Error::InvalidArgument(what.to_string())
}
