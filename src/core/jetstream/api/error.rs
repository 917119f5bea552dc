//! The JetStream API error envelope and the reply parser every API call uses.
//!
//! The server answers every `$JS.API` request with JSON that is either the
//! response or `{"error":{"code":404,"err_code":10059,"description":"…"}}`;
//! [`parse_response`] turns the second form into [`Error::JetStream`] so
//! callers match on [`ErrorCode`] instead of parsing text.

use std::fmt;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

use crate::core::error::{Error, ProtocolError};
use crate::core::plain_json;

/// The server's fine-grained error number (`err_code`), stable across
/// releases unlike the description text (`server/jetstream_errors_generated.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub u64);

impl ErrorCode {
    /// Whether the consumer asked about, or its stream, does not exist.
    pub fn is_missing_consumer(self) -> bool {
        self == ErrorCode::CONSUMER_NOT_FOUND || self == ErrorCode::STREAM_NOT_FOUND
    }

    /// Whether the server's optimistic-concurrency check refused a publish
    /// (`Nats-Expected-Last-*`); R1 and R>1 streams report it differently.
    pub fn is_wrong_last_sequence(self) -> bool {
        matches!(self, ErrorCode::STREAM_WRONG_LAST_SEQUENCE | ErrorCode::STREAM_WRONG_LAST_SEQUENCE_CONSTANT)
    }

