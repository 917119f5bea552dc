//! Ordered push consumers against a real server: every message once and
//! in order past the flow-control window, filter and start options, and
//! recovery without gap or duplicate when the consumer is deleted (found
//! by missed heartbeats) or the server restarts.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::jetstream::api::{AckPolicy, DeliverPolicy, StreamConfig};
use natsjet::jetstream::ordered::{OrderedConfig, OrderedPushConfig};
use natsjet::jetstream::pull::{ConsumerEvent, ResetReason};
use natsjet::jetstream::{self, Context, OrderedMessages};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(20);

async fn setup(client: &natsjet::Client, stream: &str, messages: usize, size: usize) -> Context {
    let js = jetstream::new(client.clone());
    let config = StreamConfig { name: stream.into(), subjects: vec![format!("{stream}.>")], ..Default::default() };
    js.create_stream(config).await.unwrap();
    publish(client, stream, 0..messages, size).await;
    js
}

/// Publishes each number of `range` (padded to `size` bytes) to `<stream>.<n % 10>`.
async fn publish(client: &natsjet::Client, stream: &str, range: std::ops::Range<usize>, size: usize) {
    for i in range {
        client.request(format!("{stream}.{}", i % 10), format!("{i:.<size$}").into()).await.unwrap();
    }
}

/// The next `n` messages as (stream sequence, leading number).
async fn read(messages: &mut OrderedMessages, n: usize) -> Vec<(u64, usize)> {
    let mut got = Vec::with_capacity(n);
    while got.len() < n {
        let m = timeout(WAIT, messages.next()).await.expect("a message in time").expect("not ended").unwrap();
        let text = String::from_utf8(m.payload.to_vec()).unwrap();
        got.push((m.info().unwrap().stream_sequence, text.trim_end_matches('.').parse().unwrap()));
    }
    got
}

fn expected(range: std::ops::Range<usize>) -> Vec<(u64, usize)> {
    range.map(|i| (i as u64 + 1, i)).collect()
}

/// Quick heartbeats, so a deleted consumer is found within a second.
fn quick(ordered: OrderedConfig) -> OrderedPushConfig {
    OrderedPushConfig { ordered, idle_heartbeat: Duration::from_millis(500), ..OrderedPushConfig::default() }
}

/// The events waiting.
fn events(messages: &OrderedMessages) -> Vec<ConsumerEvent> {
    let mut events = Vec::new();
    while let Some(Some(event)) =
        futures_util::FutureExt::now_or_never(std::future::poll_fn(|cx| messages.poll_next_event(cx)))
    {
        events.push(event);
    }
    events
}

/// The names of the consumers made so far by resets.
fn recreated(events: &[ConsumerEvent]) -> Vec<String> {
    let names = events.iter().filter_map(|e| match e {
        ConsumerEvent::OrderedRecreated { name } => Some(name.clone()),
        _ => None,
    });
    names.collect()
}

#[tokio::test]
async fn every_message_once_in_order_past_the_flow_control_window() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    // 3 MiB: the server stops at 2 MiB until its flow-control request is answered.
    let js = setup(&client, "O", 3000, 1024).await;
    let ordered = js.ordered_push_consumer("O", OrderedPushConfig::default()).await.unwrap();
    let info = ordered.info().await.unwrap();
    assert_eq!(info.name, ordered.name());
    let config = &info.config;
    assert_eq!(
        (config.ack_policy, config.memory_storage, config.durable_name.as_deref()),
        (AckPolicy::None, true, None)
    );
    assert!(config.flow_control);
    assert_eq!(config.idle_heartbeat, Duration::from_secs(5));
    assert!(config.deliver_subject.as_deref().is_some_and(|s| s.starts_with("_INBOX.") && s.ends_with(".1")));

    let mut messages = ordered.messages().await.unwrap();
    assert_eq!(read(&mut messages, 3000).await, expected(0..3000));
    assert!(ordered.messages().await.is_err(), "one reader at a time");
    publish(&client, "O", 3000..3010, 0).await;
    assert_eq!(read(&mut messages, 10).await, expected(3000..3010));
    assert_eq!(recreated(&events(&messages)), Vec::<String>::new(), "no reset was needed");
    drop(messages);
    publish(&client, "O", 3010..3011, 0).await;
    let mut next = ordered.messages().await.unwrap();
    assert_eq!(read(&mut next, 1).await, expected(3010..3011), "a new reader goes on after the last");
}

