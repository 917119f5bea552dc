//! JetStream publish with acks against a real server: PublishAck fields,
//! pipelining under the ack window, dedupe, optimistic-concurrency headers,
//! TTL, 503 retries, timeouts, and a stream leader killed mid-stream.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{NatsCluster, NatsServer};
use futures_util::StreamExt;
use natsjet::jetstream::api::{self, ErrorCode, MsgGetRequest, MsgGetResponse, StreamConfig, StreamInfo};
use natsjet::jetstream::{Context, Publish};
use natsjet::{Client, ConnectOptions, Error};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

async fn connect(server: &NatsServer) -> (Client, Context) {
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = client.jetstream();
    (client, js)
}

fn config(name: &str, subjects: &[&str]) -> StreamConfig {
    StreamConfig { name: name.into(), subjects: subjects.iter().map(|s| s.to_string()).collect(), ..Default::default() }
}

async fn create_stream(js: &Context, config: &StreamConfig) -> Result<StreamInfo, Error> {
    js.request(&api::stream_create(js.api_prefix(), &config.name)?, config).await
}

async fn stream_info(js: &Context, name: &str) -> Result<StreamInfo, Error> {
    js.request_raw(&api::stream_info(js.api_prefix(), name)?, b"").await
}

async fn publish(js: &Context, subject: &str, publish: Publish) -> Result<api::PublishAck, Error> {
    Ok(timeout(WAIT, js.send_publish(subject, publish).await?).await.expect("ack in time")?)
}

fn err_code(result: Result<api::PublishAck, Error>) -> ErrorCode {
    match result {
        Err(Error::JetStream(e)) => e.err_code,
        other => panic!("expected a JetStream API error, got {other:?}"),
    }
}

fn data(s: &str) -> Publish {
    Publish::build().payload(Bytes::copy_from_slice(s.as_bytes()))
}

#[tokio::test]
async fn pub_ack_names_the_stream_and_sequence() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("ORDERS", &["orders.>"])).await.unwrap();
    for seq in 1..=3 {
        let ack = js.publish("orders.new", Bytes::from_static(b"x")).await.unwrap().await.unwrap();
        assert_eq!(ack, api::PublishAck { stream: "ORDERS".into(), sequence: seq, ..Default::default() });
    }
    let mut headers = natsjet::HeaderMap::new();
    headers.insert("X-Origin", "test");
    let ack = js.publish_with_headers("orders.new", headers, Bytes::new()).await.unwrap().await.unwrap();
    assert_eq!(ack.sequence, 4);
}

#[tokio::test]
async fn ten_thousand_pipelined_publishes_are_acked_in_order() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("PIPE", &["pipe"])).await.unwrap();
    assert_eq!(js.max_ack_inflight(), 256);
    let mut acks = Vec::with_capacity(10_000);
    let mut most_in_flight = 0;
    // All ack futures are kept and awaited only at the end: the window
    // frees room as acks arrive, so this never blocks itself.
    for i in 0..10_000u32 {
        acks.push(js.publish("pipe", Bytes::from(i.to_string())).await.unwrap());
        most_in_flight = most_in_flight.max(js.acks_in_flight());
    }
    assert!(most_in_flight <= 256, "{most_in_flight} acks in flight");
    for (expected, ack) in (1..).zip(acks) {
        let ack = timeout(WAIT, ack).await.unwrap().unwrap();
        assert_eq!((ack.stream.as_str(), ack.sequence), ("PIPE", expected));
    }
    assert_eq!(js.acks_in_flight(), 0);
    assert_eq!(stream_info(&js, "PIPE").await.unwrap().state.messages, 10_000);
}

#[tokio::test]
async fn message_id_dedupes() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("DEDUPE", &["dedupe"])).await.unwrap();
    let first = publish(&js, "dedupe", data("a").message_id("id-1")).await.unwrap();
    let again = publish(&js, "dedupe", data("b").message_id("id-1")).await.unwrap();
    assert_eq!((first.sequence, first.duplicate), (1, false));
    assert_eq!((again.sequence, again.duplicate), (1, true));
    let other = publish(&js, "dedupe", data("c").message_id("id-2")).await.unwrap();
    assert_eq!((other.sequence, other.duplicate), (2, false));
    assert_eq!(stream_info(&js, "DEDUPE").await.unwrap().state.messages, 2);
}

