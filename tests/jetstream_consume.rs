//! Pull consumers against a real server: fetch, next, continuous consume,
//! acks, AckBatch and statuses.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::Error;
use natsjet::jetstream::ack::{AckBatch, AckKind};
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, PriorityPolicy, StreamConfig};
use natsjet::jetstream::consumer::MessagesErrorKind;
use natsjet::jetstream::pull::{ConsumerEvent, PullRequest, StatusKind};
use natsjet::jetstream::{self, Consumer, Context};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(20);

async fn setup(server: &NatsServer, stream: &str, messages: usize) -> Context {
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = jetstream::new(client.clone());
    let config = StreamConfig { name: stream.into(), subjects: vec![format!("{stream}.>")], ..Default::default() };
    js.create_stream(config).await.unwrap();
    for i in 0..messages {
        client.request(format!("{stream}.{}", i % 10), format!("{i}").into()).await.unwrap();
    }
    js
}

async fn durable(js: &Context, stream: &str, config: ConsumerConfig) -> Consumer {
    js.create_consumer_on_stream(config, stream).await.unwrap()
}

fn durable_config(name: &str) -> ConsumerConfig {
    ConsumerConfig { durable_name: Some(name.into()), ack_policy: AckPolicy::Explicit, ..Default::default() }
}

#[tokio::test]
async fn fetch_next_and_acks() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "F", 25).await;
    let consumer = durable(&js, "F", durable_config("f")).await;
    let batch = consumer.batch().max_messages(10).expires(Duration::from_secs(2)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(got.len(), 10);
    for (i, m) in got.iter().enumerate() {
        let m = m.as_ref().unwrap();
        let info = m.info().unwrap();
        assert_eq!((info.stream.as_str(), info.consumer.as_str()), ("F", "f"));
        assert_eq!(info.stream_sequence, i as u64 + 1);
        assert_eq!(info.delivered, 1);
        m.ack().await.unwrap();
        assert_eq!(m.ack().await.unwrap_err(), Error::AlreadyAcknowledged);
    }
    let m = consumer.next(Duration::from_secs(2)).await.unwrap().expect("one message");
    assert_eq!(m.info().unwrap().stream_sequence, 11);
    m.double_ack().await.unwrap();

    // no_wait returns what is there and ends.
    let batch = consumer.fetch().max_messages(100).no_wait().messages().await.unwrap();
    let rest: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(rest.len(), 14);
    // An empty no_wait fetch ends quietly.
    let batch = consumer.fetch().max_messages(5).no_wait().messages().await.unwrap();
    assert_eq!(timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap().len(), 0);
}

#[tokio::test]
async fn double_ack_within_waits_only_as_long_as_asked() {
    let mut server = NatsServer::start_jetstream();
    let js = setup(&server, "W", 2).await;
    let consumer = durable(&js, "W", durable_config("w")).await;
    let batch = consumer.batch().max_messages(2).expires(Duration::from_secs(2)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    let (first, second) = (got[0].as_ref().unwrap(), got[1].as_ref().unwrap());
    assert_eq!(first.ack_timeout(), js.timeout());
    first.double_ack_within(AckKind::Ack, Duration::from_secs(2)).await.unwrap();
    // No server, no answer: the wait ends at the timeout given, not the context's.
    server.stop();
    let started = std::time::Instant::now();
    let result = second.double_ack_within(AckKind::Ack, Duration::from_millis(200)).await;
    assert_eq!(result.unwrap_err(), Error::Timeout);
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[tokio::test]
async fn consume_reads_everything_and_keeps_going() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "C", 1000).await;
    let consumer = durable(&js, "C", durable_config("c")).await;
    let mut messages = consumer.stream().max_messages_per_batch(50).messages().await.unwrap();
    for i in 0..1000u64 {
        let m = timeout(WAIT, messages.next()).await.expect("message in time").unwrap().unwrap();
        assert_eq!(m.info().unwrap().stream_sequence, i + 1);
        m.ack().await.unwrap();
    }
    // New messages keep coming to the same reader.
    js.client().publish("C.new", "late".into()).await.unwrap();
    let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(&m.payload[..], b"late");
    m.ack().await.unwrap();
    messages.drain().await.unwrap();
    assert!(timeout(WAIT, messages.next()).await.unwrap().is_none());
}

