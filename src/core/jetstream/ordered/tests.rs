//! Scripted ordered reads: messages built by hand, time from
//! `Instant::from_millis`, nothing sleeps.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use bytes::Bytes;

use super::*;
use crate::core::header::StatusCode;
use crate::core::jetstream::api::{ErrorCode, JetStreamError};
use crate::core::jetstream::pull::{PullStatus, StatusKind};

fn msg(consumer: &str, sseq: u64, cseq: u64) -> Message {
    Message {
        subject: "orders.new".into(),
        reply: Some(format!("$JS.ACK.ORDERS.{consumer}.1.{sseq}.{cseq}.1700000000000000000.0").into()),
        payload: Bytes::from_static(b"x"),
        headers: None,
        status: None,
        description: None,
        length: 60,
    }
}

fn cursor(config: OrderedConfig) -> OrderedCursor {
    OrderedCursor::new(config, "U").unwrap()
}

fn t(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

#[test]
fn first_consumer_is_ephemeral_unacked_in_memory_and_starts_where_asked() {
    let config = OrderedConfig {
        deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: 40 },
        filter_subjects: vec!["orders.>".into()],
        replay_policy: ReplayPolicy::Original,
        inactive_threshold: Duration::from_secs(7),
        headers_only: true,
        name_prefix: Some("kv_".into()),
    };
    let mut c = cursor(config);
    let first = c.next_consumer();
    assert_eq!(first.name.as_deref(), Some("kv_U_1"));
    assert_eq!(first.durable_name, None);
    assert_eq!(first.ack_policy, AckPolicy::None);
    assert_eq!((first.max_deliver, first.memory_storage, first.num_replicas), (1, true, 1));
    assert_eq!(first.deliver_policy, DeliverPolicy::ByStartSequence { start_sequence: 40 });
    assert_eq!(first.filter_subject, "orders.>", "one filter goes as filter_subject");
    assert!(first.filter_subjects.is_empty());
    assert_eq!(first.replay_policy, ReplayPolicy::Original);
    assert_eq!(first.inactive_threshold, Duration::from_secs(7));
    assert!(first.headers_only);
}

#[test]
fn in_order_messages_are_delivered_and_move_the_cursor() {
    let mut c = cursor(OrderedConfig::default());
    c.next_consumer();
    c.handle_created();
    for (cseq, sseq) in [(1, 3), (2, 4), (3, 9)] {
        assert_eq!(c.handle_message(&msg("U_1", sseq, cseq)).unwrap(), Verdict::Deliver);
    }
    assert_eq!(c.stream_sequence(), 9);
}

#[test]
fn a_consumer_sequence_gap_resets_after_the_last_delivered_message() {
    let mut c = cursor(OrderedConfig { filter_subjects: vec!["a".into(), "b".into()], ..OrderedConfig::default() });
    c.next_consumer();
    c.handle_created();
    c.handle_message(&msg("U_1", 1, 1)).unwrap();
    c.handle_message(&msg("U_1", 2, 2)).unwrap();
    let verdict = c.handle_message(&msg("U_1", 7, 4)).unwrap();
    assert_eq!(verdict, Verdict::Reset(ResetCause::Gap { expected: 3, got: 4 }));
    assert_eq!(c.stream_sequence(), 2, "the dropped message does not move the cursor");

    let next = c.next_consumer();
    assert_eq!(next.name.as_deref(), Some("U_2"));
    assert_eq!(next.deliver_policy, DeliverPolicy::ByStartSequence { start_sequence: 3 });
    assert_eq!(next.filter_subjects, ["a", "b"], "several filters stay filter_subjects");
    c.handle_created();
    assert_eq!(c.handle_message(&msg("U_2", 3, 1)).unwrap(), Verdict::Deliver, "a new consumer counts from 1");
}

#[test]
fn a_duplicate_resets_too() {
    let mut c = cursor(OrderedConfig::default());
    c.next_consumer();
    c.handle_message(&msg("U_1", 1, 1)).unwrap();
    assert_eq!(c.handle_message(&msg("U_1", 1, 1)).unwrap(), Verdict::Reset(ResetCause::Gap { expected: 2, got: 1 }));
}