#[tokio::test]
async fn filters_start_options_deliver_policies_and_the_deliver_prefix_are_kept() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "P", 40, 0).await;

    let ordered = OrderedConfig {
        filter_subjects: vec!["P.3".into(), "P.7".into()],
        deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: 10 },
        name_prefix: Some("audit_".into()),
        ..OrderedConfig::default()
    };
    let config = OrderedPushConfig { deliver_prefix: Some("audit.in".into()), ..quick(ordered) };
    let consumer = js.ordered_push_consumer("P", config).await.unwrap();
    assert!(consumer.name().starts_with("audit_"));
    let info = consumer.info().await.unwrap();
    assert_eq!(info.config.deliver_subject.as_deref(), Some("audit.in.1"));
    let mut messages = consumer.messages().await.unwrap();
    let seqs: Vec<u64> = read(&mut messages, 6).await.into_iter().map(|(s, _)| s).collect();
    assert_eq!(seqs, [14, 18, 24, 28, 34, 38]);

    let last = OrderedConfig { deliver_policy: DeliverPolicy::LastPerSubject, ..OrderedConfig::default() };
    let mut messages = js.ordered_push_consumer("P", quick(last)).await.unwrap().messages().await.unwrap();
    let seqs: Vec<u64> = read(&mut messages, 10).await.into_iter().map(|(s, _)| s).collect();
    assert_eq!(seqs, (31..=40).collect::<Vec<_>>(), "the last message of each subject");

    let wildcard = OrderedPushConfig { deliver_prefix: Some("in.*".into()), ..OrderedPushConfig::default() };
    assert!(matches!(js.ordered_push_consumer("P", wildcard).await, Err(natsjet::Error::InvalidArgument(_))));
    let missing = js.ordered_push_consumer("NOPE", OrderedPushConfig::default()).await;
    assert!(matches!(missing, Err(natsjet::Error::JetStream(_))), "{missing:?}");
}

#[tokio::test]
async fn a_deleted_consumer_is_replaced_without_gap_or_duplicate() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "D", 150, 0).await;
    let stream = js.get_stream("D").await.unwrap();
    let ordered = stream.ordered_push_consumer(quick(OrderedConfig::default())).await.unwrap();
    let mut messages = ordered.messages().await.unwrap();
    assert_eq!(read(&mut messages, 30).await, expected(0..30));

    let first = ordered.name();
    assert!(js.delete_consumer_from_stream(&first, "D").await.unwrap().success);
    publish(&client, "D", 150..200, 0).await;
    // What the first consumer pushed before is read; two missed heartbeats
    // later its successor starts after the last one read.
    assert_eq!(read(&mut messages, 170).await, expected(30..200));
    let second = ordered.name();
    assert_ne!(first, second, "a new consumer took over");
    let events = events(&messages);
    assert!(matches!(events[0], ConsumerEvent::HeartbeatsMissed { count: 2 }), "{events:?}");
    assert_eq!(recreated(&events), std::slice::from_ref(&second));
    let info = ordered.info().await.unwrap();
    assert!(info.config.deliver_subject.as_deref().is_some_and(|s| s.ends_with(".2")), "a subject of its own");
}

#[tokio::test]
async fn a_server_restart_is_bridged_without_gap_or_duplicate() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = setup(&client, "R", 60, 0).await;
    let ordered = js.ordered_push_consumer("R", OrderedPushConfig::default()).await.unwrap();
    let mut messages = ordered.messages().await.unwrap();
    assert_eq!(read(&mut messages, 25).await, expected(0..25));
    let before = ordered.name();

    // The stream is on disk; the memory consumer is gone.
    common::restart_jetstream(&mut server, &js).await;
    publish(&client, "R", 60..80, 0).await;
    assert_eq!(read(&mut messages, 55).await, expected(25..80));
    assert_ne!(ordered.name(), before);
    let events = events(&messages);
    assert_eq!(events.first(), Some(&ConsumerEvent::Reset(ResetReason::Reconnected)), "replaced at once: {events:?}");
}

#[tokio::test]
async fn a_reader_not_polled_through_a_server_restart_is_made_again_without_gap_or_duplicate() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = setup(&client, "U", 60, 0).await;
    let ordered = js.ordered_push_consumer("U", OrderedPushConfig::default()).await.unwrap();
    let mut messages = ordered.messages().await.unwrap();
    assert_eq!(read(&mut messages, 25).await, expected(0..25));
    let before = ordered.name();

    // Only the reader's events are read until the new consumer exists.
    common::restart_jetstream(&mut server, &js).await;
    let name = async {
        loop {
            match std::future::poll_fn(|cx| messages.poll_next_event(cx)).await.expect("events go on") {
                ConsumerEvent::OrderedRecreated { name } => return name,
                _ => continue,
            }
        }
    };
    let name = timeout(WAIT, name).await.expect("re-created while nobody read");
    assert_ne!(name, before);
    assert_eq!(ordered.info().await.unwrap().name, name, "it is on the server");
    publish(&client, "U", 60..80, 0).await;
    assert_eq!(read(&mut messages, 55).await, expected(25..80), "once each, in order");
}