/// The batch sizes of the pull requests a reader sends, seen by a plain
/// subscriber on the pull subject while `read` messages are taken and acked.
async fn pull_batches(js: &Context, consumer: &Consumer, builder: jetstream::StreamBuilder<'_>, read: u64) -> Vec<u64> {
    let mut watch = js.client().subscribe(format!("$JS.API.CONSUMER.MSG.NEXT.P.{}", consumer.name())).await.unwrap();
    js.client().flush().await.unwrap();
    let mut messages = builder.messages().await.unwrap();
    for _ in 0..read {
        timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap().ack().await.unwrap();
    }
    messages.drain().await.unwrap();
    let mut batches = Vec::new();
    while let Ok(Some(pull)) = timeout(Duration::from_millis(200), watch.next()).await {
        let body: serde_json::Value = serde_json::from_slice(&pull.payload).unwrap();
        batches.push(body["batch"].as_u64().unwrap());
    }
    batches
}

#[tokio::test]
async fn per_batch_pulls_ask_for_the_batch_and_max_messages_bounds_the_buffer() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "P", 200).await;
    // async-nats: every pull asks for at least the batch, refilled at half.
    let consumer = durable(&js, "P", durable_config("per_batch")).await;
    let batches = pull_batches(&js, &consumer, consumer.stream().max_messages_per_batch(20), 100).await;
    assert!(batches.len() >= 2, "{batches:?}");
    assert!(batches.iter().all(|b| (20..=30).contains(b)), "{batches:?}");
    // nats.js / nats.go: pulls top pending plus untaken back up to max_messages.
    let consumer = durable(&js, "P", durable_config("buffer")).await;
    let batches = pull_batches(&js, &consumer, consumer.stream().max_messages(20), 100).await;
    assert!(batches.len() >= 5, "{batches:?}");
    assert!(batches.iter().all(|b| (10..=20).contains(b)), "{batches:?}");
    // A threshold above the batch is refused.
    let refused = consumer.stream().max_messages_per_batch(10).threshold_messages(11).messages().await;
    assert!(matches!(refused.map_err(Error::from), Err(Error::InvalidArgument(_))));
}

#[tokio::test]
async fn nak_term_and_progress() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "N", 3).await;
    let config = ConsumerConfig { ack_wait: Duration::from_secs(1), ..durable_config("n") };
    let consumer = durable(&js, "N", config).await;
    let mut messages = consumer.messages().await.unwrap();
    let first = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    let second = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    let third = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    first.nak().await.unwrap();
    second.term_with_reason("poison").await.unwrap();
    assert_eq!(second.nak().await.unwrap_err(), Error::AlreadyAcknowledged);
    // The nak'd one comes back at once.
    let again = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(again.info().unwrap().stream_sequence, first.info().unwrap().stream_sequence);
    assert_eq!(again.info().unwrap().delivered, 2);
    again.ack().await.unwrap();
    // Progress keeps the third alive past its 1 s ack_wait.
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        third.in_progress().await.unwrap();
    }
    third.double_ack().await.unwrap();
    // Neither the terminated nor the acked ones come back.
    if let Ok(extra) = timeout(Duration::from_millis(1500), messages.next()).await {
        let extra = extra.unwrap().unwrap();
        panic!("nothing else is redelivered, got {:?}", extra.info());
    }
}

