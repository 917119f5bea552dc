//! The header block of HMSG and HPUB, both directions:
//! `NATS/1.0[ <code>[ <description>]]\r\n`, then `Name: value\r\n` lines,
//! then `\r\n`.

use std::collections::HashMap;

use bytes::BytesMut;

use super::{header_error, truncated};
use crate::core::error::Error;
use crate::core::header::{HeaderMap, HeaderValue, StatusCode};

const VERSION_LINE: &[u8] = b"NATS/1.0";

/// Distinct header names looked up by a scan before a hash index is made:
/// hashing costs more than a few comparisons, and most blocks are short.
const SCANNED_NAMES: usize = 8;

/// Parses a header block as found in HMSG (and in JetStream replies that
/// carry raw headers). Names keep their case; repeated names collect their
/// values in order; values are trimmed and decoded lossily (peers may send
/// any bytes), a lone CR in one becomes a space. A status line without a description gives `None` for it.
pub fn parse_headers(block: &[u8]) -> Result<(Option<StatusCode>, Option<String>, HeaderMap), Error> {
    let mut lines = Lines(block);
    let first = lines.next_line()?.ok_or_else(|| header_error("empty header block", block))?;
    let status_part =
        first.strip_prefix(VERSION_LINE).ok_or_else(|| header_error("header block without NATS/1.0", first))?;
    let (status, description) = parse_status(status_part)?;

    let mut entries: Vec<(String, Vec<HeaderValue>)> = Vec::new();
    // The borrowed names, in `entries`' order, to find a repeated one:
    // scanned while few (a status reply has two), hashed past
    // `SCANNED_NAMES`, which keeps a block of many distinct names linear.
    let mut names: Vec<&[u8]> = Vec::new();
    let mut index: Option<HashMap<&[u8], usize>> = None;
    while let Some(line) = lines.next_line()? {
        if line.is_empty() {
            if !lines.0.is_empty() {
                return Err(header_error("bytes after header block", lines.0));
            }
            break;
        }
        let (name, value) = split_header_line(line)?;
        let value = HeaderValue::from_lossy(&String::from_utf8_lossy(value.trim_ascii()));
        let found = match &index {
            Some(index) => index.get(name).copied(),
            None => names.iter().position(|&n| n == name),
        };
        match found {
            Some(i) => entries[i].1.push(value),
            None => {
                let name_str = std::str::from_utf8(name).map_err(|_| header_error("header name not UTF-8", name))?;
                names.push(name);
                match &mut index {
                    Some(index) => _ = index.insert(name, entries.len()),
                    None if names.len() > SCANNED_NAMES => {
                        index = Some(names.iter().enumerate().map(|(i, &n)| (n, i)).collect());
                    }
                    None => {}
                }
                entries.push((name_str.to_owned(), vec![value]));
            }
        }
    }
    Ok((status, description, HeaderMap::from_grouped(entries)))
}

/// Checks that no header name can inject a line into HPUB: non-empty,
/// without ':', whitespace or control characters (a [`HeaderValue`] never
/// holds CR or LF).
pub fn validate_headers(headers: &HeaderMap) -> Result<(), Error> {
    for (name, _) in headers.iter() {
        if name.is_empty() {
            return Err(Error::InvalidArgument("empty header name".into()));
        }
        if !name.bytes().all(is_name_byte) {
            return Err(Error::InvalidArgument(format!(
                "header name {:?} holds ':', whitespace or a control character",
                truncated(name)
            )));
        }
    }
    Ok(())
}

/// Bytes `write_headers` writes for `headers` (for max_payload checks and
/// the HPUB size fields).
pub fn headers_len(headers: &HeaderMap) -> usize {
    let lines: usize = headers.iter().map(|(n, v)| n.len() + 2 + v.len() + 2).sum();
    VERSION_LINE.len() + 2 + lines + 2
}