#[tokio::test]
async fn expected_last_sequence() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("SEQ", &["seq.>"])).await.unwrap();
    assert_eq!(publish(&js, "seq.a", data("1").expected_last_sequence(0)).await.unwrap().sequence, 1);
    assert_eq!(publish(&js, "seq.b", data("2").expected_last_sequence(1)).await.unwrap().sequence, 2);
    assert_eq!(err_code(publish(&js, "seq.a", data("3").expected_last_sequence(1)).await), ErrorCode(10071));
}

#[tokio::test]
async fn expected_last_subject_sequence() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("SUBJ", &["subj.>"])).await.unwrap();
    // 0: the subject must have no message yet.
    assert_eq!(publish(&js, "subj.a", data("1").expected_last_subject_sequence(0)).await.unwrap().sequence, 1);
    assert_eq!(publish(&js, "subj.b", data("2").expected_last_subject_sequence(0)).await.unwrap().sequence, 2);
    assert_eq!(publish(&js, "subj.a", data("3").expected_last_subject_sequence(1)).await.unwrap().sequence, 3);
    let stale = publish(&js, "subj.a", data("4").expected_last_subject_sequence(1)).await;
    assert_eq!(err_code(stale), ErrorCode::STREAM_WRONG_LAST_SEQUENCE);
    let not_empty = publish(&js, "subj.b", data("5").expected_last_subject_sequence(0)).await;
    assert_eq!(err_code(not_empty), ErrorCode::STREAM_WRONG_LAST_SEQUENCE);
}

#[tokio::test]
async fn expected_stream() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("MINE", &["mine"])).await.unwrap();
    assert_eq!(publish(&js, "mine", data("1").expected_stream("MINE")).await.unwrap().sequence, 1);
    let wrong = publish(&js, "mine", data("2").expected_stream("OTHER")).await;
    assert_eq!(err_code(wrong), ErrorCode::STREAM_NOT_MATCH);
}

#[tokio::test]
async fn expected_last_message_id() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("MSGID", &["msgid"])).await.unwrap();
    publish(&js, "msgid", data("1").message_id("a")).await.unwrap();
    let ack = publish(&js, "msgid", data("2").message_id("b").expected_last_message_id("a")).await.unwrap();
    assert_eq!(ack.sequence, 2);
    let stale = publish(&js, "msgid", data("3").message_id("c").expected_last_message_id("a")).await;
    assert_eq!(err_code(stale), ErrorCode::STREAM_WRONG_LAST_MESSAGE_ID);
}

#[tokio::test]
async fn ttl_needs_allow_msg_ttl() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &StreamConfig { allow_message_ttl: true, ..config("TTL", &["ttl"]) }).await.unwrap();
    create_stream(&js, &config("NOTTL", &["nottl"])).await.unwrap();
    let ack = publish(&js, "ttl", data("1").ttl(Duration::from_secs(60))).await.unwrap();
    assert_eq!((ack.stream.as_str(), ack.sequence), ("TTL", 1));
    let go_duration = publish(&js, "ttl", data("2").ttl(Duration::from_millis(1500))).await.unwrap();
    assert_eq!(go_duration.sequence, 2);
    let too_short = publish(&js, "ttl", data("3").ttl(Duration::from_millis(500))).await;
    assert_eq!(err_code(too_short), ErrorCode::MESSAGE_TTL_INVALID);
    let refused = publish(&js, "nottl", data("4").ttl(Duration::from_secs(60))).await;
    assert_eq!(err_code(refused), ErrorCode::MESSAGE_TTL_DISABLED);
}

