//! A reconnect the user asks for (`force_reconnect`), and which server the
//! connection reports as current.

use super::*;
use crate::core::conn::State;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn writes_what_was_accepted_then_reconnects_and_resubscribes() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("in", None).unwrap();
    s.take_ops();
    s.advance(10_000);
    s.conn.publish("x", None, None, b"before").unwrap();
    s.conn.force_reconnect(s.now).unwrap();
    assert_eq!(s.take_ops(), [ClientOp::pub_("x", "before")], "written before the close");
    s.expect_close();
    s.conn.publish("x", None, None, b"during").unwrap();
    assert!(s.take_ops().is_empty(), "publishes wait for the next server");
    s.lose(None);
    assert_eq!(
        s.take_conn_events(),
        [
            ConnectionEvent::ForcedReconnect { server: addr("nats://a:4222") },
            disconnected("nats://a:4222", None),
            ConnectionEvent::Reconnecting { server: addr("nats://a:4222") }
        ],
        "announced, then not an error, then a new attempt"
    );
    assert_eq!(s.conn.state(), State::Connecting);

    // The last attempt was 10 s ago: past the reconnect delay, so at once.
    let ops = s.handshake(INFO);
    assert_eq!(ops[1..], [ClientOp::sub("in", sid.0), ClientOp::Ping]);
    assert_eq!(s.take_ops(), [ClientOp::pub_("x", "during")]);
    assert_eq!(s.take_conn_events(), [ConnectionEvent::Reconnected { server: addr("nats://a:4222") }]);
    assert_eq!(s.conn.statistics().reconnects, 1);
    assert_eq!(s.conn.state(), State::Connected);
}

#[test]
fn another_server_is_preferred() {
    let mut s = FakeServer::connected(config(&["nats://a:4222", "nats://b:4222"]));
    s.conn.force_reconnect(s.now).unwrap();
    s.expect_close();
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://b:4222");
}

#[test]
fn the_same_server_waits_out_the_reconnect_delay() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    let mut s = FakeServer::connected(cfg);
    s.advance(500);
    s.conn.force_reconnect(s.now).unwrap();
    s.expect_close();
    s.lose(None);
    assert!(s.take_actions().is_empty(), "tried 500 ms ago");
    s.advance(1499);
    assert!(s.take_actions().is_empty());
    s.advance(1);
    assert_eq!(s.expect_connect(), "nats://a:4222");
}

#[test]
fn pending_flushes_fail_as_disconnected() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let flush = s.conn.flush().unwrap();
    s.take_ops();
    s.conn.force_reconnect(s.now).unwrap();
    s.expect_close();
    s.lose(None);
    let events = s.take_events();
    assert!(events.contains(&Event::Flushed { id: flush, result: Err(Error::Disconnected) }), "{events:?}");
}

#[test]
fn does_nothing_while_connecting_or_disconnected() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.conn.force_reconnect(s.now).unwrap();
    assert!(s.take_actions().is_empty(), "the first attempt goes on");
    s.open();
    s.send(INFO);
    s.take_ops();
    s.conn.force_reconnect(s.now).unwrap();
    assert!(s.take_actions().is_empty(), "nor during the handshake");
    s.send("PONG");
    assert!(matches!(s.take_conn_events().as_slice(), [ConnectionEvent::Connected { .. }]));

    s.lose(None);
    s.take_events();
    s.conn.force_reconnect(s.now).unwrap();
    assert!(s.take_actions().is_empty(), "waiting for the reconnect timer");
    assert_eq!(s.conn.state(), State::Disconnected);
}

#[test]
fn a_closed_connection_refuses() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.conn.close(s.now);
    assert_eq!(s.conn.force_reconnect(s.now), Err(Error::Closed));
    s.expect_close();
    s.lose(None);
    assert_eq!(s.conn.force_reconnect(s.now), Err(Error::Closed));
}

#[test]
fn current_server_follows_attempts_and_stays_while_disconnected() {
    let mut s = FakeServer::new(config(&["nats://a:4222", "nats://b:4222"]));
    assert_eq!(s.conn.current_server(), Some(&addr("nats://a:4222")), "the first attempt");
    s.expect_connect();
    s.open();
    s.send(INFO);
    s.send("PONG");
    assert_eq!(s.conn.current_server(), Some(&addr("nats://a:4222")));
    s.take_ops();
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://b:4222", "b was never tried: at once");
    assert_eq!(s.conn.current_server(), Some(&addr("nats://b:4222")));
    s.lose(None);
    assert!(s.take_actions().is_empty(), "both tried just now: waiting");
    assert_eq!(s.conn.current_server(), Some(&addr("nats://b:4222")), "the last one, until the next attempt");
}
