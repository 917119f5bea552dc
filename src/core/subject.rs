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

/// One pass over the bytes: it runs for every publish and every ack (whose
/// subjects are some 60 bytes), so eight bytes at a time.
fn check(subject: &str) -> Result<(), Error> {
    if subject.is_empty() {
        return Err(invalid(subject, "empty subject"));
    }
    let mut words = subject.as_bytes().chunks_exact(8);
    let mut forbidden = false;
    // A token is empty where a dot starts or ends the subject or follows a
    // dot: `previous_dot` starts true for the first byte.
    let mut previous_dot = true;
    let mut empty_token = false;
    for word in &mut words {
        let word = u64::from_le_bytes(word.try_into().expect("chunks of 8"));
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
    if forbidden {
        return Err(invalid(subject, "whitespace or control character"));
    }
    if empty_token || previous_dot {
        return Err(invalid(subject, "empty token"));
    }
    Ok(())
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
    fn words_of_eight_check_as_bytes_one_by_one() {
        // Every byte at every offset of a subject across two words and a
        // remainder, and dots meeting across the words' edges.
        let base = b"abcdefghijklmnopqrs";
        for at in 0..base.len() {
            for b in 0..=u8::MAX {
                let mut subject = base.to_vec();
                subject[at] = b;
                let Ok(subject) = String::from_utf8(subject) else { continue };
                assert_eq!(check(&subject), check_bytewise(&subject), "{subject:?}");
                let mut dotted = subject.into_bytes();
                dotted[(at + 1) % base.len()] = b'.';
                let dotted = String::from_utf8(dotted).unwrap();
                assert_eq!(check(&dotted), check_bytewise(&dotted), "{dotted:?}");
            }
        }
        for s in [
            "a.b.c.d.e.f.g.h.i",
            "abcdefg..",
            "abcdefgh.",
            ".abcdefgh",
            "abcdefg..hijklmno",
            "abcdefgh\x7fx",
            "abcdefé.ñ.ÿÿÿÿ.😀😀",
            "ÿÿÿÿÿÿÿÿ ÿ",
        ] {
            assert_eq!(check(s), check_bytewise(s), "{s:?}");
        }
    }

    /// The rules byte by byte, as `check` had them before it read words.
    fn check_bytewise(subject: &str) -> Result<(), Error> {
        if subject.is_empty() {
            return Err(invalid(subject, "empty subject"));
        }
        if subject.bytes().any(is_forbidden) {
            return Err(invalid(subject, "whitespace or control character"));
        }
        if subject.split('.').any(str::is_empty) {
            return Err(invalid(subject, "empty token"));
        }
        Ok(())
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
