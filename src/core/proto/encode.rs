//! Encoder for client operations, writing into a shared `BytesMut`.
//! Callers validate subjects (`crate::core::subject`) and headers
//! ([`validate_headers`](super::validate_headers)) first; the encoder
//! writes what it is given. No heap allocation besides `out` growing, but
//! for CONNECT (once a connection): its JSON goes through a `Vec` like all
//! of natsjet's JSON, so the wasm holds one serde_json serializer, not two.

use bytes::{BufMut, BytesMut};

use super::headers::{headers_len, write_headers};
use crate::core::header::HeaderMap;
use crate::core::proto::ConnectInfo;

/// `CONNECT <json>\r\n`.
pub fn encode_connect(out: &mut BytesMut, info: &ConnectInfo) {
    out.extend_from_slice(b"CONNECT ");
    // Strings, integers and booleans written to memory: nothing can fail.
    // (Not `expect`: the error's `Debug` would cost the wasm a kilobyte.)
    match serde_json::to_vec(info) {
        Ok(json) => out.extend_from_slice(&json),
        Err(_) => unreachable!("ConnectInfo serializes to JSON"),
    }
    out.extend_from_slice(b"\r\n");
}

/// At least the bytes [`encode_pub`] writes.
pub fn pub_len(subject: &str, reply: Option<&str>, headers: Option<&HeaderMap>, payload_len: usize) -> usize {
    let header_len = headers.map_or(0, headers_len);
    let reply_len = reply.map_or(0, |r| r.len() + 1);
    // Op, spaces, two sizes of at most 20 digits and the two CRLFs.
    5 + subject.len() + reply_len + 2 * 21 + 4 + header_len + payload_len
}

/// PUB, or HPUB when `headers` is `Some` (even if empty).
pub fn encode_pub(out: &mut BytesMut, subject: &str, reply: Option<&str>, headers: Option<&HeaderMap>, payload: &[u8]) {
    out.reserve(pub_len(subject, reply, headers, payload.len()));
    encode_pub_head(out, subject, reply, headers, payload.len());
    out.extend_from_slice(payload);
    out.extend_from_slice(b"\r\n");
}

/// What [`encode_pub`] writes before the payload of `payload_len` bytes
/// (which is then followed by CRLF).
pub fn encode_pub_head(
    out: &mut BytesMut,
    subject: &str,
    reply: Option<&str>,
    headers: Option<&HeaderMap>,
    payload_len: usize,
) {
    let header_len = headers.map_or(0, headers_len);
    out.extend_from_slice(if headers.is_some() { b"HPUB " } else { b"PUB " });
    out.extend_from_slice(subject.as_bytes());
    if let Some(reply) = reply {
        out.put_u8(b' ');
        out.extend_from_slice(reply.as_bytes());
    }
    put_sizes(out, headers.is_some().then_some(header_len as u64), (header_len + payload_len) as u64);
    if let Some(headers) = headers {
        write_headers(out, headers);
    }
}

/// `SUB <subject> [queue] <sid>\r\n`.
pub fn encode_sub(out: &mut BytesMut, subject: &str, queue: Option<&str>, sid: u64) {
    out.extend_from_slice(b"SUB ");
    out.extend_from_slice(subject.as_bytes());
    if let Some(queue) = queue {
        out.put_u8(b' ');
        out.extend_from_slice(queue.as_bytes());
    }
    out.put_u8(b' ');
    put_decimal(out, sid);
    out.extend_from_slice(b"\r\n");
}

/// `UNSUB <sid> [max]\r\n`; with `max`, the server unsubscribes after that
/// many messages in total.
pub fn encode_unsub(out: &mut BytesMut, sid: u64, max: Option<u64>) {
    out.extend_from_slice(b"UNSUB ");
    put_decimal(out, sid);
    if let Some(max) = max {
        out.put_u8(b' ');
        put_decimal(out, max);
    }
    out.extend_from_slice(b"\r\n");
}

/// Writes `PING`.
pub fn encode_ping(out: &mut BytesMut) {
    out.extend_from_slice(b"PING\r\n");
}

/// Writes `PONG`.
pub fn encode_pong(out: &mut BytesMut) {
    out.extend_from_slice(b"PONG\r\n");
}

/// Writes `n` in decimal through a stack buffer (no `String`).
fn put_decimal(out: &mut BytesMut, n: u64) {
    let mut digits = [0u8; 20];
    let start = decimal_before(&mut digits, n);
    out.extend_from_slice(&digits[start..]);
}

/// ` [<header size> ]<size>\r\n` of a PUB or HPUB line in one copy: every
/// publish and ack writes it, and each copy is a call in the size-optimized wasm.
fn put_sizes(out: &mut BytesMut, header_len: Option<u64>, len: u64) {
    let mut line = [0u8; 44];
    let mut start = line.len() - 2;
    line[start..].copy_from_slice(b"\r\n");
    start = decimal_before(&mut line[..start], len) - 1;
    line[start] = b' ';
    if let Some(header_len) = header_len {
        start = decimal_before(&mut line[..start], header_len) - 1;
        line[start] = b' ';
    }
    out.extend_from_slice(&line[start..]);
}

/// Writes `n` in decimal at the end of `buf` (which has room for it), and
/// returns where it starts.
pub(crate) fn decimal_before(buf: &mut [u8], mut n: u64) -> usize {
    let mut start = buf.len();
    loop {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return start;
        }
    }
}
