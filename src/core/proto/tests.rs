//! Transcript tests for the codec: a recorded session parsed at every split
//! point, hostile inputs, and encoder output read back by the parser.

use bytes::{Bytes, BytesMut};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::error::Error;
use crate::core::header::{HeaderMap, StatusCode};
use crate::core::message::Message;

const INFO: &str = r#"INFO {"server_id":"NDXYZ","server_name":"n1","version":"2.15.0","go":"go1.25.1","host":"0.0.0.0","port":4222,"headers":true,"max_payload":1048576,"proto":1,"client_id":7,"jetstream":true,"nonce":"abc","client_ip":"127.0.0.1","connect_urls":["10.0.0.2:4222"],"some_new_field":{"x":[1,2]}}"#;

fn hmsg(subject: &str, sid: u64, reply: Option<&str>, block: &str, payload: &str) -> String {
    let reply = reply.map(|r| format!("{r} ")).unwrap_or_default();
    let (h, t) = (block.len(), block.len() + payload.len());
    format!("HMSG {subject} {sid} {reply}{h} {t}\r\n{block}{payload}\r\n")
}

/// The recorded session and the operations it holds.
fn session() -> (Vec<u8>, Vec<ServerOp>) {
    let pending_block = "NATS/1.0 408 Request Timeout\r\nNats-Pending-Messages: 10\r\nNats-Pending-Bytes: 2048\r\n\r\n";
    let multi_block = "NATS/1.0\r\nX-Multi: a\r\nNats-Msg-Id: id-1\r\nX-Multi:  b \r\nx-multi: c\r\n\r\n";
    let wire = [
        format!("{INFO}\r\n"),
        "+OK\r\n".into(),
        "MSG foo.bar 1 5\r\nhello\r\n".into(),
        "MSG foo.baz 2 _INBOX.r1 12\r\nhello\r\nworld\r\n".into(),
        hmsg("js.in", 3, Some("$JS.ACK.s.c.1.2.3.4.0"), multi_block, "body"),
        hmsg("_INBOX.p", 4, None, pending_block, ""),
        hmsg("_INBOX.q", 5, None, "NATS/1.0 503\r\n\r\n", ""),
        "MSG empty 6 0\r\n\r\n".into(),
        "PING\r\n".into(),
        "PONG\r\n".into(),
        "msg\tlower.case 7\t2\r\nhi\r\n".into(),
        "ping\r\n".into(),
        "-ERR 'Authorization Violation'\r\n".into(),
    ]
    .concat();

    let msg = |subject: &str, reply: Option<&str>, payload: &'static str, header_len: usize| Message {
        subject: subject.into(),
        reply: reply.map(Into::into),
        payload: Bytes::from_static(payload.as_bytes()),
        headers: None,
        status: None,
        description: None,
        length: subject.len() + reply.map_or(0, str::len) + header_len + payload.len(),
    };
    let info = ServerInfo {
        server_id: "NDXYZ".into(),
        server_name: "n1".into(),
        version: "2.15.0".into(),
        go: "go1.25.1".into(),
        host: "0.0.0.0".into(),
        port: 4222,
        headers: true,
        max_payload: 1048576,
        proto: 1,
        client_id: 7,
        jetstream: true,
        nonce: Some("abc".into()),
        client_ip: Some("127.0.0.1".into()),
        connect_urls: vec!["10.0.0.2:4222".into()],
        ..ServerInfo::default()
    };
    let multi = Message {
        headers: Some(
            [("X-Multi", "a"), ("Nats-Msg-Id", "id-1"), ("X-Multi", "b"), ("x-multi", "c")].into_iter().collect(),
        ),
        ..msg("js.in", Some("$JS.ACK.s.c.1.2.3.4.0"), "body", multi_block.len())
    };
    let timeout = Message {
        headers: Some([("Nats-Pending-Messages", "10"), ("Nats-Pending-Bytes", "2048")].into_iter().collect()),
        status: Some(StatusCode::REQUEST_TIMEOUT),
        description: Some("Request Timeout".into()),
        ..msg("_INBOX.p", None, "", pending_block.len())
    };
    let no_responders = Message {
        headers: Some(HeaderMap::new()),
        status: Some(StatusCode::NO_RESPONDERS),
        ..msg("_INBOX.q", None, "", 16)
    };
    let ops = vec![
        ServerOp::Info(Box::new(info)),
        ServerOp::Ok,
        ServerOp::Msg { sid: 1, message: msg("foo.bar", None, "hello", 0) },
        ServerOp::Msg { sid: 2, message: msg("foo.baz", Some("_INBOX.r1"), "hello\r\nworld", 0) },
        ServerOp::Msg { sid: 3, message: multi },
        ServerOp::Msg { sid: 4, message: timeout },
        ServerOp::Msg { sid: 5, message: no_responders },
        ServerOp::Msg { sid: 6, message: msg("empty", None, "", 0) },
        ServerOp::Ping,
        ServerOp::Pong,
        ServerOp::Msg { sid: 7, message: msg("lower.case", None, "hi", 0) },
        ServerOp::Ping,
        ServerOp::Err("Authorization Violation".into()),
    ];
    (wire.into_bytes(), ops)
}

