//! Push consumers against a real server: a durable one delivers and takes
//! acks, a deliver group spreads messages without duplicates, flow control
//! is answered past the server's window, heartbeats never reach the user,
//! a deleted consumer ends the messages with the server's error, a
//! server restart does not stall delivery, and a bound consumer is read by
//! a user the JetStream API refuses.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::Error;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, ErrorCode, StreamConfig};
use natsjet::jetstream::pull::ConsumerEvent;
use natsjet::jetstream::push::PushOptions;
use natsjet::jetstream::{self, BoundPushConfig, Context, Messages, PushConsumer};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(20);

async fn setup(client: &natsjet::Client, stream: &str) -> Context {
    let js = jetstream::new(client.clone());
    let config = StreamConfig { name: stream.into(), subjects: vec![format!("{stream}.>")], ..Default::default() };
    js.create_stream(config).await.unwrap();
    js
}

/// Publishes `n` messages of `size` bytes, many acks in flight.
async fn publish(js: &Context, stream: &str, n: usize, size: usize) {
    let mut acks = Vec::with_capacity(n);
    for i in 0..n {
        let mut payload = format!("{i}").into_bytes();
        payload.resize(size.max(payload.len()), b'.');
        acks.push(js.publish(format!("{stream}.{}", i % 10), Bytes::from(payload)).await.unwrap());
    }
    for ack in acks {
        ack.await.unwrap();
    }
}

/// A durable push consumer delivering to `deliver`, heartbeats every second.
fn push_config(name: &str, deliver: &str) -> ConsumerConfig {
    ConsumerConfig {
        durable_name: Some(name.into()),
        deliver_subject: Some(deliver.into()),
        ack_policy: AckPolicy::Explicit,
        idle_heartbeat: Duration::from_secs(1),
        ..Default::default()
    }
}

async fn push_consumer(js: &Context, stream: &str, config: ConsumerConfig) -> PushConsumer {
    let name = config.durable_name.clone().unwrap();
    js.create_consumer_on_stream(config, stream).await.unwrap();
    js.get_push_consumer_from_stream(name, stream).await.unwrap()
}

/// Reads and acks `n` messages; their payloads' leading numbers. The last
/// ack is confirmed: the server answers it once it has taken every ack
/// before it, so a consumer info asked next counts them all.
async fn read_acked(messages: &mut Messages, n: usize) -> Vec<usize> {
    let mut got = Vec::with_capacity(n);
    while got.len() < n {
        let m = timeout(WAIT, messages.next()).await.expect("a message in time").expect("not ended").unwrap();
        if got.len() + 1 == n {
            m.double_ack().await.unwrap();
        } else {
            m.ack().await.unwrap();
        }
        got.push(number(&m.payload));
    }
    got
}

fn number(payload: &[u8]) -> usize {
    let digits: Vec<u8> = payload.iter().copied().take_while(u8::is_ascii_digit).collect();
    String::from_utf8(digits).unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_durable_push_consumer_delivers_everything_and_takes_acks() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "P").await;
    publish(&js, "P", 300, 16).await;
    let consumer = push_consumer(&js, "P", push_config("push", "deliver.push")).await;
    assert_eq!(consumer.cached_info().config.deliver_subject.as_deref(), Some("deliver.push"));

    let mut messages = consumer.messages().await.unwrap();
    assert_eq!(read_acked(&mut messages, 300).await, (0..300).collect::<Vec<_>>());
    client.flush().await.unwrap();
    let info = js.consumer_info_from_stream("push", "P").await.unwrap();
    assert_eq!(info.ack_floor.stream_sequence, 300);
    assert_eq!(info.num_ack_pending, 0);
    // Someone listens now, without a deliver group: a second reader would get everything twice.
    let mut again = consumer.clone();
    assert!(again.info().await.unwrap().push_bound);
    assert!(matches!(again.messages().await, Err(Error::InvalidArgument(_))));

    // Idle: heartbeats come (every second) and are swallowed, none missed.
    assert!(timeout(Duration::from_millis(3500), messages.next()).await.is_err(), "no heartbeat reaches the user");
    assert_eq!(messages.try_next_event(), None);
    publish(&js, "P", 1, 16).await;
    let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(m.info().unwrap().stream_sequence, 301);
}

#[tokio::test]
async fn a_pull_consumer_is_not_a_push_consumer() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "Q").await;
    let config = ConsumerConfig { durable_name: Some("pull".into()), ..Default::default() };
    js.create_consumer_on_stream(config, "Q").await.unwrap();
    let error = js.get_push_consumer_from_stream("pull", "Q").await.unwrap_err();
    assert!(matches!(error, Error::InvalidArgument(_)), "{error:?}");
}