#[test]
fn before_any_delivery_a_reset_keeps_the_users_start() {
    let mut c = cursor(OrderedConfig { deliver_policy: DeliverPolicy::New, ..OrderedConfig::default() });
    c.next_consumer();
    assert_eq!(c.next_consumer().deliver_policy, DeliverPolicy::New);
    let mut c = cursor(OrderedConfig { deliver_policy: DeliverPolicy::LastPerSubject, ..OrderedConfig::default() });
    assert_eq!(c.next_consumer().filter_subject, ">", "last per subject needs a filter");
}

#[test]
fn missed_heartbeats_reconnects_and_lost_consumers_reset_other_events_do_not() {
    let c = cursor(OrderedConfig::default());
    assert_eq!(c.handle_event(&ConsumerEvent::HeartbeatsMissed { count: 2 }), Some(ResetCause::HeartbeatsMissed));
    assert_eq!(c.handle_event(&ConsumerEvent::Reset(ResetReason::Reconnected)), Some(ResetCause::Reconnected));
    assert_eq!(c.handle_event(&ConsumerEvent::Reset(ResetReason::PullsExpired)), None);
    let warning = PullStatus {
        code: StatusCode(409),
        description: "Exceeded MaxWaiting".into(),
        kind: StatusKind::ExceededMaxWaiting,
    };
    assert_eq!(c.handle_event(&ConsumerEvent::Warning(warning)), None);
    let status = |kind, code: u16, text: &str| PullStatus { kind, code: StatusCode(code), description: text.into() };
    let gone = ConsumerEvent::Warning(status(StatusKind::NoResponders, 503, ""));
    assert_eq!(c.handle_event(&gone), Some(ResetCause::ConsumerGone), "a deleted consumer with no pull waiting");
    let deleted = ConsumerEvent::Terminal(status(StatusKind::ConsumerDeleted, 409, "Consumer Deleted"));
    assert_eq!(c.handle_event(&deleted), Some(ResetCause::ConsumerGone));
    let bad = ConsumerEvent::Terminal(status(StatusKind::BadRequest, 400, "Bad Request"));
    assert_eq!(c.handle_event(&bad), None, "the reader's error ends it");
}

#[test]
fn a_deleted_consumer_resets_a_bad_request_ends() {
    let c = cursor(OrderedConfig::default());
    let deleted = Error::ConsumerStatus(PullStatus::new(StatusCode(409), "Consumer Deleted"));
    assert_eq!(c.handle_reader_error(deleted.clone()), Ok(ResetCause::ReaderFailed(deleted)));
    assert_eq!(c.handle_reader_error(Error::NoResponders), Ok(ResetCause::ReaderFailed(Error::NoResponders)));
    let bad = Error::ConsumerStatus(PullStatus::new(StatusCode(400), "Bad Request"));
    assert_eq!(c.handle_reader_error(bad.clone()), Err(bad));
    assert_eq!(c.handle_reader_error(Error::Closed), Err(Error::Closed));
}

#[test]
fn failed_creates_retry_with_a_doubling_wait_and_api_errors_end_the_first() {
    let mut c = cursor(OrderedConfig::default());
    c.next_consumer();
    let missing = Error::JetStream(JetStreamError {
        code: 404,
        err_code: ErrorCode::STREAM_NOT_FOUND,
        description: "stream not found".into(),
    });
    assert_eq!(
        c.handle_create_failed(t(0), missing.clone()),
        Err(missing.clone()),
        "a missing stream at the start is final"
    );

    assert_eq!(c.handle_create_failed(t(0), Error::Timeout), Ok(t(250)));
    assert_eq!(c.handle_create_failed(t(250), Error::Disconnected), Ok(t(750)));
    assert_eq!(c.handle_create_failed(t(750), Error::NoResponders), Ok(t(1750)));
    for _ in 0..10 {
        c.handle_create_failed(t(0), Error::Timeout).unwrap();
    }
    assert_eq!(c.handle_create_failed(t(0), Error::Timeout), Ok(t(5000)), "capped");
    c.handle_created();
    assert_eq!(c.handle_create_failed(t(0), missing), Ok(t(250)), "once reading, a missing stream may come back");
    assert_eq!(c.handle_create_failed(t(0), Error::Closed), Err(Error::Closed));
}

