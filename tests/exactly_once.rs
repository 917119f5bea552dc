//! The checkpoint ledger's exactly-once half against a real server: a
//! restored ledger acks redeliveries of applied work instead of handing them
//! out, an abort brings its messages back at once, restored ranges the ack
//! floor has passed are dropped (once it settled), output ids make
//! republishes duplicates, and an existing durable's other settings are
//! reported.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::jetstream::ack::FLOOR_SETTLED;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use natsjet::jetstream::publish::Publish;
use natsjet::jetstream::{self, CheckpointLedger, Consumer, Context, LedgerOptions, output_msg_id};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(30);
const OPTIONS: LedgerOptions = LedgerOptions { workers: 2, batch: 50, checkpoint_interval: Duration::from_millis(500) };

async fn context(server: &NatsServer) -> Context {
    jetstream::new(natsjet::connect(server.client_url()).await.unwrap())
}

/// Stream `name` with `count` messages and a durable `name` with `ack_wait`.
async fn durable_with(js: &Context, name: &str, count: usize, ack_wait: Duration) -> Consumer {
    let stream = js
        .create_stream(StreamConfig { name: name.into(), subjects: vec![format!("{name}.>")], ..Default::default() })
        .await
        .unwrap();
    for i in 0..count {
        js.publish(format!("{name}.{i}"), i.to_string().into()).await.unwrap().await.unwrap();
    }
    let config = ConsumerConfig {
        durable_name: Some(name.into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait,
        ..Default::default()
    };
    stream.create_consumer(config).await.unwrap()
}

/// A worker's own connection to durable `name`.
async fn worker(server: &NatsServer, name: &str) -> Consumer {
    context(server).await.get_stream(name).await.unwrap().get_consumer(name).await.unwrap()
}

#[tokio::test]
async fn a_worker_restored_from_a_checkpoint_acks_redeliveries_and_applies_none() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    durable_with(&js, "E", 20, Duration::from_secs(1)).await;

    // Worker 1 applies all 20 in epoch 1, saves the checkpoint, and dies before its acks.
    let saved = {
        let consumer = worker(&server, "E").await;
        let ledger = CheckpointLedger::new(&consumer, OPTIONS).unwrap();
        let mut messages = consumer.batch().max_messages(20).messages().await.unwrap();
        for _ in 0..20 {
            let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
            assert!(ledger.admit(&m).unwrap(), "first delivery");
            ledger.track(&m, 1).unwrap();
        }
        let state = ledger.snapshot(1).unwrap();
        assert_eq!(state.consumers[0].ranges, [(1, 20)]);
        consumer.context().client().close().await.unwrap();
        serde_json::to_string(&state).unwrap()
    };

    // Its replacement restores the saved state: the redeliveries never reach user code.
    let consumer = worker(&server, "E").await;
    let ledger = CheckpointLedger::new(&consumer, OPTIONS).unwrap();
    ledger.restore(&[serde_json::from_str(&saved).unwrap()]).await.unwrap();
    let messages = consumer.stream().max_messages_per_batch(20).messages().await.unwrap();
    let mut work = ledger.filter(messages);
    let handed_out = timeout(Duration::from_secs(3), work.next()).await;
    assert!(
        handed_out.is_err(),
        "no redelivery is handed out: {:?}",
        handed_out.map(|m| m.map(|m| m.map(|m| m.info().unwrap().stream_sequence)))
    );
    assert!(ledger.counts().skipped >= 20, "every message came back at least once (ack_wait 1 s)");
    let report = ledger.commit(1).await.unwrap();
    assert_eq!(report.confirmed.len(), 20, "one ack per message: {report:?}");
    let info = consumer.get_info().await.unwrap();
    assert_eq!((info.num_ack_pending, info.ack_floor.stream_sequence), (0, 20));
    assert_eq!(ledger.snapshot(2).unwrap().len(), 20, "a confirmed ack leaves the state with the ack floor");
    tokio::time::sleep(FLOOR_SETTLED).await;
    ledger.commit(2).await.unwrap();
    assert!(ledger.snapshot(3).unwrap().is_empty(), "the floor read a second ago passed them");
}

#[tokio::test]
async fn an_aborted_epoch_is_redelivered_at_once() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    let consumer = durable_with(&js, "A", 5, Duration::from_secs(30)).await;
    let ledger = CheckpointLedger::new(&consumer, OPTIONS).unwrap();
    let mut messages = ledger.filter(consumer.stream().max_messages_per_batch(5).messages().await.unwrap());
    for _ in 0..5 {
        let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
        ledger.track(&m, 1).unwrap();
    }
    assert_eq!(ledger.abort(1).await.unwrap(), 5);
    assert!(ledger.is_empty());
    // Long before ack_wait (30 s): the naks sent them back.
    for _ in 0..5 {
        let m = timeout(Duration::from_secs(5), messages.next()).await.unwrap().unwrap().unwrap();
        assert_eq!(m.info().unwrap().delivered, 2);
        ledger.track(&m, 2).unwrap();
    }
    assert_eq!(ledger.try_next_event(), None, "redeliveries of its own naks are expected");
    assert_eq!(ledger.counts().aborted, 5);
    assert_eq!(ledger.commit(2).await.unwrap().confirmed.len(), 5);
}