#[tokio::test]
async fn a_deliver_group_spreads_messages_without_duplicates() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let other = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "G").await;
    let config = ConsumerConfig { deliver_group: Some("workers".into()), ..push_config("group", "deliver.group") };
    let consumer = push_consumer(&js, "G", config).await;
    let mut a = consumer.messages().await.unwrap();
    let mut b =
        jetstream::new(other).get_push_consumer_from_stream("group", "G").await.unwrap().messages().await.unwrap();
    client.flush().await.unwrap();
    publish(&js, "G", 400, 16).await;

    let (mut seen, mut from_a, mut from_b) = (HashSet::new(), 0, 0);
    while seen.len() < 400 {
        let (m, from) = tokio::select! {
            m = a.next() => (m, &mut from_a),
            m = b.next() => (m, &mut from_b),
            _ = tokio::time::sleep(WAIT) => panic!("stalled after {} messages", seen.len()),
        };
        let m = m.expect("not ended").unwrap();
        m.ack().await.unwrap();
        assert!(seen.insert(number(&m.payload)), "a duplicate");
        *from += 1;
    }
    assert!(from_a > 0 && from_b > 0, "both members got messages: {from_a} and {from_b}");
    assert!(timeout(Duration::from_millis(500), a.next()).await.is_err());
    assert!(timeout(Duration::from_millis(10), b.next()).await.is_err());
}

#[tokio::test]
async fn flow_control_is_answered_so_a_large_backlog_keeps_flowing() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "F").await;
    // 6 MiB: the server stops at 2 MiB in flight until its flow-control
    // request (sent past 1 MiB) is answered, and doubles the window after.
    publish(&js, "F", 6000, 1024).await;
    let config = ConsumerConfig { flow_control: true, ..push_config("fc", "deliver.fc") };
    let consumer = push_consumer(&js, "F", config).await;
    let mut messages = consumer.messages().await.unwrap();
    let got = read_acked(&mut messages, 6000).await;
    assert_eq!(got, (0..6000).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_reader_that_does_not_read_holds_the_server_back() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "S").await;
    publish(&js, "S", 6000, 1024).await;
    // No acks, so only flow control bounds what the server sends.
    let config =
        ConsumerConfig { flow_control: true, ack_policy: AckPolicy::None, ..push_config("slow", "deliver.slow") };
    let consumer = push_consumer(&js, "S", config).await;
    let mut messages = consumer.messages().await.unwrap();
    // Until the buffer stops growing: the server waits for a reply the
    // reader sends only once the user has read what came before it.
    let mut buffered = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if messages.pending() == buffered && buffered > 0 {
            break;
        }
        buffered = messages.pending();
    }
    assert!((1..6000).contains(&buffered), "buffered {buffered} of 6000 messages");
    let info = js.consumer_info_from_stream("slow", "S").await.unwrap();
    assert!(info.delivered.stream_sequence < 6000, "the server held back: {:?}", info.delivered);
    // Reading lets it all through, in order.
    let mut got = Vec::new();
    while got.len() < 6000 {
        let m = timeout(WAIT, messages.next()).await.expect("a message in time").unwrap().unwrap();
        got.push(m.info().unwrap().stream_sequence);
    }
    assert_eq!(got, (1..=6000).collect::<Vec<u64>>());
}

#[tokio::test]
async fn a_deleted_consumer_ends_the_messages_with_the_server_error() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "D").await;
    publish(&js, "D", 3, 16).await;
    let consumer = push_consumer(&js, "D", push_config("gone", "deliver.gone")).await;
    let mut messages = consumer.messages().await.unwrap();
    assert_eq!(read_acked(&mut messages, 3).await, [0, 1, 2]);
    assert!(js.delete_consumer_from_stream("gone", "D").await.unwrap().success);

    // Two missed heartbeats (2 s), then a CONSUMER.INFO finds it gone.
    let end = timeout(WAIT, messages.next()).await.expect("ended in time").expect("an error item");
    match end.map_err(Error::from) {
        Err(Error::JetStream(e)) => assert_eq!(e.err_code, ErrorCode::CONSUMER_NOT_FOUND),
        other => panic!("{other:?}"),
    }
    assert!(matches!(messages.try_next_event(), Some(ConsumerEvent::HeartbeatsMissed { count: 2 })));
    assert!(
        matches!(messages.try_next_event(), Some(ConsumerEvent::ConsumerGone(e)) if e.err_code == ErrorCode::CONSUMER_NOT_FOUND)
    );
    assert!(timeout(WAIT, messages.next()).await.unwrap().is_none(), "then the stream ends");
}