#[tokio::test]
async fn ack_batch_confirmed_and_plain() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "A", 300).await;
    let consumer = durable(&js, "A", durable_config("a")).await;
    let batch = consumer.batch().max_messages(300).expires(Duration::from_secs(2)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(got.len(), 300);
    let mut confirmed = AckBatch::new();
    let mut plain = AckBatch::new();
    for (i, m) in got.iter().enumerate() {
        let m = m.as_ref().unwrap();
        let target = if i < 200 { &mut confirmed } else { &mut plain };
        target.add_message(m, AckKind::Ack).unwrap();
        // The batch owns the ack now.
        assert_eq!(m.ack().await.unwrap_err(), Error::AlreadyAcknowledged);
    }
    // Tokens survive a round trip through a checkpoint (serde).
    let token = got[0].as_ref().unwrap().ack_token().unwrap();
    let json = serde_json::to_string(&token).unwrap();
    assert_eq!(serde_json::from_str::<natsjet::jetstream::ack::AckToken>(&json).unwrap(), token);

    let report = confirmed.commit_confirmed(js.client(), Duration::from_secs(5)).await.unwrap();
    assert_eq!((report.confirmed.len(), report.unconfirmed.len(), report.refused.len()), (200, 0, 0));
    plain.commit(js.client()).await.unwrap();
    let info = js.get_stream("A").await.unwrap().consumer_info("a").await.unwrap();
    assert_eq!(info.num_ack_pending, 0);
    assert_eq!(info.ack_floor.stream_sequence, 300);
}

#[tokio::test]
async fn acks_to_a_deleted_consumer_are_unconfirmed_not_lost_silently() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "D", 5).await;
    let consumer = durable(&js, "D", durable_config("d")).await;
    let batch = consumer.batch().max_messages(5).expires(Duration::from_secs(2)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    let mut acks = AckBatch::new();
    for m in &got {
        acks.add_message(m.as_ref().unwrap(), AckKind::Ack).unwrap();
    }
    js.get_stream("D").await.unwrap().delete_consumer("d").await.unwrap();
    let report = acks.commit_confirmed(js.client(), Duration::from_millis(500)).await.unwrap();
    assert_eq!(report.confirmed.len(), 0);
    assert_eq!(report.unconfirmed.len() + report.refused.len(), 5, "{report:?}");
}

#[tokio::test]
async fn deleting_the_consumer_ends_consume_with_a_typed_error() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "X", 0).await;
    let consumer = durable(&js, "X", durable_config("x")).await;
    let mut messages = consumer.messages().await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    js.get_stream("X").await.unwrap().delete_consumer("x").await.unwrap();
    let end = timeout(WAIT, messages.next()).await.expect("ends in time");
    match end.map(|r| r.map_err(Error::from)) {
        Some(Err(Error::ConsumerStatus(status))) => {
            assert_eq!((status.kind, status.code.0), (StatusKind::ConsumerDeleted, 409), "{status}")
        }
        other => panic!("expected 409 Consumer Deleted, got {other:?}"),
    }
    assert!(timeout(WAIT, messages.next()).await.unwrap().is_none());
}

#[tokio::test]
async fn ack_next_acks_and_delivers_more_to_the_given_subject() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "N", 4).await;
    let consumer = durable(&js, "N", durable_config("n")).await;
    let first = consumer.next(WAIT).await.unwrap().unwrap();
    let inbox = js.client().new_inbox();
    let mut sub = js.client().subscribe(inbox.clone()).await.unwrap();
    js.client().flush().await.unwrap();
    let request = PullRequest { batch: 2, expires: Some(WAIT), ..Default::default() };
    first.ack_next(&inbox, Some(request)).await.unwrap();
    for expected in ["1", "2"] {
        let m = timeout(WAIT, sub.next()).await.unwrap().unwrap();
        assert_eq!(&m.payload[..], expected.as_bytes());
    }
    assert!(matches!(first.ack().await, Err(Error::AlreadyAcknowledged)));
    let info = js.get_stream("N").await.unwrap().consumer_info("n").await.unwrap();
    assert_eq!(info.ack_floor.stream_sequence, 1, "+NXT acked the first");
}

