//! Atomic batch publish (ADR-50) against a real server: a batch is stored
//! whole with its headers or not at all, and every way it can fail (the
//! stream's flag off, too many messages, too many open batches, abandoned
//! while idle, an expectation that does not hold, a duplicate) is a typed
//! error that leaves nothing in the stream.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::NatsServer;
use natsjet::jetstream::api::{ErrorCode, StreamConfig};
use natsjet::jetstream::publish::{BatchPublishErrorKind, Schedule};
use natsjet::jetstream::{Context, Publish};

/// A context on `server` and its stream `name` (`<name>.>`), taking atomic
/// batches when `allow_atomic`.
async fn batches_on(server: NatsServer, name: &str, allow_atomic: bool) -> (NatsServer, Context) {
    let config = StreamConfig { allow_atomic_publish: allow_atomic, ..Default::default() };
    let js = common::stream_context(&server, name, config).await;
    (server, js)
}

async fn stored(js: &Context, name: &str) -> u64 {
    js.get_stream(name).await.unwrap().get_info().await.unwrap().state.messages
}

fn data(s: &str) -> Publish {
    Publish::build().payload(Bytes::copy_from_slice(s.as_bytes()))
}

use common::kind_and_code as failure;

#[tokio::test]
async fn a_batch_is_stored_whole_with_its_headers() {
    let (_server, js) = batches_on(NatsServer::start_jetstream(), "ORDERS", true).await;
    let mut batch = js.batch_publish().build();
    assert_eq!(batch.batch_id().len(), 22);
    batch.add("orders.1", Bytes::from_static(b"one")).await.unwrap();
    batch.add_message("orders.2", data("two").message_id("o-2")).await.unwrap();
    batch.add_acked("orders.3", data("three")).await.unwrap();
    assert_eq!(stored(&js, "ORDERS").await, 0, "staged, not stored");
    let id = batch.batch_id().to_string();
    let ack = batch.commit("orders.4", Bytes::from_static(b"four")).await.unwrap();
    assert_eq!((ack.stream.as_str(), ack.sequence), ("ORDERS", 4));
    assert_eq!((ack.batch_id.as_deref(), ack.batch_size), (Some(id.as_str()), Some(4)));
    let orders = js.get_stream("ORDERS").await.unwrap();
    for seq in 1..=4u64 {
        let m = orders.get_raw_message(seq).await.unwrap();
        assert_eq!(m.headers.get("Nats-Batch-Id").map(|v| v.as_str()), Some(id.as_str()));
        let expected = seq.to_string();
        assert_eq!(m.headers.get("Nats-Batch-Sequence").map(|v| v.as_str()), Some(expected.as_str()));
        let commit = m.headers.get("Nats-Batch-Commit").map(|v| v.as_str());
        assert_eq!(commit, (seq == 4).then_some("1"), "only the last commits");
    }
    assert_eq!(orders.get_raw_message(2).await.unwrap().headers.get("Nats-Msg-Id").unwrap().as_str(), "o-2");
}

#[tokio::test]
async fn an_end_of_batch_commit_stores_only_the_messages_added() {
    let (_server, js) = batches_on(NatsServer::start_jetstream(), "EOB", true).await;
    let mut batch = js.batch_publish().ack_every(2).build();
    for i in 1..=5 {
        batch.add(format!("eob.{i}"), Bytes::from(i.to_string())).await.unwrap();
    }
    let ack = batch.commit_eob().await.unwrap();
    assert_eq!((ack.sequence, ack.batch_size), (5, Some(5)));
    let last = js.get_stream("EOB").await.unwrap().get_raw_message(5).await.unwrap();
    assert_eq!(last.headers.get("Nats-Batch-Commit").map(|v| v.as_str()), Some("1"), "the server marks the last");
    assert_eq!(stored(&js, "EOB").await, 5);
}

#[tokio::test]
async fn a_stream_without_allow_atomic_refuses_the_first_message() {
    let (_server, js) = batches_on(NatsServer::start_jetstream(), "PLAIN", false).await;
    let mut batch = js.batch_publish().build();
    let refused = batch.add("plain.1", Bytes::from_static(b"x")).await.unwrap_err();
    assert_eq!(
        failure(refused),
        (BatchPublishErrorKind::BatchPublishNotEnabled, Some(ErrorCode::ATOMIC_PUBLISH_DISABLED))
    );
    assert!(batch.is_closed());
    let closed = batch.add("plain.2", Bytes::new()).await.unwrap_err();
    assert_eq!(closed.kind(), BatchPublishErrorKind::BatchClosed);
    assert_eq!(stored(&js, "PLAIN").await, 0);
    let mut nowhere = js.batch_publish().build();
    let nobody = nowhere.add("no.stream", Bytes::new()).await.unwrap_err();
    assert_eq!(nobody.kind(), BatchPublishErrorKind::StreamNotFound);
}

