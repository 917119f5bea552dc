//! Bytes and errors from JS callbacks, as the wasm transports read them.

use std::io;

use bytes::BytesMut;
use wasm_bindgen::prelude::*;

/// Moves what a JS callback queued in `inbox` to the driver's `buf`, giving
/// the byte count, or `None` when nothing is waiting: as much as `buf` has
/// room for (all of it when it has none), so that `buf` keeps the size the
/// driver gave it; the rest is taken next time.
pub(crate) fn take_received(inbox: &mut BytesMut, buf: &mut BytesMut) -> Option<usize> {
    if inbox.is_empty() {
        return None;
    }
    let room = buf.capacity() - buf.len();
    let n = match room {
        0 => inbox.len(),
        room => inbox.len().min(room),
    };
    buf.extend_from_slice(&inbox[..n]);
    match n == inbox.len() {
        true => inbox.clear(),
        false => bytes::Buf::advance(inbox, n),
    }
    Some(n)
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
