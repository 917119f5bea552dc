//! NATS message headers: multi-valued, case-preserving, with an optional
//! status line (`NATS/1.0 408 Request Timeout`).

use std::fmt;

/// Header names and values in the order they were added. Names keep their
/// case; [`HeaderMap::get`] matches exactly, as nats.js and async-nats do, and
/// [`HeaderMap::get_ignore_case`] is there for servers or peers that vary case.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct HeaderMap {
    entries: Vec<(String, Vec<HeaderValue>)>,
}

impl HeaderMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// A map from entries already grouped by distinct name, in order. The
    /// wire parser groups with a hash index: calling [`HeaderMap::append`]
    /// per line would be quadratic in a hostile block of many names.
    pub(crate) fn from_grouped(entries: Vec<(String, Vec<HeaderValue>)>) -> Self {
        HeaderMap { entries }
    }

    /// Replaces every value of `name` with `value` (a string's CR and LF
    /// become spaces, as [`HeaderValue::from_lossy`] does).
    pub fn insert(&mut self, name: impl Into<String>, value: impl IntoHeaderValue) {
        let name = name.into();
        let value = value.into_header_value();
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some((_, values)) => *values = vec![value],
            None => self.entries.push((name, vec![value])),
        }
    }

    /// Adds `value` to the values of `name` (a string's CR and LF become spaces).
    pub fn append(&mut self, name: impl Into<String>, value: impl IntoHeaderValue) {
        let name = name.into();
        let value = value.into_header_value();
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some((_, values)) => values.push(value),
            None => self.entries.push((name, vec![value])),
        }
    }

    /// The first value of `name` (exact match).
    pub fn get(&self, name: impl AsRef<str>) -> Option<&HeaderValue> {
        self.values(name.as_ref()).first()
    }

    /// The last value of `name` (exact match).
    pub fn get_last(&self, name: impl AsRef<str>) -> Option<&HeaderValue> {
        self.values(name.as_ref()).last()
    }

    /// The first value of `name`, matching the name without regard to ASCII case.
    pub fn get_ignore_case(&self, name: impl AsRef<str>) -> Option<&HeaderValue> {
        let name = name.as_ref();
        self.entries.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).and_then(|(_, v)| v.first())
    }

    /// Every value of `name` (exact match), in order.
    pub fn get_all(&self, name: impl AsRef<str>) -> impl Iterator<Item = &HeaderValue> {
        self.values(name.as_ref()).iter()
    }

    fn values(&self, name: &str) -> &[HeaderValue] {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice()).unwrap_or_default()
    }

    /// Removes `name` and returns whether it was there.
    pub fn remove(&mut self, name: impl AsRef<str>) -> bool {
        let name = name.as_ref();
        let before = self.entries.len();
        self.entries.retain(|(n, _)| n != name);
        before != self.entries.len()
    }

    /// `(name, value)` pairs, one per value, in order (async-nats gives
    /// each name once with its values, in no order).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().flat_map(|(n, vs)| vs.iter().map(move |v| (n.as_str(), v.as_str())))
    }

    /// Whether the map holds no header.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

impl fmt::Debug for HeaderMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.entries.iter().map(|(n, v)| (n, v))).finish()
    }
}

impl<N: Into<String>, V: IntoHeaderValue> FromIterator<(N, V)> for HeaderMap {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Self {
        let mut map = HeaderMap::new();
        for (n, v) in iter {
            map.append(n, v);
        }
        map
    }
}

/// A header value, as async-nats 0.52 types it: it never holds CR or LF,
/// which would end its line on the wire. [`HeaderValue::try_from`] and
/// `parse` refuse a string holding them; [`HeaderValue::from_lossy`],
/// [`HeaderMap::insert`] and a received header turn them into spaces.
/// [`as_str`](Self::as_str) and `Display` read it; it compares equal to the
/// same `str`.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeaderValue(String);

impl HeaderValue {
    /// An empty value.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value with each CR and LF replaced by a space.
    pub fn from_lossy(value: &str) -> Self {
        HeaderValue(value.replace(['\r', '\n'], " "))
    }

    /// The value as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for HeaderValue {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for HeaderValue {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl AsRef<[u8]> for HeaderValue {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Display for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// A string refused as a [`HeaderValue`]: it holds CR or LF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseHeaderValueError;

impl fmt::Display for ParseHeaderValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid character found in header value (value cannot contain '\\r' or '\\n')")
    }
}

impl std::error::Error for ParseHeaderValueError {}

impl TryFrom<String> for HeaderValue {
    type Error = ParseHeaderValueError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        match value.contains(['\r', '\n']) {
            true => Err(ParseHeaderValueError),
            false => Ok(HeaderValue(value)),
        }
    }
}

impl TryFrom<&str> for HeaderValue {
    type Error = ParseHeaderValueError;
    fn try_from(value: &str) -> Result<Self, Self::Error> {
        value.parse()
    }
}

impl TryFrom<&String> for HeaderValue {
    type Error = ParseHeaderValueError;
    fn try_from(value: &String) -> Result<Self, Self::Error> {
        value.parse()
    }
}