#[tokio::test]
async fn a_batch_over_the_servers_limit_stores_nothing() {
    let (_server, js) = batches_on(NatsServer::start_jetstream(), "BIG", true).await;
    // 1000 messages is the server's default limit: 999 added and the commit fit.
    let mut fits = js.batch_publish().build();
    for _ in 0..999 {
        fits.add("big.a", Bytes::from_static(b"x")).await.unwrap();
    }
    assert_eq!(fits.commit("big.a", Bytes::from_static(b"x")).await.unwrap().batch_size, Some(1000));
    let mut over = js.batch_publish().build();
    for _ in 0..1000 {
        over.add("big.b", Bytes::from_static(b"x")).await.unwrap();
    }
    let refused = over.commit("big.b", Bytes::from_static(b"x")).await.unwrap_err();
    assert_eq!(
        failure(refused),
        (BatchPublishErrorKind::MaxMessagesExceeded, Some(ErrorCode::ATOMIC_PUBLISH_TOO_LARGE_BATCH))
    );
    assert_eq!(stored(&js, "BIG").await, 1000, "only the batch that fit");
}

/// A server whose batches are abandoned after 1 s idle, with at most 2
/// open per stream and 10 messages each.
fn strict_server() -> NatsServer {
    let limits = r#"limits { batch { timeout: "1s", max_inflight_per_stream: 2, max_msgs: 10 } }"#;
    NatsServer::builder().jetstream_with(limits).start()
}

#[tokio::test]
async fn an_acked_add_over_the_limit_closes_the_batch_at_once() {
    let (_server, js) = batches_on(strict_server(), "SMALL", true).await;
    let mut batch = js.batch_publish().build();
    for _ in 0..10 {
        batch.add("small.a", Bytes::new()).await.unwrap();
    }
    let refused = batch.add_acked("small.a", Publish::build()).await.unwrap_err();
    assert_eq!(refused.kind(), BatchPublishErrorKind::MaxMessagesExceeded);
    assert_eq!(batch.commit("small.a", Bytes::new()).await.unwrap_err().kind(), BatchPublishErrorKind::BatchClosed);
    assert_eq!(stored(&js, "SMALL").await, 0);
}

#[tokio::test]
async fn an_abandoned_batch_stores_nothing() {
    let (_server, js) = batches_on(strict_server(), "IDLE", true).await;
    let mut batch = js.batch_publish().build();
    batch.add("idle.1", Bytes::from_static(b"a")).await.unwrap();
    batch.add("idle.2", Bytes::from_static(b"b")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let refused = batch.commit("idle.3", Bytes::from_static(b"c")).await.unwrap_err();
    assert_eq!(
        failure(refused),
        (BatchPublishErrorKind::BatchPublishIncomplete, Some(ErrorCode::ATOMIC_PUBLISH_INCOMPLETE_BATCH))
    );
    assert_eq!(stored(&js, "IDLE").await, 0);
}

#[tokio::test]
async fn too_many_open_batches_refuse_the_next_one() {
    let (_server, js) = batches_on(strict_server(), "OPEN", true).await;
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut batch = js.batch_publish().build();
        batch.add("open.a", Bytes::new()).await.unwrap();
        open.push(batch);
    }
    let mut third = js.batch_publish().build();
    let refused = third.add("open.a", Bytes::new()).await.unwrap_err();
    assert_eq!(
        failure(refused),
        (BatchPublishErrorKind::BatchPublishTooManyInflight, Some(ErrorCode::ATOMIC_PUBLISH_TOO_MANY_INFLIGHT))
    );
    for batch in open {
        batch.commit("open.a", Bytes::new()).await.unwrap();
    }
    assert_eq!(stored(&js, "OPEN").await, 4);
}