    /// 10002: account resources exceeded.
    pub const ACCOUNT_RESOURCES_EXCEEDED: ErrorCode = ErrorCode(10002);
    /// 10003: bad request.
    pub const BAD_REQUEST: ErrorCode = ErrorCode(10003);
    /// 10008: cluster not available.
    pub const CLUSTER_NOT_AVAILABLE: ErrorCode = ErrorCode(10008);
    /// 10013: consumer name exist.
    pub const CONSUMER_NAME_EXIST: ErrorCode = ErrorCode(10013);
    /// 10014: consumer not found.
    pub const CONSUMER_NOT_FOUND: ErrorCode = ErrorCode(10014);
    /// 10023: insufficient resources.
    pub const INSUFFICIENT_RESOURCES: ErrorCode = ErrorCode(10023);
    /// 10025: invalid json.
    pub const INVALID_JSON: ErrorCode = ErrorCode(10025);
    /// 10026: maximum consumers limit.
    pub const MAXIMUM_CONSUMERS_LIMIT: ErrorCode = ErrorCode(10026);
    /// 10027: maximum streams limit.
    pub const MAXIMUM_STREAMS_LIMIT: ErrorCode = ErrorCode(10027);
    /// 10037: no message found.
    pub const NO_MESSAGE_FOUND: ErrorCode = ErrorCode(10037);
    /// 10039: jetstream not enabled for account.
    pub const JETSTREAM_NOT_ENABLED_FOR_ACCOUNT: ErrorCode = ErrorCode(10039);
    /// 10043: sequence not found.
    pub const SEQUENCE_NOT_FOUND: ErrorCode = ErrorCode(10043);
    /// 10052: stream invalid config.
    pub const STREAM_INVALID_CONFIG: ErrorCode = ErrorCode(10052);
    /// 10054: stream message exceeds maximum.
    pub const STREAM_MESSAGE_EXCEEDS_MAXIMUM: ErrorCode = ErrorCode(10054);
    /// The stream name in the subject differs from the one in the body.
    pub const STREAM_MISMATCH: ErrorCode = ErrorCode(10056);
    /// 10058: stream name exist.
    pub const STREAM_NAME_EXIST: ErrorCode = ErrorCode(10058);
    /// 10059: stream not found.
    pub const STREAM_NOT_FOUND: ErrorCode = ErrorCode(10059);
    /// `Nats-Expected-Stream` did not match the stream the message went to.
    pub const STREAM_NOT_MATCH: ErrorCode = ErrorCode(10060);
    /// 10065: stream subject overlap.
    pub const STREAM_SUBJECT_OVERLAP: ErrorCode = ErrorCode(10065);
    /// 10070: stream wrong last message id.
    pub const STREAM_WRONG_LAST_MESSAGE_ID: ErrorCode = ErrorCode(10070);
    /// 10071: stream wrong last sequence.
    pub const STREAM_WRONG_LAST_SEQUENCE: ErrorCode = ErrorCode(10071);
    /// 10076: jetstream not enabled.
    pub const JETSTREAM_NOT_ENABLED: ErrorCode = ErrorCode(10076);
    /// 10109: stream sealed.
    pub const STREAM_SEALED: ErrorCode = ErrorCode(10109);
    /// A second consumer over the same subjects of a work-queue stream
    /// (`filtered consumer not unique on workqueue stream`).
    pub const CONSUMER_WQ_NOT_UNIQUE: ErrorCode = ErrorCode(10100);
    /// A second consumer without filters on a work-queue stream.
    pub const CONSUMER_WQ_MULTIPLE_UNFILTERED: ErrorCode = ErrorCode(10099);
    /// 10113: stream max bytes required.
    pub const STREAM_MAX_BYTES_REQUIRED: ErrorCode = ErrorCode(10113);
    /// 10118: stream offline.
    pub const STREAM_OFFLINE: ErrorCode = ErrorCode(10118);
    /// 10119: consumer offline.
    pub const CONSUMER_OFFLINE: ErrorCode = ErrorCode(10119);
    /// 10131: consumer create filter subject mismatch.
    pub const CONSUMER_CREATE_FILTER_SUBJECT_MISMATCH: ErrorCode = ErrorCode(10131);
    /// 10137: consumer multiple filters not allowed.
    pub const CONSUMER_MULTIPLE_FILTERS_NOT_ALLOWED: ErrorCode = ErrorCode(10137);
    /// `action: create` found a consumer with a different config.
    pub const CONSUMER_ALREADY_EXISTS: ErrorCode = ErrorCode(10148);
    /// `action: update` found no consumer.
    pub const CONSUMER_DOES_NOT_EXIST: ErrorCode = ErrorCode(10149);
    /// 10158: stream duplicate message conflict.
    pub const STREAM_DUPLICATE_MESSAGE_CONFLICT: ErrorCode = ErrorCode(10158);
    /// 10160: consumer invalid priority group.
    pub const CONSUMER_INVALID_PRIORITY_GROUP: ErrorCode = ErrorCode(10160);
    /// Wrong last sequence on a replicated stream (the text carries no number).
    pub const STREAM_WRONG_LAST_SEQUENCE_CONSTANT: ErrorCode = ErrorCode(10164);
    /// 10165: message ttl invalid.
    pub const MESSAGE_TTL_INVALID: ErrorCode = ErrorCode(10165);
    /// 10166: message ttl disabled.
    pub const MESSAGE_TTL_DISABLED: ErrorCode = ErrorCode(10166);
    /// 10167: stream too many requests.
    pub const STREAM_TOO_MANY_REQUESTS: ErrorCode = ErrorCode(10167);
    /// 10168: a `Nats-Incr` on a stream without `allow_msg_counter` (ADR-49).
    pub const MESSAGE_INCR_DISABLED: ErrorCode = ErrorCode(10168);
    /// 10169: a message without `Nats-Incr` on a counter stream.
    pub const MESSAGE_INCR_MISSING: ErrorCode = ErrorCode(10169);
    /// 10170: a counter increment with a payload.
    pub const MESSAGE_INCR_PAYLOAD: ErrorCode = ErrorCode(10170);
    /// 10171: a `Nats-Incr` that is not a decimal integer.
    pub const MESSAGE_INCR_INVALID: ErrorCode = ErrorCode(10171);
    /// 10172: the counter's stored value cannot be read.
    pub const MESSAGE_COUNTER_BROKEN: ErrorCode = ErrorCode(10172);
    /// The stream does not take atomic batches (`allow_atomic` off).
    pub const ATOMIC_PUBLISH_DISABLED: ErrorCode = ErrorCode(10174);
    /// A batch message without its `Nats-Batch-Sequence`.
    pub const ATOMIC_PUBLISH_MISSING_SEQUENCE: ErrorCode = ErrorCode(10175);
    /// A batch the server does not hold (abandoned after idling, a gap) was committed.
    pub const ATOMIC_PUBLISH_INCOMPLETE_BATCH: ErrorCode = ErrorCode(10176);
    /// A header batches do not support (`Nats-Expected-Last-Msg-Id`).
    pub const ATOMIC_PUBLISH_UNSUPPORTED_HEADER: ErrorCode = ErrorCode(10177);
    /// A `Nats-Batch-Id` longer than 64 characters.
    pub const ATOMIC_PUBLISH_INVALID_BATCH_ID: ErrorCode = ErrorCode(10179);
    /// 10185: required api level.
    pub const REQUIRED_API_LEVEL: ErrorCode = ErrorCode(10185);
    /// A schedule, or its cancellation, on a stream without `allow_msg_schedules`.
    pub const MESSAGE_SCHEDULES_DISABLED: ErrorCode = ErrorCode(10188);
    /// A schedule pattern the server cannot read (`Nats-Schedule`).
    pub const MESSAGE_SCHEDULES_PATTERN_INVALID: ErrorCode = ErrorCode(10189);
    /// A schedule target that is not a literal subject of the stream.
    pub const MESSAGE_SCHEDULES_TARGET_INVALID: ErrorCode = ErrorCode(10190);
    /// A schedule's `Nats-Schedule-TTL` the server refuses.
    pub const MESSAGE_SCHEDULES_TTL_INVALID: ErrorCode = ErrorCode(10191);
    /// A schedule's `Nats-Schedule-Rollup` other than `sub`.
    pub const MESSAGE_SCHEDULES_ROLLUP_INVALID: ErrorCode = ErrorCode(10192);
    /// More messages in a batch than the server's `max_msgs` (1000 by default).
    pub const ATOMIC_PUBLISH_TOO_LARGE_BATCH: ErrorCode = ErrorCode(10199);
    /// A `Nats-Batch-Commit` value the server does not know.
    pub const ATOMIC_PUBLISH_INVALID_BATCH_COMMIT: ErrorCode = ErrorCode(10200);
    /// A batch holding a message id the stream already has, or twice.
    pub const ATOMIC_PUBLISH_DUPLICATE_MESSAGE_ID: ErrorCode = ErrorCode(10201);
    /// A schedule's `Nats-Schedule-Source` that is not a literal subject.
    pub const MESSAGE_SCHEDULES_SOURCE_INVALID: ErrorCode = ErrorCode(10203);
    /// A consumer reset to a sequence its deliver policy does not allow (ADR-60).
    pub const CONSUMER_INVALID_RESET: ErrorCode = ErrorCode(10204);
    /// More open batches on the stream (50) or the server (1000) than allowed (status 429).
    pub const ATOMIC_PUBLISH_TOO_MANY_INFLIGHT: ErrorCode = ErrorCode(10210);
    /// 10205: a fast batch to a stream without `allow_batched`.
    pub const FAST_BATCH_DISABLED: ErrorCode = ErrorCode(10205);
    /// 10208: a fast batch the server does not know (abandoned or ended).
    pub const FAST_BATCH_UNKNOWN_ID: ErrorCode = ErrorCode(10208);
    /// A cancellation whose `Nats-Scheduler` is empty, invalid or its own subject.
    pub const MESSAGE_SCHEDULES_SCHEDULER_INVALID: ErrorCode = ErrorCode(10212);
    /// A schedule's `Nats-Schedule-Time-Zone` the server does not know.
    pub const MESSAGE_SCHEDULES_TIME_ZONE_INVALID: ErrorCode = ErrorCode(10223);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An error returned by the JetStream API.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct JetStreamError {
    /// HTTP-like status: 400, 404, 503…
    pub code: u16,
    /// The server's error code (`err_code`), to match on: the constants of [`ErrorCode`].
    pub err_code: ErrorCode,
    /// The server's description, for people.
    pub description: String,
}

impl JetStreamError {
    /// The status, as async-nats's `jetstream::Error::code`.
    pub fn code(&self) -> usize {
        self.code.into()
    }

