//! Subjects: their type, as async-nats shapes it, and their validation.
//!
//! Validation runs before a byte is written: a subject holding whitespace, CR or LF could
//! otherwise inject a protocol line, and an empty token would be refused by
//! the server only after the fact.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::str::Utf8Error;

use bytes::Bytes;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::core::error::Error;

/// A subject: an immutable UTF-8 string in [`Bytes`], shaped like
/// async-nats's `Subject`. Cheap to clone; a delivered message's subject and
/// reply share the read buffer, as its payload does, instead of costing an
/// allocation each. Reads as a `str` (`as_str`, `&*s`, `==`, `format!`).
///
/// Like a payload, one kept long after its message keeps that part of the
/// read buffer; `Subject::from(s.as_str())` is a copy of its own.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Subject {
    /// Always valid UTF-8: every constructor checks it or takes a `str`.
    bytes: Bytes,
}

impl Subject {
    /// A subject of a static string, without a copy.
    pub const fn from_static(subject: &'static str) -> Self {
        Subject { bytes: Bytes::from_static(subject.as_bytes()) }
    }

    /// A subject of bytes that must be UTF-8, without a copy.
    pub fn from_utf8(bytes: impl Into<Bytes>) -> Result<Self, Utf8Error> {
        let bytes = bytes.into();
        std::str::from_utf8(&bytes)?;
        Ok(Subject { bytes })
    }

    /// The subject as a `&str`.
    pub fn as_str(&self) -> &str {
        self
    }

    /// The subject as a `String` (a copy: the bytes may be shared).
    pub fn into_string(self) -> String {
        self.as_str().to_owned()
    }

    /// A subject that passes the checks a publish makes ([`validate_subject`]:
    /// not empty, no whitespace or control character, no empty token), as
    /// async-nats's `Subject::validated`. Its rules also refuse control
    /// characters, which the server would take but no subject means.
    pub fn validated(subject: impl AsRef<str>) -> Result<Subject, SubjectError> {
        let subject = subject.as_ref();
        check(subject, true).map_err(|_| SubjectError::InvalidFormat)?;
        Ok(Subject::from(subject))
    }

    /// Whether the subject passes [`Subject::validated`]'s checks.
    pub fn is_valid(&self) -> bool {
        check(self, true).is_ok()
    }

    /// A subject of a static string checked at compile time when made in a
    /// `const`, by [`Subject::validated`]'s rules: a bad one fails the build
    /// (elsewhere it panics).
    pub const fn from_static_validated(subject: &'static str) -> Self {
        let bytes = subject.as_bytes();
        if bytes.is_empty() {
            panic!("subject cannot be empty");
        }
        let mut i = 0;
        while i < bytes.len() {
            if is_forbidden(bytes[i]) {
                panic!("subject cannot contain whitespace or control characters");
            }
            let dot = bytes[i] == b'.';
            if dot && (i == 0 || i + 1 == bytes.len() || bytes[i + 1] == b'.') {
                panic!("subject cannot have an empty token");
            }
            i += 1;
        }
        Subject::from_static(subject)
    }
}

/// Why [`Subject::validated`] refused a subject, as async-nats's
/// `SubjectError` (natsjet's own calls say why in
/// [`Error::InvalidSubject`]'s `reason`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubjectError {
    /// Empty, or a whitespace or control character, or an empty token.
    InvalidFormat,
}

impl fmt::Display for SubjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubjectError::InvalidFormat => f.write_str("invalid subject format"),
        }
    }
}

impl std::error::Error for SubjectError {}

/// `?` on [`Subject::validated`] in a program whose errors are natsjet's.
impl From<SubjectError> for Error {
    fn from(e: SubjectError) -> Self {
        Error::InvalidArgument(e.to_string())
    }
}

impl Deref for Subject {
    type Target = str;

    fn deref(&self) -> &str {
        // SAFETY: `bytes` is UTF-8, checked or taken from a `str` when the
        // subject was made, and immutable since.
        unsafe { std::str::from_utf8_unchecked(&self.bytes) }
    }
}

impl From<&str> for Subject {
    fn from(subject: &str) -> Self {
        Subject { bytes: Bytes::copy_from_slice(subject.as_bytes()) }
    }
}

impl From<String> for Subject {
    fn from(subject: String) -> Self {
        Subject { bytes: Bytes::from(subject.into_bytes()) }
    }
}

/// For APIs that take `impl Into<String>`, which a `Subject` passed when it
/// was a `String`.
impl From<Subject> for String {
    fn from(subject: Subject) -> String {
        subject.into_string()
    }
}

