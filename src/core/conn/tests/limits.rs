//! What publish refuses (before writing a byte), the reconnect buffer
//! bound, config validation, transmit sizes and counters.

use super::*;
use crate::core::header::HeaderMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn small_server() -> FakeServer {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.handshake(&INFO.replace("1048576", "100"));
    s.take_events();
    s
}

#[test]
fn payload_over_the_server_max_is_refused() {
    let mut s = small_server();
    assert_eq!(s.conn.max_payload(), 100);
    s.conn.publish("a", None, None, &[0; 100]).unwrap();
    s.take_ops();
    assert_eq!(s.conn.publish("a", None, None, &[0; 101]), Err(Error::PayloadTooLarge { size: 101, max_payload: 100 }));
    assert!(s.take_ops().is_empty());
}

#[test]
fn headers_count_towards_max_payload() {
    let mut s = small_server();
    let headers: HeaderMap = [("Key", "v".repeat(40))].into_iter().collect();
    let header_len = crate::core::proto::headers_len(&headers);
    let fits = 100 - header_len;
    s.conn.publish("a", None, Some(&headers), &vec![b'x'; fits]).unwrap();
    let ops = s.take_ops();
    let [ClientOp::Pub { headers: Some(block), payload, .. }] = ops.as_slice() else { panic!("{ops:?}") };
    assert!(block.starts_with("NATS/1.0\r\n") && block.contains("Key: "), "{block:?}");
    assert_eq!(payload.len(), fits);
    let err = s.conn.request("a", Some(&headers), &vec![b'x'; fits + 1]).unwrap_err();
    assert_eq!(err, Error::PayloadTooLarge { size: 101, max_payload: 100 });
    assert!(s.take_ops().is_empty());
}

#[test]
fn default_max_payload_before_the_first_info() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    assert_eq!(s.conn.max_payload(), 1024 * 1024);
    let err = s.conn.publish("a", None, None, &vec![0; 1024 * 1024 + 1]).unwrap_err();
    assert!(matches!(err, Error::PayloadTooLarge { .. }));
}

#[test]
fn invalid_subjects_reply_and_headers_write_nothing() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let injection = "a\r\nPUB b 0";
    assert!(matches!(s.conn.publish(injection, None, None, b""), Err(Error::InvalidSubject { .. })));
    assert!(matches!(s.conn.publish("a", Some("r r"), None, b""), Err(Error::InvalidSubject { .. })));
    assert!(matches!(s.conn.publish("a..b", None, None, b""), Err(Error::InvalidSubject { .. })));
    let mut bad = HeaderMap::new();
    bad.insert("X\r\nPUB b 0\r\nY", "v");
    assert!(matches!(s.conn.publish("a", None, Some(&bad), b""), Err(Error::InvalidArgument(_))));
    assert!(s.take_ops().is_empty());
    assert_eq!(s.conn.pending_bytes(), 0);
    assert_eq!(s.conn.statistics().out_messages, 0);
}

#[test]
fn skipping_subject_validation_keeps_the_framing_checks() {
    let mut s = FakeServer::connected(Config { skip_subject_validation: true, ..config(&["nats://a:4222"]) });
    s.conn.publish("a..b", Some(".r"), None, b"x").unwrap();
    let expected =
        ClientOp::Pub { subject: "a..b".into(), reply: Some(".r".into()), headers: None, payload: b"x".into() };
    assert_eq!(s.take_ops(), [expected]);
    for (subject, reply) in [("a\r\nPUB b 0", None), ("a b", None), ("", None), ("a", Some("r r"))] {
        assert!(matches!(s.conn.publish(subject, reply, None, b""), Err(Error::InvalidSubject { .. })), "{subject:?}");
    }
    assert!(matches!(s.conn.request("a\tb", None, b""), Err(Error::InvalidSubject { .. })));
    // Subscriptions are checked in full whatever the option says.
    assert!(matches!(s.conn.subscribe("a..b", None), Err(Error::InvalidSubject { .. })));
    assert!(s.take_ops().is_empty());
}

