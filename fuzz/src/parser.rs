//! Arbitrary bytes, split at an arbitrary point, into the server-op parser:
//! it must never panic, and both ways of feeding must give the same
//! operations and the same error.

use bytes::BytesMut;
use natsjet::Error;
use natsjet::proto::{Parser, ParserLimits, ServerOp};

/// Small limits so that the limit checks are reachable from short inputs.
const LIMITS: ParserLimits = ParserLimits { max_control_line: 512, max_payload: 4096 };

/// The first byte says where to split the rest.
pub fn check(data: &[u8]) {
    let Some((&split, input)) = data.split_first() else {
        return;
    };
    let at = usize::from(split) * input.len() / 255;
    let whole = feed(&[input]);
    let split = feed(&[&input[..at], &input[at..]]);
    assert_eq!(whole, split);
}

/// Operations taken after each chunk, and the error that ended them, if any.
fn feed(chunks: &[&[u8]]) -> (Vec<ServerOp>, Option<Error>) {
    let mut parser = Parser::new(LIMITS);
    let mut buf = BytesMut::new();
    let mut ops = Vec::new();
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        loop {
            match parser.parse(&mut buf) {
                Ok(Some(op)) => ops.push(op),
                Ok(None) => break,
                Err(e) => return (ops, Some(e)),
            }
        }
        // What waits for more is one op at most: bounded by the limits
        // (and two CRLFs), however much was fed.
        assert!(buf.len() <= LIMITS.max_control_line + LIMITS.max_payload + 4, "{} bytes kept", buf.len());
    }
    (ops, None)
}