    /// The error number, as async-nats's `jetstream::Error::error_code`.
    pub fn error_code(&self) -> ErrorCode {
        self.err_code
    }

    /// The error number, as async-nats's `jetstream::Error::kind`.
    pub fn kind(&self) -> ErrorCode {
        self.err_code
    }

    /// Whether the server's optimistic-concurrency check refused a publish
    /// (`Nats-Expected-Last-*`); R1 and R>1 streams report it differently.
    pub fn is_wrong_last_sequence(&self) -> bool {
        self.err_code.is_wrong_last_sequence()
    }
}

impl fmt::Display for JetStreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {}, err_code {})", self.description, self.code, self.err_code)
    }
}

impl From<JetStreamError> for Error {
    fn from(e: JetStreamError) -> Self {
        Error::JetStream(e)
    }
}

/// Looks only at the top-level `error` key; every other key is skipped.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug))]
struct ErrorProbe {
    error: Option<JetStreamError>,
}

/// [`Error::JetStream`] when a JetStream API reply is the server's error
/// envelope. One small parser for every call, whatever its reply type, so
/// replies kept as JSON text are checked without parsing the rest.
pub fn check_response(payload: &[u8]) -> Result<(), Error> {
    // Most replies carry no error: skip the probe unless the key can be there.
    if memchr::memchr_iter(b'"', payload).any(|at| payload[at..].starts_with(b"\"error\"")) {
        // An `error` that is no error envelope is no success either: the
        // reply's own type, its fields defaulted, might read it as one.
        match plain_json::from_slice(payload) {
            Ok(ErrorProbe { error: Some(e) }) => return Err(Error::JetStream(e)),
            Ok(ErrorProbe { error: None }) => {}
            Err(e) => return Err(bad_response(&e)),
        }
    }
    Ok(())
}