#[tokio::test]
async fn no_stream_fails_with_no_responders_after_retries() {
    let server = NatsServer::start_jetstream();
    let (_client, mut js) = connect(&server).await;
    let started = Instant::now();
    let result = js.publish("nobody.home", Bytes::from_static(b"x")).await.unwrap().await.map_err(Error::from);
    assert_eq!(result, Err(Error::NoResponders));
    // Three re-sends, 50 + 100 + 200 ms apart.
    assert!(started.elapsed() >= Duration::from_millis(350), "{:?}", started.elapsed());
    assert_eq!(js.acks_in_flight(), 0);

    js.set_publish_retries(0);
    let started = Instant::now();
    let result = js.publish("nobody.home", Bytes::from_static(b"x")).await.unwrap().await.map_err(Error::from);
    assert_eq!(result, Err(Error::NoResponders));
    assert!(started.elapsed() < Duration::from_millis(50), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_retry_reaches_a_stream_created_meanwhile() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    let started = Instant::now();
    let ack = js.publish("late.stream", Bytes::from_static(b"x")).await.unwrap();
    // The first attempt gets a 503; the stream exists before the retries end.
    create_stream(&js, &config("LATE", &["late.>"])).await.unwrap();
    let ack = timeout(WAIT, ack).await.unwrap().unwrap();
    assert_eq!((ack.stream.as_str(), ack.sequence), ("LATE", 1));
    assert!(started.elapsed() >= Duration::from_millis(50), "stored without a retry");
}

/// A core subscriber that captures a stream's subject but never answers:
/// publishes to it wait for acks that only the test sends.
async fn silent_listener(client: &Client, subject: &str) -> natsjet::Subscriber {
    let sub = client.subscribe(subject).await.unwrap();
    client.flush().await.unwrap();
    sub
}

#[tokio::test]
async fn ack_timeout() {
    let server = NatsServer::start_jetstream();
    let (client, mut js) = connect(&server).await;
    let _silent = silent_listener(&client, "silent").await;
    js.set_timeout(Duration::from_millis(200));
    let started = Instant::now();
    let result = js.publish("silent", Bytes::from_static(b"x")).await.unwrap().await.map_err(Error::from);
    assert_eq!(result, Err(Error::Timeout));
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(js.acks_in_flight(), 0);
}

#[tokio::test]
async fn timeouts_are_sent_again_only_when_asked() {
    let server = NatsServer::start_jetstream();
    let (client, mut js) = connect(&server).await;
    let mut silent = silent_listener(&client, "slow").await;
    js.set_timeout(Duration::from_millis(100));
    js.set_publish_retries(2);
    let result = js.publish("slow", Bytes::from_static(b"once")).await.unwrap().await.map_err(Error::from);
    assert_eq!(result, Err(Error::Timeout));
    js.set_publish_retry_on_timeout(true);
    let result = js.publish("slow", Bytes::from_static(b"thrice")).await.unwrap().await.map_err(Error::from);
    assert_eq!(result, Err(Error::Timeout));
    assert_eq!(js.acks_in_flight(), 0);
    let mut got = Vec::new();
    while let Ok(Some(message)) = timeout(Duration::from_millis(300), silent.next()).await {
        got.push(message.payload);
    }
    assert_eq!(got, ["once", "thrice", "thrice", "thrice"]);
}

#[tokio::test]
async fn the_window_bounds_acks_in_flight() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let mut silent = silent_listener(&client, "held").await;
    js.set_max_ack_inflight(4);
    let clone = js.clone();
    let mut acks = Vec::new();
    for _ in 0..4 {
        acks.push(js.publish("held", Bytes::from_static(b"x")).await.unwrap());
    }
    assert_eq!((js.acks_in_flight(), clone.acks_in_flight()), (4, 4));
    // Full: the fifth publish waits for room, on every clone.
    let mut fifth = Box::pin(clone.publish("held", Bytes::from_static(b"x")));
    assert!(timeout(Duration::from_millis(200), fifth.as_mut()).await.is_err());

    // An ack that arrives frees its room, though nobody awaits its future.
    let first = timeout(WAIT, silent.next()).await.unwrap().unwrap();
    client.publish(first.reply.unwrap(), r#"{"stream":"HELD","seq":1}"#.into()).await.unwrap();
    let fifth = timeout(WAIT, fifth).await.expect("room after an ack").unwrap();
    assert_eq!(js.acks_in_flight(), 4);

    // Dropping an ack future frees its room too.
    drop(acks.pop());
    assert_eq!(js.acks_in_flight(), 3);
    let first = acks.remove(0);
    assert_eq!(first.await.unwrap(), api::PublishAck { stream: "HELD".into(), sequence: 1, ..Default::default() });
    drop((acks, fifth));
    assert_eq!(js.acks_in_flight(), 0);
}

#[tokio::test]
async fn a_yield_forced_by_tokio_does_not_count_as_an_ack() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let _silent = silent_listener(&client, "held").await;
    // With the task's budget spent, tokio timers wake the task to make it
    // yield; such a wake must not free window room.
    while tokio::task::coop::has_budget_remaining() {
        tokio::task::consume_budget().await;
    }
    let _ack = js.publish("held", Bytes::from_static(b"x")).await.unwrap();
    tokio::task::yield_now().await;
    assert_eq!(js.acks_in_flight(), 1);
}

