//! Core NATS against a real server, run twice: over TCP and over WebSocket.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::{ConnectOptions, Error, HeaderMap};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

fn server() -> NatsServer {
    NatsServer::builder().websocket().start()
}

async fn next(sub: &mut natsjet::Subscriber) -> natsjet::Message {
    timeout(WAIT, sub.next()).await.expect("message in time").expect("subscription open")
}

common::over_both_transports!(
    publish_subscribe_in_order,
    publish_nowait_does_not_wait_for_buffer_space,
    headers_round_trip,
    queue_groups_share_messages,
    request_reply_and_no_responders,
    request_times_out,
    flush_means_processed_by_server,
    dropping_the_client_flushes,
    unsubscribe_after_ends_the_stream,
    unsubscribe_stops_delivery,
    invalid_subjects_are_refused_before_writing,
    oversize_payload_is_refused,
    statistics_and_server_info,
    drain_delivers_what_was_received,
    large_payloads_survive,
);

/// More than the high water mark in one go, without an await in between.
async fn publish_nowait_does_not_wait_for_buffer_space(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("nowait").await.unwrap();
    client.flush().await.unwrap();
    let payload = vec![7u8; 64 * 1024];
    for i in 0..100u32 {
        client.publish_nowait("nowait", None, None, &[&i.to_be_bytes()[..], &payload].concat()).unwrap();
    }
    let err = client.publish_nowait("bad subject", None, None, b"x").unwrap_err();
    assert!(matches!(err, Error::InvalidSubject { .. }), "{err:?}");
    for i in 0..100u32 {
        assert_eq!(next(&mut sub).await.payload[..4], i.to_be_bytes());
    }
}

async fn publish_subscribe_in_order(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("orders.>").await.unwrap();
    client.flush().await.unwrap();
    for i in 0..1000u32 {
        client
            .publish(format!("orders.{}", i % 7), bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref()))
            .await
            .unwrap();
    }
    for i in 0..1000u32 {
        let m = next(&mut sub).await;
        assert_eq!(m.subject, format!("orders.{}", i % 7));
        assert_eq!(&m.payload[..], i.to_be_bytes());
    }
}

async fn headers_round_trip(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("h").await.unwrap();
    client.flush().await.unwrap();
    let mut headers = HeaderMap::new();
    headers.append("X-Multi", "one");
    headers.append("X-Multi", "two");
    headers.insert("Case-Kept", "Value With Spaces");
    client.publish_with_headers("h", headers, "body".into()).await.unwrap();
    client.publish_with_reply_and_headers("h", "reply.here", HeaderMap::new(), "".into()).await.unwrap();
    let m = next(&mut sub).await;
    let h = m.headers.expect("headers");
    assert_eq!(h.get_all("X-Multi").collect::<Vec<_>>(), ["one", "two"]);
    assert_eq!(h.get("Case-Kept").map(|v| v.as_str()), Some("Value With Spaces"));
    assert_eq!(&m.payload[..], b"body");
    let m = next(&mut sub).await;
    assert_eq!(m.reply.as_deref(), Some("reply.here"));
    assert!(m.payload.is_empty());
}

async fn queue_groups_share_messages(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut a = client.queue_subscribe("work", "q".to_string()).await.unwrap();
    let mut b = client.queue_subscribe("work", "q".to_string()).await.unwrap();
    client.flush().await.unwrap();
    for i in 0..200u32 {
        client.publish("work", i.to_string().into()).await.unwrap();
    }
    client.flush().await.unwrap();
    let (mut got_a, mut got_b) = (0, 0);
    while got_a + got_b < 200 {
        tokio::select! {
            Some(_) = a.next() => got_a += 1,
            Some(_) = b.next() => got_b += 1,
            _ = tokio::time::sleep(WAIT) => panic!("queue group lost messages: {got_a} + {got_b}"),
        }
    }
    assert!(got_a > 0 && got_b > 0, "both members get work: {got_a} / {got_b}");
}