#[tokio::test]
async fn keeping_waiting_delivers_again_once_the_consumer_is_back() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "K").await;
    let consumer = push_consumer(&js, "K", push_config("back", "deliver.back")).await;
    let mut messages = consumer.consume_with(PushOptions { keep_waiting: true }).unwrap();
    assert!(js.delete_consumer_from_stream("back", "K").await.unwrap().success);
    let gone = timeout(WAIT, async {
        loop {
            match messages.try_next_event() {
                Some(ConsumerEvent::ConsumerGone(e)) => break e,
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    });
    assert_eq!(gone.await.unwrap().err_code, ErrorCode::CONSUMER_NOT_FOUND);

    push_consumer(&js, "K", push_config("back", "deliver.back")).await;
    publish(&js, "K", 1, 16).await;
    assert_eq!(read_acked(&mut messages, 1).await, [0]);
}

#[tokio::test]
async fn push_delivery_survives_a_server_restart() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = setup(&client, "R").await;
    let consumer = push_consumer(&js, "R", push_config("restart", "deliver.restart")).await;
    let mut messages = consumer.messages().await.unwrap();
    publish(&js, "R", 1, 16).await;
    assert_eq!(read_acked(&mut messages, 1).await, [0]);
    server.restart();
    let published = timeout(WAIT, async {
        loop {
            if let Ok(ack) = js.publish("R.1", Bytes::from_static(b"1 after")).await {
                if ack.await.is_ok() {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    published.await.unwrap();
    // The deliver subject was subscribed again with the connection.
    assert_eq!(read_acked(&mut messages, 1).await, [1]);
    let deleted = messages.try_next_event();
    assert!(!matches!(deleted, Some(ConsumerEvent::Terminal(_))), "{deleted:?}");
}

#[tokio::test]
async fn a_bound_push_consumer_is_read_without_the_jetstream_api() {
    let server = NatsServer::builder()
        .jetstream()
        .config_extra(
            r#"authorization { users = [
                { user: "admin", password: "pw" },
                { user: "reader", password: "pw", permissions: { publish: { deny: "$JS.API.>" } } }
            ] }"#,
        )
        .start();
    let admin = natsjet::ConnectOptions::new().user_and_password("admin".into(), "pw".into());
    let admin = admin.connect(server.client_url()).await.unwrap();
    let js = setup(&admin, "B").await;
    let config = ConsumerConfig { deliver_group: Some("readers".into()), ..push_config("bound", "deliver.bound") };
    js.create_consumer_on_stream(config, "B").await.unwrap();
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = errors.clone();
    let reader = natsjet::ConnectOptions::new()
        .user_and_password("reader".into(), "pw".into())
        .on_event(move |e| {
            if let natsjet::ConnectionEvent::ServerError(e) = e {
                sink.lock().unwrap().push(e);
            }
        })
        .connect(server.client_url())
        .await
        .unwrap();

    let bound = BoundPushConfig {
        deliver_subject: "deliver.bound".into(),
        deliver_group: Some("readers".into()),
        idle_heartbeat: Duration::from_secs(1),
    };
    let mut consumer = jetstream::new(reader.clone()).bound_push_consumer(bound.clone()).unwrap();
    assert!(consumer.is_bound() && consumer.name().is_empty());
    assert!(
        matches!(consumer.info().await.map_err(natsjet::Error::from), Err(Error::ApiMisuse(_))),
        "no consumer to ask"
    );
    let mut messages = consumer.messages().await.unwrap();
    reader.flush().await.unwrap();
    publish(&js, "B", 50, 16).await;
    assert_eq!(read_acked(&mut messages, 50).await, (0..50).collect::<Vec<_>>());
    reader.flush().await.unwrap();
    let info = js.consumer_info_from_stream("bound", "B").await.unwrap();
    assert_eq!((info.ack_floor.stream_sequence, info.num_ack_pending), (50, 0), "the reader's acks count");

    // Deleted: heartbeats stop, which is reported; nothing asks the API.
    assert!(js.delete_consumer_from_stream("bound", "B").await.unwrap().success);
    let missed = timeout(WAIT, async {
        loop {
            match messages.try_next_event() {
                Some(ConsumerEvent::HeartbeatsMissed { count }) => break count,
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    });
    assert_eq!(missed.await.unwrap(), 2);
    assert!(timeout(Duration::from_millis(300), messages.next()).await.is_err(), "still listening");
    reader.flush().await.unwrap();
    assert_eq!(*errors.lock().unwrap(), [], "no permission violation: no API request went out");

    let invalid = BoundPushConfig { deliver_subject: "bad subject".into(), ..bound };
    assert!(matches!(js.bound_push_consumer(invalid), Err(Error::InvalidSubject { .. })));
}

/// A reader on a connection whose subscriptions hold `capacity` messages,
/// with the `SlowConsumer` events it reports.
async fn small_reader(url: &str, capacity: usize) -> (natsjet::Client, Arc<Mutex<Vec<(u64, u64)>>>) {
    let slow = Arc::new(Mutex::new(Vec::new()));
    let sink = slow.clone();
    let client = natsjet::ConnectOptions::new()
        .subscription_capacity(capacity)
        .on_event(move |e| {
            if let natsjet::ConnectionEvent::SlowConsumer { sid, dropped } = e {
                sink.lock().unwrap().push((sid, dropped));
            }
        })
        .connect(url)
        .await
        .unwrap();
    (client, slow)
}

/// Waits until the reader that nobody reads dropped `n` messages.
async fn dropped(messages: &Messages, n: u64) {
    let waited = timeout(WAIT, async {
        while messages.dropped() < n {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    waited.await.unwrap_or_else(|_| panic!("{} dropped of {n}", messages.dropped()));
}

#[tokio::test]
async fn a_push_reader_that_falls_behind_drops_unacked_and_the_server_redelivers_everything() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "SLOW").await;
    publish(&js, "SLOW", 200, 1024).await;
    // The server may send everything at once: max_ack_pending far above the reader's 20.
    let config = ConsumerConfig {
        max_ack_pending: 10_000,
        ack_wait: Duration::from_secs(1),
        ..push_config("slow", "deliver.slow")
    };
    js.create_consumer_on_stream(config, "SLOW").await.unwrap();
    let (reader, slow) = small_reader(&server.client_url(), 20).await;
    let consumer = jetstream::new(reader.clone()).get_push_consumer_from_stream("slow", "SLOW").await.unwrap();
    let mut messages = consumer.messages().await.unwrap();
    dropped(&messages, 180).await;
    assert_eq!(slow.lock().unwrap().first().map(|(_, dropped)| *dropped), Some(1), "the first drop is reported");

    // Read and ack at last: the dropped ones come again after ack_wait.
    let (mut seen, mut redelivered) = (HashSet::new(), 0);
    while seen.len() < 200 {
        let m = timeout(WAIT, messages.next()).await.expect("a message in time").expect("not ended").unwrap();
        let info = m.info().unwrap();
        redelivered += usize::from(info.delivered > 1);
        seen.insert(info.stream_sequence);
        m.double_ack().await.unwrap();
    }
    assert_eq!(seen, (1..=200).collect::<HashSet<u64>>(), "nothing lost");
    assert!(redelivered >= 180, "{redelivered} redelivered");
    let info = js.consumer_info_from_stream("slow", "SLOW").await.unwrap();
    assert_eq!((info.ack_floor.stream_sequence, info.num_pending), (200, 0));
}

#[tokio::test]
async fn an_ack_none_push_reader_that_falls_behind_reports_what_it_lost() {
    let server = NatsServer::start_jetstream();
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = setup(&client, "LOSSY").await;
    publish(&js, "LOSSY", 200, 1024).await;
    let config = ConsumerConfig { ack_policy: AckPolicy::None, ..push_config("lossy", "deliver.lossy") };
    js.create_consumer_on_stream(config, "LOSSY").await.unwrap();
    let (reader, slow) = small_reader(&server.client_url(), 20).await;
    let consumer = jetstream::new(reader.clone()).get_push_consumer_from_stream("lossy", "LOSSY").await.unwrap();
    let mut messages = consumer.messages().await.unwrap();
    dropped(&messages, 180).await;
    assert_eq!(slow.lock().unwrap().first().map(|(_, dropped)| *dropped), Some(1));
    for sequence in 1..=20 {
        let m = timeout(WAIT, messages.next()).await.expect("a message in time").expect("not ended").unwrap();
        assert_eq!(m.info().unwrap().stream_sequence, sequence, "the first 20 were kept");
    }
    assert_eq!(messages.dropped(), 180, "and the other 180 are gone, as counted");
    // The connection survives, and the reader takes new messages again.
    publish(&js, "LOSSY", 1, 16).await;
    let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(m.info().unwrap().stream_sequence, 201);
    reader.flush().await.unwrap();
}
