//! Losing the server: buffering, backoff with jitter, server rotation,
//! discovery, giving up, and the errors that cause reconnects.

use std::sync::Arc;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::conn::{ChooseResult, PoolServer, ReconnectDelay, ServerChooser, State};
use crate::core::error::{PermissionOp, ServerError, ServerErrorKind};
use crate::core::proto::ServerInfo;

fn io_error() -> Error {
    Error::Io { kind: std::io::ErrorKind::ConnectionRefused, message: "refused".into() }
}

#[test]
fn publishes_while_disconnected_go_out_after_the_handshake_pong() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.lose(None);
    // The server hung up: the loss says so.
    let hung_up =
        Error::Io { kind: std::io::ErrorKind::UnexpectedEof, message: "the server closed the connection".into() };
    assert_eq!(s.take_conn_events(), [disconnected("nats://a:4222", Some(hung_up))]);
    assert_eq!(s.conn.state(), State::Disconnected);
    s.conn.publish("a", None, None, b"1").unwrap();
    s.conn.publish("b", Some("r"), None, b"2").unwrap();
    let buffered = s.conn.pending_bytes();
    assert!(buffered > 0);
    s.advance(2100);
    s.expect_connect();
    assert_eq!(s.conn.state(), State::Connecting);
    s.open();
    s.send(INFO);
    let ops = s.take_ops();
    assert!(ops.iter().all(|op| !matches!(op, ClientOp::Pub { .. })), "nothing before the PONG: {ops:?}");
    assert_eq!(s.conn.pending_bytes(), buffered, "still buffered during the handshake");
    s.send("PONG");
    assert_eq!(
        s.take_ops(),
        [
            ClientOp::pub_("a", "1"),
            ClientOp::Pub { subject: "b".into(), reply: Some("r".into()), headers: None, payload: b"2".to_vec() }
        ]
    );
    assert_eq!(s.conn.pending_bytes(), 0);
    assert_eq!(
        s.take_conn_events(),
        [
            ConnectionEvent::Reconnecting { server: addr("nats://a:4222") },
            ConnectionEvent::Reconnected { server: addr("nats://a:4222") }
        ],
        "the attempt is announced when it starts, after the backoff"
    );
    assert_eq!(s.conn.statistics().reconnects, 1);
}

#[test]
fn backoff_waits_delay_plus_bounded_jitter_since_the_last_attempt() {
    let mut delays = Vec::new();
    for seed in 0..20 {
        let mut s = FakeServer::with_seed(config(&["nats://a:4222"]), seed);
        s.handshake(INFO);
        s.advance(10_000);
        s.lose(None);
        assert_eq!(s.expect_connect(), "nats://a:4222", "last attempt long ago: at once");
        s.advance(50);
        s.lose(Some(io_error()));
        let at = s.conn.poll_timeout().expect("backoff timer");
        let delay = at.saturating_duration_since(Instant::from_millis(10_000));
        assert!(delay >= Duration::from_secs(2) && delay <= Duration::from_millis(2100), "{delay:?}");
        s.advance_to(Instant::from_offset(at.offset() - Duration::from_millis(1)));
        assert!(s.take_actions().is_empty());
        s.advance(1);
        assert_eq!(s.expect_connect(), "nats://a:4222");
        delays.push(delay);
    }
    delays.dedup();
    assert!(delays.len() > 1, "jitter varies with the seed");
}

#[test]
fn a_delay_callback_paces_attempts_from_the_servers_failures() {
    let delay = |failures: usize| Duration::from_millis(500 * (failures as u64 + 1));
    let cfg = Config { reconnect_delay_callback: Some(ReconnectDelay(Arc::new(delay))), ..config(&["nats://a:4222"]) };
    let mut s = FakeServer::new(cfg);
    s.handshake(INFO);
    s.advance(100);
    s.lose(None);
    assert_eq!(s.conn.poll_timeout(), Some(Instant::from_millis(500)), "tried at 0, no failure yet");
    s.advance_to(Instant::from_millis(500));
    s.expect_connect();
    s.lose(Some(io_error()));
    assert_eq!(s.conn.poll_timeout(), Some(Instant::from_millis(1500)), "one failure: 1000 since the attempt");
}

