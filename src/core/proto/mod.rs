//! The NATS wire codec: an incremental parser for what the server sends and
//! an encoder for what the client sends. Owns bytes only; knows nothing of
//! connections, time or subscriptions.

mod encode;
mod headers;
mod parser;
mod types;

#[cfg(test)]
mod tests;

pub use encode::*;
pub use headers::{headers_len, parse_headers, validate_headers};
pub use parser::{Parser, ParserLimits, ServerOp};
pub use types::{ConnectInfo, ServerInfo};

use crate::core::error::{Error, ProtocolError};

/// Longest piece of offending input quoted in an error: enough to recognise
/// it, never a megabyte of hostile bytes in a log line.
const PREVIEW_LEN: usize = 64;

/// A framing error quoting at most [`PREVIEW_LEN`] bytes of `input`.
fn protocol_error(what: &str, input: &[u8]) -> Error {
    ProtocolError::Frame(preview(what, input)).into()
}

/// A header block error quoting at most [`PREVIEW_LEN`] bytes of `input`.
fn header_error(what: &str, input: &[u8]) -> Error {
    ProtocolError::Headers(preview(what, input)).into()
}

fn preview(what: &str, input: &[u8]) -> String {
    let shown = &input[..input.len().min(PREVIEW_LEN)];
    let more = if shown.len() < input.len() { "..." } else { "" };
    format!("{what}: \"{}\"{more}", shown.escape_ascii())
}

/// `text` cut to at most [`PREVIEW_LEN`] bytes on a character boundary.
fn truncated(text: &str) -> &str {
    let mut end = text.len().min(PREVIEW_LEN);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