/// Feeds `chunks` in turn, taking every operation each makes complete.
/// Stops at the first error, which ends the list.
fn feed<'a>(parser: &mut Parser, chunks: impl IntoIterator<Item = &'a [u8]>) -> (Vec<ServerOp>, Option<Error>) {
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
    }
    (ops, None)
}

fn feed_whole(input: &[u8]) -> (Vec<ServerOp>, Option<Error>) {
    feed(&mut Parser::new(small_limits()), [input])
}

fn feed_bytewise(input: &[u8]) -> (Vec<ServerOp>, Option<Error>) {
    feed(&mut Parser::new(small_limits()), input.chunks(1))
}

fn small_limits() -> ParserLimits {
    ParserLimits { max_control_line: 1024, max_payload: 4096 }
}

#[test]
fn session_parses_whole() {
    let (wire, expected) = session();
    let (ops, err) = feed_whole(&wire);
    assert_eq!(err, None);
    assert_eq!(ops.len(), expected.len());
    for (op, want) in ops.iter().zip(&expected) {
        assert_eq!(op, want);
    }
}

#[test]
fn session_parses_the_same_at_every_split_point() {
    let (wire, expected) = session();
    for at in 0..=wire.len() {
        let (head, tail) = wire.split_at(at);
        let (ops, err) = feed(&mut Parser::default(), [head, tail]);
        assert_eq!(err, None, "split at {at}");
        assert_eq!(ops, expected, "split at {at}");
    }
}

#[test]
fn session_parses_the_same_byte_by_byte() {
    let (wire, expected) = session();
    assert_eq!(feed_bytewise(&wire), (expected, None));
}

#[test]
fn payloads_share_the_read_buffer() {
    let (wire, _) = session();
    let mut buf = BytesMut::from(&wire[..]);
    let memory = buf.as_ptr() as usize..buf.as_ptr() as usize + buf.len();
    let mut parser = Parser::default();
    let mut payloads = 0;
    while let Some(op) = parser.parse(&mut buf).unwrap() {
        if let ServerOp::Msg { message, .. } = op {
            if !message.payload.is_empty() {
                assert!(memory.contains(&(message.payload.as_ptr() as usize)));
                payloads += 1;
            }
        }
    }
    assert_eq!(payloads, 4);
    assert!(buf.is_empty());
}

#[test]
fn large_message_fed_byte_by_byte() {
    let payload: Vec<u8> = (0..1024 * 1024).map(|i| (i % 251) as u8).collect();
    let mut wire = format!("MSG big 1 {}\r\n", payload.len()).into_bytes();
    wire.extend_from_slice(&payload);
    wire.extend_from_slice(b"\r\nPING\r\n");
    let limits = ParserLimits { max_payload: 2 * 1024 * 1024, ..ParserLimits::default() };
    let (ops, err) = feed(&mut Parser::new(limits), wire.chunks(1));
    assert_eq!(err, None);
    assert_eq!(ops.len(), 2);
    let ServerOp::Msg { message, .. } = &ops[0] else { panic!("{:?}", ops[0]) };
    assert_eq!(message.payload, payload);
    assert_eq!(ops[1], ServerOp::Ping);
}

#[test]
fn bad_header_block_keeps_the_stream() {
    let wire = [hmsg("a", 1, None, "garbage\r\n\r\n", "x"), "PONG\r\n".into()].concat();
    let (ops, err) = feed_whole(wire.as_bytes());
    assert_eq!(err, None);
    let ServerOp::Msg { message, .. } = &ops[0] else { panic!("{:?}", ops[0]) };
    assert_eq!((message.headers.as_ref(), message.payload.as_ref()), (None, &b"x"[..]));
    assert_eq!(ops[1], ServerOp::Pong);
}

