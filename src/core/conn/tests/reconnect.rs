//! Losing the server: buffering, backoff with jitter, server rotation,
//! discovery, giving up, and the errors that cause reconnects.

use crate::core::machine::Machine;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::conn::{ReconnectDelay, ReconnectToServer, ServerChoice, State};
use crate::core::error::{PermissionOp, ServerError, ServerErrorKind};

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
        let at = s.conn.poll_deadline().map(|d| d.at).expect("backoff timer");
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
fn a_delay_callback_paces_every_attempt_by_the_attempts_since_the_last_connection() {
    let mut cfg = config(&["nats://a:4222", "nats://b:4222"]);
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = asked.clone();
    cfg.reconnect_delay_callback = Some(ReconnectDelay(std::sync::Arc::new(move |attempts| {
        seen.lock().unwrap().push(attempts);
        Duration::from_millis(300 * attempts as u64)
    })));
    let mut s = FakeServer::new(cfg);
    s.handshake(INFO);
    let lost_at = s.now;
    s.lose(None);
    assert_eq!(
        s.conn.poll_deadline().map(|d| d.at),
        Some(lost_at + Duration::from_millis(300)),
        "even a fresh server waits"
    );
    s.advance(300);
    assert_eq!(s.expect_connect(), "nats://b:4222");
    s.lose(Some(io_error()));
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), Some(s.now + Duration::from_millis(600)));
    s.advance(600);
    s.handshake(INFO);
    s.lose(None);
    assert_eq!(
        s.conn.poll_deadline().map(|d| d.at),
        Some(s.now + Duration::from_millis(300)),
        "a connection starts the count again"
    );
    assert_eq!(*asked.lock().unwrap(), [1, 2, 1]);
}

