//! Scatter-gather requests against a real server with several responders,
//! over TCP and over WebSocket: every strategy, no responders and close.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use natsjet::request_many::{RequestManyOptions, RequestStrategy};
use natsjet::{Client, Error, HeaderMap, Message};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

common::over_both_transports!(
    timer_collects_every_responder,
    count_stops_at_max_messages,
    stall_ends_soon_after_the_last_reply,
    sentinel_ends_at_the_empty_reply,
    max_wait_caps_every_strategy,
    no_responders_is_an_error,
    close_ends_with_an_error,
    dropping_the_stream_stops_the_request,
    headers_reach_the_responders,
    the_request_ends_on_time_while_nobody_reads,
    no_mux_uses_a_subscription_of_its_own,
    no_mux_no_responders_and_close,
);

/// `n` responders on `subject`, each answering every request with
/// `replies` messages `"<i>.<k>"`, then, if `sentinel`, an empty one.
async fn responders(client: &Client, subject: &str, n: usize, replies: usize, sentinel: bool) {
    for i in 0..n {
        let mut sub = client.subscribe(subject).await.unwrap();
        let client = client.clone();
        tokio::spawn(async move {
            while let Some(req) = sub.next().await {
                let reply = req.reply.clone().unwrap();
                for k in 0..replies {
                    client.publish(reply.clone(), format!("{i}.{k}").into()).await.unwrap();
                }
                if sentinel {
                    client.publish(reply, "".into()).await.unwrap();
                }
            }
        });
    }
    client.flush().await.unwrap();
}

/// Every item of the stream, in time.
async fn collect(stream: natsjet::Responses) -> Vec<Result<Message, Error>> {
    timeout(WAIT, stream.collect::<Vec<_>>()).await.expect("the request ends in time")
}

fn payloads(items: &[Result<Message, Error>]) -> Vec<String> {
    items.iter().map(|r| String::from_utf8_lossy(&r.as_ref().unwrap().payload).into_owned()).collect()
}

async fn timer_collects_every_responder(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.timer", 3, 2, false).await;
    let start = Instant::now();
    let replies = client.request_many("svc.timer", "hi").max_wait(Duration::from_millis(500)).await.unwrap();
    let mut got = payloads(&collect(replies).await);
    assert!(start.elapsed() >= Duration::from_millis(450), "{:?}", start.elapsed());
    got.sort();
    assert_eq!(got, ["0.0", "0.1", "1.0", "1.1", "2.0", "2.1"]);
}

async fn count_stops_at_max_messages(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.count", 4, 3, false).await;
    let start = Instant::now();
    let replies = client.request_many("svc.count", "").max_messages(5).max_wait(Duration::from_secs(5)).await.unwrap();
    assert_eq!(collect(replies).await.len(), 5);
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
}

async fn stall_ends_soon_after_the_last_reply(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.stall", 3, 4, false).await;
    let start = Instant::now();
    let replies = client
        .request_many("svc.stall", "")
        .stall(Duration::from_millis(200))
        .max_wait(Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(collect(replies).await.len(), 12);
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
}

async fn sentinel_ends_at_the_empty_reply(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.sentinel", 1, 10, true).await;
    let start = Instant::now();
    let replies = client
        .request_many("svc.sentinel", "")
        .strategy(RequestStrategy::Sentinel)
        .max_wait(Duration::from_secs(5))
        .await
        .unwrap();
    let got = payloads(&collect(replies).await);
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    // As in nats.js, the sentinel is delivered, last.
    assert_eq!(got.len(), 11);
    assert_eq!(got.last().map(String::as_str), Some(""));
}

async fn max_wait_caps_every_strategy(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    // A responder that never answers: no 503, and nothing to gather.
    let _silent = client.subscribe("svc.silent").await.unwrap();
    // One that answers without a sentinel.
    responders(&client, "svc.partial", 1, 2, false).await;
    client.flush().await.unwrap();
    for (subject, strategy, expected) in [
        ("svc.silent", RequestStrategy::Timer, 0),
        ("svc.silent", RequestStrategy::Stall, 0),
        ("svc.partial", RequestStrategy::Sentinel, 2),
        ("svc.partial", RequestStrategy::Count, 2),
    ] {
        let options = RequestManyOptions {
            strategy,
            max_wait: Duration::from_millis(300),
            max_messages: Some(10),
            stall: None,
            no_mux: false,
        };
        let start = Instant::now();
        let replies = client.request_many(subject, "").options(options).await.unwrap();
        let items = collect(replies).await;
        let elapsed = start.elapsed();
        assert_eq!(items.len(), expected, "{strategy:?}");
        assert!(items.iter().all(Result::is_ok), "{strategy:?}: {items:?}");
        assert!(elapsed >= Duration::from_millis(280) && elapsed < Duration::from_secs(2), "{strategy:?}: {elapsed:?}");
    }
}

async fn no_responders_is_an_error(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let replies = client.request_many("svc.nobody", "").await.unwrap();
    let items = collect(replies).await;
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap_err(), &Error::NoResponders);
}