/// The subject's bytes, without a copy (a `String` converts to `Bytes` too).
impl From<Subject> for Bytes {
    fn from(subject: Subject) -> Bytes {
        subject.bytes
    }
}

impl TryFrom<Bytes> for Subject {
    type Error = Utf8Error;

    fn try_from(bytes: Bytes) -> Result<Self, Utf8Error> {
        Subject::from_utf8(bytes)
    }
}

impl AsRef<str> for Subject {
    fn as_ref(&self) -> &str {
        self
    }
}

/// Sound: equality, order and hash are those of the `str`.
impl Borrow<str> for Subject {
    fn borrow(&self) -> &str {
        self
    }
}

/// As the `str` hashes, so that a `HashMap<Subject, _>` can be read with a
/// `&str` (`Borrow<str>`).
impl Hash for Subject {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// `Subject == str`, `&str` and `String` and the other way around, as a
/// `String` compares.
macro_rules! eq_str {
    ($($other:ty),*) => {$(
        impl PartialEq<$other> for Subject {
            fn eq(&self, other: &$other) -> bool {
                self.as_str() == &other[..]
            }
        }
        impl PartialEq<Subject> for $other {
            fn eq(&self, other: &Subject) -> bool {
                &self[..] == other.as_str()
            }
        }
    )*};
}
eq_str!(str, &str, String);

impl Serialize for Subject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for Subject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Subject::from)
    }
}

/// Checks a subject used to publish: non-empty, no whitespace or control
/// characters, no empty tokens. Wildcards are allowed (the server decides).
pub fn validate_subject(subject: &str) -> Result<(), Error> {
    check(subject, true)
}

/// Checks a subject a message is published to, or its reply: with
/// `framing_only` (async-nats's `skip_subject_validation`) only what keeps
/// the protocol line whole (not empty, no whitespace or control
/// character), otherwise [`validate_subject`]'s rules.
pub fn validate_publish_subject(subject: &str, framing_only: bool) -> Result<(), Error> {
    check(subject, !framing_only)
}

/// Checks a subject used to subscribe; same rules, plus `>` only as last token
/// and wildcards only as whole tokens.
pub fn validate_subscribe_subject(subject: &str) -> Result<(), Error> {
    check(subject, true)?;
    let mut tokens = subject.split('.').peekable();
    while let Some(token) = tokens.next() {
        if token.len() > 1 && (token.contains('*') || token.contains('>')) {
            return Err(invalid(subject, "wildcards must be whole tokens"));
        }
        if token == ">" && tokens.peek().is_some() {
            return Err(invalid(subject, "'>' must be the last token"));
        }
    }
    Ok(())
}

/// Checks a queue group name: non-empty, no whitespace or control characters.
pub fn validate_queue(queue: &str) -> Result<(), Error> {
    if queue.is_empty() {
        return Err(invalid(queue, "empty queue group"));
    }
    if queue.bytes().any(is_forbidden) {
        return Err(invalid(queue, "whitespace or control character in a queue group"));
    }
    Ok(())
}

/// Runs for every publish and every ack (whose subjects are some 60 bytes):
/// a byte at a time took a sixth of a durable drain's client instructions.
/// `tokens`: empty tokens are refused too.
fn check(subject: &str, tokens: bool) -> Result<(), Error> {
    let bytes = subject.as_bytes();
    if bytes.is_empty() {
        return Err(invalid(subject, "empty subject"));
    }
    // Natively the folds become SIMD; the npm package's wasm has no SIMD, so
    // there words of eight bytes are faster (a 60-byte ack subject 62 -> 21 ns
    // in Node) while natively they cost 1% more instructions per drained message.
    let (forbidden, empty_token) = if cfg!(target_arch = "wasm32") { scan_words(bytes) } else { scan_folds(bytes) };
    if forbidden {
        return Err(invalid(subject, "whitespace or control character"));
    }
    if tokens && empty_token {
        return Err(invalid(subject, "empty token"));
    }
    Ok(())
}

/// Whether a non-empty subject has a forbidden byte, and an empty token, in
/// folds without an early exit.
fn scan_folds(bytes: &[u8]) -> (bool, bool) {
    let forbidden = bytes.iter().fold(false, |any, &b| any | is_forbidden(b));
    // A token is empty where a dot starts or ends the subject or follows a dot.
    let double_dot = bytes.iter().zip(&bytes[1..]).fold(false, |any, (&a, &b)| any | ((a == b'.') & (b == b'.')));
    let empty_token = bytes.first() == Some(&b'.') || bytes.last() == Some(&b'.') || double_dot;
    (forbidden, empty_token)
}

