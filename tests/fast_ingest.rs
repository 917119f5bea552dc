//! Fast ingest (ADR-50 fast batches, server 2.14, `allow_batched`) against
//! a real server: a batch streams without waiting on each message, reports
//! its progress from the flow acks, ends with the batch's ack (with a last
//! message or an end of batch that stores none); a stream without
//! `allow_batched`, a batch the server abandoned and a closed batch are
//! typed errors; a message the server drops on the way (a publish
//! permission) is a gap that ends the batch or, asked to, is gone over.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::{NatsServer, kind_and_code};
use natsjet::jetstream::Publish;
use natsjet::jetstream::api::{ErrorCode, StreamConfig};
use natsjet::jetstream::publish::FastPublishErrorKind;

fn batched() -> StreamConfig {
    StreamConfig { allow_batch_publish: true, ..Default::default() }
}

#[tokio::test]
async fn a_fast_batch_streams_with_progress_and_ends_with_its_ack() {
    let server = NatsServer::start_jetstream();
    let js = common::stream_context(&server, "FAST", batched()).await;
    let mut fast = js.fast_publish().flow(50).max_outstanding_acks(2).build();
    let first = fast.add("fast.a", Bytes::from_static(b"0")).await.unwrap();
    assert_eq!(first, natsjet::jetstream::publish::FastPubAck { batch_sequence: 1, ack_sequence: 0 });
    let mut highest_ack = 0;
    for i in 1..999u32 {
        let headers = Publish::build().payload(Bytes::from(i.to_string())).header("N", i.to_string());
        let progress = fast.add_message("fast.b", headers).await.unwrap();
        assert_eq!(progress.batch_sequence, u64::from(i) + 1);
        assert!(progress.ack_sequence >= highest_ack && progress.batch_sequence - progress.ack_sequence <= 100);
        highest_ack = progress.ack_sequence;
    }
    assert!(highest_ack >= 900, "flow acks came in along the way: {highest_ack}");
    let ack = fast.commit("fast.c", Bytes::from_static(b"last")).await.unwrap();
    assert_eq!((ack.stream.as_str(), ack.sequence, ack.batch_size), ("FAST", 1000, Some(1000)));
    let stream = js.get_stream("FAST").await.unwrap();
    let m = stream.get_raw_message(500).await.unwrap();
    assert_eq!((m.subject.as_str(), m.payload.as_ref()), ("fast.b", b"499".as_slice()));
    assert_eq!(m.headers.get("N").map(|v| v.as_str()), Some("499"));
    assert_eq!(stream.get_raw_message(1000).await.unwrap().payload.as_ref(), b"last");
}

#[tokio::test]
async fn close_ends_a_batch_without_storing_a_message() {
    let server = NatsServer::start_jetstream();
    let js = common::stream_context(&server, "EOB", batched()).await;
    let mut fast = js.fast_publish().build();
    for i in 0..25 {
        fast.add("eob.x", Bytes::from(format!("m{i}"))).await.unwrap();
    }
    assert_eq!(fast.sent(), 25);
    let ack = fast.close().await.unwrap();
    assert_eq!((ack.sequence, ack.batch_size), (25, Some(25)));
    assert_eq!(js.get_stream("EOB").await.unwrap().get_info().await.unwrap().state.messages, 25);

    // Nothing to close in an empty batch: refused before sending.
    let empty = js.fast_publish().build().close().await.unwrap_err();
    assert_eq!(empty.kind(), FastPublishErrorKind::BatchClosed);
}

