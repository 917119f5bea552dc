//! Incremental parser for server operations.
//!
//! Work is linear in the bytes received, however they are split: a control
//! line is searched for its LF only in bytes not searched before, and once
//! the control line of a MSG/HMSG is parsed the parser remembers it and
//! waits for the known body length without looking at the bytes again.

use bytes::{Buf, Bytes, BytesMut};

use super::{parse_headers, protocol_error, truncated};
use crate::core::error::{Error, ProtocolError};
use crate::core::message::Message;
use crate::core::proto::ServerInfo;
use crate::core::subject::Subject;

/// One operation from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerOp {
    /// `INFO`: the server's settings (first on every connection, and again
    /// when the cluster changes or the server enters lame duck mode).
    Info(Box<ServerInfo>),
    /// MSG or HMSG; headers, status and description are parsed into `message`.
    Msg {
        /// The subscription id it was delivered for.
        sid: u64,
        /// The message.
        message: Message,
    },
    /// `PING`: the server checks the client is alive (answer `PONG`).
    Ping,
    /// `PONG`: the answer to a `PING` the client sent.
    Pong,
    /// `+OK` (only in verbose mode).
    Ok,
    /// `-ERR` with the quotes removed.
    Err(String),
}

/// Bounds that keep hostile input from allocating without limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParserLimits {
    /// Longest control line accepted, INFO included (default 64 KiB).
    pub max_control_line: usize,
    /// Largest header + payload accepted (default 64 MiB; the connection
    /// lowers it to the server's max_payload plus slack once INFO arrives).
    pub max_payload: usize,
}

impl Default for ParserLimits {
    fn default() -> Self {
        ParserLimits { max_control_line: 64 * 1024, max_payload: 64 * 1024 * 1024 }
    }
}

/// Parses server operations from a growing buffer; gives the same result
/// however the stream is split.
///
/// The parser keeps state between calls: between them, only append to
/// `buf`. A new connection needs a new parser.
#[derive(Debug, Default)]
pub struct Parser {
    limits: ParserLimits,
    /// Bytes at the front of the buffer already searched for LF in vain.
    scanned: usize,
    /// The MSG/HMSG whose control line was consumed and whose body is awaited.
    pending: Option<Pending>,
}

impl Parser {
    /// A parser that enforces `limits`.
    pub fn new(limits: ParserLimits) -> Self {
        Parser { limits, ..Parser::default() }
    }

    /// Changes the largest header + payload accepted (from the server's INFO).
    pub fn set_max_payload(&mut self, max_payload: usize) {
        self.limits.max_payload = max_payload;
    }

    /// The bytes of the message body being awaited (its CRLF included), all
    /// of which the buffer must hold before it is parsed; 0 when none is.
    pub fn awaited(&self) -> usize {
        self.pending.as_ref().map_or(0, Pending::frame_len)
    }

    /// Takes one complete operation off the front of `buf`, or `Ok(None)` if
    /// more bytes are needed. Subjects, replies and payloads share `buf`'s
    /// memory (no copy).
    /// Errors are `Error::Protocol`; after one, the stream is unusable.
    pub fn parse(&mut self, buf: &mut BytesMut) -> Result<Option<ServerOp>, Error> {
        let pending = match self.pending.take() {
            Some(pending) => pending,
            None => match self.control(buf)? {
                None => return Ok(None),
                Some(Control::Done(op)) => return Ok(Some(op)),
                Some(Control::Body(pending)) => pending,
            },
        };
        if buf.len() < pending.frame_len() {
            self.pending = Some(pending);
            return Ok(None);
        }
        pending.finish(buf).map(Some)
    }

    /// Consumes the next control line, if it is complete.
    fn control(&mut self, buf: &mut BytesMut) -> Result<Option<Control>, Error> {
        let max = self.limits.max_control_line;
        // Only the first `max + 1` bytes can hold the LF of a line short enough.
        let window = buf.len().min(max.saturating_add(1));
        let start = self.scanned.min(window);
        let Some(found) = memchr::memchr(b'\n', &buf[start..window]) else {
            if buf.len() > max {
                return Err(protocol_error("control line too long", buf));
            }
            self.scanned = window;
            return Ok(None);
        };
        let lf = start + found;
        self.scanned = 0;
        // Byte compares, not `strip_suffix`: the wasm build (optimized for
        // size) makes a `memcmp` call of each, on every message.
        let end = if lf > 0 && buf[lf - 1] == b'\r' { lf - 1 } else { lf };
        // Frozen, so that a message's subject and reply can share it.
        let line = buf.split_to(end).freeze();
        buf.advance(lf + 1 - end);
        self.control_line(&line).map(Some)
    }