async fn request_reply_and_no_responders(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut service = client.subscribe("svc.upper").await.unwrap();
    let responder = client.clone();
    tokio::spawn(async move {
        while let Some(req) = service.next().await {
            let body = String::from_utf8_lossy(&req.payload).to_uppercase();
            responder.publish(req.reply.unwrap(), body.into()).await.unwrap();
        }
    });
    client.flush().await.unwrap();
    let answers = futures_util::future::join_all((0..50).map(|i| {
        let client = client.clone();
        async move { client.request("svc.upper", format!("req {i}").into()).await }
    }))
    .await;
    for (i, answer) in answers.into_iter().enumerate() {
        assert_eq!(answer.unwrap().payload, format!("REQ {i}").as_bytes());
    }
    let mut headers = HeaderMap::new();
    headers.insert("k", "v");
    assert_eq!(&client.request_with_headers("svc.upper", headers, "x".into()).await.unwrap().payload[..], b"X");
    assert_eq!(client.request("svc.nobody", "x".into()).await.unwrap_err().into_cause(), Error::NoResponders);
}

async fn request_times_out(url: &str) {
    let client = ConnectOptions::new().request_timeout(Some(Duration::from_millis(300))).connect(url).await.unwrap();
    // A subscriber that never answers: the server sees interest, so no 503.
    let _silent = client.subscribe("svc.silent").await.unwrap();
    client.flush().await.unwrap();
    assert_eq!(client.request("svc.silent", "x".into()).await.unwrap_err().into_cause(), Error::Timeout);
    // The connection is still fine afterwards.
    client.flush().await.unwrap();
}

async fn flush_means_processed_by_server(url: &str) {
    let publisher = natsjet::connect(url).await.unwrap();
    let observer = natsjet::connect(url).await.unwrap();
    let mut sub = observer.subscribe("flushed").await.unwrap();
    observer.flush().await.unwrap();
    for i in 0..10_000u32 {
        publisher.publish("flushed", bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref())).await.unwrap();
    }
    publisher.flush().await.unwrap();
    // After flush the server has routed every message: the observer's own
    // flush round trip comes back after all of them are in its socket.
    observer.flush().await.unwrap();
    let mut n = 0;
    while n < 10_000 {
        next(&mut sub).await;
        n += 1;
    }
}

async fn dropping_the_client_flushes(url: &str) {
    let observer = natsjet::connect(url).await.unwrap();
    let mut sub = observer.subscribe("last.words").await.unwrap();
    observer.flush().await.unwrap();
    {
        let client = natsjet::connect(url).await.unwrap();
        for i in 0..5000u32 {
            client.publish("last.words", bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref())).await.unwrap();
        }
        // dropped without flush or close
    }
    for i in 0..5000u32 {
        assert_eq!(&next(&mut sub).await.payload[..], i.to_be_bytes());
    }
}

async fn unsubscribe_after_ends_the_stream(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("limited").await.unwrap();
    sub.unsubscribe_after(3).await.unwrap();
    client.flush().await.unwrap();
    for i in 0..10 {
        client.publish("limited", format!("{i}").into()).await.unwrap();
    }
    client.flush().await.unwrap();
    let got: Vec<_> = timeout(WAIT, sub.collect::<Vec<_>>()).await.expect("stream ends");
    assert_eq!(got.len(), 3);
}

async fn unsubscribe_stops_delivery(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("stop").await.unwrap();
    client.flush().await.unwrap();
    client.publish("stop", "before".into()).await.unwrap();
    assert_eq!(&next(&mut sub).await.payload[..], b"before");
    sub.unsubscribe().await.unwrap();
    client.publish("stop", "after".into()).await.unwrap();
    client.flush().await.unwrap();
    assert!(timeout(WAIT, sub.next()).await.expect("ends").is_none());
}

