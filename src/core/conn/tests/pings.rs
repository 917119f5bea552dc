//! Keep-alive PINGs, staleness, server PINGs and flushes (PONGs complete
//! PINGs in order).

use crate::core::machine::Machine;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::conn::{FlushId, State};

fn fast_pings() -> Config {
    Config { ping_interval: Duration::from_secs(1), ..config(&["nats://a:4222"]) }
}

fn flushed(events: &[Event]) -> Vec<(FlushId, Result<(), Error>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Flushed { id, result } => Some((*id, result.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn keep_alive_pings_every_interval_while_answered() {
    let mut s = FakeServer::connected(fast_pings());
    for _ in 0..5 {
        s.advance(999);
        assert!(s.take_ops().is_empty());
        s.advance(1);
        assert_eq!(s.take_ops(), [ClientOp::Ping]);
        s.send("PONG");
    }
    assert_eq!(s.conn.state(), State::Connected);
    assert!(s.take_actions().is_empty());
}

#[test]
fn stale_after_max_pings_outstanding_then_reconnects() {
    let mut s = FakeServer::connected(fast_pings());
    s.advance(1000);
    s.advance(1000);
    assert_eq!(s.take_ops(), [ClientOp::Ping, ClientOp::Ping]);
    assert!(s.take_actions().is_empty(), "two unanswered is still fine");
    s.advance(1000);
    s.expect_close();
    assert!(s.take_ops().is_empty());
    s.lose(None);
    assert_eq!(
        s.take_conn_events(),
        [
            ConnectionEvent::Ping { pending_pings: 1 },
            ConnectionEvent::Ping { pending_pings: 2 },
            ConnectionEvent::StaleConnection { server: addr("nats://a:4222") },
            disconnected("nats://a:4222", Some(Error::Timeout)),
            ConnectionEvent::Reconnecting { server: addr("nats://a:4222") },
        ],
        "each PING counted, then stale, lost and retried"
    );
    assert_eq!(s.expect_connect(), "nats://a:4222");
}

/// A slow link: the PONGs wait behind a large message arriving a little at
/// a time, for seven intervals. The bytes coming in keep the connection and
/// no more PINGs than the limit pile up; once it falls silent, staleness
/// counts again.
#[test]
fn bytes_arriving_keep_a_connection_whose_pong_waits_behind_them() {
    let mut s = FakeServer::connected(fast_pings());
    let body = vec![b'x'; 10_000];
    s.send_partial(format!("MSG big 1 {}\r\n", body.len()).as_bytes());
    for piece in body.chunks(1_000) {
        s.advance(700);
        s.send_partial(piece);
    }
    s.send("\r\nPONG\r\nPONG");
    assert_eq!(s.take_ops(), [ClientOp::Ping, ClientOp::Ping], "no more than two outstanding");
    assert!(s.take_actions().is_empty(), "kept while bytes arrived");
    s.advance(2000);
    assert_eq!(s.take_ops(), [ClientOp::Ping, ClientOp::Ping]);
    assert!(s.take_actions().is_empty());
    s.advance(1000);
    s.expect_close();
}

#[test]
fn any_answer_in_time_keeps_the_connection() {
    let mut s = FakeServer::connected(fast_pings());
    s.advance(1000);
    s.advance(1000);
    s.send("PONG");
    s.advance(1000);
    assert_eq!(s.take_ops(), [ClientOp::Ping, ClientOp::Ping, ClientOp::Ping]);
    assert!(s.take_actions().is_empty(), "one keep-alive is answered: two outstanding");
}

#[test]
fn each_keep_alive_reports_the_pings_awaiting_an_answer() {
    let mut s = FakeServer::connected(fast_pings());
    let ping = |pending_pings| ConnectionEvent::Ping { pending_pings };
    s.advance(1000);
    s.advance(1000);
    assert_eq!(s.take_conn_events(), [ping(1), ping(2)], "it included");
    s.send("PONG");
    s.send("PONG");
    s.advance(1000);
    assert_eq!(s.take_conn_events(), [ping(1)], "answered ones no longer count");
    s.conn.flush().unwrap();
    s.advance(1000);
    assert_eq!(s.take_conn_events(), [ping(2)], "flushes are not keep-alives");
}

#[test]
fn server_ping_is_answered_at_once() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.send("PING");
    assert_eq!(s.take_ops(), [ClientOp::Pong]);
}

#[test]
fn flushes_complete_in_pong_order_mixed_with_keep_alives() {
    let mut s = FakeServer::connected(fast_pings());
    let a = s.conn.flush().unwrap();
    s.advance(1000);
    let b = s.conn.flush().unwrap();
    assert_eq!(s.take_ops(), [ClientOp::Ping, ClientOp::Ping, ClientOp::Ping]);
    s.send("PONG");
    assert_eq!(flushed(&s.take_events()), [(a, Ok(()))]);
    s.send("PONG");
    assert!(flushed(&s.take_events()).is_empty(), "that PONG answered the keep-alive");
    s.send("PONG");
    assert_eq!(flushed(&s.take_events()), [(b, Ok(()))]);
    s.send("PONG");
    assert!(s.take_events().is_empty(), "an unsolicited PONG is ignored");
}

#[test]
fn flush_while_disconnected_follows_the_handshake_and_buffered_publishes() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.conn.publish("a", None, None, b"1").unwrap();
    let id = s.conn.flush().unwrap();
    let handshake = s.handshake(INFO);
    assert_eq!(handshake.len(), 2, "CONNECT and the handshake PING only: {handshake:?}");
    assert_eq!(s.take_ops(), [ClientOp::pub_("a", "1"), ClientOp::Ping]);
    assert!(flushed(&s.take_events()).is_empty());
    s.send("PONG");
    assert_eq!(flushed(&s.take_events()), [(id, Ok(()))]);
}

#[test]
fn flushes_sent_on_a_lost_transport_fail_and_queued_ones_survive() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sent = s.conn.flush().unwrap();
    s.lose(Some(Error::Io { kind: std::io::ErrorKind::ConnectionReset, message: "reset".into() }));
    assert_eq!(flushed(&s.take_events()), [(sent, Err(Error::Disconnected))]);
    let queued = s.conn.flush().unwrap();
    s.advance(2100);
    s.handshake(INFO);
    assert_eq!(s.take_ops(), [ClientOp::Ping]);
    s.send("PONG");
    assert_eq!(flushed(&s.take_events()), [(queued, Ok(()))]);
}

#[test]
fn keep_alive_stops_while_disconnected() {
    let mut s = FakeServer::connected(fast_pings());
    s.advance(500);
    s.lose(None);
    let at = s.conn.poll_deadline().map(|d| d.at).unwrap();
    assert!(
        at >= Instant::from_millis(2000) && at <= Instant::from_millis(2100),
        "reconnect backoff, not a PING: {at:?}"
    );
    s.advance_to(at);
    s.expect_connect();
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), None, "only the transport is awaited");
}

#[test]
fn time_running_backwards_is_clamped() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.advance(10_000);
    s.handshake(INFO);
    let ping_at = s.conn.poll_deadline().map(|d| d.at).unwrap();
    assert_eq!(ping_at, Instant::from_millis(130_000));
    s.conn.handle_timeout(Instant::ZERO);
    s.conn.publish("a", None, None, b"").unwrap();
    s.conn.handle_input(Instant::from_millis(5), &mut BytesMut::from(&b"PING\r\n"[..]));
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), Some(ping_at));
    assert_eq!(s.take_ops(), [ClientOp::pub_("a", ""), ClientOp::Pong]);
}
