//! INFO → (TLS) → CONNECT + SUBs + PING → PONG, and its deadline.

use crate::core::machine::Machine;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::conn::State;

#[test]
fn first_action_connects_to_the_first_server() {
    let mut s = FakeServer::new(config(&["nats://a:4222", "nats://b:4222"]));
    assert_eq!(s.expect_connect(), "nats://a:4222");
    assert_eq!(s.conn.state(), State::Connecting);
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), None, "the transport has its own connect timeout");
}

#[test]
fn randomized_order_depends_only_on_the_seed() {
    let servers: Vec<String> = (0..8).map(|i| format!("nats://h{i}:4222")).collect();
    let servers: Vec<&str> = servers.iter().map(String::as_str).collect();
    let order = |seed| {
        let mut cfg = config(&servers);
        cfg.randomize = true;
        let mut s = FakeServer::with_seed(cfg, seed);
        let mut seen = vec![s.expect_connect()];
        for _ in 1..servers.len() {
            s.lose(None);
            seen.push(s.expect_connect());
        }
        seen
    };
    assert_eq!(order(1), order(1));
    assert_ne!(order(1), order(2));
    let mut sorted = order(3);
    sorted.sort();
    assert_eq!(sorted, servers, "every server is tried once before any repeats");
}

#[test]
fn handshake_writes_connect_subscriptions_and_ping_then_connects_on_pong() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.name = Some("svc".into());
    cfg.echo = false;
    let mut s = FakeServer::new(cfg);
    let sid = s.conn.subscribe("orders.>", Some("workers")).unwrap();
    s.expect_connect();
    s.open();
    assert_eq!(s.conn.state(), State::Connecting);
    assert!(s.take_ops().is_empty(), "nothing before INFO");
    s.send(INFO);
    let ops = s.take_ops();
    let ClientOp::Connect(json) = &ops[0] else { panic!("{ops:?}") };
    assert_eq!(json["verbose"], false);
    assert_eq!(json["pedantic"], false);
    assert_eq!(json["tls_required"], false);
    assert_eq!(json["name"], "svc");
    assert_eq!(json["lang"], "rust-natsjet");
    assert_eq!(json["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(json["protocol"], 1);
    assert_eq!(json["echo"], false);
    assert_eq!(json["headers"], true);
    assert_eq!(json["no_responders"], true);
    for secret in ["user", "pass", "auth_token", "jwt", "nkey", "sig"] {
        assert!(json.get(secret).is_none(), "{secret} absent without credentials");
    }
    assert_eq!(
        ops[1..],
        [ClientOp::Sub { subject: "orders.>".into(), queue: Some("workers".into()), sid: sid.0 }, ClientOp::Ping]
    );
    assert_eq!(s.conn.state(), State::Connecting, "not before the PONG");
    assert!(s.take_conn_events().is_empty());

    s.send("PONG");
    assert_eq!(s.conn.state(), State::Connected);
    assert_eq!(
        s.take_conn_events(),
        [ConnectionEvent::Connected { server: ServerAddr::parse("nats://a:4222").unwrap() }]
    );
    assert_eq!(s.conn.server_info().unwrap().server_id, "S1");
    assert_eq!(s.conn.poll_deadline().map(|d| d.at), Some(s.now + Duration::from_secs(120)), "keep-alive armed");
}

#[test]
fn server_info_can_arrive_in_pieces() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.open();
    let line = format!("{INFO}\r\n");
    let (a, b) = line.as_bytes().split_at(10);
    let mut buf = BytesMut::from(a);
    s.conn.handle_input(s.now, &mut buf);
    s.drive();
    assert!(s.take_ops().is_empty());
    buf.extend_from_slice(b);
    s.conn.handle_input(s.now, &mut buf);
    s.drive();
    assert!(s.take_ops()[0].is_connect());
}

