//! Reconnects, server restarts, cluster fail-over, lame duck and the
//! reconnect buffer, against real servers.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{NatsCluster, NatsServer};
use futures_util::StreamExt;
use natsjet::{ConnectOptions, ConnectionEvent, Error, ServerAddr};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(15);

/// Collects connection events for assertions.
fn recorder() -> (Arc<Mutex<Vec<ConnectionEvent>>>, impl Fn(ConnectionEvent) + Send + Sync + 'static) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    (events, move |e| sink.lock().unwrap().push(e))
}

async fn wait_event(events: &Arc<Mutex<Vec<ConnectionEvent>>>, what: &str, f: impl Fn(&ConnectionEvent) -> bool) {
    timeout(WAIT, async {
        while !events.lock().unwrap().iter().any(&f) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {what} event; saw {:?}", events.lock().unwrap()));
}

fn fast_reconnect() -> ConnectOptions {
    ConnectOptions::new().reconnect_delay(Duration::from_millis(100), Duration::from_millis(50))
}

#[tokio::test]
async fn restart_resubscribes_and_delivers_buffered_publishes() {
    let mut server = NatsServer::start();
    let (events, callback) = recorder();
    let client = fast_reconnect().on_event(callback).connect(server.client_url()).await.unwrap();
    let mut sub = client.subscribe("restart.>").await.unwrap();
    client.flush().await.unwrap();
    client.publish("restart.before", "1".into()).await.unwrap();
    assert_eq!(timeout(WAIT, sub.next()).await.unwrap().unwrap().subject, "restart.before");

    server.kill();
    wait_event(&events, "disconnected", |e| matches!(e, ConnectionEvent::Disconnected { .. })).await;
    // Accepted while down: kept in the reconnect buffer and sent after the handshake.
    for i in 0..100 {
        client.publish("restart.during", format!("{i}").into()).await.unwrap();
    }
    server.respawn();
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    assert_names_the_server_throughout(&events.lock().unwrap(), &server.client_url());
    for i in 0..100 {
        let m = timeout(WAIT, sub.next()).await.expect("buffered message").unwrap();
        assert_eq!((m.subject.as_str(), &m.payload[..]), ("restart.during", format!("{i}").as_bytes()));
    }
    client.publish("restart.after", "2".into()).await.unwrap();
    assert_eq!(timeout(WAIT, sub.next()).await.unwrap().unwrap().subject, "restart.after");
    assert!(client.statistics().reconnects >= 1);
}

/// Disconnected, one Reconnecting per attempt, then Reconnected: each names `url`.
fn assert_names_the_server_throughout(events: &[ConnectionEvent], url: &str) {
    let server = ServerAddr::parse(url).unwrap();
    let mut kinds = String::new();
    for event in events {
        let (kind, named) = match event {
            ConnectionEvent::Connected { server } => ('C', server),
            ConnectionEvent::Disconnected { server, .. } => ('D', server),
            ConnectionEvent::Reconnecting { server } => ('r', server),
            ConnectionEvent::Reconnected { server } => ('R', server),
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(named, &server, "{event:?}");
        kinds.push(kind);
    }
    let attempts = kinds.trim_start_matches("CD").trim_end_matches('R');
    assert!(kinds.starts_with("CDr") && kinds.ends_with('R') && attempts.chars().all(|k| k == 'r'), "{events:?}");
}

#[tokio::test]
async fn unanswered_pings_make_the_connection_stale_then_it_is_replaced() {
    let server = NatsServer::start();
    let (events, callback) = recorder();
    let client = fast_reconnect()
        .ping_interval(Duration::from_millis(200))
        .max_pings_outstanding(2)
        .connection_timeout(Duration::from_secs(1))
        .on_event(callback)
        .connect(server.client_url())
        .await
        .unwrap();
    wait_event(&events, "an answered ping", |e| matches!(e, ConnectionEvent::Ping { .. })).await;
    server.pause();
    wait_event(&events, "stale", |e| matches!(e, ConnectionEvent::StaleConnection { .. })).await;
    server.resume();
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    let seen = events.lock().unwrap().clone();
    let stale = seen.iter().position(|e| matches!(e, ConnectionEvent::StaleConnection { .. })).unwrap();
    let addr = ServerAddr::parse(&server.client_url()).unwrap();
    assert_eq!(
        seen[stale - 2..stale + 2],
        [
            ConnectionEvent::Ping { pending_pings: 1 },
            ConnectionEvent::Ping { pending_pings: 2 },
            ConnectionEvent::StaleConnection { server: addr.clone() },
            ConnectionEvent::Disconnected { server: addr, error: Some(Error::Timeout) },
        ]
    );
    client.flush().await.unwrap();
}

#[tokio::test]
async fn requests_and_flush_work_again_after_a_restart() {
    let mut server = NatsServer::start();
    let (events, callback) = recorder();
    let client = fast_reconnect().on_event(callback).connect(server.client_url()).await.unwrap();
    let mut service = client.subscribe("svc").await.unwrap();
    let responder = client.clone();
    tokio::spawn(async move {
        while let Some(m) = service.next().await {
            let _ = responder.publish(m.reply.unwrap(), m.payload).await;
        }
    });
    assert_eq!(&client.request("svc", "a".into()).await.unwrap().payload[..], b"a");
    server.restart();
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    client.flush().await.unwrap();
    assert_eq!(&client.request("svc", "b".into()).await.unwrap().payload[..], b"b");
}

#[tokio::test]
async fn reconnect_buffer_full_is_an_error_not_a_loss() {
    let mut server = NatsServer::start();
    let (events, callback) = recorder();
    let client =
        fast_reconnect().reconnect_buffer_size(10_000).on_event(callback).connect(server.client_url()).await.unwrap();
    server.kill();
    wait_event(&events, "disconnected", |e| matches!(e, ConnectionEvent::Disconnected { .. })).await;
    let payload = [0u8; 1000];
    let mut accepted = 0;
    let err = loop {
        match client.publish("full", bytes::Bytes::copy_from_slice(payload.as_ref())).await {
            Ok(()) => accepted += 1,
            Err(e) => break e,
        }
        assert!(accepted < 100, "the buffer never filled");
    };
    assert_eq!(err.into_cause(), Error::ReconnectBufferFull { capacity: 10_000 });
    assert!(accepted > 0);
}

#[tokio::test]
async fn initial_connect_failure_is_an_error() {
    let port = common::free_port();
    let err = natsjet::connect(format!("nats://127.0.0.1:{port}")).await.unwrap_err();
    assert!(matches!(err.cause(), Error::Io { .. }), "{err:?}");
}

#[tokio::test]
async fn retry_on_initial_connect_waits_for_the_server() {
    let mut server = NatsServer::start();
    let url = server.client_url();
    server.kill();
    let client = fast_reconnect().retry_on_initial_connect().connect(url.as_str()).await.unwrap();
    client.publish("early", "kept".into()).await.unwrap();
    server.respawn();
    timeout(WAIT, client.flush()).await.expect("flush after connect").unwrap();
    assert_eq!(client.connection_state(), natsjet::State::Connected);
}

#[tokio::test]
async fn gives_up_after_max_reconnects() {
    let mut server = NatsServer::start();
    let (events, callback) = recorder();
    let client = fast_reconnect().max_reconnects(2).on_event(callback).connect(server.client_url()).await.unwrap();
    server.kill();
    wait_event(&events, "closed", |e| matches!(e, ConnectionEvent::Closed { .. })).await;
    assert_eq!(client.connection_state(), natsjet::State::Closed);
    assert_eq!(client.publish("x", "y".into()).await.unwrap_err().into_cause(), Error::Closed);
}

#[tokio::test]
async fn permission_violation_leaves_the_connection_up() {
    let server = NatsServer::builder()
        .config_extra(
            r#"authorization { users = [ { user: "app", password: "pw", permissions: { publish: { deny: "secret.>" } } } ] }"#,
        )
        .start();
    let (events, callback) = recorder();
    let client = ConnectOptions::new()
        .user_and_password("app".into(), "pw".into())
        .on_event(callback)
        .connect(server.client_url())
        .await
        .unwrap();
    client.publish("secret.plans", "x".into()).await.unwrap();
    wait_event(&events, "permissions violation", |e| {
        matches!(e, ConnectionEvent::ServerError(Error::Server(s)) if matches!(&s.kind,
            natsjet::error::ServerErrorKind::PermissionsViolation { subject, .. } if subject == "secret.plans"))
    })
    .await;
    client.flush().await.unwrap();
    assert_eq!(client.connection_state(), natsjet::State::Connected);
}

#[tokio::test]
async fn fails_over_to_a_discovered_cluster_node() {
    let mut cluster = NatsCluster::start(3);
    let (events, callback) = recorder();
    // Only node 0 is given; the others come from INFO connect_urls.
    let client = fast_reconnect().on_event(callback).connect(cluster.node(0).client_url()).await.unwrap();
    let mut sub = client.subscribe("failover").await.unwrap();
    client.flush().await.unwrap();
    cluster.kill(0);
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    let port = client.server_info().port;
    assert_ne!(port, cluster.node(0).port());
    client.publish("failover", "still here".into()).await.unwrap();
    assert_eq!(&timeout(WAIT, sub.next()).await.unwrap().unwrap().payload[..], b"still here");
}

#[tokio::test]
async fn cluster_updates_tell_which_servers_come_and_go() {
    cluster_updates(NatsServer::client_url).await;
}

#[tokio::test]
async fn cluster_updates_over_websocket_name_websocket_ports() {
    cluster_updates(NatsServer::websocket_url).await;
}

async fn cluster_updates(url: fn(&NatsServer) -> String) {
    let mut cluster = NatsCluster::start_with(2, |b| b.websocket());
    let (events, callback) = recorder();
    let _client = fast_reconnect().on_event(callback).connect(url(cluster.node(0))).await.unwrap();
    let peer = ServerAddr::parse(&url(cluster.node(1))).unwrap();
    let added =
        |e: &ConnectionEvent| matches!(e, ConnectionEvent::ClusterUpdate { added, .. } if added.contains(&peer));
    wait_event(&events, "peer added by the first INFO", added).await;
    cluster.kill(1);
    let deleted =
        |e: &ConnectionEvent| matches!(e, ConnectionEvent::ClusterUpdate { deleted, .. } if deleted.contains(&peer));
    wait_event(&events, "peer deleted", deleted).await;
    cluster.node_mut(1).respawn();
    let count = |f: &dyn Fn(&ConnectionEvent) -> bool| events.lock().unwrap().iter().filter(|e| f(e)).count();
    timeout(WAIT, async {
        while count(&added) < 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("peer not added again; saw {:?}", events.lock().unwrap()));
    let updates = count(&|e| matches!(e, ConnectionEvent::ClusterUpdate { .. }));
    assert_eq!(updates, 3, "one per change: {:?}", events.lock().unwrap());
}

#[tokio::test]
async fn lame_duck_moves_to_another_server_without_loss() {
    let cluster =
        NatsCluster::start_with(3, |b| b.config_extra("lame_duck_duration: \"30s\"\nlame_duck_grace_period: \"1s\""));
    let (events, callback) = recorder();
    let client = fast_reconnect().on_event(callback).connect(cluster.node(0).client_url()).await.unwrap();
    let observer = natsjet::connect(cluster.node(2).client_url()).await.unwrap();
    let mut sub = observer.subscribe("ldm").await.unwrap();
    observer.flush().await.unwrap();
    // Wait until the observer's interest has reached node 0.
    timeout(WAIT, async {
        loop {
            client.publish("ldm", "probe".into()).await.unwrap();
            client.flush().await.unwrap();
            if timeout(Duration::from_millis(200), sub.next()).await.is_ok() {
                break;
            }
        }
    })
    .await
    .expect("interest propagates");
    while timeout(Duration::from_millis(200), sub.next()).await.is_ok() {}

    let publisher = {
        let client = client.clone();
        tokio::spawn(async move {
            for i in 0..2000u32 {
                client.publish("ldm", bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref())).await.unwrap();
                if i % 100 == 0 {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
            client.flush().await.unwrap();
        })
    };
    cluster.node(0).lame_duck();
    let port = cluster.node(0).port();
    wait_event(&events, "lame duck", |e| matches!(e, ConnectionEvent::LameDuck { server } if server.port == port))
        .await;
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    assert_ne!(client.server_info().port, cluster.node(0).port());
    timeout(WAIT, publisher).await.unwrap().unwrap();
    let mut seen = vec![false; 2000];
    let mut count = 0;
    while count < 2000 {
        let m = timeout(WAIT, sub.next()).await.unwrap_or_else(|_| panic!("lost messages: got {count}")).unwrap();
        if m.payload.len() == 4 {
            let i = u32::from_be_bytes(m.payload[..].try_into().unwrap()) as usize;
            if !seen[i] {
                seen[i] = true;
                count += 1;
            }
        }
    }
}

/// async-nats's `reconnect_delay_callback` paces each attempt while the
/// server is down, counting attempts since the last connection.
#[tokio::test]
async fn a_delay_callback_paces_the_attempts_of_an_outage() {
    let mut server = NatsServer::start();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let (events, callback) = recorder();
    let client = ConnectOptions::new()
        .reconnect_delay_callback(move |attempts| {
            seen.lock().unwrap().push(attempts);
            Duration::from_millis(100)
        })
        .on_event(callback)
        .connect(server.client_url())
        .await
        .unwrap();
    server.kill();
    wait_event(&events, "disconnected", |e| matches!(e, ConnectionEvent::Disconnected { .. })).await;
    timeout(WAIT, async {
        while asked.lock().unwrap().len() < 3 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("attempts while the server is down");
    server.respawn();
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    client.flush().await.unwrap();
    let asked = asked.lock().unwrap();
    assert_eq!(asked[..3], [1, 2, 3], "one more attempt each time: {asked:?}");
}

/// `set_server_pool` while connected: the connection stays, and the next
/// reconnect goes to the new pool, never back to the old server.
#[tokio::test]
async fn a_new_server_pool_takes_over_at_the_next_reconnect() {
    let mut old = NatsServer::start();
    let new = NatsServer::start();
    let (events, callback) = recorder();
    let client = fast_reconnect().on_event(callback).connect(old.client_url()).await.unwrap();
    let refused = client.set_server_pool(Vec::<natsjet::ServerAddr>::new()).await.unwrap_err();
    assert_eq!(refused.kind(), natsjet::client::SetServerPoolErrorKind::EmptyPool);
    client.set_server_pool(new.client_url()).await.unwrap();
    let pool = client.server_pool().await.unwrap();
    assert_eq!(pool.iter().map(|s| s.addr.port).collect::<Vec<_>>(), [new.port()]);
    client.flush().await.unwrap();

    let mut sub = client.subscribe("moved").await.unwrap();
    old.kill();
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    assert_eq!(client.current_server().unwrap().port, new.port());
    client.publish("moved", "here".into()).await.unwrap();
    assert_eq!(&timeout(WAIT, sub.next()).await.unwrap().unwrap().payload[..], b"here");
    let pool = client.server_pool().await.unwrap();
    assert!(pool[0].did_connect && pool[0].failed_attempts == 0, "{pool:?}");
}

/// async-nats's `reconnect_to_server_callback`: the program picks the
/// server of each attempt from the pool it is shown (the first one with a
/// default INFO), and the client goes there.
#[tokio::test]
async fn a_reconnect_goes_to_the_server_the_callback_picks() {
    let mut first = NatsServer::start();
    let (second, third) = (NatsServer::start(), NatsServer::start());
    let wanted = third.port();
    let shown = Arc::new(Mutex::new(Vec::new()));
    let seen = shown.clone();
    let (events, callback) = recorder();
    let urls = [first.client_url(), second.client_url(), third.client_url()];
    let client = ConnectOptions::new()
        .retain_servers_order()
        .reconnect_to_server_callback(move |servers, info| {
            seen.lock().unwrap().push((servers.len(), info.port));
            // The first attempt keeps the usual order; later ones go to `wanted`.
            let pick = servers.into_iter().find(|s| s.addr.port == wanted).filter(|_| info.port != 0);
            async move { pick.map(|s| natsjet::ReconnectToServer { addr: s.addr, delay: Some(Duration::ZERO) }) }
        })
        .on_event(callback)
        .connect(urls.as_slice())
        .await
        .unwrap();
    assert_eq!(client.current_server().unwrap().port, first.port());
    first.kill();
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    assert_eq!(client.current_server().unwrap().port, wanted, "not the next in order");
    assert_eq!(shown.lock().unwrap()[..2], [(3, 0), (3, first.port())], "the pool and the lost server's INFO");
    client.flush().await.unwrap();
}

/// A pick outside the pool is async-nats's `ClientError::ServerNotInPool`
/// event, and the attempt goes to the pool's next server as usual.
#[tokio::test]
async fn a_pick_outside_the_pool_is_reported_and_the_pool_is_tried() {
    let mut first = NatsServer::start();
    let second = NatsServer::start();
    let reported = Arc::new(Mutex::new(Vec::new()));
    let sink = reported.clone();
    let (events, callback) = recorder();
    let urls = [first.client_url(), second.client_url()];
    let client = ConnectOptions::new()
        .retain_servers_order()
        .reconnect_to_server_callback(|_, info| async move {
            let elsewhere = ServerAddr::parse("nats://127.0.0.1:1").unwrap();
            (info.port != 0).then_some(natsjet::ReconnectToServer { addr: elsewhere, delay: Some(Duration::ZERO) })
        })
        .event_callback(move |event| {
            sink.lock().unwrap().push(event);
            async {}
        })
        .on_event(callback)
        .connect(urls.as_slice())
        .await
        .unwrap();
    first.kill();
    wait_event(&events, "reconnected", |e| matches!(e, ConnectionEvent::Reconnected { .. })).await;
    assert_eq!(client.current_server().unwrap().port, second.port());
    let not_in_pool = natsjet::Event::ClientError(natsjet::ClientError::ServerNotInPool);
    timeout(WAIT, async {
        while !reported.lock().unwrap().contains(&not_in_pool) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no ServerNotInPool; saw {:?}", reported.lock().unwrap()));
}