#[tokio::test]
async fn failures_are_typed() {
    let server = NatsServer::start_jetstream();
    let js = common::stream_context(&server, "PLAIN", StreamConfig::default()).await;
    common::stream_context(&server, "GAPS", batched()).await;

    // A stream without allow_batched refuses the first message (10205).
    let mut fast = js.fast_publish().build();
    let refused = fast.add("plain.a", Bytes::from_static(b"x")).await.unwrap_err();
    assert_eq!(kind_and_code(refused), (FastPublishErrorKind::NotEnabled, Some(ErrorCode::FAST_BATCH_DISABLED)));
    assert!(fast.is_closed());
    let again = fast.add("plain.a", Bytes::from_static(b"x")).await.unwrap_err();
    assert_eq!(again.kind(), FastPublishErrorKind::BatchClosed);
    assert_eq!(js.get_stream("PLAIN").await.unwrap().get_info().await.unwrap().state.messages, 0);

    // No stream captures the subject: no responders.
    let mut lost = js.fast_publish().build();
    let nobody = lost.add("nowhere.a", Bytes::from_static(b"x")).await.unwrap_err();
    assert_eq!(nobody.kind(), FastPublishErrorKind::StreamNotFound);

    // A bad subject is refused before sending; the batch goes on.
    let mut fast = js.fast_publish().build();
    let bad = fast.add("gaps.a b", Bytes::new()).await.unwrap_err();
    assert_eq!(bad.kind(), FastPublishErrorKind::InvalidMessage);
    fast.add("gaps.a", Bytes::from_static(b"1")).await.unwrap();

    // The server abandons an idle batch: its commit comes back unknown (10208).
    tokio::time::sleep(Duration::from_secs(11)).await;
    let abandoned = fast.commit("gaps.a", Bytes::from_static(b"2")).await.unwrap_err();
    let unknown = (FastPublishErrorKind::UnknownBatch, Some(ErrorCode::FAST_BATCH_UNKNOWN_ID));
    assert_eq!(kind_and_code(abandoned), unknown);
}

/// A server where user `gap` may not publish to `gaps.secret`: the server
/// drops such a message of a fast batch, so the batch loses it on the way
/// and the server sees a gap at the next one.
fn server_that_drops_a_subject() -> NatsServer {
    NatsServer::builder()
        .jetstream()
        .config_extra(
            r#"authorization { users: [ { user: gap, password: gap,
                permissions: { publish: { allow: [">"], deny: ["gaps.secret"] } } } ] }"#,
        )
        .start()
}

async fn gap_context(server: &NatsServer) -> natsjet::jetstream::Context {
    let url = server.client_url().replace("nats://", "nats://gap:gap@");
    let js = natsjet::connect(url).await.unwrap().jetstream();
    let config = StreamConfig { name: "GAPS".into(), subjects: vec!["gaps.>".into()], ..batched() };
    js.create_stream(config).await.unwrap();
    js
}

#[tokio::test]
async fn a_message_lost_on_the_way_is_a_gap_the_batch_fails_on_or_goes_over() {
    let server = server_that_drops_a_subject();
    let js = gap_context(&server).await;

    // By default a gap ends the batch: nothing after it is stored, the commit fails typed.
    let mut fast = js.fast_publish().flow(1).build();
    fast.add("gaps.a", Bytes::from_static(b"1")).await.unwrap();
    fast.add("gaps.secret", Bytes::from_static(b"lost")).await.unwrap();
    let ended = match fast.add("gaps.b", Bytes::from_static(b"3")).await {
        Err(e) => e,
        Ok(_) => fast.commit("gaps.c", Bytes::from_static(b"4")).await.unwrap_err(),
    };
    assert_eq!(ended.kind(), FastPublishErrorKind::GapDetected, "{ended}");
    let stored = js.get_stream("GAPS").await.unwrap().get_info().await.unwrap().state.messages;
    assert_eq!(stored, 1, "only what came before the gap");

    // Going on over gaps: the rest is stored.
    let mut fast = js.fast_publish().flow(1).continue_on_gap(true).build();
    fast.add("gaps.a", Bytes::from_static(b"1")).await.unwrap();
    fast.add("gaps.secret", Bytes::from_static(b"lost")).await.unwrap();
    fast.add("gaps.b", Bytes::from_static(b"3")).await.unwrap();
    let ack = fast.commit("gaps.c", Bytes::from_static(b"4")).await.unwrap();
    // The batch's size counts its sequence numbers, the lost one's too.
    assert_eq!((ack.sequence, ack.batch_size), (4, Some(4)));
    let stream = js.get_stream("GAPS").await.unwrap();
    for (seq, subject) in [(2, "gaps.a"), (3, "gaps.b"), (4, "gaps.c")] {
        assert_eq!(stream.get_raw_message(seq).await.unwrap().subject.as_str(), subject);
    }
}