#[tokio::test]
async fn a_small_window_still_carries_every_publish() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    create_stream(&js, &config("SMALL", &["small"])).await.unwrap();
    js.set_max_ack_inflight(4);
    let mut acks = Vec::new();
    for _ in 0..100 {
        acks.push(js.publish("small", Bytes::from_static(b"x")).await.unwrap());
        assert!(js.acks_in_flight() <= 4);
    }
    let acks = futures_util::future::try_join_all(acks).await.unwrap();
    assert_eq!(acks.iter().map(|a| a.sequence).collect::<Vec<_>>(), (1..=100).collect::<Vec<_>>());
}

/// Server name of the stream's leader (`n1`..`n3`), once it has one.
/// Message `seq` of `stream`, asked again while a new leader still answers
/// "JetStream system temporarily unavailable" (a loaded machine lags).
async fn stored_message(js: &Context, stream: &str, seq: u64) -> MsgGetResponse {
    let request = MsgGetRequest { seq: Some(seq), ..Default::default() };
    let subject = api::stream_msg_get(js.api_prefix(), stream).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match js.request(&subject, &request).await {
            Err(Error::JetStream(e)) if e.err_code == ErrorCode(10008) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            result => return result.unwrap(),
        }
    }
}

async fn stream_leader(js: &Context, stream: &str) -> usize {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(StreamInfo { cluster: Some(api::ClusterInfo { leader: Some(name), .. }), .. }) =
            stream_info(js, stream).await
        {
            return name.trim_start_matches('n').parse::<usize>().unwrap() - 1;
        }
        assert!(Instant::now() < deadline, "stream {stream} has no leader");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acked_publishes_survive_a_stream_leader_kill() {
    let mut cluster = NatsCluster::start(3);
    let client = ConnectOptions::new()
        .reconnect_delay(Duration::from_millis(50), Duration::from_millis(50))
        .max_reconnects(None)
        .connect(cluster.client_urls())
        .await
        .unwrap();
    let mut js = client.jetstream();
    js.set_timeout(Duration::from_secs(2));
    let r3 = StreamConfig { num_replicas: 3, ..config("ELECT", &["elect"]) };
    create_stream(&js, &r3).await.unwrap();
    let leader = stream_leader(&js, "ELECT").await;

    let killed = Arc::new(AtomicBool::new(false));
    let publisher = {
        let (js, killed) = (js.clone(), killed.clone());
        tokio::spawn(async move {
            let mut results = Vec::new();
            let mut pending = std::collections::VecDeque::new();
            let deadline = Instant::now() + Duration::from_secs(20);
            let mut acked_after_kill = 0;
            for i in 0u64.. {
                let ack = js.send_publish("elect", data(&i.to_string()).message_id(i.to_string())).await;
                pending.push_back((i, ack));
                if pending.len() >= 32 {
                    let (i, ack) = pending.pop_front().unwrap();
                    let result = match ack {
                        Ok(ack) => ack.await,
                        Err(e) => Err(e),
                    };
                    if result.is_ok() && killed.load(Ordering::SeqCst) {
                        acked_after_kill += 1;
                    }
                    results.push((i, result));
                }
                if acked_after_kill >= 300 || Instant::now() > deadline {
                    break;
                }
            }
            for (i, ack) in pending {
                results.push((
                    i,
                    match ack {
                        Ok(ack) => ack.await,
                        Err(e) => Err(e),
                    },
                ));
            }
            results
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    cluster.kill(leader);
    killed.store(true, Ordering::SeqCst);
    let results = publisher.await.unwrap();

    let new_leader = stream_leader(&js, "ELECT").await;
    assert_ne!(new_leader, leader);
    let mut failures = std::collections::BTreeMap::<String, usize>::new();
    let mut acked = std::collections::HashSet::new();
    for (i, result) in &results {
        match result.as_ref().map_err(|e| e.cause()) {
            Ok(ack) => {
                assert!(acked.insert(ack.sequence), "seq {} acked twice", ack.sequence);
                assert_eq!(ack.stream, "ELECT");
                let stored = stored_message(&js, "ELECT", ack.sequence).await;
                assert_eq!(stored.message.data, i.to_string(), "acked seq {} holds another message", ack.sequence);
            }
            Err(e @ (Error::NoResponders | Error::Timeout | Error::Disconnected)) => {
                *failures.entry(format!("{e:?}")).or_default() += 1
            }
            Err(Error::JetStream(e)) => *failures.entry(format!("JetStream {}", e.err_code)).or_default() += 1,
            Err(e) => panic!("publish {i} failed with {e:?}"),
        }
    }
    eprintln!("{} publishes: {} acked, failures {failures:?}", results.len(), acked.len());
    assert!(acked.len() > 600, "{} acked", acked.len());
}