/// As `scan_folds`, eight bytes at a time.
fn scan_words(bytes: &[u8]) -> (bool, bool) {
    let mut words = bytes.chunks_exact(8);
    let mut forbidden = false;
    // `previous_dot` starts true so that a leading dot is an empty token.
    let mut previous_dot = true;
    let mut empty_token = false;
    for word in &mut words {
        // Always 8 bytes: the default is never taken.
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        forbidden |= has_forbidden(word);
        let dots = dots(word);
        empty_token |= dots & (dots << 8) != 0 || previous_dot && dots & 0x80 != 0;
        previous_dot = dots >> 63 != 0;
    }
    for &b in words.remainder() {
        forbidden |= is_forbidden(b);
        empty_token |= b == b'.' && previous_dot;
        previous_dot = b == b'.';
    }
    (forbidden, empty_token || previous_dot)
}

const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const HIGHS: u64 = ONES * 0x80;

/// Whether a byte of `word` is at most a space, or DEL (exact: the borrows
/// of `x - ONES * n` only go past a byte already below `n`).
fn has_forbidden(word: u64) -> bool {
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS;
    below(word, 0x21) | below(word ^ (ONES * 0x7f), 1) != 0
}

/// The high bit of each byte of `word` that is a dot, and no other bit.
fn dots(word: u64) -> u64 {
    let x = word ^ (ONES * u64::from(b'.'));
    !((((x & !HIGHS) + !HIGHS) | x) & HIGHS) & HIGHS
}

/// ASCII whitespace or control: every such byte is at most a space, or DEL.
const fn is_forbidden(b: u8) -> bool {
    b <= b' ' || b == 0x7f
}

