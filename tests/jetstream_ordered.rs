//! Ordered consumers against a real server: every message once and in
//! order, filter and start options, and recovery without gap or duplicate
//! when the server deletes the consumer or the connection is lost.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::jetstream::api::{AckPolicy, DeliverPolicy, ReplayPolicy, StreamConfig};
use natsjet::jetstream::ordered::OrderedConfig;
use natsjet::jetstream::pull::{ConsumeOptions, ConsumerEvent, FetchOptions};
use natsjet::jetstream::{self, Context, OrderedConsumer, OrderedMessages};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(20);

async fn setup(client: &natsjet::Client, stream: &str, messages: usize) -> Context {
    let js = jetstream::new(client.clone());
    let config = StreamConfig { name: stream.into(), subjects: vec![format!("{stream}.>")], ..Default::default() };
    js.create_stream(config).await.unwrap();
    publish(client, stream, 0..messages).await;
    js
}

async fn publish(client: &natsjet::Client, stream: &str, range: std::ops::Range<usize>) {
    for i in range {
        client.request(format!("{stream}.{}", i % 10), format!("{i}").into()).await.unwrap();
    }
}

/// The next `n` messages as (stream sequence, payload).
async fn read(messages: &mut OrderedMessages, n: usize) -> Vec<(u64, String)> {
    let mut got = Vec::with_capacity(n);
    while got.len() < n {
        let m = timeout(WAIT, messages.next()).await.expect("a message in time").expect("not ended").unwrap();
        got.push((m.info().unwrap().stream_sequence, String::from_utf8(m.payload.to_vec()).unwrap()));
    }
    got
}

fn expected(range: std::ops::Range<usize>) -> Vec<(u64, String)> {
    range.map(|i| (i as u64 + 1, i.to_string())).collect()
}

#[tokio::test]
async fn every_message_once_in_order_from_an_unacked_memory_consumer() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "O", 250).await;
    let ordered = js.ordered_consumer("O", OrderedConfig::default()).await.unwrap();
    let info = ordered.info().await.unwrap();
    assert_eq!(info.config.ack_policy, AckPolicy::None);
    assert!(info.config.memory_storage);
    assert_eq!(info.config.durable_name, None);
    assert_eq!(info.name, ordered.name());

    let mut messages = ordered.messages().await.unwrap();
    assert_eq!(read(&mut messages, 250).await, expected(0..250));
    assert!(ordered.messages().await.is_err(), "one reader at a time");
    publish(&client, "O", 250..260).await;
    assert_eq!(read(&mut messages, 10).await, expected(250..260));
    drop(messages);
    publish(&client, "O", 260..261).await;
    let mut batch = ordered.fetch(FetchOptions::messages(1)).unwrap();
    let m = timeout(WAIT, batch.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(m.info().unwrap().stream_sequence, 261, "a fetch goes on after the consume");
    // An ordered consumer takes no acks, and the server has nothing listening
    // on its ack subjects: a confirmed ack fails at once, without waiting out
    // the timeout.
    assert_eq!(timeout(Duration::from_secs(1), m.double_ack()).await.unwrap(), Err(natsjet::Error::NoResponders));
    assert!(batch.next().await.is_none());
    assert!(ordered.messages().await.is_ok(), "a dropped or ended reader frees the consumer");
}

#[tokio::test]
async fn filters_and_start_options_pick_the_messages() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "P", 40).await;

    let config = OrderedConfig { filter_subjects: vec!["P.3".into(), "P.7".into()], ..Default::default() };
    let mut messages = js.ordered_consumer("P", config).await.unwrap().messages().await.unwrap();
    let seqs: Vec<u64> = read(&mut messages, 8).await.into_iter().map(|(s, _)| s).collect();
    assert_eq!(seqs, [4, 8, 14, 18, 24, 28, 34, 38]);

    let config = OrderedConfig {
        deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: 31 },
        replay_policy: ReplayPolicy::Instant,
        headers_only: true,
        name_prefix: Some("audit_".into()),
        ..Default::default()
    };
    let ordered = js.ordered_consumer("P", config).await.unwrap();
    assert!(ordered.name().starts_with("audit_"));
    let batch = ordered.fetch(FetchOptions { max_messages: 5, ..FetchOptions::default() }).unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    let seqs: Vec<u64> = got.iter().map(|m| m.as_ref().unwrap().info().unwrap().stream_sequence).collect();
    assert_eq!(seqs, [31, 32, 33, 34, 35]);
    assert!(got[0].as_ref().unwrap().payload.is_empty(), "headers only");
    let next = ordered.next(Duration::from_secs(2)).await.unwrap().expect("the next one");
    assert_eq!(next.info().unwrap().stream_sequence, 36, "fetches go on where the last stopped");

    let config = OrderedConfig { deliver_policy: DeliverPolicy::Last, ..Default::default() };
    let last = js.ordered_consumer("P", config).await.unwrap();
    assert_eq!(last.next(Duration::from_secs(2)).await.unwrap().unwrap().info().unwrap().stream_sequence, 40);
    assert!(last.next(Duration::from_millis(300)).await.unwrap().is_none(), "nothing newer");

    let missing = js.ordered_consumer("NOPE", OrderedConfig::default()).await;
    assert!(matches!(missing, Err(natsjet::Error::JetStream(_))), "{missing:?}");
}