async fn close_ends_with_an_error(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.close", 1, 1, false).await;
    let mut replies = client.request_many("svc.close", "").max_wait(Duration::from_secs(30)).await.unwrap();
    let first = timeout(WAIT, replies.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(&first.payload[..], b"0.0");
    client.close().await.unwrap();
    let rest = timeout(WAIT, replies.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0].as_ref().unwrap_err(), &Error::Closed);
    // And a request on a closed connection is refused at once.
    assert_eq!(client.request_many("svc.close", "").await.unwrap_err(), Error::Closed);
}

async fn dropping_the_stream_stops_the_request(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.drop", 2, 50, false).await;
    let mut replies = client.request_many("svc.drop", "").max_wait(Duration::from_secs(30)).await.unwrap();
    timeout(WAIT, replies.next()).await.unwrap().unwrap().unwrap();
    drop(replies);
    // Stopping keeps what came and ends the stream at once.
    let mut stopped = client.request_many("svc.drop", "").max_wait(Duration::from_secs(30)).await.unwrap();
    timeout(WAIT, stopped.next()).await.unwrap().unwrap().unwrap();
    stopped.stop();
    let rest = collect(stopped).await;
    assert!(rest.len() < 100 && rest.iter().all(Result::is_ok), "{}", rest.len());
    // Late replies for the dropped request go nowhere; the client goes on.
    let replies = client.request_many("svc.drop", "").max_messages(100).await.unwrap();
    assert_eq!(collect(replies).await.len(), 100);
}

async fn headers_reach_the_responders(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe("svc.headers").await.unwrap();
    let responder = client.clone();
    tokio::spawn(async move {
        while let Some(req) = sub.next().await {
            let value =
                req.headers.as_ref().and_then(|h| h.get("X-Who").map(|v| v.as_str())).unwrap_or_default().to_string();
            responder.publish(req.reply.unwrap(), value.into()).await.unwrap();
        }
    });
    client.flush().await.unwrap();
    let mut headers = HeaderMap::new();
    headers.insert("X-Who", "me");
    let replies = client.request_many("svc.headers", "").headers(headers).max_messages(1).await.unwrap();
    assert_eq!(payloads(&collect(replies).await), ["me"]);
}

/// The end rules run on the driver's clock: a request left unread past its
/// stall is over, with its replies, when the user comes back.
async fn the_request_ends_on_time_while_nobody_reads(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.unread", 2, 3, false).await;
    // Sees the request too, and answers only once the request has stalled.
    let mut late = client.subscribe("svc.unread").await.unwrap();
    client.flush().await.unwrap();
    let replies = client
        .request_many("svc.unread", "")
        .stall(Duration::from_millis(100))
        .max_wait(Duration::from_secs(30))
        .await
        .unwrap();
    let inbox = late.next().await.unwrap().reply.unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    // In order: the request ended by its stall, then this reply came (the
    // flush returns once the server sent it back), then the user reads.
    client.publish(inbox, "late".into()).await.unwrap();
    client.flush().await.unwrap();
    let items = collect(replies).await;
    assert_eq!(items.len(), 6, "{:?}", payloads(&items));
    assert!(!payloads(&items).contains(&"late".to_string()));
}

/// `no_mux`: the same end rules over a subscription of its own, which is
/// gone once the request ends.
async fn no_mux_uses_a_subscription_of_its_own(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    responders(&client, "svc.nomux", 3, 2, true).await;
    for (strategy, expected) in
        [(RequestStrategy::Count, 4), (RequestStrategy::Sentinel, 3), (RequestStrategy::Stall, 9)]
    {
        let options = RequestManyOptions {
            strategy,
            max_wait: Duration::from_secs(5),
            max_messages: Some(4),
            stall: Some(Duration::from_millis(200)),
            no_mux: true,
        };
        let start = Instant::now();
        let items = collect(client.request_many("svc.nomux", "").options(options).await.unwrap()).await;
        assert_eq!(items.len(), expected, "{strategy:?}");
        assert!(items.iter().all(Result::is_ok));
        assert!(start.elapsed() < Duration::from_secs(2), "{strategy:?}: {:?}", start.elapsed());
    }
    let start = Instant::now();
    let replies = client.request_many("svc.nomux", "").no_mux().max_wait(Duration::from_millis(300)).await.unwrap();
    assert_eq!(collect(replies).await.len(), 9);
    assert!(start.elapsed() >= Duration::from_millis(280));
}

/// As nats.js's `noMux`: 503 is `NoResponders`; a close ends the replies quietly.
async fn no_mux_no_responders_and_close(url: &str) {
    let client = natsjet::connect(url).await.unwrap();
    let items = collect(client.request_many("svc.nobody", "").no_mux().await.unwrap()).await;
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap_err(), &Error::NoResponders);

    responders(&client, "svc.nomux.close", 1, 1, false).await;
    let mut replies =
        client.request_many("svc.nomux.close", "").no_mux().max_wait(Duration::from_secs(30)).await.unwrap();
    timeout(WAIT, replies.next()).await.unwrap().unwrap().unwrap();
    client.close().await.unwrap();
    assert!(timeout(WAIT, replies.next()).await.unwrap().is_none());
}