/// Writes the header block of an HPUB (no status line: clients send none).
pub(super) fn write_headers(out: &mut BytesMut, headers: &HeaderMap) {
    out.extend_from_slice(VERSION_LINE);
    out.extend_from_slice(b"\r\n");
    for (name, value) in headers.iter() {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// Printable, and not the ':' that ends a name (ADR-4).
fn is_name_byte(b: u8) -> bool {
    b != b':' && !b.is_ascii_whitespace() && !b.is_ascii_control()
}

/// What follows `NATS/1.0`: nothing, or ` <3-digit code>[ <description>]`.
fn parse_status(rest: &[u8]) -> Result<(Option<StatusCode>, Option<String>), Error> {
    if rest.is_empty() {
        return Ok((None, None));
    }
    let bad = || header_error("bad header status line", rest);
    if !matches!(rest[0], b' ' | b'\t') {
        return Err(bad());
    }
    let rest = rest.trim_ascii();
    if rest.is_empty() {
        return Ok((None, None));
    }
    let code_end = rest.iter().position(|b| matches!(b, b' ' | b'\t')).unwrap_or(rest.len());
    let (code, description) = rest.split_at(code_end);
    if code.len() != 3 || !code.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let code = code.iter().fold(0u16, |n, d| n * 10 + u16::from(d - b'0'));
    let description = description.trim_ascii();
    let description = (!description.is_empty()).then(|| String::from_utf8_lossy(description).into_owned());
    Ok((Some(StatusCode(code)), description))
}

fn split_header_line(line: &[u8]) -> Result<(&[u8], &[u8]), Error> {
    let colon = memchr::memchr(b':', line).ok_or_else(|| header_error("header line without ':'", line))?;
    let (name, value) = (&line[..colon], &line[colon + 1..]);
    if name.is_empty() || !name.iter().copied().all(is_name_byte) {
        return Err(header_error("bad header name", name));
    }
    Ok((name, value))
}

/// CRLF-terminated lines of a header block; the last may lack its CRLF
/// when the block ends without the blank line, which is tolerated.
struct Lines<'a>(&'a [u8]);

impl<'a> Lines<'a> {
    fn next_line(&mut self) -> Result<Option<&'a [u8]>, Error> {
        if self.0.is_empty() {
            return Ok(None);
        }
        let Some(lf) = memchr::memchr(b'\n', self.0) else {
            let line = self.0;
            self.0 = &[];
            return Ok(Some(line));
        };
        let line =
            self.0[..lf].strip_suffix(b"\r").ok_or_else(|| header_error("header line without CR", &self.0[..lf]))?;
        self.0 = &self.0[lf + 1..];
        Ok(Some(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn status_line_and_multi_valued_headers() {
        let block = b"NATS/1.0 408 Request Timeout\r\nNats-Pending-Messages: 5\r\nNats-Pending-Bytes:  1024 \r\nX-A: 1\r\nx-a: 2\r\nX-A:3\r\n\r\n";
        let (status, description, headers) = parse_headers(block).unwrap();
        assert_eq!(status, Some(StatusCode::REQUEST_TIMEOUT));
        assert_eq!(description.as_deref(), Some("Request Timeout"));
        assert_eq!(headers.get("Nats-Pending-Messages").map(|v| v.as_str()), Some("5"));
        assert_eq!(headers.get("Nats-Pending-Bytes").map(|v| v.as_str()), Some("1024"));
        assert_eq!(headers.get_all("X-A").collect::<Vec<_>>(), ["1", "3"]);
        assert_eq!(headers.get("x-a").map(|v| v.as_str()), Some("2"));
        assert_eq!(headers.len(), 4);
    }

    #[test]
    fn status_without_description_and_empty_blocks() {
        let (status, description, headers) = parse_headers(b"NATS/1.0 503\r\n\r\n").unwrap();
        assert_eq!((status, description), (Some(StatusCode::NO_RESPONDERS), None));
        assert!(headers.is_empty());
        let (status, _, headers) = parse_headers(b"NATS/1.0\r\n\r\n").unwrap();
        assert_eq!(status, None);
        assert!(headers.is_empty());
        // No closing blank line: tolerated.
        let (_, _, headers) = parse_headers(b"NATS/1.0\r\nA: b\r\n").unwrap();
        assert_eq!(headers.get("A").map(|v| v.as_str()), Some("b"));
        let (_, _, headers) = parse_headers(b"NATS/1.0 100 Idle Heartbeat").unwrap();
        assert!(headers.is_empty());
    }

    #[test]
    fn empty_value_and_lossy_value() {
        let (_, _, headers) = parse_headers(b"NATS/1.0\r\nA:\r\nB: \xff\r\n\r\n").unwrap();
        assert_eq!(headers.get("A").map(|v| v.as_str()), Some(""));
        assert_eq!(headers.get("B").map(|v| v.as_str()), Some("\u{fffd}"));
        let (_, _, headers) = parse_headers(b"NATS/1.0\r\nC: a\rb\r\n\r\n").unwrap();
        assert_eq!(headers.get("C").map(|v| v.as_str()), Some("a b"));
    }

    #[test]
    fn malformed_blocks_are_errors() {
        for block in [
            &b""[..],
            b"HTTP/1.1 200\r\n\r\n",
            b"NATS/1.0x\r\n\r\n",
            b"NATS/1.0 4o8 Bad\r\n\r\n",
            b"NATS/1.0 4080\r\n\r\n",
            b"NATS/1.0\r\nno colon\r\n\r\n",
            b"NATS/1.0\r\n: empty name\r\n\r\n",
            b"NATS/1.0\r\nBad Name: x\r\n\r\n",
            b"NATS/1.0\r\nA: b\n\r\n",
            b"NATS/1.0\r\n\r\ntrailing",
            b"NATS/1.0\r\n\xff: x\r\n\r\n",
        ] {
            assert!(matches!(parse_headers(block), Err(Error::Protocol(_))), "{:?}", block.escape_ascii().to_string());
        }
    }

    #[test]
    fn many_distinct_names() {
        let mut block = b"NATS/1.0\r\n".to_vec();
        for i in 0..10_000 {
            block.extend_from_slice(format!("H{i}: {i}\r\n").as_bytes());
        }
        block.extend_from_slice(b"\r\n");
        let (_, _, headers) = parse_headers(&block).unwrap();
        assert_eq!(headers.len(), 10_000);
        assert_eq!(headers.get("H9999").map(|v| v.as_str()), Some("9999"));
    }

    #[test]
    fn repeated_names_group_whether_scanned_or_hashed() {
        let names = SCANNED_NAMES + 3;
        let mut block = b"NATS/1.0\r\n".to_vec();
        for round in 0..2 {
            for i in 0..names {
                block.extend_from_slice(format!("H{i}: {round}\r\n").as_bytes());
            }
        }
        let (_, _, headers) = parse_headers(&block).unwrap();
        assert_eq!(headers.iter().map(|(name, _)| name).collect::<Vec<_>>().len(), 2 * names);
        for i in [0, SCANNED_NAMES, names - 1] {
            assert_eq!(headers.get_all(&format!("H{i}")).collect::<Vec<_>>(), ["0", "1"]);
        }
    }

    #[test]
    fn validation_refuses_injection() {
        let ok: HeaderMap = [("Nats-Msg-Id", "abc"), ("X", "")].into_iter().collect();
        assert_eq!(validate_headers(&ok), Ok(()));
        for name in ["", "A:B", "A B", "A\r\nB", "A\t"] {
            let map: HeaderMap = [(name, "v")].into_iter().collect();
            assert!(matches!(validate_headers(&map), Err(Error::InvalidArgument(_))), "{name:?}");
        }
        // A value's line breaks became spaces when it went into the map.
        let map: HeaderMap = [("A", "x\r\nB: y")].into_iter().collect();
        assert_eq!(validate_headers(&map), Ok(()));
        let mut out = BytesMut::new();
        write_headers(&mut out, &map);
        assert_eq!(&out[..], b"NATS/1.0\r\nA: x  B: y\r\n\r\n");
    }

    #[test]
    fn length_matches_what_is_written() {
        let map: HeaderMap = [("A", "1"), ("A", "22"), ("Bb", "")].into_iter().collect();
        let mut out = BytesMut::new();
        write_headers(&mut out, &map);
        assert_eq!(out.len(), headers_len(&map));
        assert_eq!(&out[..], b"NATS/1.0\r\nA: 1\r\nA: 22\r\nBb: \r\n\r\n");
        let (_, _, parsed) = parse_headers(&out).unwrap();
        assert_eq!(parsed, map);
    }
}
