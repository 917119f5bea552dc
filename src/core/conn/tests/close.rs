//! `close()`: what was accepted is still written, then everything pending
//! fails with `Closed`, and later commands are refused.

use super::*;
use crate::core::conn::State;
use crate::core::machine::Machine;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn close_writes_what_was_accepted_then_closes_the_transport() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.conn.publish("a", None, None, b"last words").unwrap();
    let flush = s.conn.flush().unwrap();
    let request = s.conn.request("svc", None, b"").unwrap();
    s.conn.close(s.now);
    assert_eq!(s.conn.poll_action(), Some(Action::Close));
    assert!(s.conn.poll_transmit(usize::MAX).is_some(), "output stays available before the Close is carried out");
    s.drive();
    assert_eq!(s.conn.publish("a", None, None, b""), Err(Error::Closed));
    assert_eq!(s.conn.flush(), Err(Error::Closed));
    assert_eq!(s.conn.subscribe("a", None), Err(Error::Closed));
    s.lose(None);
    assert_eq!(s.conn.state(), State::Closed);
    let events = s.take_events();
    assert!(events.contains(&Event::Flushed { id: flush, result: Err(Error::Closed) }));
    assert!(events.contains(&Event::Response { id: request, result: Err(Error::Closed) }));
    assert_eq!(events.last(), Some(&Event::Connection(ConnectionEvent::Closed { error: None })));
    let disconnected = |e: &Event| matches!(e, Event::Connection(ConnectionEvent::Disconnected { .. }));
    assert!(!events.iter().any(disconnected), "a close is no loss: {events:?}");
    assert!(s.take_actions().is_empty(), "no reconnect");
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), None);
}

#[test]
fn close_while_disconnected_is_immediate() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.lose(None);
    s.take_events();
    let flush = s.conn.flush().unwrap();
    s.conn.close(s.now);
    s.drive();
    assert_eq!(s.conn.state(), State::Closed);
    assert!(s.take_actions().is_empty());
    assert_eq!(
        s.take_events(),
        [
            Event::Flushed { id: flush, result: Err(Error::Closed) },
            Event::Connection(ConnectionEvent::Closed { error: None })
        ]
    );
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), None, "the reconnect timer is gone");
}

#[test]
fn a_transport_that_opens_after_close_is_sent_away() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.conn.close(s.now);
    s.open();
    s.expect_close();
    s.lose(None);
    assert_eq!(s.take_conn_events(), [ConnectionEvent::Closed { error: None }], "reported once");
}

#[test]
fn close_during_a_move_keeps_the_publishes() {
    let mut s = FakeServer::connected(config(&["nats://a:4222", "nats://b:4222"]));
    s.send(&info_with(r#""ldm":true"#));
    s.take_ops();
    s.conn.publish("a", None, None, b"x").unwrap();
    s.conn.close(s.now);
    s.drive();
    assert_eq!(s.take_ops(), [ClientOp::pub_("a", "x")], "the lame duck still takes it");
    s.expect_close();
}

#[test]
fn close_is_idempotent() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.conn.close(s.now);
    s.conn.close(s.now);
    s.drive();
    s.expect_close();
    s.lose(None);
    s.conn.close(s.now);
    s.drive();
    let closed = s.take_conn_events().into_iter().filter(|e| matches!(e, ConnectionEvent::Closed { .. })).count();
    assert_eq!(closed, 1);
}
