//! JetStream replies as JS values: an API reply's text, and a stored
//! message as `RawStoredMsg`.

use bytes::Bytes;
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::core::error::{Error, ProtocolError};
use crate::jetstream::stream::StreamMessage;
use crate::wasm::batch::raw_headers;

/// A JetStream API reply as text for JS.
pub(super) fn reply_text(reply: Bytes) -> Result<String, Error> {
    String::from_utf8(reply.into())
        .map_err(|_| Error::Protocol(ProtocolError::ApiResponse("JetStream API reply is not UTF-8".into())))
}

/// A stored message as `RawStoredMsg`.
pub(super) fn stored_msg(m: StreamMessage) -> Array {
    let headers = match m.headers.is_empty() {
        true => JsValue::UNDEFINED,
        false => raw_headers(None, None, Some(&m.headers)).into(),
    };
    let data = Uint8Array::from(&m.payload[..]);
    let fields: [JsValue; 5] = [m.subject.into(), (m.sequence as f64).into(), m.time.into(), headers, data.into()];
    fields.iter().collect()
}