#[tokio::test]
async fn a_deleted_consumer_is_replaced_without_gap_or_duplicate() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "D", 150).await;
    let ordered = js.ordered_consumer("D", OrderedConfig::default()).await.unwrap();
    let options = ConsumeOptions { max_messages: Some(20), ..Default::default() };
    let mut messages = ordered.consume(options).unwrap();
    assert_eq!(read(&mut messages, 30).await, expected(0..30));

    let first = ordered.name();
    assert!(js.delete_consumer_from_stream(&first, "D").await.unwrap().success);
    publish(&client, "D", 150..200).await;
    assert_eq!(read(&mut messages, 170).await, expected(30..200));
    let second = ordered.name();
    assert_ne!(first, second, "a new consumer took over");
    let mut recreated = Vec::new();
    while let Some(Some(event)) =
        futures_util::FutureExt::now_or_never(std::future::poll_fn(|cx| messages.poll_next_event(cx)))
    {
        if let ConsumerEvent::OrderedRecreated { name } = event {
            recreated.push(name);
        }
    }
    assert_eq!(recreated, std::slice::from_ref(&second));

    // Caught up, a pull waits on the server: the deletion answers it with 409.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(js.delete_consumer_from_stream(&second, "D").await.unwrap().success);
    publish(&client, "D", 200..210).await;
    assert_eq!(read(&mut messages, 10).await, expected(200..210));
    assert_ne!(ordered.name(), second);
}

#[tokio::test]
async fn fetches_go_on_after_the_consumer_is_deleted() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "E", 30).await;
    let ordered = js.ordered_consumer("E", OrderedConfig::default()).await.unwrap();
    let fetch = |n| FetchOptions { max_messages: n, expires: Duration::from_secs(1), ..FetchOptions::default() };
    let mut got = Vec::new();
    let batch = ordered.fetch(fetch(10)).unwrap();
    got.extend(timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap());
    js.delete_consumer_from_stream(ordered.name(), "E").await.unwrap();
    // A fetch on the missing consumer ends early; the next one has a new consumer.
    while got.len() < 30 {
        let batch = ordered.fetch(fetch(10)).unwrap();
        got.extend(timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap());
    }
    let seqs: Vec<u64> = got.iter().map(|m| m.as_ref().unwrap().info().unwrap().stream_sequence).collect();
    assert_eq!(seqs, (1..=30).collect::<Vec<_>>());
}

/// A stream of 60 messages and an ordered consume of it, pulling 20 at a
/// time, that has read the first 25.
async fn read_25_of_60(client: &natsjet::Client, stream: &str) -> (Context, OrderedConsumer, OrderedMessages) {
    let js = setup(client, stream, 60).await;
    let ordered = js.ordered_consumer(stream, OrderedConfig::default()).await.unwrap();
    let options =
        ConsumeOptions { max_messages: Some(20), expires: Some(Duration::from_secs(4)), ..Default::default() };
    let mut messages = ordered.consume(options).unwrap();
    assert_eq!(read(&mut messages, 25).await, expected(0..25));
    (js, ordered, messages)
}

#[tokio::test]
async fn a_server_restart_is_bridged_without_gap_or_duplicate() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let (js, ordered, mut messages) = read_25_of_60(&client, "R").await;
    let before = ordered.name();

    // The stream is on disk; the memory consumer is gone.
    common::restart_jetstream(&mut server, &js).await;
    publish(&client, "R", 60..80).await;
    assert_eq!(read(&mut messages, 55).await, expected(25..80));
    assert_ne!(ordered.name(), before);
}

/// Waits for the reader's next re-creation, reading only its events.
async fn recreated(messages: &OrderedMessages) -> String {
    let name = async {
        loop {
            match std::future::poll_fn(|cx| messages.poll_next_event(cx)).await.expect("events go on") {
                ConsumerEvent::OrderedRecreated { name } => return name,
                _ => continue,
            }
        }
    };
    timeout(WAIT, name).await.expect("re-created in time")
}

#[tokio::test]
async fn a_reader_not_polled_through_a_server_restart_is_made_again_without_gap_or_duplicate() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let (js, ordered, mut messages) = read_25_of_60(&client, "U").await;
    let before = ordered.name();

    // The memory consumer goes with the server; the messages are not read
    // again until the new consumer exists and is serving.
    common::restart_jetstream(&mut server, &js).await;
    let name = recreated(&messages).await;
    assert_ne!(name, before);
    assert_eq!(ordered.name(), name, "the consumer made while nobody read");
    assert_eq!(ordered.info().await.unwrap().name, name, "it is on the server");
    publish(&client, "U", 60..80).await;
    assert_eq!(read(&mut messages, 55).await, expected(25..80), "once each, in order");
}

#[tokio::test]
async fn a_fetch_not_polled_through_a_server_restart_reads_the_rest_of_its_batch_without_gap_or_duplicate() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = setup(&client, "F", 10).await;
    let ordered = js.ordered_consumer("F", OrderedConfig::default()).await.unwrap();
    let mut first = ordered.fetch(FetchOptions::messages(10)).unwrap();
    assert_eq!(read(&mut first, 10).await, expected(0..10));
    drop(first);
    let before = ordered.name();

    // The next batch waits on the server for messages not there yet, and
    // nobody polls it while the server restarts without its memory consumer.
    let options = FetchOptions { expires: Duration::from_secs(30), ..FetchOptions::messages(20) };
    let mut batch = ordered.fetch(options).unwrap();
    common::restart_jetstream(&mut server, &js).await;
    let name = recreated(&batch).await;
    assert_ne!(name, before, "the session made the next consumer on its own");
    publish(&client, "F", 10..30).await;
    assert_eq!(read(&mut batch, 20).await, expected(10..30), "the rest of the batch, once each, in order");
    assert!(timeout(WAIT, batch.next()).await.unwrap().is_none(), "the batch is over");
}
