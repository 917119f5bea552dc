//! Encoder for client operations, writing into a shared `BytesMut`.
//! Callers validate subjects first (`crate::subject`). PLACEHOLDER: API only.

use bytes::BytesMut;

use crate::header::HeaderMap;
use crate::proto::ConnectInfo;

pub fn encode_connect(out: &mut BytesMut, info: &ConnectInfo) {
    todo!("{out:?} {info:?}")
}

/// PUB, or HPUB when `headers` is `Some` (even if empty).
pub fn encode_pub(out: &mut BytesMut, subject: &str, reply: Option<&str>, headers: Option<&HeaderMap>, payload: &[u8]) {
    todo!("{out:?} {subject} {reply:?} {headers:?} {payload:?}")
}

pub fn encode_sub(out: &mut BytesMut, subject: &str, queue: Option<&str>, sid: u64) {
    todo!("{out:?} {subject} {queue:?} {sid}")
}

pub fn encode_unsub(out: &mut BytesMut, sid: u64, max: Option<u64>) {
    todo!("{out:?} {sid} {max:?}")
}

pub fn encode_ping(out: &mut BytesMut) {
    out.extend_from_slice(b"PING\r\n");
}

pub fn encode_pong(out: &mut BytesMut) {
    out.extend_from_slice(b"PONG\r\n");
}

/// Bytes `encode_pub` would write for the header block (for max_payload checks).
pub fn headers_len(headers: &HeaderMap) -> usize {
    todo!("{headers:?}")
}