#[test]
fn a_read_told_to_can_end_when_its_stream_is_gone() {
    let mut c = cursor(OrderedConfig::default());
    c.end_without_stream();
    c.next_consumer();
    c.handle_created();
    let api = |err_code| Error::JetStream(JetStreamError { code: 503, err_code, description: "no".into() });
    let missing = api(ErrorCode::STREAM_NOT_FOUND);
    assert_eq!(c.handle_create_failed(t(0), missing.clone()), Err(missing));
    assert_eq!(
        c.handle_create_failed(t(0), api(ErrorCode::CLUSTER_NOT_AVAILABLE)),
        Ok(t(250)),
        "other API errors pass"
    );
    assert_eq!(c.handle_create_failed(t(250), Error::Timeout), Ok(t(750)));
}

#[test]
fn a_prefix_that_is_no_valid_name_is_refused() {
    let bad = OrderedConfig { name_prefix: Some("a.b".into()), ..OrderedConfig::default() };
    assert!(matches!(OrderedCursor::new(bad, "U"), Err(Error::InvalidArgument(_))));
    assert!(matches!(OrderedCursor::new(OrderedConfig::default(), ""), Err(Error::InvalidArgument(_))));
}

#[test]
fn a_message_without_metadata_is_a_protocol_error() {
    let mut c = cursor(OrderedConfig::default());
    let mut m = msg("U_1", 1, 1);
    m.reply = None;
    assert!(matches!(c.handle_message(&m), Err(Error::Protocol(_))));
    m.reply = Some("_INBOX.x".into());
    assert!(c.handle_message(&m).is_err());
}

#[test]
fn push_consumers_deliver_each_to_a_subject_of_its_own_with_flow_control_and_heartbeats() {
    let hb = Duration::from_secs(2);
    let mut c = cursor(OrderedConfig::default()).pushing("_INBOX.abc", hb).unwrap();
    let first = c.next_consumer();
    assert_eq!(first.deliver_subject.as_deref(), Some("_INBOX.abc.1"));
    assert!(first.flow_control);
    assert_eq!(first.idle_heartbeat, hb);
    assert_eq!((first.ack_policy, first.memory_storage), (AckPolicy::None, true));
    c.handle_created();
    assert_eq!(c.handle_message(&msg("U_1", 3, 1)).unwrap(), Verdict::Deliver);
    let second = c.next_consumer();
    assert_eq!(second.deliver_subject.as_deref(), Some("_INBOX.abc.2"));
    assert_eq!(second.deliver_policy, DeliverPolicy::ByStartSequence { start_sequence: 4 });

    let pull = cursor(OrderedConfig::default()).next_consumer();
    assert_eq!((pull.deliver_subject, pull.flow_control, pull.idle_heartbeat), (None, false, Duration::ZERO));
}

#[test]
fn a_push_deliver_prefix_has_no_wildcards_and_heartbeats_are_required() {
    for prefix in ["in.*", "in.>", "", "in box"] {
        assert!(cursor(OrderedConfig::default()).pushing(prefix, Duration::from_secs(1)).is_err(), "{prefix:?}");
    }
    assert!(cursor(OrderedConfig::default()).pushing("in", Duration::ZERO).is_err());
}

#[test]
fn a_new_only_read_replaced_before_its_first_message_resumes_where_it_started() {
    let mut c = cursor(OrderedConfig { deliver_policy: DeliverPolicy::New, ..OrderedConfig::default() });
    assert_eq!(c.next_consumer().deliver_policy, DeliverPolicy::New);
    c.handle_created();
    c.handle_started_after(41);
    // Lost before anything came: the replacement starts right after 41.
    assert_eq!(c.next_consumer().deliver_policy, DeliverPolicy::ByStartSequence { start_sequence: 42 });

    // Other policies keep their own start.
    for policy in [DeliverPolicy::All, DeliverPolicy::LastPerSubject] {
        let mut c = cursor(OrderedConfig { deliver_policy: policy.clone(), ..OrderedConfig::default() });
        c.next_consumer();
        c.handle_created();
        c.handle_started_after(41);
        assert_eq!(c.next_consumer().deliver_policy, policy);
    }
}