impl std::str::FromStr for HeaderValue {
    type Err = ParseHeaderValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HeaderValue::try_from(s.to_string())
    }
}

/// Numbers as header values (`HeaderValue::from(sequence)`).
macro_rules! header_value_from_numbers {
    ($($number:ty),*) => {
        $(impl From<$number> for HeaderValue {
            fn from(value: $number) -> Self {
                HeaderValue(value.to_string())
            }
        })*
    };
}

header_value_from_numbers!(i16, i32, i64, isize, u16, u32, u64, usize);

/// What [`HeaderMap::insert`] and [`HeaderMap::append`] take: a
/// [`HeaderValue`], or a string whose CR and LF become spaces.
pub trait IntoHeaderValue {
    /// The header value.
    fn into_header_value(self) -> HeaderValue;
}

impl IntoHeaderValue for HeaderValue {
    fn into_header_value(self) -> HeaderValue {
        self
    }
}

impl IntoHeaderValue for &str {
    fn into_header_value(self) -> HeaderValue {
        HeaderValue::from_lossy(self)
    }
}

impl IntoHeaderValue for String {
    fn into_header_value(self) -> HeaderValue {
        match self.contains(['\r', '\n']) {
            true => HeaderValue::from_lossy(&self),
            false => HeaderValue(self),
        }
    }
}

impl From<HeaderValue> for String {
    fn from(value: HeaderValue) -> Self {
        value.0
    }
}

impl PartialEq<str> for HeaderValue {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for HeaderValue {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// A header name, as async-nats types its constants ([`NATS_MESSAGE_ID`]…):
/// it goes wherever a name does (`insert`, `get`) and reads as the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeaderName(&'static str);

impl HeaderName {
    /// A name for a header not among the constants.
    pub const fn from_static(name: &'static str) -> Self {
        HeaderName(name)
    }

