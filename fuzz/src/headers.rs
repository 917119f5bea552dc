//! Arbitrary bytes as the header block of an HMSG: the parser must never
//! panic, and a block it reads that could be sent (names and values
//! `validate_headers` takes, no status) must come back the same after the
//! encoder writes it into an HPUB.

use bytes::BytesMut;
use natsjet::proto::{encode_pub, headers_len, parse_headers, validate_headers};

pub fn check(data: &[u8]) {
    let Ok((status, _, headers)) = parse_headers(data) else {
        return;
    };
    if status.is_some() || validate_headers(&headers).is_err() {
        return;
    }
    let mut out = BytesMut::new();
    encode_pub(&mut out, "fuzz", None, Some(&headers), b"");
    let line_end = out.windows(2).position(|w| w == b"\r\n").expect("HPUB has a control line") + 2;
    let block = &out[line_end..line_end + headers_len(&headers)];
    let (again_status, again_description, again) = parse_headers(block).expect("an encoded block parses");
    assert_eq!((again_status, again_description), (None, None));
    assert_eq!(again, headers);
}