#[test]
fn reconnect_buffer_full_refuses_and_keeps_what_it_has() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.reconnect_buffer_size = 64;
    let mut s = FakeServer::new(cfg);
    // "PUB a 10\r\n" + 10 bytes + "\r\n" = 22 bytes each.
    for _ in 0..2 {
        s.conn.publish("a", None, None, b"0123456789").unwrap();
    }
    assert_eq!(s.conn.pending_bytes(), 44);
    assert_eq!(s.conn.publish("a", None, None, b"0123456789"), Err(Error::ReconnectBufferFull { capacity: 64 }));
    assert_eq!(s.conn.pending_bytes(), 44, "the refused message left no trace");
    s.conn.publish("a", None, None, b"").unwrap();
    s.handshake(INFO);
    assert_eq!(
        s.take_ops(),
        [ClientOp::pub_("a", "0123456789"), ClientOp::pub_("a", "0123456789"), ClientOp::pub_("a", "")]
    );
    assert_eq!(s.conn.statistics().out_messages, 3);
}

#[test]
fn config_is_validated() {
    let no_servers = Config::default();
    assert!(matches!(Connection::new(no_servers, Instant::ZERO, 0), Err(Error::InvalidArgument(_))));
    for prefix in ["", "a b", "_INBOX.*", "a.>", "a..b"] {
        let cfg = Config { inbox_prefix: prefix.into(), ..config(&["nats://a:4222"]) };
        assert!(matches!(Connection::new(cfg, Instant::ZERO, 0), Err(Error::InvalidSubject { .. })), "{prefix:?}");
    }
    let cfg = Config { max_pings_outstanding: 0, ..config(&["nats://a:4222"]) };
    assert!(Connection::new(cfg, Instant::ZERO, 0).is_err());
    let cfg = Config { ping_interval: std::time::Duration::ZERO, ..config(&["nats://a:4222"]) };
    assert!(Connection::new(cfg, Instant::ZERO, 0).is_err());
}

#[test]
fn transmit_is_coalesced_and_bounded() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    for i in 0..10 {
        s.conn.publish("a", None, None, format!("{i}").as_bytes()).unwrap();
    }
    let total = s.conn.pending_bytes();
    assert_eq!(total, 10 * "PUB a 1\r\n0\r\n".len());
    let mut written = Vec::new();
    while let Some(chunk) = s.conn.poll_transmit(32) {
        assert!(chunk.len() <= 32);
        written.extend_from_slice(&chunk);
    }
    assert_eq!(written.len(), total);
    assert_eq!(parse_client(&written).len(), 10);
    s.conn.publish("a", None, None, b"x").unwrap();
    assert_eq!(s.conn.poll_transmit(usize::MAX).unwrap().len(), 12, "one chunk when allowed");
}

#[test]
fn counters() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    s.conn.publish("a", None, None, b"12345").unwrap();
    s.conn.publish("a", None, None, b"").unwrap();
    s.send(&msg("a", sid.0, None, "123"));
    let stats = s.conn.statistics();
    assert_eq!((stats.out_messages, stats.out_bytes, stats.in_messages, stats.in_bytes), (2, 5, 1, 3));
}

#[test]
fn a_large_shared_payload_goes_out_as_it_is_and_the_wire_is_the_same() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let payload = bytes::Bytes::from(vec![b'z'; 100_000]);
    let headers: HeaderMap = [("Key", "v")].into_iter().collect();
    let wire = |s: &mut FakeServer, shared: bool| {
        s.conn.publish("small", None, None, b"1").unwrap();
        let id = match shared {
            true => s.conn.request_shared("big", Some(&headers), &payload).unwrap(),
            false => s.conn.request("big", Some(&headers), &payload).unwrap(),
        };
        s.conn.publish("small", None, None, b"2").unwrap();
        let (mut written, mut pieces) = (Vec::new(), Vec::new());
        while let Some(piece) = s.conn.poll_transmit(usize::MAX) {
            written.extend_from_slice(&piece);
            pieces.push(piece);
        }
        (written, pieces, id)
    };
    wire(&mut s, false); // subscribes to the request inbox
    let (copied, _, first) = wire(&mut s, false);
    let (shared, pieces, second) = wire(&mut s, true);
    let reply = |id: super::super::RequestId| format!(".{} ", id.0);
    assert_eq!(copied.len(), shared.len());
    // The same bytes but for the request's own reply token.
    let (a, b) = (String::from_utf8_lossy(&copied), String::from_utf8_lossy(&shared));
    assert_eq!(a.replace(&reply(first), ".# "), b.replace(&reply(second), ".# "));
    assert!(pieces.iter().any(|p| p.as_ptr() == payload.as_ptr() && p.len() == payload.len()), "not copied");
    s.conn.publish_shared("big", None, None, &payload).unwrap();
    assert_eq!(s.conn.pending_bytes(), "PUB big 100000\r\n".len() + 100_000 + 2);
    let ops = s.take_ops();
    let [ClientOp::Pub { subject, payload: sent, .. }] = ops.as_slice() else { panic!("{ops:?}") };
    assert_eq!((subject.as_str(), sent.len()), ("big", 100_000));
}