    /// The name as a string.
    pub const fn as_str(&self) -> &'static str {
        self.0
    }
}

impl AsRef<str> for HeaderName {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl fmt::Display for HeaderName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl From<HeaderName> for String {
    fn from(name: HeaderName) -> Self {
        name.0.to_string()
    }
}

impl PartialEq<str> for HeaderName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for HeaderName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// The headers NATS and JetStream define, under async-nats's names.
macro_rules! header_names {
    ($($(#[$doc:meta])* $name:ident = $text:literal;)*) => {
        $($(#[$doc])* #[doc = ""] #[doc = concat!("The `", $text, "` header.")] pub const $name: HeaderName = HeaderName::from_static($text);)*
    };
}

header_names! {
    /// The stream a message came from (republished and direct-get messages).
    NATS_STREAM = "Nats-Stream";
    NATS_SEQUENCE = "Nats-Sequence";
    NATS_TIME_STAMP = "Nats-Time-Stamp";
    NATS_SUBJECT = "Nats-Subject";
    /// The id the stream de-duplicates on.
    NATS_MESSAGE_ID = "Nats-Msg-Id";
    NATS_LAST_STREAM = "Nats-Last-Stream";
    NATS_LAST_CONSUMER = "Nats-Last-Consumer";
    NATS_LAST_SEQUENCE = "Nats-Last-Sequence";
    NATS_EXPECTED_LAST_SUBJECT_SEQUENCE = "Nats-Expected-Last-Subject-Sequence";
    /// The subject (wildcards allowed) whose last sequence
    /// `Nats-Expected-Last-Subject-Sequence` checks, instead of the message's own.
    NATS_EXPECTED_LAST_SUBJECT_SEQUENCE_SUBJECT = "Nats-Expected-Last-Subject-Sequence-Subject";
    NATS_EXPECTED_LAST_MESSAGE_ID = "Nats-Expected-Last-Msg-Id";
    NATS_EXPECTED_LAST_SEQUENCE = "Nats-Expected-Last-Sequence";
    NATS_EXPECTED_STREAM = "Nats-Expected-Stream";
    /// A message's own time to live (server 2.11).
    NATS_MESSAGE_TTL = "Nats-TTL";
    NATS_MARKER_REASON = "Nats-Marker-Reason";
    NATS_ROLLUP = "Nats-Rollup";
    NATS_SCHEDULE = "Nats-Schedule";
    NATS_SCHEDULE_TARGET = "Nats-Schedule-Target";
    NATS_SCHEDULE_TTL = "Nats-Schedule-TTL";
    NATS_SCHEDULE_SOURCE = "Nats-Schedule-Source";
    NATS_SCHEDULE_TIME_ZONE = "Nats-Schedule-Time-Zone";
    NATS_SCHEDULE_ROLLUP = "Nats-Schedule-Rollup";
    NATS_SCHEDULER = "Nats-Scheduler";
    NATS_SCHEDULE_NEXT = "Nats-Schedule-Next";
    /// Atomic batch publish (ADR-50).
    NATS_BATCH_ID = "Nats-Batch-Id";
    NATS_BATCH_SEQUENCE = "Nats-Batch-Sequence";
    NATS_BATCH_COMMIT = "Nats-Batch-Commit";
    NATS_REQUIRED_API_LEVEL = "Nats-Required-Api-Level";
    /// A counter increment (ADR-49): a decimal integer, signed or not.
    NATS_INCR = "Nats-Incr";
    /// The totals a counter last took from each of its sources (ADR-49), JSON.
    NATS_COUNTER_SOURCES = "Nats-Counter-Sources";
    /// The pinned client of a priority group (ADR-42).
    NATS_PIN_ID = "Nats-Pin-Id";
}

/// A NATS status code from the header status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StatusCode(pub u16);

impl StatusCode {
    /// 100: an idle heartbeat or a flow-control request.
    pub const IDLE_HEARTBEAT: StatusCode = StatusCode(100);
    /// 200.
    pub const OK: StatusCode = StatusCode(200);
    /// 204: the end of a batched direct get.
    pub const EOB: StatusCode = StatusCode(204);
    /// 400: the request was malformed.
    pub const BAD_REQUEST: StatusCode = StatusCode(400);
    /// 404: no messages (a `no_wait` pull), or no such message.
    pub const NOT_FOUND: StatusCode = StatusCode(404);
    /// 408: a pull request expired.
    pub const REQUEST_TIMEOUT: StatusCode = StatusCode(408);
    /// 409: a pull ended or a consumer changed (`Consumer Deleted`, `Batch Completed`…).
    pub const CONFLICT: StatusCode = StatusCode(409);
    /// 412: the server's API level is too low for the request.
    pub const PRECONDITION_FAILED: StatusCode = StatusCode(412);
    /// 413: the request asked for too much.
    pub const TOO_LARGE: StatusCode = StatusCode(413);
    /// 423: the pin of a priority group is someone else's.
    pub const LOCKED: StatusCode = StatusCode(423);
    /// 503: nobody listens on the request's subject.
    pub const NO_RESPONDERS: StatusCode = StatusCode(503);
}

/// async-nats's readers of a status code.
impl StatusCode {
    /// The code as a number.
    pub fn as_u16(&self) -> u16 {
        self.0
    }

    /// 100 to 199.
    pub fn is_informational(&self) -> bool {
        (100..200).contains(&self.0)
    }

    /// 200 to 299.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.0)
    }

    /// 300 to 399.
    pub fn is_redirection(&self) -> bool {
        (300..400).contains(&self.0)
    }

    /// 400 to 499.
    pub fn is_client_error(&self) -> bool {
        (400..500).contains(&self.0)
    }

    /// 500 to 599.
    pub fn is_server_error(&self) -> bool {
        (500..600).contains(&self.0)
    }
}

impl From<StatusCode> for u16 {
    fn from(code: StatusCode) -> u16 {
        code.0
    }
}

impl PartialEq<u16> for StatusCode {
    fn eq(&self, other: &u16) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for StatusCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn multi_valued_and_case_preserving() {
        let mut h = HeaderMap::new();
        h.append("X-Key", "a");
        h.append("X-Key", "b");
        h.append("x-key", "c");
        assert_eq!(h.get_all("X-Key").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(h.get("x-key").map(HeaderValue::as_str), Some("c"));
        assert_eq!(h.get_ignore_case("X-KEY").map(HeaderValue::as_str), Some("a"));
        h.insert("X-Key", "z");
        assert_eq!(h.get_all("X-Key").collect::<Vec<_>>(), ["z"]);
        assert_eq!(h.iter().count(), 2);
        assert!(h.remove("x-key"));
        assert_eq!(h.len(), 1);
    }

    #[test]
    fn values_and_names_read_as_async_nats_types_do() {
        let mut h = HeaderMap::new();
        h.insert(NATS_MESSAGE_ID, "m-1");
        h.append("X-Key", "a");
        h.append("X-Key", "b");
        assert_eq!(h.get("Nats-Msg-Id").unwrap().as_str(), "m-1");
        assert_eq!(h.get(NATS_MESSAGE_ID).unwrap().to_string(), "m-1");
        assert_eq!(*h.get_last("X-Key").unwrap(), "b");
        assert_eq!(NATS_MESSAGE_ID, "Nats-Msg-Id");
    }

    #[test]
    fn values_never_hold_a_line_break() {
        assert_eq!(HeaderValue::try_from("a\nb"), Err(ParseHeaderValueError));
        assert_eq!(HeaderValue::try_from("a\rb".to_string()), Err(ParseHeaderValueError));
        assert_eq!("x\r\n".parse::<HeaderValue>(), Err(ParseHeaderValueError));
        assert_eq!(HeaderValue::try_from(&"ok".to_string()).unwrap(), "ok");
        assert_eq!(HeaderValue::from_lossy("a\r\nb"), "a  b");
        assert_eq!(HeaderValue::from(7u64), "7");
        let mut h = HeaderMap::new();
        h.insert("A", "v\r\nPUB x 0\r\n");
        h.append("B", "1\n2".to_string());
        assert_eq!(h.iter().collect::<Vec<_>>(), [("A", "v  PUB x 0  "), ("B", "1 2")]);
    }
}