async fn invalid_subjects_are_refused_before_writing(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe(">").await.unwrap();
    client.flush().await.unwrap();
    for bad in ["", "a b", "inject\r\nPUB x 1\r\n", "a..b", "trailing.", "tab\tsubject"] {
        assert!(
            matches!(
                client.publish(bad, "x".into()).await.map_err(natsjet::Error::from),
                Err(Error::InvalidSubject { .. })
            ),
            "{bad:?}"
        );
        assert!(
            matches!(client.subscribe(bad).await.map_err(natsjet::Error::from), Err(Error::InvalidSubject { .. })),
            "{bad:?}"
        );
        assert!(
            matches!(
                client.request(bad, "x".into()).await.map_err(natsjet::Error::from),
                Err(Error::InvalidSubject { .. })
            ),
            "{bad:?}"
        );
    }
    assert!(matches!(
        client.publish_with_reply("ok", "bad reply", "x".into()).await.map_err(natsjet::Error::from),
        Err(Error::InvalidSubject { .. })
    ));
    assert!(matches!(
        client.queue_subscribe("ok", "bad queue".to_string()).await.map_err(natsjet::Error::from),
        Err(Error::InvalidSubject { .. })
    ));
    let mut headers = HeaderMap::new();
    headers.insert("X-Evil\r\nPUB x 1\r\n", "v");
    assert!(matches!(
        client.publish_with_headers("ok", headers, "x".into()).await.map_err(natsjet::Error::from),
        Err(Error::InvalidArgument(_))
    ));
    // A value's line breaks go out as spaces (async-nats 0.52).
    let mut headers = HeaderMap::new();
    headers.insert("X-Evil", "v\r\nPUB x 1");
    client.publish_with_headers("ok", headers, "x".into()).await.unwrap();
    let spaced = next(&mut sub).await;
    assert_eq!(spaced.headers.unwrap().get("X-Evil").unwrap().as_str(), "v  PUB x 1");
    // Nothing was injected: the only other message the wildcard subscriber sees is ours.
    client.publish("sentinel", "ok".into()).await.unwrap();
    assert_eq!(next(&mut sub).await.subject, "sentinel");
    client.flush().await.unwrap();
}

async fn oversize_payload_is_refused(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let max = client.server_info().max_payload;
    assert!(max > 0);
    let big = vec![0u8; max + 1];
    assert_eq!(
        client.publish("big", big.into()).await.unwrap_err().into_cause(),
        Error::PayloadTooLarge { size: max + 1, max_payload: max }
    );
    client.flush().await.unwrap();
}

async fn statistics_and_server_info(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("stats").await.unwrap();
    client.flush().await.unwrap();
    client.publish("stats", "12345".into()).await.unwrap();
    next(&mut sub).await;
    let stats = client.statistics();
    assert_eq!(stats.out_messages, 1);
    assert_eq!(stats.out_bytes, 5);
    assert_eq!(stats.in_messages, 1);
    assert_eq!(stats.in_bytes, 5);
    let info = client.server_info();
    assert!(info.version.starts_with("2."), "{info:?}");
    assert!(info.headers);
    assert_eq!(client.connection_state(), natsjet::State::Connected);
    assert!(client.new_inbox().starts_with("_INBOX."));
}

async fn drain_delivers_what_was_received(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("drain").await.unwrap();
    client.flush().await.unwrap();
    for i in 0..100u32 {
        client.publish("drain", bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref())).await.unwrap();
    }
    client.flush().await.unwrap();
    client.drain().await.unwrap();
    let got: Vec<_> = timeout(WAIT, (&mut sub).collect::<Vec<_>>()).await.expect("stream ends after drain");
    assert_eq!(got.len(), 100);
    assert_eq!(client.connection_state(), natsjet::State::Closed);
    assert_eq!(client.publish("drain", "late".into()).await.unwrap_err().into_cause(), Error::Closed);
}

async fn large_payloads_survive(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("large").await.unwrap();
    client.flush().await.unwrap();
    let payload: Vec<u8> = (0..900_000u32).map(|i| (i % 251) as u8).collect();
    for _ in 0..5 {
        client.publish("large", payload.clone().into()).await.unwrap();
    }
    for _ in 0..5 {
        assert_eq!(next(&mut sub).await.payload, payload);
    }
}

#[tokio::test]
async fn slow_consumer_is_reported_and_the_connection_survives() {
    let server = server();
    let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = events.clone();
    let client = ConnectOptions::new()
        .subscription_capacity(10)
        .on_event(move |e| sink.lock().unwrap().push(e))
        .connect(server.client_url())
        .await
        .unwrap();
    let mut sub = client.subscribe("slow").await.unwrap();
    client.flush().await.unwrap();
    for i in 0..100u32 {
        client.publish("slow", bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref())).await.unwrap();
    }
    client.flush().await.unwrap();
    client.flush().await.unwrap();
    assert!(
        events.lock().unwrap().iter().any(|e| matches!(e, natsjet::ConnectionEvent::SlowConsumer { dropped: 1, .. })),
        "{:?}",
        events.lock().unwrap()
    );
    // The first ten were kept, in order; later messages flow again once read.
    for i in 0..10u32 {
        assert_eq!(&next(&mut sub).await.payload[..], i.to_be_bytes());
    }
    client.publish("slow", "again".into()).await.unwrap();
    assert_eq!(&next(&mut sub).await.payload[..], b"again");
}