    fn control_line(&self, line: &Bytes) -> Result<Control, Error> {
        let op_end = line.iter().position(|&b| is_space(b)).unwrap_or(line.len());
        let (op, args) = line.split_at(op_end);
        // MSG and HMSG, the hot path, come first; they alone have a body to await.
        let done = if op.eq_ignore_ascii_case(b"MSG") {
            return self.msg_line(line, op_end, false).map(Control::Body);
        } else if op.eq_ignore_ascii_case(b"HMSG") {
            return self.msg_line(line, op_end, true).map(Control::Body);
        } else if op.eq_ignore_ascii_case(b"PING") {
            ServerOp::Ping
        } else if op.eq_ignore_ascii_case(b"PONG") {
            ServerOp::Pong
        } else if op.eq_ignore_ascii_case(b"+OK") {
            ServerOp::Ok
        } else if op.eq_ignore_ascii_case(b"-ERR") {
            ServerOp::Err(error_text(args))
        } else if op.eq_ignore_ascii_case(b"INFO") {
            ServerOp::Info(Box::new(info(args)?))
        } else {
            return Err(protocol_error("unknown operation", line));
        };
        Ok(Control::Done(done))
    }

    /// `MSG <subject> <sid> [reply] <size>` or
    /// `HMSG <subject> <sid> [reply] <hdr_size> <total_size>`, whose
    /// arguments start at `from` in `line`.
    fn msg_line(&self, line: &Bytes, from: usize, with_headers: bool) -> Result<Pending, Error> {
        let what = if with_headers { "bad HMSG arguments" } else { "bad MSG arguments" };
        let args = line[from..].trim_ascii_start();
        // Where the field being split starts in `line`.
        let mut at = line.len() - args.len();
        let args = args.trim_ascii_end();
        let mut fields: [&[u8]; 5] = [&[]; 5];
        let mut starts = [0; 5];
        let mut count = 0;
        for field in args.split(|&b| is_space(b)) {
            if !field.is_empty() {
                if count == fields.len() {
                    return Err(protocol_error(what, args));
                }
                (fields[count], starts[count]) = (field, at);
                count += 1;
            }
            at += field.len() + 1;
        }
        let sizes = if with_headers { 2 } else { 1 };
        let has_reply = match count.checked_sub(sizes) {
            Some(2) => false,
            Some(3) => true,
            _ => return Err(protocol_error(what, args)),
        };
        let sid = parse_number(fields[1]).ok_or_else(|| protocol_error("bad sid", fields[1]))?;
        let total_len = self.parse_size(fields[count - 1])?;
        let header_len = if with_headers {
            let header_len = self.parse_size(fields[count - 2])?;
            if header_len > total_len {
                return Err(protocol_error("header size exceeds total size", args));
            }
            Some(header_len)
        } else {
            None
        };
        let subject = |i: usize| subject(line, starts[i], fields[i]);
        Ok(Pending { sid, subject: subject(0), reply: has_reply.then(|| subject(2)), header_len, total_len })
    }

    fn parse_size(&self, field: &[u8]) -> Result<usize, Error> {
        match parse_number(field).map(usize::try_from) {
            Some(Ok(size)) if size <= self.limits.max_payload => Ok(size),
            Some(_) => Err(protocol_error("size exceeds max_payload", field)),
            None => Err(protocol_error("bad size", field)),
        }
    }
}

/// What a control line turned into.
enum Control {
    Done(ServerOp),
    Body(Pending),
}

/// A MSG/HMSG waiting for its body.
#[derive(Debug)]
struct Pending {
    sid: u64,
    subject: Subject,
    reply: Option<Subject>,
    /// Length of the header block at the front of the body; `None` for MSG.
    header_len: Option<usize>,
    /// Header and payload bytes, without the closing CRLF.
    total_len: usize,
}

impl Pending {
    fn frame_len(&self) -> usize {
        self.total_len.saturating_add(2)
    }

