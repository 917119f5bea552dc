//! Subjects: their type, as async-nats names it, and their validation.
//!
//! Runs before a byte is written: a subject holding whitespace, CR or LF could
//! otherwise inject a protocol line, and an empty token would be refused by
//! the server only after the fact.

use crate::core::error::Error;

/// A subject, as async-nats names its type. natsjet's subjects are plain
/// `String`s (async-nats's `Subject` is a cheap-to-clone `Bytes`): what a
/// program does with one (`as_str`, `to_string`, `==`, `format!`) works on both.
pub type Subject = String;

/// Checks a subject used to publish: non-empty, no whitespace or control
/// characters, no empty tokens. Wildcards are allowed (the server decides).
pub fn validate_subject(subject: &str) -> Result<(), Error> {
    check(subject)
}

/// Checks a subject used to subscribe; same rules, plus `>` only as last token
/// and wildcards only as whole tokens.
pub fn validate_subscribe_subject(subject: &str) -> Result<(), Error> {
    check(subject)?;
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
fn check(subject: &str) -> Result<(), Error> {
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
    if empty_token {
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
fn is_forbidden(b: u8) -> bool {
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