#[tokio::test]
async fn close_twice_and_close_after_drain_return() {
    let server = server();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let _sub = client.subscribe("x").await.unwrap();
    client.close().await.unwrap();
    timeout(WAIT, client.close()).await.expect("second close returns").unwrap();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    client.drain().await.unwrap();
    timeout(WAIT, client.close()).await.expect("close after drain returns").unwrap();
}

#[tokio::test]
async fn drain_keeps_messages_already_in_flight() {
    let server = server();
    for _ in 0..5 {
        let publisher = natsjet::connect(server.client_url()).await.unwrap();
        let client = natsjet::connect(server.client_url()).await.unwrap();
        let mut sub = client.subscribe("inflight").await.unwrap();
        client.flush().await.unwrap();
        for i in 0..100u32 {
            publisher.publish("inflight", bytes::Bytes::copy_from_slice(i.to_be_bytes().as_ref())).await.unwrap();
        }
        publisher.flush().await.unwrap();
        // Drain at once: whatever the server sent before our UNSUB must arrive.
        client.drain().await.unwrap();
        let got: Vec<_> = timeout(WAIT, (&mut sub).collect::<Vec<_>>()).await.unwrap();
        assert_eq!(got.len(), 100);
    }
}

#[tokio::test]
async fn subjects_too_long_for_the_servers_control_line_are_refused_before_writing() {
    let server = server();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    // The longest subject the client lets through: the server takes it.
    let longest = "a".repeat(4096 - 49);
    let mut sub = client.subscribe(longest.clone()).await.unwrap();
    client.flush().await.unwrap();
    client.publish(longest.clone(), "fits".into()).await.unwrap();
    assert_eq!(&next(&mut sub).await.payload[..], b"fits");
    let too_long = format!("{longest}a");
    for err in [
        client.publish(too_long.clone(), "x".into()).await.unwrap_err().into(),
        client.subscribe(too_long.clone()).await.unwrap_err().into(),
        client.publish_nowait("a", Some(&too_long), None, b"x").unwrap_err(),
    ] {
        assert!(matches!(&err, Error::InvalidSubject { reason, .. } if reason.contains("max_control_line")), "{err:?}");
    }
    client.flush().await.expect("the connection is still up");

    // A server whose limit was raised, and a client told so.
    let raised = NatsServer::builder().config_extra("max_control_line: 8192").start();
    let client = ConnectOptions::new().max_control_line(8192).connect(raised.client_url()).await.unwrap();
    let mut sub = client.subscribe(too_long.clone()).await.unwrap();
    client.flush().await.unwrap();
    client.publish(too_long, "raised".into()).await.unwrap();
    assert_eq!(&next(&mut sub).await.payload[..], b"raised");
}

#[tokio::test]
async fn a_subscriber_that_ended_says_why() {
    let server = server();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let mut asked = client.subscribe("why.asked").await.unwrap();
    let mut silent = client.subscribe("why.silent").await.unwrap();
    silent.set_first_message_timeout(Duration::from_millis(100));
    let mut closed = client.subscribe("why.closed").await.unwrap();
    assert_eq!(closed.closed_reason(), None, "running");
    asked.unsubscribe().await.unwrap();
    assert!(timeout(WAIT, asked.next()).await.unwrap().is_none());
    assert_eq!(asked.closed_reason(), None, "an end asked for is no error");
    assert!(timeout(WAIT, silent.next()).await.unwrap().is_none());
    assert_eq!(silent.closed_reason(), Some(Error::Timeout));
    client.close().await.unwrap();
    assert!(timeout(WAIT, closed.next()).await.unwrap().is_none());
    assert_eq!(closed.closed_reason(), Some(Error::Closed));
}