    /// Splits the body off `buf`, which holds at least `frame_len` bytes.
    fn finish(self, buf: &mut BytesMut) -> Result<ServerOp, Error> {
        let frame = buf.split_to(self.frame_len()).freeze();
        let (body, end) = frame.split_at(self.total_len);
        if end[0] != b'\r' || end[1] != b'\n' {
            return Err(protocol_error("payload not followed by CRLF", end));
        }
        let header_len = self.header_len.unwrap_or(0);
        let (headers, status, description) = match self.header_len.map(|len| parse_headers(&body[..len])) {
            None => (None, None, None),
            Some(Ok((status, description, headers))) => (Some(headers), status, description),
            // The server forwards publishers' header blocks unchecked. A bad
            // one must not break the stream for everyone: the message
            // arrives without headers, as in nats.go.
            Some(Err(_)) => (None, None, None),
        };
        let length = self.subject.len() + self.reply.as_ref().map_or(0, |reply| reply.len()) + self.total_len;
        let message = Message {
            subject: self.subject,
            reply: self.reply,
            payload: frame.slice(header_len..self.total_len),
            headers,
            status,
            description,
            length,
        };
        Ok(ServerOp::Msg { sid: self.sid, message })
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A decimal number with digits only: no sign, no spaces, no overflow.
fn parse_number(field: &[u8]) -> Option<u64> {
    /// Digits that always fit: no overflow check per digit, which costs
    /// wasm32 a 128-bit multiply.
    const SAFE_DIGITS: usize = 19;
    if field.is_empty() {
        return None;
    }
    let mut n = 0u64;
    for (i, &b) in field.iter().enumerate() {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = if i < SAFE_DIGITS {
            n * 10 + u64::from(digit)
        } else {
            n.checked_mul(10)?.checked_add(u64::from(digit))?
        };
    }
    Some(n)
}

/// `field`, at `at` in `line`, as a subject. Subjects are bytes on the wire;
/// a publisher's odd bytes must not break the stream, so they are decoded
/// lossily. Valid UTF-8 (always, from a real server) shares `line`.
fn subject(line: &Bytes, at: usize, field: &[u8]) -> Subject {
    Subject::from_utf8(line.slice(at..at + field.len())).unwrap_or_else(|_| Subject::from(lossy(field)))
}

/// Valid UTF-8 is copied once, without the chunked scan of `from_utf8_lossy`.
fn lossy(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn info(json: &[u8]) -> Result<ServerInfo, Error> {
    crate::core::plain_json::from_slice(json.trim_ascii())
        .map_err(|e| ProtocolError::Info(format!("bad INFO: {}", truncated(&e))).into())
}

/// `-ERR 'Authorization Violation'` gives `Authorization Violation`.
fn error_text(args: &[u8]) -> String {
    let text = args.trim_ascii();
    let text = text.strip_prefix(b"'").and_then(|t| t.strip_suffix(b"'")).unwrap_or(text);
    lossy(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn remembers_a_partial_message() {
        let mut parser = Parser::default();
        let mut buf = BytesMut::from(&b"MSG a 1 11\r\nhel"[..]);
        assert_eq!(parser.parse(&mut buf), Ok(None));
        // The control line is consumed and remembered; only the body waits.
        assert_eq!(&buf[..], b"hel");
        assert_eq!(parser.pending.as_ref().map(Pending::frame_len), Some(13));
        buf.extend_from_slice(b"lo worl");
        assert_eq!(parser.parse(&mut buf), Ok(None));
        buf.extend_from_slice(b"d\r\nPI");
        let Ok(Some(ServerOp::Msg { sid: 1, message })) = parser.parse(&mut buf) else { panic!() };
        assert_eq!(message.payload, "hello world");
        assert!(parser.pending.is_none());
        assert_eq!(&buf[..], b"PI");
    }

    #[test]
    fn does_not_rescan_a_partial_line() {
        let mut parser = Parser::default();
        let mut buf = BytesMut::from(&b"INFO {\"port\":"[..]);
        assert_eq!(parser.parse(&mut buf), Ok(None));
        assert_eq!(parser.scanned, buf.len());
        buf.extend_from_slice(b"4222}\r");
        assert_eq!(parser.parse(&mut buf), Ok(None));
        assert_eq!(parser.scanned, buf.len());
        buf.extend_from_slice(b"\n");
        let Ok(Some(ServerOp::Info(info))) = parser.parse(&mut buf) else { panic!() };
        assert_eq!(info.port, 4222);
        assert_eq!(parser.scanned, 0);
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number(b"0"), Some(0));
        assert_eq!(parse_number(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_number(b"9999999999999999999"), Some(9_999_999_999_999_999_999));
        assert_eq!(parse_number(b"00000000000000000000042"), Some(42));
        for bad in [&b""[..], b"18446744073709551616", b"99999999999999999999", b"-1", b"1 ", b"0x1", b"\xff"] {
            assert_eq!(parse_number(bad), None);
        }
    }
}
