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

/// Runs for every publish and every ack, so its passes are folds without
/// an early exit, which the compiler turns into SIMD (a byte at a time took
/// a sixth of a durable drain's client instructions).
fn check(subject: &str) -> Result<(), Error> {
    let bytes = subject.as_bytes();
    let Some((&first, rest)) = bytes.split_first() else {
        return Err(invalid(subject, "empty subject"));
    };
    if bytes.iter().fold(false, |any, &b| any | is_forbidden(b)) {
        return Err(invalid(subject, "whitespace or control character"));
    }
    // A token is empty where a dot starts or ends the subject or follows a dot.
    let double_dot = bytes.iter().zip(rest).fold(false, |any, (&a, &b)| any | ((a == b'.') & (b == b'.')));
    if first == b'.' || bytes.last() == Some(&b'.') || double_dot {
        return Err(invalid(subject, "empty token"));
    }
    Ok(())
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