#[test]
fn lines_longer_than_the_servers_control_line_are_refused_before_writing() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let long = format!("a.{}", "b".repeat(4100));
    for err in [
        s.conn.publish(&long, None, None, b"x").unwrap_err(),
        s.conn.publish("a", Some(&long), None, b"x").unwrap_err(),
        s.conn.request(&long, None, b"x").unwrap_err(),
        s.conn.subscribe(&long, None).unwrap_err(),
        s.conn.subscribe("a", Some(&"q".repeat(4090))).unwrap_err(),
    ] {
        assert!(matches!(err, Error::InvalidSubject { reason, .. } if reason.contains("max_control_line")), "{err:?}");
    }
    // The request inbox's SUB went out with the refused request; nothing else did.
    assert!(s.take_ops().iter().all(|op| matches!(op, ClientOp::Sub { .. })));
    assert_eq!(s.conn.statistics().out_messages, 0);
    // Just under the limit: the line the server reads is at most 4096 bytes.
    let fits = "c".repeat(4096 - crate::core::conn::CONTROL_LINE_REST);
    s.conn.publish(&fits, None, None, b"x").unwrap();
    assert_eq!(s.take_ops().len(), 1);

    let mut cfg = config(&["nats://a:4222"]);
    cfg.max_control_line = 8192;
    let mut s = FakeServer::connected(cfg);
    s.conn.publish(&long, None, None, b"x").unwrap();
    s.conn.subscribe(&long, None).unwrap();
    assert_eq!(s.take_ops().len(), 2, "a raised limit lets them through");
}

#[test]
fn bytes_the_host_holds_unsent_count_toward_the_outgoing_bound_until_it_is_reconnected() {
    let mut s = FakeServer::connected(Config { outgoing_buffer_size: 1000, ..config(&["nats://a:4222"]) });
    s.conn.handle_unwritten(990);
    // `PUB a 1\r\nx\r\n`: 12 bytes waiting here and 990 in the host.
    s.conn.publish("a", None, None, b"x").unwrap();
    assert_eq!(s.conn.publish("a", None, None, b"y"), Err(Error::OutgoingBufferFull { capacity: 1000 }));
    s.conn.handle_unwritten(0);
    s.conn.publish("a", None, None, b"z").unwrap();
    assert_eq!(s.take_ops(), [ClientOp::pub_("a", "x"), ClientOp::pub_("a", "z")]);
    s.conn.handle_unwritten(usize::MAX);
    assert!(s.conn.publish("a", None, None, b"w").is_err());
    // The host's buffer went with its transport.
    s.reconnect();
    s.conn.publish("a", None, None, b"v").unwrap();
}

#[test]
fn bytes_given_back_go_out_first() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.conn.publish("a", None, None, b"1").unwrap();
    let first = s.conn.poll_transmit(5).unwrap();
    let second = s.conn.poll_transmit(usize::MAX).unwrap();
    s.conn.publish("a", None, None, b"2").unwrap();
    s.conn.untransmit([first, second].into_iter());
    assert_eq!(s.take_ops(), [ClientOp::pub_("a", "1"), ClientOp::pub_("a", "2")]);
}