#[test]
fn a_chooser_picks_each_attempts_server_and_may_ask_to_wait() {
    // Picks the last server of the pool; waits 300 ms once it has connected somewhere.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let chooser = move |pool: &[PoolServer], info: Option<&ServerInfo>| -> ChooseResult {
        let names: Vec<String> = pool.iter().map(|s| format!("{}{}", s.addr.host, u8::from(s.did_connect))).collect();
        record.lock().unwrap().push((names, info.is_some()));
        let wait = Duration::from_millis(if info.is_some() { 300 } else { 0 });
        Ok(Some((pool.len() - 1, wait)))
    };
    let cfg = Config {
        server_chooser: Some(ServerChooser(Arc::new(chooser))),
        ..config(&["nats://a:4222", "nats://b:4222", "nats://c:4222"])
    };
    let mut s = FakeServer::new(cfg);
    assert_eq!(s.handshake(INFO).len(), 2, "CONNECT, PING");
    assert_eq!(s.conn.current_server(), Some(&addr("nats://c:4222")));
    s.advance(100);
    s.lose(None);
    assert!(s.take_actions().is_empty(), "the chooser asked to wait");
    assert_eq!(s.conn.poll_timeout(), Some(Instant::from_millis(400)));
    s.advance_to(Instant::from_millis(400));
    assert_eq!(s.expect_connect(), "nats://c:4222", "the last of a, b, c (c just lost)");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [(vec!["a0".into(), "b0".into(), "c0".into()], false), (vec!["a0".into(), "b0".into(), "c1".into()], true)]
    );
}

#[test]
fn a_chooser_that_fails_or_picks_outside_the_pool_closes_the_connection() {
    let outside =
        |pool: &[PoolServer], _: Option<&ServerInfo>| -> ChooseResult { Ok(Some((pool.len(), Duration::ZERO))) };
    let mut s = FakeServer::new(Config {
        server_chooser: Some(ServerChooser(Arc::new(outside))),
        ..config(&["nats://a:4222"])
    });
    assert!(s.take_actions().is_empty());
    assert_eq!(s.conn.state(), State::Closed);
    let failed =
        |_: &[PoolServer], _: Option<&ServerInfo>| -> ChooseResult { Err(Error::InvalidArgument("no".into())) };
    let mut s =
        FakeServer::new(Config { server_chooser: Some(ServerChooser(Arc::new(failed))), ..config(&["nats://a:4222"]) });
    let closed = ConnectionEvent::Closed { error: Some(Error::InvalidArgument("no".into())) };
    assert_eq!(s.take_conn_events(), [closed]);
}