/// Parses a JetStream API reply: the typed response, [`Error::JetStream`] when
/// the server sent an error, or [`Error::Protocol`] for JSON that fits neither.
pub fn parse_response<T: DeserializeOwned>(payload: &[u8]) -> Result<T, Error> {
    check_response(payload)?;
    parse_checked(payload)
}

/// [`parse_response`] for a plain type (see [`plain_json`]): publish acks.
pub(crate) fn parse_plain_response<T: DeserializeOwned>(payload: &[u8]) -> Result<T, Error> {
    check_response(payload)?;
    parse_checked_plain(payload)
}

/// Parses a reply [`check_response`] has passed.
pub(crate) fn parse_checked<T: DeserializeOwned>(payload: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(object(payload)?).map_err(|e| bad_response(&e))
}

/// [`parse_checked`] for a plain type (see [`plain_json`]).
pub(crate) fn parse_checked_plain<T: DeserializeOwned>(payload: &[u8]) -> Result<T, Error> {
    plain_json::from_slice(payload).map_err(|e| bad_response(&e))
}

/// Every API reply is a JSON object; serde would read an array into a
/// struct, a field per element (plain JSON checks it by itself).
fn object(payload: &[u8]) -> Result<&[u8], Error> {
    match payload.trim_ascii_start().first() {
        Some(b'{') => Ok(payload),
        _ => Err(bad_response(&"not a JSON object")),
    }
}

pub(crate) fn bad_response(e: &dyn fmt::Display) -> Error {
    Error::Protocol(ProtocolError::ApiResponse(format!("bad JetStream API response: {e}")))
}

