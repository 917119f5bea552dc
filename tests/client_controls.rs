//! Subscription drain, round-trip time, the current server, forced
//! reconnects and inboxes without a connection, against a real server.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::{ConnectOptions, ConnectionEvent, Error, State};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

common::over_both_transports!(
    subscriber_drain_delivers_what_the_server_sent_before_it,
    rtt_is_a_round_trip,
    current_server_is_the_connected_one,
    force_reconnect_comes_back_with_the_subscriptions,
    first_message_timeout_ends_a_silent_subscription_only,
    request_on_inbox_is_answered_there,
);

/// A subscription with no message in time ends (and unsubscribes); one
/// whose first message came in time lives on past the timeout.
async fn first_message_timeout_ends_a_silent_subscription_only(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut silent = client.subscribe("fmt.silent").await.unwrap();
    silent.set_first_message_timeout(Duration::from_millis(200));
    let mut busy = client.subscribe("fmt.busy").await.unwrap();
    busy.set_first_message_timeout(Duration::from_millis(200));
    client.publish("fmt.busy", "first".into()).await.unwrap();
    assert_eq!(&timeout(WAIT, busy.next()).await.unwrap().unwrap().payload[..], b"first");
    assert!(timeout(WAIT, silent.next()).await.unwrap().is_none(), "ended");
    assert!(silent.timed_out());
    client.publish("fmt.silent", "late".into()).await.unwrap();
    client.publish("fmt.busy", "second".into()).await.unwrap();
    assert_eq!(&timeout(WAIT, busy.next()).await.unwrap().unwrap().payload[..], b"second", "past the timeout");
    assert!(!busy.timed_out());
    assert!(silent.next().await.is_none());
}

/// The answer comes to the given inbox; no responders and silence give
/// their errors, as on the muxed inbox.
async fn request_on_inbox_is_answered_there(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut echo = client.subscribe("own.echo").await.unwrap();
    let _silent = client.subscribe("own.silent").await.unwrap();
    client.flush().await.unwrap();
    let responder = client.clone();
    tokio::spawn(async move {
        while let Some(m) = echo.next().await {
            let reply = m.reply.unwrap();
            responder.publish(reply.clone(), reply.into()).await.unwrap();
        }
    });
    let answer = client.send_request_on_inbox("own.echo", "my.inbox", None, b"", Some(WAIT)).unwrap().await.unwrap();
    assert_eq!(&answer.payload[..], b"my.inbox");
    let nobody = client.send_request_on_inbox("own.nobody", "my.inbox", None, b"", Some(WAIT)).unwrap().await;
    assert!(matches!(nobody, Err(Error::NoResponders)), "{nobody:?}");
    let silent = client
        .send_request_on_inbox("own.silent", "my.inbox", None, b"", Some(Duration::from_millis(200)))
        .unwrap()
        .await;
    assert!(matches!(silent, Err(Error::Timeout)), "{silent:?}");
}

/// A publisher's messages flushed before the drain all arrive; later ones
/// do not; the stream ends; the connection stays up.
async fn subscriber_drain_delivers_what_the_server_sent_before_it(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let publisher = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("sdrain").await.unwrap();
    let mut other = client.subscribe("sdrain.other").await.unwrap();
    client.flush().await.unwrap();
    for i in 0..2000u32 {
        publisher.publish("sdrain", bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref())).await.unwrap();
    }
    publisher.flush().await.unwrap();
    timeout(WAIT, sub.drain()).await.expect("drain in time").unwrap();
    publisher.publish("sdrain", "late".into()).await.unwrap();
    publisher.publish("sdrain.other", "still".into()).await.unwrap();
    publisher.flush().await.unwrap();
    assert_eq!(sub.received(), 2000);
    let got: Vec<_> = timeout(WAIT, (&mut sub).collect::<Vec<_>>()).await.expect("the stream ends");
    assert_eq!(got.len(), 2000);
    assert!(got.iter().enumerate().all(|(i, m)| m.payload[..] == (i as u32).to_be_bytes()));
    assert_eq!(&timeout(WAIT, other.next()).await.unwrap().unwrap().payload[..], b"still");
    assert_eq!(client.connection_state(), State::Connected);
    sub.drain().await.expect("a second drain is a no-op");
    assert!(!client.is_draining());
    client.close().await.unwrap();
    assert_eq!(other.drain().await, Err(Error::Closed));
}