#[test]
fn rotation_prefers_servers_not_just_tried() {
    let mut cfg = config(&["nats://a:4222", "nats://b:4222", "nats://c:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    let mut s = FakeServer::new(cfg);
    s.handshake(INFO);
    s.advance(100);
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://b:4222");
    s.lose(Some(io_error()));
    assert_eq!(s.expect_connect(), "nats://c:4222");
    s.lose(Some(io_error()));
    assert!(s.take_actions().is_empty(), "a was tried at 0: wait until 2000");
    assert_eq!(s.conn.poll_timeout(), Some(Instant::from_millis(2000)));
    s.advance_to(Instant::from_millis(2000));
    assert_eq!(s.expect_connect(), "nats://a:4222");
    s.lose(Some(io_error()));
    assert_eq!(s.conn.poll_timeout(), Some(Instant::from_millis(2100)), "b was tried at 100");
}

#[test]
fn servers_set_by_the_user_replace_the_pool_and_the_current_one_leaves_at_the_next_attempt() {
    let mut cfg = config(&["nats://a:4222", "nats://b:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    let mut s = FakeServer::new(cfg);
    s.handshake(INFO);
    assert_eq!(s.conn.set_servers(Vec::new()), Err(Error::InvalidArgument("servers: at least one".into())));
    s.conn.set_servers(vec![addr("nats://c:4222"), addr("nats://a:4222")]).unwrap();
    assert!(s.take_actions().is_empty(), "the connection stays");
    s.advance(100);
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://c:4222", "b is gone; a, just lost, comes last");
    s.lose(Some(io_error()));
    assert_eq!(s.conn.poll_timeout(), Some(Instant::from_millis(2000)), "a keeps its last attempt (at 0)");
    s.advance_to(Instant::from_millis(2000));
    assert_eq!(s.expect_connect(), "nats://a:4222");
    s.open();
    s.send(INFO);
    s.send("PONG");
    s.conn.set_servers(vec![addr("nats://d:4222")]).unwrap();
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://d:4222");
    s.lose(Some(io_error()));
    s.advance(2100);
    assert_eq!(s.expect_connect(), "nats://d:4222", "a left with its connection");
    assert_eq!(s.conn.current_server(), Some(&addr("nats://d:4222")));
}

#[test]
fn servers_from_connect_urls_join_the_pool() {
    let mut s = FakeServer::new(config(&["nats://u:p@a:4222"]));
    s.handshake(&info_with(r#""connect_urls":["a:4222","10.0.0.2:4222","[::1]:4223"]"#));
    s.advance(100);
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://10.0.0.2:4222");
    s.lose(Some(io_error()));
    let Some(Action::Connect { addr }) = s.take_actions().pop() else { panic!("connect") };
    assert_eq!(addr.to_string(), "nats://[::1]:4223");
    assert_eq!((addr.user.as_deref(), addr.pass.as_deref()), (Some("u"), Some("p")), "same credentials");
}

#[test]
fn pool_changes_are_reported_and_unlisted_discovered_servers_leave() {
    let mut cfg = config(&["nats://a:4222", "nats://b:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    let mut s = FakeServer::new(cfg);
    s.handshake(&info_with(r#""connect_urls":["a:4222","c:4222","d:4222"]"#));
    let update = |added: &[&str], deleted: &[&str]| ConnectionEvent::ClusterUpdate {
        added: added.iter().map(|u| addr(u)).collect(),
        deleted: deleted.iter().map(|u| addr(u)).collect(),
    };
    assert_eq!(
        s.take_conn_events(),
        [
            update(&["nats://c:4222", "nats://d:4222"], &[]),
            ConnectionEvent::Connected { server: addr("nats://a:4222") }
        ],
        "the first INFO's servers join before the handshake ends"
    );
    s.send(&info_with(r#""connect_urls":["a:4222","c:4222","d:4222"]"#));
    assert!(s.take_conn_events().is_empty(), "no change, no update");
    // b was given by the user: it stays although no INFO lists it.
    s.send(&info_with(r#""connect_urls":["a:4222","d:4222","e:4222"]"#));
    assert_eq!(s.take_conn_events(), [update(&["nats://e:4222"], &["nats://c:4222"])]);
    s.advance(5000);
    let mut tried = Vec::new();
    s.lose(None);
    for _ in 0..4 {
        tried.push(s.expect_connect());
        s.lose(Some(io_error()));
        s.advance(2000);
    }
    tried.sort();
    assert_eq!(tried, ["nats://a:4222", "nats://b:4222", "nats://d:4222", "nats://e:4222"], "c is gone");
}

#[test]
fn the_connected_server_stays_in_the_pool_while_unlisted() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.handshake(&info_with(r#""connect_urls":["a:4222","b:4222"]"#));
    s.advance(5000);
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://b:4222");
    s.take_conn_events();
    s.open();
    s.send(&info_with(r#""connect_urls":["c:4222"]"#));
    let added = vec![addr("nats://c:4222")];
    let update = ConnectionEvent::ClusterUpdate { added, deleted: vec![] };
    assert_eq!(s.take_conn_events(), [update], "b is current, a the user's: neither leaves");
}

#[test]
fn discovery_can_be_turned_off() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.discover_servers = false;
    let mut s = FakeServer::new(cfg);
    s.handshake(&info_with(r#""connect_urls":["10.0.0.2:4222"]"#));
    s.advance(5000);
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://a:4222");
}

#[test]
fn websocket_connections_reach_discovered_servers_over_websocket() {
    // nats-server 2.15 lists websocket ports in `connect_urls` for WebSocket
    // clients and leaves `ws_connect_urls` empty.
    let mut s = FakeServer::new(config(&["wss://a/nats"]));
    s.handshake(&info_with(r#""connect_urls":["10.0.0.3:443"],"ws_connect_urls":[]"#));
    s.advance(100);
    s.lose(None);
    let Some(Action::Connect { addr }) = s.take_actions().pop() else { panic!("connect") };
    assert_eq!((addr.to_string(), addr.path.as_str()), ("wss://10.0.0.3:443/nats".to_string(), "/nats"));
}

#[test]
fn max_reconnects_exhaustion_closes() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.max_reconnects = Some(2);
    let mut s = FakeServer::connected(cfg);
    s.advance(10_000);
    s.lose(None);
    s.conn.publish("never.sent", None, None, b"x").unwrap();
    let flush = s.conn.flush().unwrap();
    let mut attempts = 0;
    while s.conn.state() != State::Closed {
        s.advance(2100);
        s.expect_connect();
        attempts += 1;
        s.lose(Some(io_error()));
    }
    assert_eq!(attempts, 2);
    let events = s.take_events();
    assert!(events.contains(&Event::Flushed { id: flush, result: Err(Error::Closed) }), "{events:?}");
    assert!(matches!(
        events.last(),
        Some(Event::Connection(ConnectionEvent::Closed { error: Some(Error::Io { .. }) }))
    ));
    assert_eq!(s.conn.pending_bytes(), 0);
    assert_eq!(s.conn.poll_timeout(), None);
    assert_eq!(s.conn.publish("a", None, None, b""), Err(Error::Closed));
}

#[test]
fn initial_failure_closes_unless_retry_is_on() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.lose(Some(io_error()));
    assert_eq!(s.take_conn_events(), [ConnectionEvent::Closed { error: Some(io_error()) }]);
    assert_eq!(s.conn.state(), State::Closed);

    let mut cfg = config(&["nats://a:4222"]);
    cfg.retry_on_initial_connect = true;
    let mut s = FakeServer::new(cfg);
    s.expect_connect();
    s.lose(Some(io_error()));
    assert!(s.take_conn_events().is_empty());
    s.advance(2100);
    assert_eq!(s.take_conn_events(), [ConnectionEvent::Reconnecting { server: addr("nats://a:4222") }]);
    s.handshake(INFO);
    assert!(
        matches!(s.take_conn_events().as_slice(), [ConnectionEvent::Connected { .. }]),
        "first success is Connected"
    );
}

#[test]
fn wait_on_first_connect_counts_attempts_only_after_it() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.wait_on_first_connect = true;
    cfg.max_reconnects = Some(2);
    let mut s = FakeServer::new(cfg);
    for _ in 0..5 {
        s.expect_connect();
        s.lose(Some(io_error()));
        s.advance(2100);
    }
    s.handshake(INFO);
    assert!(s.take_conn_events().iter().any(|e| matches!(e, ConnectionEvent::Connected { .. })));

    // Connected once: two failed attempts in a row drop the only server.
    s.lose(Some(io_error()));
    for _ in 0..2 {
        s.advance(2100);
        s.expect_connect();
        s.lose(Some(io_error()));
    }
    s.advance(2100);
    assert_eq!(s.conn.state(), State::Closed);
}

#[test]
fn initial_connect_tries_each_server_once() {
    let mut s = FakeServer::new(config(&["nats://a:4222", "nats://b:4222"]));
    assert_eq!(s.expect_connect(), "nats://a:4222");
    s.lose(Some(io_error()));
    assert_eq!(s.expect_connect(), "nats://b:4222");
    s.lose(Some(io_error()));
    assert_eq!(s.conn.state(), State::Closed);
}

#[test]
fn protocol_garbage_reconnects() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.advance(5000);
    s.send("HTTP/1.1 400 Bad Request");
    s.expect_close();
    s.lose(None);
    let events = s.take_conn_events();
    assert!(
        matches!(
            events.as_slice(),
            [
                ConnectionEvent::Disconnected { error: Some(Error::Protocol(_)), .. },
                ConnectionEvent::Reconnecting { .. }
            ]
        ),
        "{events:?}"
    );
    s.handshake(INFO);
    assert!(matches!(s.take_conn_events().as_slice(), [ConnectionEvent::Reconnected { .. }]));
}

#[test]
fn permissions_violation_keeps_the_connection() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.send("-ERR 'Permissions Violation for Publish to \"secret\"'");
    assert!(s.take_actions().is_empty());
    let events = s.take_conn_events();
    let [ConnectionEvent::ServerError(Error::Server(e))] = events.as_slice() else { panic!("{events:?}") };
    assert_eq!(
        e.kind,
        ServerErrorKind::PermissionsViolation {
            operation: PermissionOp::Publish,
            subject: "secret".into(),
            queue: None
        }
    );
    assert_eq!(s.conn.state(), State::Connected);
    s.conn.publish("ok", None, None, b"").unwrap();
    assert_eq!(s.take_ops(), [ClientOp::pub_("ok", "")]);
}

#[test]
fn authorization_violation_while_connected_reconnects() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.advance(5000);
    s.send("-ERR 'Authorization Violation'");
    s.expect_close();
    s.conn.publish("kept", None, None, b"1").unwrap();
    assert!(s.take_ops().is_empty(), "after the close request, publishes wait for the next server");
    s.lose(None);
    let expected = Error::Server(ServerError::from_message("Authorization Violation"));
    assert_eq!(
        s.take_conn_events(),
        [
            disconnected("nats://a:4222", Some(expected)),
            ConnectionEvent::Reconnecting { server: addr("nats://a:4222") }
        ]
    );
    s.handshake(INFO);
    assert_eq!(s.take_ops(), [ClientOp::pub_("kept", "1")]);
}

#[test]
fn input_after_a_close_request_is_ignored() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    s.send("-ERR 'Stale Connection'");
    s.expect_close();
    s.take_events();
    s.send(&msg("a", sid.0, None, "x"));
    assert!(s.take_events().is_empty());
}