#[tokio::test]
async fn keep_waiting_survives_a_deleted_consumer_that_comes_back() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "Y", 0).await;
    let consumer = durable(&js, "Y", durable_config("y")).await;
    let mut messages = consumer.stream().keep_waiting().messages().await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let stream = js.get_stream("Y").await.unwrap();
    stream.delete_consumer("y").await.unwrap();
    // Reported as an event, not as an error item.
    let deleted = timeout(WAIT, async {
        loop {
            match std::future::poll_fn(|cx| messages.poll_next_event(cx)).await {
                Some(ConsumerEvent::Terminal(status)) => break status,
                Some(_) => {}
                None => panic!("the reader ended"),
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(deleted.code.0, 409);
    stream.create_consumer(durable_config("y")).await.unwrap();
    js.client().request("Y.back", "hello".into()).await.unwrap();
    let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(&m.payload[..], b"hello");
}

#[tokio::test]
async fn consume_survives_a_server_restart() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = jetstream::new(client.clone());
    js.create_stream(StreamConfig { name: "Z".into(), subjects: vec!["Z.>".into()], ..Default::default() })
        .await
        .unwrap();
    let consumer = durable(&js, "Z", durable_config("z")).await;
    let mut messages = consumer.stream().expires(Duration::from_secs(5)).messages().await.unwrap();
    client.request("Z.1", "before".into()).await.unwrap();
    let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    m.ack().await.unwrap();
    server.restart();
    // The reader re-pulls after the reconnect by itself (no consumer info call).
    let answer = timeout(WAIT, async {
        loop {
            if let Ok(ack) = client.request("Z.2", "after".into()).await {
                break ack;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .unwrap();
    assert!(!answer.payload.is_empty());
    let m = timeout(WAIT, messages.next()).await.expect("no stall after restart").unwrap().unwrap();
    assert_eq!(&m.payload[..], b"after");
    m.ack().await.unwrap();
}

#[tokio::test]
async fn request_limits_come_back_as_errors_of_the_fetch() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "M", 20).await;
    let config = ConsumerConfig { max_batch: 5, ..durable_config("m") };
    let consumer = durable(&js, "M", config).await;
    let batch = consumer.batch().max_messages(10).expires(Duration::from_secs(1)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    assert!(
        matches!(got.last().map(|r| r.as_ref().map_err(|e| e.cause())), Some(Err(Error::ConsumerStatus(status))) if status.kind == StatusKind::ExceededMaxRequestBatch),
        "{got:?}"
    );
    // Fetching by bytes: a budget smaller than one message ends the fetch.
    let batch = consumer.batch().max_bytes(10).expires(Duration::from_secs(1)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    assert!(got.iter().all(|m| m.is_err()), "{got:?}");
}

#[tokio::test]
async fn pinned_priority_group_delivers_to_one_reader() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "G", 0).await;
    let config = ConsumerConfig {
        priority_groups: vec!["jobs".into()],
        priority_policy: PriorityPolicy::PinnedClient,
        priority_timeout: Duration::from_secs(5),
        ..durable_config("g")
    };
    let consumer = durable(&js, "G", config).await;
    let mut a = consumer.stream().group("jobs").messages().await.unwrap();
    let mut b = consumer.stream().group("jobs").messages().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    for i in 0..20 {
        js.client().request(format!("G.{i}"), "job".into()).await.unwrap();
    }
    let (mut got_a, mut got_b) = (0, 0);
    while got_a + got_b < 20 {
        tokio::select! {
            Some(m) = a.next() => { m.unwrap().ack().await.unwrap(); got_a += 1 }
            Some(m) = b.next() => { m.unwrap().ack().await.unwrap(); got_b += 1 }
            _ = tokio::time::sleep(WAIT) => panic!("stalled at {got_a} + {got_b}"),
        }
    }
    assert!(got_a == 0 || got_b == 0, "one pinned reader gets everything: {got_a} / {got_b}");
}

#[tokio::test]
async fn overflow_priority_group_serves_the_overflow_reader_only_under_backlog() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "O", 0).await;
    let config = ConsumerConfig {
        priority_groups: vec!["jobs".into()],
        priority_policy: PriorityPolicy::Overflow,
        ..durable_config("o")
    };
    let consumer = durable(&js, "O", config).await;
    // The overflow reader only gets messages while 100 or more are pending.
    let overflow = || consumer.batch().max_messages(10).expires(Duration::from_secs(1)).group("jobs").min_pending(100);
    let mut spare = overflow().messages().await.unwrap();
    for i in 0..5 {
        js.client().request(format!("O.{i}"), "job".into()).await.unwrap();
    }
    assert_eq!(timeout(WAIT, (&mut spare).collect::<Vec<_>>()).await.unwrap().len(), 0, "no backlog, no overflow");
    let main = consumer.batch().max_messages(5).expires(Duration::from_secs(1)).group("jobs").messages().await.unwrap();
    assert_eq!(timeout(WAIT, main.collect::<Vec<_>>()).await.unwrap().len(), 5);
    for i in 0..150 {
        js.client().request(format!("O.{i}"), "job".into()).await.unwrap();
    }
    let spare = overflow().messages().await.unwrap();
    assert_eq!(timeout(WAIT, spare.collect::<Vec<_>>()).await.unwrap().len(), 10, "backlog: overflow served");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consume_continues_through_consumer_leader_changes() {
    let cluster = common::NatsCluster::start(3);
    let client = natsjet::connect(cluster.client_urls().join(",")).await.unwrap();
    let js = jetstream::new(client.clone());
    let config =
        StreamConfig { name: "LC".into(), subjects: vec!["LC.>".into()], num_replicas: 3, ..Default::default() };
    js.create_stream(config).await.unwrap();
    let consumer =
        js.create_consumer_on_stream(ConsumerConfig { num_replicas: 3, ..durable_config("lc") }, "LC").await.unwrap();
    let mut messages = consumer.stream().expires(Duration::from_secs(5)).messages().await.unwrap();
    let mut seen = 0;
    for round in 0..3 {
        for i in 0..20 {
            client.request(format!("LC.{round}.{i}"), "x".into()).await.unwrap();
        }
        for _ in 0..20 {
            let m = timeout(WAIT, messages.next()).await.expect("no stall after a leader change").unwrap().unwrap();
            m.ack().await.unwrap();
            seen += 1;
        }
        // Move the consumer's leadership to another node.
        let stepdown = "$JS.API.CONSUMER.LEADER.STEPDOWN.LC.lc";
        let reply = client.request(stepdown, "".into()).await.unwrap();
        assert!(String::from_utf8_lossy(&reply.payload).contains("success"), "{:?}", reply.payload);
    }
    assert_eq!(seen, 60);
    for i in 0..20 {
        client.request(format!("LC.last.{i}"), "x".into()).await.unwrap();
    }
    for _ in 0..20 {
        timeout(WAIT, messages.next())
            .await
            .expect("no stall after the last change")
            .unwrap()
            .unwrap()
            .ack()
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn default_consume_keeps_large_messages_requested_ahead_within_16_mib() {
    const SIZE: usize = 512 * 1024;
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "L", 0).await;
    for _ in 0..48 {
        js.publish("L.big", vec![b'x'; SIZE].into()).await.unwrap().await.unwrap();
    }
    let consumer = durable(&js, "L", durable_config("large")).await;
    // The defaults (200 messages ahead) would have all 48 (24 MiB) sent at
    // once; the bytes bound stops at four pulls of 4 MiB while none is taken.
    let mut messages = consumer.messages().await.unwrap();
    let settled = async {
        loop {
            let info = consumer.get_info().await.unwrap();
            if info.num_waiting == 0 && info.delivered.consumer_sequence >= 28 {
                return info;
            }
            assert!(info.delivered.consumer_sequence < 48, "everything was sent: {info:?}");
        }
    };
    let info = timeout(WAIT, settled).await.expect("four pulls served, none waiting");
    let sent = info.delivered.consumer_sequence as usize;
    assert!(sent * SIZE <= 16 << 20, "{sent} x {SIZE} B sent ahead");
    // Taken, they make room: every message comes, in order.
    for i in 0..48u64 {
        let m = timeout(WAIT, messages.next()).await.expect("message in time").unwrap().unwrap();
        assert_eq!((m.info().unwrap().stream_sequence, m.payload.len()), (i + 1, SIZE));
        m.ack().await.unwrap();
    }
}

#[tokio::test]
async fn a_consume_whose_consumer_is_deleted_between_pulls_ends_with_not_found() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "G", 30).await;
    let consumer = durable(&js, "G", durable_config("g")).await;
    let mut messages = consumer.stream().max_messages(10).messages().await.unwrap();
    // The first pull is served in full and nothing is taken, so no pull is
    // waiting on the server when the consumer goes.
    let first = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    timeout(WAIT, async {
        while consumer.clone().info().await.unwrap().num_ack_pending < 10 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the first pull served");
    js.delete_consumer_from_stream("g", "G").await.unwrap();
    let mut got = vec![first];
    let end = timeout(WAIT, async {
        loop {
            match messages.next().await {
                Some(Ok(m)) => got.push(m),
                Some(Err(e)) => return e,
                None => panic!("ended without saying why"),
            }
        }
    })
    .await
    .expect("the consume ends instead of retrying for ever");
    assert_eq!(got.len(), 10, "what was delivered is read first");
    assert_eq!(end.kind(), MessagesErrorKind::ConsumerDeleted, "{end:?}");
    match end.into_cause() {
        Error::JetStream(e) => assert_eq!(e.err_code, natsjet::jetstream::api::ErrorCode::CONSUMER_NOT_FOUND),
        other => panic!("{other:?}"),
    }
    assert!(timeout(WAIT, messages.next()).await.unwrap().is_none(), "and then it is over");
}

/// Acks awaited while the server is killed (SIGKILL: no goodbye, the
/// consumer's last state may be lost) and comes back: none waits for ever.
/// Each ends within its timeout, confirmed or with the typed timeout (a
/// confirmed ack's answer may never come from the new process), and the
/// batch sorts every ack into its report.
#[tokio::test]
async fn acks_awaited_across_a_server_kill_end_in_time_and_typed() {
    let mut server = NatsServer::start_jetstream();
    let client = common::connect_quick_reconnect(&server.client_url()).await;
    let js = setup(&server, "K", 20).await;
    let consumer = durable(&js, "K", durable_config("k")).await;
    let fetched = consumer.batch().max_messages(20).expires(Duration::from_secs(2)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, fetched.collect::<Vec<_>>()).await.unwrap();
    let got: Vec<_> = got.into_iter().map(Result::unwrap).collect();
    assert_eq!(got.len(), 20);
    let js = jetstream::new(client.clone());
    let mut batch = AckBatch::new();
    for m in &got[10..] {
        batch.add_message(m, AckKind::Ack).unwrap();
    }
    let ack_timeout = Duration::from_secs(2);
    server.kill();
    let single = got[0].double_ack_within(AckKind::Ack, ack_timeout);
    let confirmed = batch.commit_confirmed(js.client(), ack_timeout);
    let restart = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        server.respawn();
    };
    let started = std::time::Instant::now();
    let (single, report, ()) =
        timeout(WAIT, async { tokio::join!(single, confirmed, restart) }).await.expect("every awaited ack ends");
    assert!(started.elapsed() < ack_timeout * 3, "ended within the timeouts: {:?}", started.elapsed());
    assert!(matches!(single, Ok(()) | Err(Error::Timeout)), "{single:?}");
    let report = report.unwrap();
    let (c, u, r) = (report.confirmed.len(), report.unconfirmed.len(), report.refused.len());
    println!("across a kill: single ack {single:?}; batch {c} confirmed, {u} unconfirmed, {r} refused");
    assert_eq!(c + u + r, 10, "{report:?}");
}
