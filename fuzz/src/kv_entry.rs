//! Arbitrary server replies as Key-Value entries: a direct get's reply, a
//! `STREAM.MSG.GET` reply, a watch's message. No reader may panic; an entry
//! read is the key asked for (gets) or the key of its subject (watches).
//!
//! Input: a mode byte, then fields separated by `0xFF`:
//! 0 direct get: header block, payload; 1 message get: its JSON;
//! 2 watch: subject, reply (ack subject), header block, payload.

use bytes::Bytes;
use natsjet::Message;
use natsjet::fuzzing::{kv_entry_of_direct_get, kv_entry_of_msg_get, kv_entry_of_watch};
use natsjet::proto::parse_headers;

const BUCKET: &str = "b";
const KEY: &str = "k";

pub fn check(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => {
            let Some([block, payload]) = super::parts(rest) else { return };
            let Some(reply) = message("_INBOX.x", None, block, payload) else { return };
            if let Ok(Some((entry, _))) = kv_entry_of_direct_get(BUCKET, KEY, reply) {
                assert_eq!((entry.bucket.as_str(), entry.key.as_str()), (BUCKET, KEY));
            }
        }
        1 => {
            if let Ok(Some((entry, _))) = kv_entry_of_msg_get(BUCKET, KEY, rest) {
                assert_eq!((entry.bucket.as_str(), entry.key.as_str()), (BUCKET, KEY));
            }
        }
        _ => {
            let Some([subject, reply, block, payload]) = super::parts(rest) else { return };
            let subject = String::from_utf8_lossy(subject);
            let reply = String::from_utf8_lossy(reply);
            let Some(delivered) = message(&subject, Some(&reply), block, payload) else { return };
            if let Ok((entry, _)) = kv_entry_of_watch(BUCKET, delivered) {
                assert_eq!(format!("$KV.{BUCKET}.{}", entry.key), subject);
            }
        }
    }
}

/// A message as the connection hands it on; `None` for a header block the
/// parser refuses (the connection fails before any reader sees it).
fn message(subject: &str, reply: Option<&str>, block: &[u8], payload: &[u8]) -> Option<Message> {
    let (status, description, headers) = match block {
        [] => (None, None, None),
        block => {
            let (status, description, headers) = parse_headers(block).ok()?;
            (status, description, Some(headers))
        }
    };
    Some(Message {
        subject: subject.into(),
        reply: reply.map(Into::into),
        payload: Bytes::copy_from_slice(payload),
        headers,
        status,
        description,
        length: subject.len() + block.len() + payload.len(),
    })
}