#[tokio::test]
async fn restored_ranges_below_the_ack_floor_are_dropped() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    let consumer = durable_with(&js, "F", 10, Duration::from_secs(30)).await;
    let mut messages = consumer.batch().max_messages(10).messages().await.unwrap();
    for _ in 0..10 {
        timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap().double_ack().await.unwrap();
    }
    let ledger = CheckpointLedger::new(&consumer, OPTIONS).unwrap();
    let old: natsjet::jetstream::ack::LedgerState =
        serde_json::from_str(r#"{"version":1,"consumers":[{"stream":"F","consumer":"F","ranges":[[3,8],[10,12]]}]}"#)
            .unwrap();
    ledger.restore(&[old]).await.unwrap();
    assert_eq!(ledger.snapshot(1).unwrap().consumers[0].ranges, [(3, 8), (10, 12)], "a floor just read waits");
    tokio::time::sleep(FLOOR_SETTLED).await;
    ledger.commit(1).await.unwrap();
    assert_eq!(ledger.snapshot(2).unwrap().consumers[0].ranges, [(11, 12)], "the ack floor is 10");
}

#[tokio::test]
async fn a_republished_output_is_a_duplicate() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    let consumer = durable_with(&js, "IN", 1, Duration::from_secs(30)).await;
    js.create_stream(StreamConfig { name: "OUT".into(), subjects: vec!["out.>".into()], ..Default::default() })
        .await
        .unwrap();
    let mut messages = consumer.batch().max_messages(1).messages().await.unwrap();
    let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    let id = output_msg_id(&m, 0).unwrap();
    assert_eq!(id, "IN:1:0");
    let mut duplicates = Vec::new();
    for _ in 0..2 {
        let publish = Publish::build().message_id(id.as_str()).payload("result".into());
        duplicates.push(js.send_publish("out.1", publish).await.unwrap().await.unwrap().duplicate);
    }
    assert_eq!(duplicates, [false, true]);
    assert_eq!(js.get_stream("OUT").await.unwrap().cached_info().state.messages, 1);
}

#[tokio::test]
async fn opening_a_durable_made_with_other_settings_is_reported() {
    use natsjet::jetstream::ack::LedgerWarning;
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    let stream = js
        .create_stream(StreamConfig { name: "G".into(), subjects: vec!["G.>".into()], ..Default::default() })
        .await
        .unwrap();
    let first = ConsumerConfig {
        durable_name: Some("g".into()),
        ack_policy: AckPolicy::Explicit,
        max_deliver: 3,
        max_waiting: 1,
        ..Default::default()
    };
    stream.create_consumer(first).await.unwrap();
    // A later program asks for a longer ack_wait and a filter; the server's durable stays as it is.
    let wanted = ConsumerConfig {
        durable_name: Some("g".into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait: Duration::from_secs(120),
        filter_subject: "G.orders".into(),
        ..Default::default()
    };
    let consumer: Consumer = stream.get_or_create_consumer("g", wanted.clone()).await.unwrap();
    let ledger = CheckpointLedger::new(&consumer, OPTIONS).unwrap().expecting(&wanted);
    let codes: Vec<String> = ledger
        .warnings()
        .iter()
        .map(|w| match w {
            LedgerWarning::ConfigDiffers { field, .. } => format!("differs: {field}"),
            other => format!("{other:?}").split(' ').next().unwrap().to_string(),
        })
        .collect();
    assert_eq!(
        codes,
        ["MaxDeliverFinite", "MaxWaitingBelowWorkers", "differs: ack_wait", "differs: filter"],
        "{:?}",
        ledger.warnings()
    );
}

/// A worker busy with one message leaves the next in the reader's buffer;
/// the server's ack timer runs meanwhile. The ledger times it from when the
/// driver received it: its first `+WPI` goes out at once when tracked after
/// half `ack_wait`, and a message tracked after `ack_wait` is at risk.
#[tokio::test]
async fn a_message_left_in_the_buffer_is_timed_from_its_arrival() {
    let server = NatsServer::start_jetstream();
    let js = context(&server).await;
    let ack_wait = Duration::from_secs(2);
    let consumer = durable_with(&js, "B", 2, ack_wait).await;
    let ledger = CheckpointLedger::new(&consumer, OPTIONS).unwrap();
    let mut messages = consumer.batch().max_messages(2).messages().await.unwrap();
    let first = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    ledger.track(&first, 1).unwrap();
    tokio::time::sleep(ack_wait * 3 / 4).await; // working on the first
    let second = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    ledger.track(&second, 1).unwrap();
    // Another worker pulls past both deadlines: +WPI reached the server before them.
    let other = worker(&server, "B").await;
    let pull = other.batch().max_messages(2).expires(ack_wait + Duration::from_secs(1)).messages().await.unwrap();
    let redelivered: Vec<_> = pull.collect().await;
    assert_eq!(redelivered.len(), 0, "nothing went to the other worker");
    assert_eq!(ledger.commit(1).await.unwrap().confirmed.len(), 2);

    // A message that waited past ack_wait may already be another worker's.
    js.publish("B.late", "late".into()).await.unwrap().await.unwrap();
    let mut messages = consumer.batch().max_messages(1).messages().await.unwrap();
    tokio::time::sleep(ack_wait + Duration::from_millis(500)).await;
    let late = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    ledger.track(&late, 2).unwrap();
    assert_eq!(ledger.snapshot(2), Err(natsjet::Error::AtRisk { sequences: vec![3] }));
}
