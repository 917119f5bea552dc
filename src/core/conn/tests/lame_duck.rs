//! Lame duck: the server announces its shutdown; the connection moves to
//! another server without losing a publish.

use crate::core::machine::Machine;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::conn::State;

#[test]
fn moves_to_another_server_without_losing_publishes() {
    let mut s = FakeServer::connected(config(&["nats://a:4222", "nats://b:4222"]));
    let sid = s.conn.subscribe("in", None).unwrap();
    s.conn.publish("x", None, None, b"before").unwrap();
    let flush = s.conn.flush().unwrap();
    s.take_ops();
    s.advance(30_000);

    s.send(&info_with(r#""ldm":true"#));
    assert_eq!(s.take_conn_events(), [ConnectionEvent::LameDuck { server: addr("nats://a:4222") }]);
    assert_eq!(s.take_ops(), [ClientOp::Ping], "a PING to know everything before was processed");
    s.conn.publish("x", None, None, b"during").unwrap();
    assert!(s.take_ops().is_empty(), "new publishes wait for the next server");

    s.send(&msg("in", sid.0, None, "still delivered"));
    assert!(matches!(s.take_events().as_slice(), [Event::Message { .. }]));
    s.send("PONG");
    assert_eq!(s.take_events(), [Event::Flushed { id: flush, result: Ok(()) }], "older flush first");
    assert!(s.take_actions().is_empty());
    s.send("PONG");
    s.expect_close();
    s.lose(None);
    assert_eq!(
        s.take_conn_events(),
        [disconnected("nats://a:4222", None), ConnectionEvent::Reconnecting { server: addr("nats://b:4222") }]
    );

    assert_eq!(s.expect_connect(), "nats://b:4222", "another server, at once");
    s.open();
    s.send(INFO);
    assert_eq!(s.take_ops()[1..], [ClientOp::sub("in", sid.0), ClientOp::Ping]);
    s.send("PONG");
    assert_eq!(s.take_ops(), [ClientOp::pub_("x", "during")]);
    assert_eq!(s.take_conn_events(), [ConnectionEvent::Reconnected { server: addr("nats://b:4222") }]);
    assert_eq!(s.conn.state(), State::Connected);
}

#[test]
fn moves_anyway_when_the_pong_does_not_come() {
    let mut s = FakeServer::connected(config(&["nats://a:4222", "nats://b:4222"]));
    s.send(&info_with(r#""ldm":true"#));
    s.take_ops();
    assert_eq!(
        s.conn.poll_deadline().map(|d| d.at),
        Some(s.now + Duration::from_secs(5)),
        "bounded by connect_timeout"
    );
    s.advance(4999);
    assert!(s.take_actions().is_empty());
    s.advance(1);
    s.expect_close();
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://b:4222");
}

#[test]
fn a_lone_server_is_retried_after_the_delay() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    let mut s = FakeServer::connected(cfg);
    s.advance(60_000);
    s.send(&info_with(r#""ldm":true"#));
    s.send("PONG");
    s.expect_close();
    s.lose(None);
    assert!(s.take_actions().is_empty(), "not straight back to the lame duck");
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), Some(Instant::from_millis(62_000)));
    s.advance(2000);
    assert_eq!(s.expect_connect(), "nats://a:4222");
}

#[test]
fn lame_duck_info_during_a_move_is_ignored() {
    let mut s = FakeServer::connected(config(&["nats://a:4222", "nats://b:4222"]));
    s.send(&info_with(r#""ldm":true"#));
    s.send(&info_with(r#""ldm":true"#));
    assert_eq!(s.take_ops(), [ClientOp::Ping]);
    assert_eq!(s.take_conn_events().len(), 1);
}
