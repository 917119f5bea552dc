//! Messages packed for one crossing of the wasm boundary, and headers from
//! JS. Crossing once per batch instead of once per field of every message
//! is what makes receiving fast: one copy of all subjects, replies and
//! payloads into one `Uint8Array`, whose slices become the messages' `data`.

use std::borrow::Borrow;
use std::task::{Context, Poll};

use futures_core::Stream;
use futures_util::StreamExt;
use js_sys::{Array, Uint8Array, Uint32Array};
use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::header::{HeaderMap, StatusCode};
use crate::message::Message;

#[wasm_bindgen(typescript_custom_section)]
const TS_BATCH: &str = r#"
/**
 * Messages packed for one crossing of the wasm boundary. `bytes` holds, for
 * each message in turn, its subject, reply (may be empty: none) and payload;
 * `ends` holds 3 offsets per message into `bytes`: the end of each of those.
 * `headers[i]` is set when message `i` has headers or a status line.
 */
export type RawBatch = [bytes: Uint8Array, ends: Uint32Array, headers: (RawHeaders | undefined)[] | undefined];
/** A status code (0: none), its description, then name, value, name, value… */
export type RawHeaders = [status: number, description: string, ...entries: string[]];
"#;

/// A batch stops growing past this many bytes (it always holds one message).
const MAX_BATCH_BYTES: usize = 1 << 20;

/// The bytes a message adds to a batch.
pub(crate) fn packed_len(m: &Message) -> usize {
    m.subject.len() + m.reply.as_ref().map_or(0, String::len) + m.payload.len()
}

/// Items ready now (at least one), up to `max` and about [`MAX_BATCH_BYTES`];
/// none once the stream ended. `size` gives an item's bytes, or `None` for
/// an item that must end the batch (an error).
pub(crate) fn poll_batch<S: Stream + Unpin>(
    stream: &mut S,
    cx: &mut Context<'_>,
    max: usize,
    size: impl Fn(&S::Item) -> Option<usize>,
) -> Poll<Vec<S::Item>> {
    let mut items = Vec::new();
    let mut bytes = 0;
    while items.len() < max && bytes < MAX_BATCH_BYTES {
        match stream.poll_next_unpin(cx) {
            Poll::Ready(Some(item)) => {
                let last = size(&item).map(|n| bytes += n).is_none();
                items.push(item);
                if last {
                    break;
                }
            }
            Poll::Ready(None) => break,
            Poll::Pending if items.is_empty() => return Poll::Pending,
            Poll::Pending => break,
        }
    }
    Poll::Ready(items)
}

/// A `RawBatch` of `messages` (messages or references to them).
pub(crate) fn pack<M: Borrow<Message>>(messages: &[M]) -> Array {
    let mut bytes = Vec::with_capacity(messages.iter().map(|m| packed_len(m.borrow())).sum());
    let mut ends = Vec::with_capacity(messages.len() * 3);
    let mut headers: Option<Array> = None;
    for (i, m) in messages.iter().map(Borrow::borrow).enumerate() {
        for part in [m.subject.as_bytes(), m.reply.as_deref().unwrap_or_default().as_bytes(), &m.payload] {
            bytes.extend_from_slice(part);
            ends.push(bytes.len() as u32);
        }
        if m.headers.is_some() || m.status.is_some() {
            let all = headers.get_or_insert_with(|| Array::new_with_length(messages.len() as u32));
            all.set(i as u32, raw_headers(m.status, m.description.as_deref(), m.headers.as_ref()).into());
        }
    }
    let headers = headers.map_or(JsValue::UNDEFINED, JsValue::from);
    Array::of3(&Uint8Array::from(&bytes[..]), &Uint32Array::from(&ends[..]), &headers)
}

/// `RawHeaders`: the status line, then every header.
pub(crate) fn raw_headers(status: Option<StatusCode>, description: Option<&str>, headers: Option<&HeaderMap>) -> Array {
    let raw = Array::of2(&status.map_or(0, |s| s.0).into(), &description.unwrap_or_default().into());
    for (name, value) in headers.into_iter().flat_map(HeaderMap::iter) {
        raw.push(&name.into());
        raw.push(&value.into());
    }
    raw
}

/// Headers from JS as `[name, value, name, value…]`.
pub(crate) fn header_map(flat: Vec<String>) -> Result<HeaderMap, Error> {
    if flat.len() % 2 != 0 {
        return Err(Error::InvalidArgument("headers: expected name, value pairs".into()));
    }
    let mut map = HeaderMap::new();
    let mut entries = flat.into_iter();
    while let (Some(name), Some(value)) = (entries.next(), entries.next()) {
        map.append(name, value);
    }
    Ok(map)
}