/// Parses a reply that carries nothing but success or an error.
pub fn parse_empty_response(payload: &[u8]) -> Result<(), Error> {
    parse_plain_response::<IgnoredAny>(payload).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::jetstream::api::PublishAck;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn replies_that_are_no_reply_are_refused() {
        // An array would read as a struct, field by field; an error that
        // is no envelope would read as a reply with every field defaulted.
        for body in [&b"[1,2,3]"[..], b" 7", br#"{"error":{"code":"x"}}"#, br#"{"error":"x"}"#] {
            let err = parse_response::<AccountInfoProbe>(body).unwrap_err();
            assert!(
                matches!(&err, Error::Protocol(ProtocolError::ApiResponse(text)) if text.starts_with("bad JetStream API response")),
                "{err:?}"
            );
            assert_eq!(parse_plain_response::<AccountInfoProbe>(body).unwrap_err(), err);
        }
        assert_eq!(parse_response::<AccountInfoProbe>(br#" {"memory":1,"error":null}"#).unwrap().memory, 1);
    }

    #[derive(Debug, Deserialize)]
    struct AccountInfoProbe {
        #[serde(default)]
        memory: u64,
    }

    #[test]
    fn error_envelope_becomes_jetstream_error() {
        let body = br#"{"type":"io.nats.jetstream.api.v1.stream_info_response","error":{"code":404,"err_code":10059,"description":"stream not found"}}"#;
        let err = parse_response::<PublishAck>(body).unwrap_err();
        let expected =
            JetStreamError { code: 404, err_code: ErrorCode::STREAM_NOT_FOUND, description: "stream not found".into() };
        assert_eq!(err, Error::JetStream(expected.clone()));
        assert_eq!(err.to_string(), "JetStream API error: stream not found (code 404, err_code 10059)");
        assert_eq!(parse_empty_response(body), Err(Error::JetStream(expected)));
    }

    #[test]
    fn error_envelopes_read_alike_in_wasm() {
        for json in [
            &br#"{"type":"t","error":{"code":404,"err_code":10059,"description":"stream not found"}}"#[..],
            br#"{"error":{"code":400,"description":"bad \"subject\" \u003e"},"config":{"a":[1,{"b":2}]}}"#,
            br#"{"error":null,"total":1}"#,
            br#"{"errors":1}"#,
            br#"{"stream":"S","seq":1}"#,
            br#"{"error":"string"}"#,
        ] {
            crate::core::plain_json::assert_same::<ErrorProbe>(json);
        }
        crate::core::plain_json::assert_same::<IgnoredAny>(br#"{"success":true,"x":[{"y":null}]}"#);
    }

    #[test]
    fn codes_of_common_errors() {
        let cases: &[(&[u8], u16, ErrorCode)] = &[
            (
                br#"{"error":{"code":404,"err_code":10014,"description":"consumer not found"}}"#,
                404,
                ErrorCode::CONSUMER_NOT_FOUND,
            ),
            (
                br#"{"error":{"code":400,"err_code":10148,"description":"consumer already exists"}}"#,
                400,
                ErrorCode::CONSUMER_ALREADY_EXISTS,
            ),
            (
                br#"{"error":{"code":400,"err_code":10013,"description":"consumer name already in use"}}"#,
                400,
                ErrorCode::CONSUMER_NAME_EXIST,
            ),
            (
                br#"{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 7"}}"#,
                400,
                ErrorCode::STREAM_WRONG_LAST_SEQUENCE,
            ),
            (
                br#"{"error":{"code":400,"err_code":10070,"description":"wrong last msg ID: a"}}"#,
                400,
                ErrorCode::STREAM_WRONG_LAST_MESSAGE_ID,
            ),
            (
                br#"{"error":{"code":404,"err_code":10037,"description":"no message found"}}"#,
                404,
                ErrorCode::NO_MESSAGE_FOUND,
            ),
            (
                br#"{"error":{"code":503,"err_code":10076,"description":"JetStream not enabled"}}"#,
                503,
                ErrorCode::JETSTREAM_NOT_ENABLED,
            ),
        ];
        for (body, code, err_code) in cases {
            match parse_response::<PublishAck>(body) {
                Err(Error::JetStream(e)) => {
                    assert_eq!((e.code, e.err_code), (*code, *err_code));
                }
                other => panic!("{other:?}"),
            }
        }
        let e = JetStreamError { code: 400, err_code: ErrorCode(10164), description: "wrong last sequence".into() };
        assert!(e.is_wrong_last_sequence());
    }

    #[test]
    fn nested_error_keys_are_not_api_errors() {
        // A stream source's own error is data, not a failed call.
        let body = br#"{"stream":"S","seq":3,"val":"\"error\"","x":{"error":{"code":500}}}"#;
        let ack: PublishAck = parse_response(body).unwrap();
        assert_eq!(ack.sequence, 3);
        assert_eq!(parse_response::<PublishAck>(br#"{"error":null,"stream":"S","seq":1}"#).unwrap().sequence, 1);
    }

    #[test]
    fn replies_kept_as_text_are_checked_alone() {
        assert_eq!(check_response(br#"{"type":"x","config":{"name":"S"},"state":{}}"#), Ok(()));
        assert_eq!(check_response(br#"{"error":null}"#), Ok(()));
        assert_eq!(check_response(b"not json"), Ok(()), "only an error envelope is an error here");
        let err = check_response(br#"{"type":"x","error":{"code":503,"err_code":10039,"description":"nope"}}"#);
        assert!(matches!(err, Err(Error::JetStream(e)) if e.err_code == ErrorCode::JETSTREAM_NOT_ENABLED_FOR_ACCOUNT));
    }

    #[test]
    fn bad_json_is_a_protocol_error() {
        assert!(matches!(parse_response::<PublishAck>(b"not json"), Err(Error::Protocol(_))));
        assert!(matches!(parse_response::<PublishAck>(b""), Err(Error::Protocol(_))));
        assert!(matches!(parse_response::<PublishAck>(br#"{"error":"#), Err(Error::Protocol(_))));
    }
}