#[test]
fn a_pool_set_while_connected_takes_over_at_the_next_reconnect() {
    let mut cfg = config(&["nats://a:4222", "nats://b:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    let mut s = FakeServer::new(cfg);
    s.handshake(INFO);
    let pool = |s: &FakeServer| s.conn.server_pool().into_iter().map(|p| p.addr.to_string()).collect::<Vec<_>>();
    assert_eq!(pool(&s), ["nats://b:4222", "nats://a:4222"], "the next to try first");
    assert!(s.conn.server_pool()[1].did_connect);

    assert!(matches!(s.conn.set_server_pool(vec![]), Err(Error::InvalidArgument(_))));
    let mixed = vec![addr("nats://c:4222"), addr("ws://d:80")];
    assert!(matches!(s.conn.set_server_pool(mixed), Err(Error::InvalidArgument(_))));
    s.conn.set_server_pool(vec![addr("nats://c:4222"), addr("nats://d:4222")]).unwrap();
    assert_eq!(pool(&s), ["nats://c:4222", "nats://d:4222"], "a, still connected, is out of the pool");
    assert_eq!(s.conn.current_server(), Some(&addr("nats://a:4222")));

    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://c:4222");
    s.lose(Some(io_error()));
    assert_eq!(s.expect_connect(), "nats://d:4222");
    s.lose(Some(io_error()));
    s.advance(2000);
    assert_eq!(s.expect_connect(), "nats://c:4222", "a is never tried again");
    let c = &s.conn.server_pool()[1];
    assert_eq!((c.failed_attempts, c.did_connect, c.last_error.is_some()), (1, false, true));
}

#[test]
fn a_chosen_server_is_tried_next_after_its_delay() {
    let mut cfg = config(&["nats://a:4222", "nats://b:4222", "nats://c:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    cfg.choose_server = true;
    let mut s = FakeServer::new(cfg);
    let first = expect_choice(&mut s);
    assert_eq!((first.servers.len(), first.info), (3, None), "the first attempt asks too, before any INFO");
    s.conn.handle_server_choice(s.now, Ok(None));
    s.handshake(INFO);
    s.advance(10_000);
    s.lose(None);
    let choice = expect_choice(&mut s);
    assert_eq!(choice.servers.len(), 3);
    assert_eq!(choice.info.as_ref(), s.conn.server_info(), "the last server's INFO");
    assert_eq!(choice.last_attempts.iter().filter(|at| at.is_some()).count(), 1, "only a was tried");
    let pick = |url: &str, delay: Option<u64>| {
        Ok(Some(ReconnectToServer { addr: addr(url), delay: delay.map(Duration::from_millis) }))
    };
    s.conn.handle_server_choice(s.now, pick("nats://c:4222", Some(500)));
    s.drive();
    assert!(s.take_actions().is_empty(), "c waits its delay");
    s.advance(500);
    assert_eq!(s.expect_connect(), "nats://c:4222");

    // A failed attempt asks again; a server outside the pool is reported and
    // keeps the usual order and delay.
    s.lose(Some(io_error()));
    expect_choice(&mut s);
    s.take_conn_events();
    s.conn.handle_server_choice(s.now, pick("nats://elsewhere:4222", Some(0)));
    let reported = ConnectionEvent::ServerNotInPool { server: addr("nats://elsewhere:4222") };
    assert_eq!(s.take_conn_events()[..1], [reported]);
    s.drive();
    assert_eq!(s.expect_connect(), "nats://b:4222");
    s.conn.handle_server_choice(s.now, pick("nats://a:4222", Some(0)));
    assert!(s.take_actions().is_empty(), "an answer nobody asked for is dropped");
}

#[test]
fn a_chooser_that_fails_closes_the_connection_with_its_error() {
    let mut s = FakeServer::new(Config { choose_server: true, ..config(&["nats://a:4222"]) });
    expect_choice(&mut s);
    s.conn.handle_server_choice(s.now, Err(Error::InvalidArgument("no".into())));
    assert_eq!(s.conn.state(), State::Closed);
    let closed = ConnectionEvent::Closed { error: Some(Error::InvalidArgument("no".into())) };
    assert_eq!(s.take_conn_events(), [closed]);
}

#[test]
fn closing_while_a_choice_is_awaited_closes_at_once() {
    let mut s = FakeServer::new(Config { choose_server: true, ..config(&["nats://a:4222"]) });
    expect_choice(&mut s);
    s.conn.close(s.now);
    assert_eq!(s.conn.state(), State::Closed);
    s.conn.handle_server_choice(s.now, Ok(None));
    assert!(s.take_actions().is_empty(), "no attempt after the close");
}

fn expect_choice(s: &mut FakeServer) -> ServerChoice {
    match s.take_actions().as_slice() {
        [Action::ChooseServer(choice)] => *choice.clone(),
        other => panic!("expected one ChooseServer, got {other:?}"),
    }
}

#[test]
fn a_per_server_delay_callback_paces_attempts_from_the_servers_failures() {
    // nats.js's reconnectDelayHandler: counted from the server's last attempt.
    let delay = |failures: usize| Duration::from_millis(500 * (failures as u64 + 1));
    let cfg = Config {
        reconnect_delay_callback: Some(ReconnectDelay(std::sync::Arc::new(delay))),
        reconnect_delay_per_server: true,
        ..config(&["nats://a:4222"])
    };
    let mut s = FakeServer::new(cfg);
    s.handshake(INFO);
    s.advance(100);
    s.lose(None);
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), Some(Instant::from_millis(500)), "tried at 0, no failure yet");
    s.advance_to(Instant::from_millis(500));
    s.expect_connect();
    s.lose(Some(io_error()));
    assert_eq!(
        s.conn.poll_deadline().map(|d| d.at),
        Some(Instant::from_millis(1500)),
        "one failure: 1000 since the attempt"
    );
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
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), Some(Instant::from_millis(2000)));
    s.advance_to(Instant::from_millis(2000));
    assert_eq!(s.expect_connect(), "nats://a:4222");
    s.lose(Some(io_error()));
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), Some(Instant::from_millis(2100)), "b was tried at 100");
}

#[test]
fn servers_set_by_the_user_replace_the_pool_and_the_current_one_leaves_at_the_next_attempt() {
    let mut cfg = config(&["nats://a:4222", "nats://b:4222"]);
    cfg.reconnect_jitter = Duration::ZERO;
    let mut s = FakeServer::new(cfg);
    s.handshake(INFO);
    assert!(matches!(s.conn.set_server_pool(Vec::new()), Err(Error::InvalidArgument(_))));
    s.conn.set_server_pool(vec![addr("nats://c:4222"), addr("nats://a:4222")]).unwrap();
    assert!(s.take_actions().is_empty(), "the connection stays");
    s.advance(100);
    s.lose(None);
    assert_eq!(s.expect_connect(), "nats://c:4222", "b is gone; a, just lost, comes last");
    s.lose(Some(io_error()));
    assert_eq!(
        s.conn.poll_deadline().map(|d| d.at),
        Some(Instant::from_millis(2000)),
        "a keeps its last attempt (at 0)"
    );
    s.advance_to(Instant::from_millis(2000));
    assert_eq!(s.expect_connect(), "nats://a:4222");
    s.open();
    s.send(INFO);
    s.send("PONG");
    s.conn.set_server_pool(vec![addr("nats://d:4222")]).unwrap();
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
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), None);
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