#[test]
fn odd_subject_bytes_are_decoded_lossily() {
    let (ops, err) = feed_whole(b"MSG a\xffb 1 0\r\n\r\n");
    assert_eq!(err, None);
    let ServerOp::Msg { message, .. } = &ops[0] else { panic!("{:?}", ops[0]) };
    assert_eq!(message.subject, "a\u{fffd}b");
}

#[test]
fn subject_reply_and_payload_share_the_read_buffer() {
    let mut buf = BytesMut::from(&b"MSG  orders.new\t1  _INBOX.r 5 \r\nhello\r\n"[..]);
    let read = buf.as_ptr_range();
    let Ok(Some(ServerOp::Msg { message, .. })) = Parser::default().parse(&mut buf) else { panic!() };
    let reply = message.reply.as_deref().unwrap_or_default();
    for (part, text) in
        [(message.subject.as_bytes(), "orders.new"), (reply.as_bytes(), "_INBOX.r"), (&message.payload, "hello")]
    {
        assert_eq!(part, text.as_bytes());
        assert!(read.contains(&part.as_ptr()), "{text} was copied");
    }
}

#[test]
fn hostile_inputs_are_errors() {
    let long_line = format!("INFO {}", "x".repeat(2000));
    let long_line_with_lf = format!("{long_line}\r\n");
    let cases: &[&[u8]] = &[
        long_line.as_bytes(),
        long_line_with_lf.as_bytes(),
        b"MSG a 1 -5\r\n",
        b"MSG a 1 +5\r\n",
        b"MSG a 1 abc\r\n",
        b"MSG a 1 5x\r\n",
        b"MSG a 1 \r\n",
        b"MSG a 1 99999999999999999999999\r\n",
        b"MSG a 1 4097\r\n",
        b"MSG a x 1\r\n",
        b"MSG a 1 b c 1\r\n",
        b"MSG\r\n",
        b"HMSG a 1 5\r\n",
        b"HMSG a 1 10 5\r\n",
        b"HMSG a 1 5 5000\r\n",
        b"MSG a 1 2\r\nhiXX",
        b"MSG a 1 2\r\nhi\n\r\n",
        b"MSG a 1 2\r\nhi\rX",
        b"\n",
        b"INFO\r\n",
        b"INFO {bad\r\n",
        b"INFO {\"server_id\":\"\xff\"}\r\n",
        b"INFO {\"port\":\"not a number but a long string to see the error text capped...........\"}\r\n",
        b"INFO {} trailing\r\n",
        b"FOO bar\r\n",
        b"\r\n",
        b" PING\r\n",
        b"PINGPONG\r\n",
    ];
    for input in cases {
        let shown = input.escape_ascii().to_string();
        let (ops, err) = feed_whole(input);
        assert!(ops.is_empty(), "{shown}");
        let Some(Error::Protocol(cause)) = &err else { panic!("{shown}: {err:?}") };
        let text = cause.to_string();
        assert!(text.len() < 120, "error text too long: {text}");
        assert_eq!(feed_bytewise(input), (ops, err), "{shown}");
    }
}

#[test]
fn altered_bytes_give_the_same_result_however_fed() {
    let (wire, _) = session();
    let mut altered = wire.clone();
    for at in 0..wire.len() {
        for byte in [b'\n', b'\r', b' ', b'9', b'x', 0xff] {
            altered[at] = byte;
            let whole = feed_whole(&altered);
            assert_eq!(feed_bytewise(&altered), whole, "byte {at} set to {byte}");
        }
        altered[at] = wire[at];
    }
}

#[test]
fn pub_round_trips_as_msg() {
    let mut out = BytesMut::new();
    encode_pub(&mut out, "orders.new", Some("_INBOX.1"), None, b"payload");
    assert_eq!(&out[..], b"PUB orders.new _INBOX.1 7\r\npayload\r\n");
    let message = received(&out);
    assert_eq!(message.subject, "orders.new");
    assert_eq!(message.reply.as_deref(), Some("_INBOX.1"));
    assert_eq!(message.payload, "payload");
    assert_eq!(message.headers, None);

    out.clear();
    encode_pub(&mut out, "x", None, None, b"");
    assert_eq!(&out[..], b"PUB x 0\r\n\r\n");
    assert_eq!(received(&out).payload, "");
}

