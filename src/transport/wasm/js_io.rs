//! Bytes and errors from JS callbacks, as the wasm transports read them.

use std::collections::VecDeque;
use std::io;

use bytes::BytesMut;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

/// What JS callbacks received and the driver has not read yet, kept as the
/// host's arrays: each byte is copied once, from the host's buffer straight
/// into the driver's, not into a queue in wasm memory first.
#[derive(Default)]
pub(crate) struct Received {
    /// Chunks with their lengths (asking JS for one is a call).
    chunks: VecDeque<(Uint8Array, u32)>,
    /// Bytes of the front chunk already read.
    taken: u32,
}

impl Received {
    pub(crate) fn push(&mut self, chunk: Uint8Array) -> usize {
        let len = chunk.length();
        if len > 0 {
            self.chunks.push_back((chunk, len));
        }
        len as usize
    }

    /// Moves what was received to the driver's `buf`, giving the byte
    /// count, or `None` when nothing is waiting: as much as `buf` has room
    /// for (all of it when it has none), so that `buf` keeps the size the
    /// driver gave it; the rest is read next time.
    pub(crate) fn take_into(&mut self, buf: &mut BytesMut) -> Option<usize> {
        if self.chunks.is_empty() {
            return None;
        }
        let mut room = match buf.capacity() - buf.len() {
            0 => self.chunks.iter().map(|(_, len)| *len as usize).sum::<usize>() - self.taken as usize,
            room => room,
        };
        let start = buf.len();
        while room > 0 {
            let Some((chunk, len)) = self.chunks.front() else { break };
            let (len, n) = (*len, (len - self.taken).min(room.try_into().unwrap_or(u32::MAX)));
            let part = match self.taken == 0 && n == len {
                true => chunk.clone(),
                false => chunk.subarray(self.taken, self.taken + n),
            };
            buf.reserve(n as usize);
            part.copy_to_uninit(&mut buf.spare_capacity_mut()[..n as usize]);
            // SAFETY: the n bytes after the end were just written.
            unsafe { buf.set_len(buf.len() + n as usize) };
            room -= n as usize;
            self.taken += n;
            if self.taken == len {
                self.chunks.pop_front();
                self.taken = 0;
            }
        }
        Some(buf.len() - start)
    }
}

/// The message of a thrown JS value: an `Error`'s message, a string, its
/// JSON, or its type. (Not its `Debug` form, whose JS helper the glue would carry.)
pub(crate) fn js_message(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .or_else(|| js_sys::JSON::stringify(value).ok()?.as_string())
        .or_else(|| value.js_typeof().as_string())
        .unwrap_or_default()
}

pub(crate) fn js_to_io(value: JsValue) -> io::Error {
    io::Error::other(js_message(&value))
}
