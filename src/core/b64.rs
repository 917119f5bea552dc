//! Base64 without padding for the few bytes of nkey authentication: the
//! nonce signature CONNECT carries (base64url) and the one an authenticator
//! answers (base64url or standard). The `base64` crate's engines cost the
//! core NATS wasm about 2.5 KB gzip for these 64 bytes; the JetStream parts
//! still use the crate.

const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64url, without padding.
pub(crate) fn encode_url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(URL[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// `text` decoded from base64url or, failing that, standard base64, both
/// without padding; `None` unless it is canonical in one of them (no stray
/// characters, no length of 4n+1, no bits set past the last byte).
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    decode_with(text, URL).or_else(|| decode_with(text, STANDARD))
}

fn decode_with(text: &str, alphabet: &[u8; 64]) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            let v = alphabet.iter().position(|a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        let bytes = chunk.len() - 1;
        // What the last character holds beyond the last byte must be zero.
        if n & (0xFF_FF_FF >> (8 * bytes)) != 0 {
            return None;
        }
        out.extend((0..bytes).map(|i| (n >> (16 - 8 * i)) as u8));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};

    use super::{decode, encode_url};

    /// Bytes of every length up to 70, made of a simple generator.
    fn samples() -> impl Iterator<Item = Vec<u8>> {
        (0..70usize).map(|len| (0..len).map(|i| (i * 151 + len * 7) as u8 ^ 0xA5).collect())
    }

    #[test]
    fn encodes_as_the_base64_crate() {
        for bytes in samples() {
            assert_eq!(encode_url(&bytes), URL_SAFE_NO_PAD.encode(&bytes));
        }
        assert_eq!(encode_url(&[0xFB, 0xFF]), "-_8");
    }

    #[test]
    fn decodes_both_alphabets_as_the_base64_crate() {
        for bytes in samples() {
            assert_eq!(decode(&URL_SAFE_NO_PAD.encode(&bytes)).as_deref(), Some(&bytes[..]));
            assert_eq!(decode(&STANDARD_NO_PAD.encode(&bytes)).as_deref(), Some(&bytes[..]));
        }
    }

    #[test]
    fn refuses_what_the_base64_crate_refuses() {
        // A stray character, a 4n+1 length, bits past the last byte, padding,
        // and both alphabets in one text.
        for text in ["ab!c", "abcde", "QR", "QUF", "QQ==", "-+AA", "a b", "_/"] {
            assert_eq!(decode(text), None, "{text}");
            assert!(URL_SAFE_NO_PAD.decode(text).is_err() && STANDARD_NO_PAD.decode(text).is_err(), "{text}");
        }
        assert_eq!(decode("").as_deref(), Some(&[][..]));
    }
}
