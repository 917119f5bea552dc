//! Incremental parser for server operations. PLACEHOLDER: API only.

use bytes::BytesMut;

use crate::error::Error;
use crate::message::Message;
use crate::proto::ServerInfo;

/// One operation from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerOp {
    Info(Box<ServerInfo>),
    /// MSG or HMSG; headers, status and description are parsed into `message`.
    Msg { sid: u64, message: Message },
    Ping,
    Pong,
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
#[derive(Debug, Default)]
pub struct Parser {
    limits: ParserLimits,
}

impl Parser {
    pub fn new(limits: ParserLimits) -> Self {
        Parser { limits }
    }

    pub fn set_max_payload(&mut self, max_payload: usize) {
        self.limits.max_payload = max_payload;
    }

    /// Takes one complete operation off the front of `buf`, or `Ok(None)` if
    /// more bytes are needed. Payloads share `buf`'s memory (no copy).
    /// Errors are `Error::Protocol`; after one, the stream is unusable.
    pub fn parse(&mut self, buf: &mut BytesMut) -> Result<Option<ServerOp>, Error> {
        todo!("{buf:?}")
    }
}
