//! The calls async-nats 0.52 programs make that natsjet added, against a
//! real server: the server's limits and version, `ContextBuilder` (prefix,
//! timeouts, the ack window with and without backpressure, `wait_for_acks`),
//! `create_or_update_stream`, `get_stream_no_info`, `Consumer::sequence`,
//! `Message::split` and its `Acker`, and the expectation on another
//! subject's last sequence.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use common::NatsServer;
use futures_util::{StreamExt, TryStreamExt};
use natsjet::Error;
use natsjet::jetstream::api::{ConsumerConfig, ErrorCode, StreamConfig};
use natsjet::jetstream::consumer::{PullConsumer, pull};
use natsjet::jetstream::context::{ContextBuilder, CreateStreamErrorKind, GetStreamErrorKind, PublishErrorKind};
use natsjet::jetstream::message::Acker;
use natsjet::jetstream::{self, Publish};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

fn stream(name: &str, subjects: &[&str]) -> StreamConfig {
    StreamConfig { name: name.into(), subjects: subjects.iter().map(|s| s.to_string()).collect(), ..Default::default() }
}

/// A stream `name` (upper case) on `name.>` holding `count` messages
/// (`name.0`…), and a durable pull consumer on it.
async fn durable_over(server: &NatsServer, name: &str, count: usize) -> (jetstream::Context, PullConsumer) {
    let js = jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    let subjects = format!("{name}.>");
    let stream = js.create_stream(stream(&name.to_uppercase(), &[&subjects])).await.unwrap();
    for i in 0..count {
        js.publish(format!("{name}.{i}"), format!("{i}").into()).await.unwrap().await.unwrap();
    }
    let config = pull::Config { durable_name: Some(name.into()), ..Default::default() };
    (js.clone(), stream.create_consumer(config).await.unwrap())
}

#[tokio::test]
async fn the_servers_limits_and_version() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::ConnectOptions::new()
        .request_timeout(Some(Duration::from_secs(3)))
        .connect(server.client_url())
        .await
        .unwrap();
    let info = client.try_server_info().expect("connected");
    assert_eq!(client.max_payload(), info.max_payload);
    let mut version = info.version.split('.').map(|n| n.parse::<i64>().unwrap());
    let (major, minor) = (version.next().unwrap(), version.next().unwrap());
    assert!(client.is_server_compatible(major, minor, 0));
    assert!(!client.is_server_compatible(major, minor + 1, 0));
    assert!(!client.is_server_compatible(major + 1, 0, 0));
    assert_eq!(client.timeout(), Some(Duration::from_secs(3)));
}

#[tokio::test]
async fn a_built_context_has_its_prefix_timeouts_and_window() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let hub = ContextBuilder::new().domain("hub").timeout(Duration::from_secs(2)).build(client.clone());
    assert_eq!((hub.api_prefix(), hub.timeout()), ("$JS.hub.API", Duration::from_secs(2)));
    assert_eq!(ContextBuilder::new().api_prefix("$JS.x.API.").build(client.clone()).api_prefix(), "$JS.x.API");

    // A publish nobody acks (a plain subscriber, no stream) waits ack_timeout, not the API timeout.
    let _silent = client.subscribe("silent.>").await.unwrap();
    let js = ContextBuilder::new()
        .timeout(Duration::from_secs(20))
        .ack_timeout(Duration::from_millis(300))
        .max_ack_inflight(2)
        .backpressure_on_inflight(false)
        .build(client.clone());
    let started = Instant::now();
    let ack = js.publish("silent.a", "x".into()).await.unwrap().await;
    assert_eq!(ack.unwrap_err().kind(), PublishErrorKind::TimedOut);
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());

    // Two acks in flight fill the window: without backpressure the third fails at once.
    js.create_stream(stream("W", &["w.>"])).await.unwrap();
    let first = js.publish("w.1", "1".into()).await.unwrap();
    let second = js.publish("w.2", "2".into()).await.unwrap();
    let refused = js.publish("w.3", "3".into()).await.unwrap_err();
    assert_eq!(refused.kind(), PublishErrorKind::MaxAckPending);
    assert_eq!(js.acks_in_flight(), 2);
    timeout(WAIT, js.wait_for_acks()).await.expect("the acks came");
    assert_eq!(js.acks_in_flight(), 0);
    assert_eq!((first.await.unwrap().sequence, second.await.unwrap().sequence), (1, 2));
}

#[tokio::test]
async fn create_or_update_stream_creates_then_updates() {
    let server = NatsServer::start_jetstream();
    let js = jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    let created = js.create_or_update_stream(stream("U", &["u.>"])).await.unwrap();
    assert_eq!((created.config.name.as_str(), created.config.max_messages), ("U", -1));
    let limited = StreamConfig { max_messages: 10, ..stream("U", &["u.>"]) };
    assert_eq!(js.create_or_update_stream(&limited).await.unwrap().config.max_messages, 10);
    assert_eq!(js.get_stream("U").await.unwrap().cached_info().config.max_messages, 10);
    // An update the server refuses is that error, not a create.
    let moved = StreamConfig { storage: jetstream::stream::StorageType::Memory, ..limited };
    let refused = js.create_or_update_stream(moved).await.unwrap_err();
    assert!(matches!(refused.cause(), Error::JetStream(e) if e.err_code != ErrorCode::STREAM_NOT_FOUND), "{refused:?}");
    let unnamed = js.create_or_update_stream(StreamConfig::default()).await.unwrap_err();
    assert_eq!(unnamed.kind(), CreateStreamErrorKind::EmptyStreamName);
}