#[test]
fn hpub_round_trips_as_hmsg() {
    let headers: HeaderMap =
        [("Nats-Msg-Id", "m1"), ("X-Multi", "a"), ("X-Multi", "b"), ("x-multi", "c"), ("Empty", "")]
            .into_iter()
            .collect();
    validate_headers(&headers).unwrap();
    let mut out = BytesMut::new();
    encode_pub(&mut out, "orders.new", Some("_INBOX.1"), Some(&headers), b"body");
    let hlen = headers_len(&headers);
    assert!(out.starts_with(format!("HPUB orders.new _INBOX.1 {hlen} {}\r\nNATS/1.0\r\n", hlen + 4).as_bytes()));
    let message = received(&out);
    assert_eq!(message.headers.as_ref(), Some(&headers));
    assert_eq!((message.status, message.payload.as_ref()), (None, &b"body"[..]));
    assert_eq!(message.length, "orders.new".len() + "_INBOX.1".len() + hlen + 4);

    out.clear();
    encode_pub(&mut out, "x", None, Some(&HeaderMap::new()), b"p");
    assert_eq!(&out[..], b"HPUB x 12 13\r\nNATS/1.0\r\n\r\np\r\n");
    assert_eq!(received(&out).headers, Some(HeaderMap::new()));
}

/// Reads a PUB/HPUB the way the server would deliver it, as MSG/HMSG on sid 9.
fn received(publish: &[u8]) -> Message {
    let line_end = publish.windows(2).position(|w| w == b"\r\n").unwrap();
    let line = std::str::from_utf8(&publish[..line_end]).unwrap();
    let mut fields = line.split(' ');
    let op = if fields.next() == Some("HPUB") { "HMSG" } else { "MSG" };
    let subject = fields.next().unwrap();
    let rest: Vec<&str> = fields.collect();
    let mut wire = format!("{op} {subject} 9 {}", rest.join(" ")).into_bytes();
    wire.extend_from_slice(&publish[line_end..]);
    let (mut ops, err) = feed_whole(&wire);
    assert_eq!((ops.len(), err), (1, None));
    match ops.pop() {
        Some(ServerOp::Msg { sid: 9, message }) => message,
        other => panic!("{other:?}"),
    }
}

#[test]
fn sub_unsub_ping_pong() {
    let mut out = BytesMut::new();
    encode_sub(&mut out, "orders.>", None, 1);
    encode_sub(&mut out, "orders.*", Some("workers"), 18_446_744_073_709_551_615);
    encode_unsub(&mut out, 0, None);
    encode_unsub(&mut out, 42, Some(10));
    encode_ping(&mut out);
    encode_pong(&mut out);
    assert_eq!(
        &out[..],
        b"SUB orders.> 1\r\nSUB orders.* workers 18446744073709551615\r\nUNSUB 0\r\nUNSUB 42 10\r\nPING\r\nPONG\r\n"
    );
}

#[test]
fn connect_is_one_json_line() {
    let info = ConnectInfo {
        lang: "rust".into(),
        version: "0.1.0".into(),
        protocol: 1,
        headers: true,
        no_responders: true,
        name: Some("line\r\nbreak".into()),
        user: Some("u".into()),
        pass: Some("p".into()),
        ..ConnectInfo::default()
    };
    let mut out = BytesMut::new();
    encode_connect(&mut out, &info);
    let line = out.strip_prefix(b"CONNECT ").unwrap().strip_suffix(b"\r\n").unwrap();
    assert!(!line.contains(&b'\n'));
    let json: serde_json::Value = serde_json::from_slice(line).unwrap();
    assert_eq!(json["name"], "line\r\nbreak");
    assert_eq!(json["headers"], true);
    assert_eq!(json["pass"], "p");
    assert!(json.get("auth_token").is_none());
}

#[test]
fn server_versions_compare_as_numbers() {
    let info = |version: &str| ServerInfo { version: version.into(), ..ServerInfo::default() };
    assert!(info("2.15.0").version_at_least(2, 11, 0));
    assert!(info("v2.10.22").version_at_least(2, 10, 9), "22 > 9 as numbers");
    assert!(!info("2.9.25").version_at_least(2, 10, 0));
    assert!(info("2.12.0-beta.1").version_at_least(2, 12, 0));
    assert!(info("3").version_at_least(2, 99, 99));
    assert!(!info("").version_at_least(0, 0, 0));
    assert!(!info("dev").version_at_least(0, 0, 0));
}