#[tokio::test]
async fn a_batch_whose_expectation_fails_stores_nothing() {
    let (_server, js) = batches_on(NatsServer::start_jetstream(), "EXPECT", true).await;
    js.publish("expect.a", Bytes::from_static(b"0")).await.unwrap().await.unwrap();
    // The first message may expect the stream's last sequence; it is checked at the commit.
    let mut stale = js.batch_publish().build();
    stale.add_message("expect.a", data("1").expected_last_sequence(0)).await.unwrap();
    stale.add("expect.b", Bytes::from_static(b"2")).await.unwrap();
    let refused = stale.commit("expect.c", Bytes::from_static(b"3")).await.unwrap_err();
    assert_eq!(refused.kind(), BatchPublishErrorKind::WrongLastSequence);
    // A later message's expectation on its subject, likewise.
    let mut per_subject = js.batch_publish().build();
    per_subject.add_message("expect.a", data("1").expected_last_sequence(1)).await.unwrap();
    per_subject.add_message("expect.b", data("2").expected_last_subject_sequence(7)).await.unwrap();
    let refused = per_subject.commit("expect.c", Bytes::new()).await.unwrap_err();
    assert_eq!(refused.kind(), BatchPublishErrorKind::WrongLastSequence);
    assert_eq!(stored(&js, "EXPECT").await, 1, "only the message before the batches");
    // Expectations that hold let it through.
    let mut good = js.batch_publish().build();
    good.add_message("expect.a", data("1").expected_last_sequence(1)).await.unwrap();
    good.add_message("expect.b", data("2").expected_last_subject_sequence(0)).await.unwrap();
    assert_eq!(good.commit("expect.c", Bytes::new()).await.unwrap().sequence, 4);
}

#[tokio::test]
async fn headers_the_batch_would_fail_for_are_refused_before_sending() {
    let (_server, js) = batches_on(NatsServer::start_jetstream(), "REFUSE", true).await;
    let mut batch = js.batch_publish().build();
    batch.add("refuse.a", Bytes::new()).await.unwrap();
    let last_id = batch.add_message("refuse.a", data("x").expected_last_message_id("m")).await.unwrap_err();
    assert_eq!(last_id.kind(), BatchPublishErrorKind::InvalidMessage);
    let not_first = batch.add_message("refuse.a", data("x").expected_last_sequence(1)).await.unwrap_err();
    assert_eq!(not_first.kind(), BatchPublishErrorKind::InvalidMessage);
    let bad_subject = batch.add("refuse a", Bytes::new()).await.unwrap_err();
    assert_eq!(bad_subject.kind(), BatchPublishErrorKind::InvalidMessage);
    let schedule_and_cancel =
        Publish::build().schedule(Schedule::cron("@daily", "refuse.t")).cancel_schedule("refuse.x");
    let schedule = batch.add_message("refuse.s", schedule_and_cancel).await.unwrap_err();
    assert_eq!(schedule.kind(), BatchPublishErrorKind::InvalidMessage);
    assert!(!batch.is_closed(), "nothing was sent: the batch goes on");
    assert_eq!(batch.commit("refuse.b", Bytes::new()).await.unwrap().batch_size, Some(2));
}

#[tokio::test]
async fn a_schedule_the_server_cannot_take_fails_the_batch_with_its_code() {
    let server = NatsServer::start_jetstream();
    let config = StreamConfig { allow_atomic_publish: true, allow_message_schedules: true, ..Default::default() };
    let js = common::stream_context(&server, "SCHEDULED", config).await;
    let mut batch = js.batch_publish().build();
    batch.add("scheduled.a", Bytes::new()).await.unwrap();
    let bad = Publish::build().schedule(Schedule::cron("0 0 5 * *", "scheduled.t"));
    batch.add_message("scheduled.s", bad).await.unwrap();
    let refused = batch.commit("scheduled.b", Bytes::new()).await.unwrap_err();
    assert_eq!(failure(refused), (BatchPublishErrorKind::Other, Some(ErrorCode::MESSAGE_SCHEDULES_PATTERN_INVALID)));
    assert_eq!(stored(&js, "SCHEDULED").await, 0);
}

#[tokio::test]
async fn a_duplicate_message_id_fails_the_batch() {
    let (_server, js) = batches_on(NatsServer::start_jetstream(), "DUP", true).await;
    js.send_publish("dup.a", data("x").message_id("once")).await.unwrap().await.unwrap();
    let mut batch = js.batch_publish().build();
    batch.add_message("dup.a", data("y").message_id("twice")).await.unwrap();
    let refused = batch.commit_message("dup.a", data("z").message_id("once")).await.unwrap_err();
    assert_eq!(
        failure(refused),
        (BatchPublishErrorKind::BatchPublishDuplicateMsgId, Some(ErrorCode::ATOMIC_PUBLISH_DUPLICATE_MESSAGE_ID))
    );
    assert_eq!(stored(&js, "DUP").await, 1);
}