#[test]
fn upgrades_to_tls_when_the_server_requires_it() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.open();
    s.send(&info_with(r#""tls_required":true"#));
    assert_eq!(s.take_actions(), [Action::UpgradeTls { addr: ServerAddr::parse("nats://a:4222").unwrap() }]);
    assert!(s.take_ops().is_empty(), "no CONNECT in clear text");
    s.conn.handle_tls_ready(s.now);
    s.drive();
    let ops = s.take_ops();
    let ClientOp::Connect(json) = &ops[0] else { panic!("{ops:?}") };
    assert_eq!(json["tls_required"], true);
    s.send("PONG");
    assert_eq!(s.conn.state(), State::Connected);
}

#[test]
fn tls_first_starts_tls_before_the_info() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.tls_first = true;
    let mut s = FakeServer::new(cfg);
    s.expect_connect();
    s.open();
    assert_eq!(s.take_actions(), [Action::UpgradeTls { addr: ServerAddr::parse("nats://a:4222").unwrap() }]);
    s.conn.handle_tls_ready(s.now);
    s.drive();
    assert!(s.take_ops().is_empty(), "nothing before the INFO");
    s.send(&info_with(r#""tls_required":true"#));
    assert!(s.take_actions().is_empty(), "no second upgrade");
    let ops = s.take_ops();
    let ClientOp::Connect(json) = &ops[0] else { panic!("{ops:?}") };
    assert_eq!(json["tls_required"], true);
    s.send("PONG");
    assert_eq!(s.conn.state(), State::Connected);
}

#[test]
fn tls_url_upgrades_when_the_server_merely_offers_tls() {
    let mut s = FakeServer::new(config(&["tls://a:4222"]));
    s.expect_connect();
    s.open();
    s.send(&info_with(r#""tls_available":true"#));
    assert!(matches!(s.take_actions().as_slice(), [Action::UpgradeTls { .. }]));
}

#[test]
fn client_wanting_tls_from_a_server_without_it_fails_the_attempt() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.tls_required = true;
    let mut s = FakeServer::new(cfg);
    s.expect_connect();
    s.open();
    s.send(INFO);
    s.expect_close();
    assert!(s.take_ops().is_empty());
    s.lose(None);
    let events = s.take_conn_events();
    assert!(matches!(events.as_slice(), [ConnectionEvent::Closed { error: Some(Error::Tls(_)) }]), "{events:?}");
}

#[test]
fn websocket_tls_is_never_upgraded_here() {
    let mut s = FakeServer::new(config(&["wss://a/ws"]));
    s.expect_connect();
    s.open();
    s.send(&info_with(r#""tls_required":true"#));
    assert!(s.take_actions().is_empty());
    let ops = s.take_ops();
    let ClientOp::Connect(json) = &ops[0] else { panic!("{ops:?}") };
    assert_eq!(json["tls_required"], true, "wss is TLS");
}

#[test]
fn handshake_times_out_without_info() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.retry_on_initial_connect = true;
    let mut s = FakeServer::new(cfg);
    s.expect_connect();
    s.advance(1000);
    s.open();
    assert_eq!(
        s.conn.poll_deadline().map(|d| d.at),
        Some(Instant::from_millis(6000)),
        "connect_timeout from transport open"
    );
    s.advance(4999);
    assert!(s.take_actions().is_empty());
    s.advance(1);
    s.expect_close();
    s.lose(None);
    assert_eq!(
        s.take_conn_events(),
        [ConnectionEvent::Reconnecting { server: addr("nats://a:4222") }],
        "never connected: no Disconnected, but the retry is announced"
    );
    // Its last attempt was over 2 s ago: the retry starts at once.
    assert_eq!(s.expect_connect(), "nats://a:4222");
}

#[test]
fn handshake_deadline_covers_everything_up_to_the_pong() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.open();
    s.advance(4000);
    s.send(INFO);
    assert!(s.take_ops()[0].is_connect());
    s.advance(1000);
    s.expect_close();
    s.lose(None);
    assert_eq!(s.take_conn_events(), [ConnectionEvent::Closed { error: Some(Error::Timeout) }]);
}

#[test]
fn something_other_than_info_first_is_a_protocol_error() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.open();
    s.send("PING");
    s.expect_close();
    assert!(s.take_ops().is_empty(), "not answered: this is no NATS server");
    s.lose(None);
    let events = s.take_conn_events();
    assert!(
        matches!(
            events.as_slice(),
            [
                ConnectionEvent::Disconnected { error: Some(Error::Protocol(_)), .. },
                ConnectionEvent::Closed { error: Some(Error::Protocol(_)) },
            ]
        ),
        "{events:?}"
    );
}

#[test]
fn nothing_is_transmitted_while_no_transport_is_open() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.conn.subscribe("a", None).unwrap();
    s.conn.publish("a", None, None, b"x").unwrap();
    s.conn.flush().unwrap();
    assert_eq!(s.conn.poll_transmit(usize::MAX), None);
    assert!(s.conn.pending_bytes() > 0);
}

/// A whole session's server bytes, whole or one byte at a time, give the
/// same events and the same client output.
#[test]
fn any_split_of_the_server_stream_gives_the_same_session() {
    let run = |chunk: usize| {
        let mut s = FakeServer::new(config(&["nats://a:4222"]));
        let sid = s.conn.subscribe("a", None).unwrap();
        s.conn.publish("p", None, None, b"buffered").unwrap();
        s.expect_connect();
        s.open();
        let stream = format!(
            "{INFO}\r\nPONG\r\n{}PING\r\n{}+OK\r\n{}",
            msg("a", sid.0, Some("r"), "hello"),
            status_msg("ignored.reply", 42, 503),
            msg("a", sid.0, None, ""),
        );
        let mut buf = BytesMut::new();
        for piece in stream.as_bytes().chunks(chunk) {
            buf.extend_from_slice(piece);
            s.conn.handle_input(s.now, &mut buf);
        }
        assert!(buf.is_empty(), "everything consumed");
        (s.take_events(), s.take_ops())
    };
    let whole = run(usize::MAX);
    assert_eq!(whole.0.len(), 3, "Connected and two messages (sid 42 is unknown): {:?}", whole.0);
    assert_eq!(whole.1[2..], [ClientOp::Ping, ClientOp::pub_("p", "buffered"), ClientOp::Pong]);
    for chunk in [1, 2, 3, 7] {
        assert_eq!(run(chunk), whole, "chunks of {chunk}");
    }
}

/// Natively; in wasm an auth callback may be a JS function, which is not.
#[test]
#[cfg(not(target_arch = "wasm32"))]
fn connection_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Connection>();
}