#[tokio::test]
async fn a_stream_without_info_is_a_handle_its_calls_check() {
    let server = NatsServer::start_jetstream();
    let js = jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    js.create_stream(stream("N", &["n.>"])).await.unwrap();
    js.publish("n.a", "1".into()).await.unwrap().await.unwrap();

    let handle = js.get_stream_no_info("N").await.unwrap();
    assert_eq!(handle.name(), "N");
    assert_eq!(handle.get_info().await.unwrap().state.messages, 1);
    let consumer = handle.create_consumer(ConsumerConfig { durable_name: Some("d".into()), ..Default::default() });
    assert_eq!(consumer.await.unwrap().cached_info().name, "d");

    let missing = js.get_stream_no_info("MISSING").await.unwrap();
    assert!(
        matches!(missing.get_info().await.unwrap_err().cause(), Error::JetStream(e) if e.err_code == ErrorCode::STREAM_NOT_FOUND)
    );
    assert_eq!(js.get_stream_no_info("").await.unwrap_err().kind(), GetStreamErrorKind::EmptyName);
    assert!(js.get_stream_no_info("a.b").await.is_err(), "a name that cannot be a subject token");
}

#[tokio::test]
async fn sequence_hands_out_one_batch_after_another() {
    let server = NatsServer::start_jetstream();
    let (_, consumer) = durable_over(&server, "seq", 7).await;
    let mut batches = consumer.sequence(3).unwrap();
    let mut sizes = Vec::new();
    for _ in 0..2 {
        let batch = timeout(WAIT, batches.next()).await.unwrap().unwrap().unwrap();
        let messages: Vec<_> = timeout(WAIT, batch.try_collect::<Vec<_>>()).await.unwrap().unwrap();
        for message in &messages {
            message.ack().await.unwrap();
        }
        sizes.push(messages.len());
    }
    assert_eq!(sizes, [3, 3]);
    // The third pull has the last message at once and waits for two more.
    let mut last = timeout(WAIT, batches.next()).await.unwrap().unwrap().unwrap();
    let message = timeout(WAIT, last.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(message.subject.as_str(), "seq.6");
}

#[tokio::test]
async fn split_messages_are_acked_by_their_acker_once() {
    let server = NatsServer::start_jetstream();
    let (js, consumer) = durable_over(&server, "split", 3).await;
    let messages: Vec<_> = consumer.fetch().max_messages(3).messages().await.unwrap().try_collect().await.unwrap();
    let mut messages = messages.into_iter();

    let (body, acker) = messages.next().unwrap().split();
    assert_eq!((body.subject.as_str(), &body.payload[..], body.reply.is_none()), ("split.0", &b"0"[..], true));
    acker.double_ack().await.unwrap();
    assert_eq!(acker.ack().await.unwrap_err(), Error::AlreadyAcknowledged, "one final ack, as the message");

    // An acker made from the ack subject alone, as a program keeps it.
    let second = messages.next().unwrap();
    let reply = second.reply.clone();
    let acker = Acker::new(js.clone(), reply);
    acker.double_ack_with(jetstream::AckKind::Ack).await.unwrap();
    let no_subject = Acker::new(js.clone(), None);
    assert!(matches!(no_subject.ack().await.unwrap_err(), Error::ApiMisuse(_)));

    let info = consumer.get_info().await.unwrap();
    assert_eq!((info.ack_floor.consumer_sequence, info.num_ack_pending), (2, 1));
}

#[tokio::test]
async fn a_publish_can_expect_another_subjects_last_sequence() {
    let server = NatsServer::start_jetstream();
    let js = jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    js.create_stream(stream("EXP", &["exp.*"])).await.unwrap();
    js.publish("exp.a", "1".into()).await.unwrap().await.unwrap();
    js.publish("exp.b", "2".into()).await.unwrap().await.unwrap();
    let expect = |sequence, subject| {
        Publish::build()
            .payload("3".into())
            .expected_last_subject_sequence(sequence)
            .expected_last_subject_sequence_subject(subject)
    };
    // The last on exp.c is none, on exp.a 1, on exp.* 2.
    let ack = js.send_publish("exp.c", expect(2, "exp.*")).await.unwrap().await.unwrap();
    assert_eq!(ack.sequence, 3);
    let refused = js.send_publish("exp.c", expect(2, "exp.a")).await.unwrap().await.unwrap_err();
    assert_eq!(refused.kind(), PublishErrorKind::WrongLastSequence);
    assert_eq!(js.send_publish("exp.c", expect(1, "exp.a")).await.unwrap().await.unwrap().sequence, 4);
}
