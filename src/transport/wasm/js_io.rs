//! Bytes and errors from JS callbacks, as the wasm transports read them.

use std::io;

use bytes::BytesMut;
use wasm_bindgen::prelude::*;

/// Moves what a JS callback queued in `inbox` to the driver's `buf`, giving
/// the byte count, or `None` when nothing is waiting.
pub(crate) fn take_received(inbox: &mut BytesMut, buf: &mut BytesMut) -> Option<usize> {
    if inbox.is_empty() {
        return None;
    }
    let n = inbox.len();
    buf.extend_from_slice(inbox);
    inbox.clear();
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