fn invalid(subject: &str, reason: &'static str) -> Error {
    Error::InvalidSubject { subject: subject.to_string(), reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_subject_reads_compares_and_hashes_as_its_str() {
        use std::collections::{BTreeSet, HashSet};
        let subject = Subject::from("orders.new");
        let others = [Subject::from_static("orders.new"), Subject::from(String::from("orders.new"))];
        assert!(others.iter().all(|other| *other == subject));
        let text = String::from("orders.new");
        // Each way, with `&str`, `str` and `String`.
        assert!(subject == "orders.new");
        assert!("orders.new" == subject);
        assert!(subject == *"orders.new");
        assert!(*"orders.new" == subject);
        assert!(subject == text);
        assert!(text == subject);
        assert_eq!((subject.as_str(), &*subject, subject.len()), ("orders.new", "orders.new", 10));
        assert_eq!(
            (format!("{subject}"), format!("{subject:?}")),
            ("orders.new".into(), format!("{:?}", "orders.new"))
        );
        assert_eq!(
            (String::from(subject.clone()), Bytes::from(subject.clone())),
            ("orders.new".into(), "orders.new".into())
        );
        // `Borrow<str>`: sets of subjects are read with a `&str`.
        assert!(HashSet::from([subject.clone()]).contains("orders.new"));
        assert!(BTreeSet::from([subject.clone(), "a".into(), "z".into()]).contains("orders.new"));
        let mut sorted = vec![Subject::from("b"), "a.z".into(), "a".into()];
        sorted.sort();
        assert_eq!(sorted, ["a", "a.z", "b"]);
        assert_eq!(serde_json::to_string(&subject).unwrap(), r#""orders.new""#);
        assert_eq!(serde_json::from_str::<Subject>(r#""orders.new""#).unwrap(), subject);
        assert_eq!(Subject::default(), "");
    }

    #[test]
    fn bytes_become_a_subject_only_as_utf8() {
        assert_eq!(Subject::from_utf8(Bytes::from_static(b"a.b")).unwrap(), "a.b");
        assert!(Subject::try_from(Bytes::from_static(b"a\xffb")).is_err());
    }

    #[test]
    fn accepts_ordinary_subjects() {
        for s in ["a", "foo.bar", "$JS.API.INFO", "_INBOX.abc.*", "a.>", "*.b"] {
            validate_subject(s).unwrap();
            validate_subscribe_subject(s).unwrap();
        }
    }

    #[test]
    fn forbidden_bytes_are_ascii_whitespace_and_controls() {
        for b in 0..=u8::MAX {
            assert_eq!(is_forbidden(b), b.is_ascii_whitespace() || b.is_ascii_control(), "{b}");
        }
    }

    #[test]
    fn refuses_injection_and_empty_tokens() {
        for s in ["", "a b", "a\r\nPUB x 1", "a\tb", "a..b", ".a", "a.", "a\0b"] {
            assert!(matches!(validate_subject(s), Err(Error::InvalidSubject { .. })), "{s:?}");
        }
    }

    #[test]
    fn every_byte_of_a_long_subject_is_checked() {
        let reason = |bytes: &[u8]| match validate_subject(std::str::from_utf8(bytes).expect("ascii")) {
            Err(Error::InvalidSubject { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        let long = b"a".repeat(100);
        validate_subject(std::str::from_utf8(&long).expect("ascii")).unwrap();
        for i in 0..long.len() {
            let mut bad = long.clone();
            bad[i] = 0x7f;
            assert_eq!(reason(&bad), "whitespace or control character", "at {i}");
            if i > 0 {
                bad[i - 1] = b'.';
                assert_eq!(reason(&bad), "whitespace or control character", "whitespace is named first, at {i}");
                bad[i] = b'.';
                assert_eq!(reason(&bad), "empty token", "at {i}");
            }
        }
    }

    #[test]
    fn both_scans_follow_the_rules_byte_by_byte() {
        // Every byte at every offset of a subject across two words and a
        // remainder, and dots meeting across the words' edges.
        let base = b"abcdefghijklmnopqrs";
        let agree = |bytes: &[u8]| {
            let expected = scan_bytewise(bytes);
            assert_eq!(scan_words(bytes), expected, "words: {bytes:?}");
            assert_eq!(scan_folds(bytes), expected, "folds: {bytes:?}");
        };
        for at in 0..base.len() {
            for b in 0..=u8::MAX {
                let mut subject = base.to_vec();
                subject[at] = b;
                agree(&subject);
                subject[(at + 1) % base.len()] = b'.';
                agree(&subject);
            }
        }
        for s in [
            "a",
            ".",
            "a.b.c.d.e.f.g.h.i",
            "abcdefg..",
            "abcdefgh.",
            ".abcdefgh",
            "abcdefg..hijklmno",
            "abcdefgh\x7fx",
            "abcdefé.ñ.ÿÿÿÿ.😀😀",
            "ÿÿÿÿÿÿÿÿ ÿ",
        ] {
            agree(s.as_bytes());
        }
    }

    /// The rules byte by byte: (a forbidden byte, an empty token).
    fn scan_bytewise(bytes: &[u8]) -> (bool, bool) {
        (bytes.iter().any(|&b| is_forbidden(b)), bytes.split(|&b| b == b'.').any(<[u8]>::is_empty))
    }

    #[test]
    fn validated_subjects_follow_the_publish_rules() {
        assert_eq!(Subject::validated("events.data").unwrap(), "events.data");
        assert_eq!(Subject::validated(String::from("a.*.>")).unwrap(), "a.*.>");
        for bad in ["", "invalid subject", ".invalid", "a.", "a..b", "a\r\nb", "a\tb", "a\0b"] {
            assert_eq!(Subject::validated(bad), Err(SubjectError::InvalidFormat), "{bad:?}");
            assert!(!Subject::from(bad).is_valid(), "{bad:?}");
        }
        assert!(Subject::from("a.b").is_valid());
        assert_eq!(SubjectError::InvalidFormat.to_string(), "invalid subject format");
        assert!(matches!(Error::from(SubjectError::InvalidFormat), Error::InvalidArgument(_)));
        const CHECKED: Subject = Subject::from_static_validated("events.data");
        assert_eq!(CHECKED, "events.data");
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn a_static_subject_is_checked_when_made() {
        for bad in ["", "a b", ".a", "a.", "a..b", "a\x7f"] {
            let made = std::panic::catch_unwind(|| Subject::from_static_validated(bad));
            assert!(made.is_err(), "{bad:?}");
        }
    }

    #[test]
    fn framing_only_publish_checks_keep_the_line_whole() {
        for s in ["a..b", ".a", "a.", "."] {
            validate_publish_subject(s, true).unwrap();
            assert!(validate_publish_subject(s, false).is_err(), "{s:?}");
        }
        for s in ["", "a b", "a\r\nPUB x 1", "a\tb", "a\0b"] {
            assert!(matches!(validate_publish_subject(s, true), Err(Error::InvalidSubject { .. })), "{s:?}");
        }
    }

    #[test]
    fn wildcards_must_be_whole_tokens_when_subscribing() {
        for s in ["a.>.b", "a*.b", "a.b>"] {
            assert!(validate_subscribe_subject(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn queue_groups() {
        validate_queue("workers").unwrap();
        assert!(validate_queue("").is_err());
        assert!(validate_queue("a b").is_err());
        assert!(validate_queue("a\nb").is_err());
    }
}
