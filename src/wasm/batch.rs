//! Messages packed for one crossing of the wasm boundary, and headers from
//! JS. Crossing once per batch instead of once per field of every message
//! is what makes receiving fast: one copy of all subjects, replies and
//! payloads into one `Uint8Array`, whose slices become the messages' `data`.
//! Batches are copied into large JS arrays shared by consecutive batches
//! ([`Arena`]): allocating a typed array costs browsers microseconds, far
//! more than copying a batch.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::task::{Context, Poll};

use futures_core::Stream;
use futures_util::StreamExt;
use js_sys::{Array, Uint8Array, Uint32Array};
use wasm_bindgen::prelude::*;

use crate::core::error::Error;
use crate::core::header::{HeaderMap, StatusCode};
use crate::core::message::Message;

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
    parts_len(m, true)
}

/// The bytes of `m`'s parts in a batch, its reply left out unless `replies`.
fn parts_len(m: &Message, replies: bool) -> usize {
    m.subject.len() + reply(m, replies).len() + m.payload.len()
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
    pack_parts(messages, true)
}

/// A `RawBatch` of `messages` whose replies are left out (empty): JetStream
/// deliveries, whose ack subjects stay in wasm.
#[cfg(feature = "wasm-jetstream")]
pub(crate) fn pack_without_replies<M: Borrow<Message>>(messages: &[M]) -> Array {
    pack_parts(messages, false)
}

fn pack_parts<M: Borrow<Message>>(messages: &[M], replies: bool) -> Array {
    // Sized up front and filled by index: the wasm build (optimized for
    // size) makes a call of every `extend_from_slice` and `push`.
    let mut bytes = vec![0; messages.iter().map(|m| parts_len(m.borrow(), replies)).sum()];
    let mut ends = vec![0; messages.len() * 3];
    let mut end = 0;
    let mut headers: Option<Array> = None;
    for (i, m) in messages.iter().map(Borrow::borrow).enumerate() {
        end = put(&mut bytes, end, m.subject.as_bytes());
        ends[3 * i] = end as u32;
        end = put(&mut bytes, end, reply(m, replies).as_bytes());
        ends[3 * i + 1] = end as u32;
        end = put(&mut bytes, end, &m.payload);
        ends[3 * i + 2] = end as u32;
        if m.headers.is_some() || m.status.is_some() {
            let all = headers.get_or_insert_with(|| Array::new_with_length(messages.len() as u32));
            all.set(i as u32, raw_headers(m.status, m.description.as_deref(), m.headers.as_ref()).into());
        }
    }
    let headers = headers.map_or(JsValue::UNDEFINED, JsValue::from);
    let (bytes, ends) = ARENA.with(|arena| {
        let mut arena = arena.borrow_mut();
        (arena.bytes.copy(&bytes), arena.ends.copy(&ends))
    });
    Array::of3(&bytes, &ends, &headers)
}

/// The reply a batch holds for `m`: none (empty) when it leaves replies out.
fn reply(m: &Message, replies: bool) -> &str {
    if replies { m.reply.as_deref().unwrap_or_default() } else { "" }
}

/// Copies `part` into `bytes` at `at`, giving where it ends.
pub(crate) fn put(bytes: &mut [u8], at: usize, part: &[u8]) -> usize {
    let end = at + part.len();
    bytes[at..end].copy_from_slice(part);
    end
}

/// Bytes (or offsets) of every array allocated in JS for batches.
const ARENA_LEN: u32 = 128 * 1024;

thread_local! {
    static ARENA: RefCell<Arenas> = const { RefCell::new(Arenas { bytes: Arena::new(), ends: Arena::new() }) };
}

struct Arenas {
    bytes: Arena<Uint8Array>,
    ends: Arena<Uint32Array>,
}

/// A typed array in JS that batches are copied into one after the other,
/// each batch a view of its own part. Parts are never reused: a message's
/// `data` stays valid, and the array lives while any view of it does.
struct Arena<A> {
    array: Option<A>,
    used: u32,
}

/// What [`Arena`] needs of a JS typed array of `T`.
trait TypedArray<T>: Sized {
    fn with_length(len: u32) -> Self;
    fn from_slice(data: &[T]) -> Self;
    /// The view of `begin..end`.
    fn part(&self, begin: u32, end: u32) -> Self;
    fn fill_from(&self, data: &[T]);
}

impl TypedArray<u8> for Uint8Array {
    fn with_length(len: u32) -> Self {
        Uint8Array::new_with_length(len)
    }
    fn from_slice(data: &[u8]) -> Self {
        Uint8Array::from(data)
    }
    fn part(&self, begin: u32, end: u32) -> Self {
        self.subarray(begin, end)
    }
    fn fill_from(&self, data: &[u8]) {
        self.copy_from(data);
    }
}

impl TypedArray<u32> for Uint32Array {
    fn with_length(len: u32) -> Self {
        Uint32Array::new_with_length(len)
    }
    fn from_slice(data: &[u32]) -> Self {
        Uint32Array::from(data)
    }
    fn part(&self, begin: u32, end: u32) -> Self {
        self.subarray(begin, end)
    }
    fn fill_from(&self, data: &[u32]) {
        self.copy_from(data);
    }
}

impl<A> Arena<A> {
    const fn new() -> Self {
        Arena { array: None, used: 0 }
    }

    /// A JS array holding a copy of `data`: a part of the current arena
    /// array, or of a new one; data too large to share gets its own.
    fn copy<T>(&mut self, data: &[T]) -> A
    where
        A: TypedArray<T>,
    {
        let len = data.len() as u32;
        if len > ARENA_LEN / 4 {
            return A::from_slice(data);
        }
        if self.array.is_none() || self.used + len > ARENA_LEN {
            self.array = Some(A::with_length(ARENA_LEN));
            self.used = 0;
        }
        let array = self.array.as_ref().expect("arena array was just made");
        let part = array.part(self.used, self.used + len);
        part.fill_from(data);
        self.used += len;
        part
    }
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