async fn rtt_is_a_round_trip(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let rtt = client.rtt().await.unwrap();
    assert!(rtt < WAIT, "{rtt:?}");
    client.close().await.unwrap();
    assert_eq!(client.rtt().await, Err(Error::Closed));
}

async fn current_server_is_the_connected_one(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let server = client.current_server().expect("connected to one");
    assert!(server.same_endpoint(&natsjet::ServerAddr::parse(url).unwrap()), "{server} for {url}");
    client.close().await.unwrap();
}

async fn force_reconnect_comes_back_with_the_subscriptions(url: &str) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let client = ConnectOptions::new()
        .reconnect_delay(Duration::from_millis(50), Duration::ZERO)
        .on_event(move |e| sink.lock().unwrap().push(e))
        .connect(url)
        .await
        .unwrap();
    let mut sub = client.subscribe("forced").await.unwrap();
    client.flush().await.unwrap();
    client.force_reconnect().await.unwrap();
    timeout(WAIT, async {
        while !events.lock().unwrap().iter().any(|e| matches!(e, ConnectionEvent::Reconnected { .. })) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("reconnected");
    let server = natsjet::ServerAddr::parse(url).unwrap();
    assert_eq!(
        events.lock().unwrap()[1..],
        [
            ConnectionEvent::ForcedReconnect { server: server.clone() },
            ConnectionEvent::Disconnected { server: server.clone(), error: None },
            ConnectionEvent::Reconnecting { server: server.clone() },
            ConnectionEvent::Reconnected { server: server.clone() },
        ],
        "after Connected, each naming the one server"
    );
    assert_eq!(client.statistics().reconnects, 1);
    client.publish("forced", "after".into()).await.unwrap();
    assert_eq!(&timeout(WAIT, sub.next()).await.unwrap().unwrap().payload[..], b"after");
    client.close().await.unwrap();
    assert_eq!(client.force_reconnect().await, Err(Error::Closed));
}

#[tokio::test]
async fn drain_marks_the_client_draining() {
    let server = NatsServer::start();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    assert!(!client.is_draining());
    let drained = client.drain();
    assert!(client.is_draining(), "from the call on");
    let refused = client.force_reconnect().await.unwrap_err();
    assert!(matches!(refused, Error::ApiMisuse(_)), "{refused:?}");
    drained.await.unwrap();
    assert!(client.is_draining());
    assert_eq!(client.connection_state(), State::Closed);
}

/// A drain whose flush cannot complete (the server is gone) still ends with
/// the connection closed, and says why it could not flush.
#[tokio::test]
async fn a_drain_that_cannot_flush_still_closes() {
    let mut server = NatsServer::start();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let _sub = client.subscribe("drained").await.unwrap();
    client.flush().await.unwrap();
    server.stop();
    let result = timeout(WAIT, client.drain()).await.expect("the drain ends");
    assert!(result.is_err(), "{result:?}");
    assert_eq!(client.connection_state(), State::Closed);
}

#[tokio::test]
async fn created_inboxes_are_subjects_a_client_can_use() {
    let server = NatsServer::start();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let inbox = natsjet::create_inbox(None).unwrap();
    let mut sub = client.subscribe(&inbox).await.unwrap();
    client.flush().await.unwrap();
    client.publish(&inbox, "hi".into()).await.unwrap();
    assert_eq!(&timeout(WAIT, sub.next()).await.unwrap().unwrap().payload[..], b"hi");
    assert_ne!(
        natsjet::create_inbox(Some("app.replies")).unwrap(),
        natsjet::create_inbox(Some("app.replies")).unwrap()
    );
}
