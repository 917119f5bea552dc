//! Every status a pull can meet: how it is sorted and what consume does.

use super::*;
use crate::core::error::Error;
use crate::core::jetstream::api::{ErrorCode, JetStreamError};
use crate::core::jetstream::pull::{
    ConsumeOptions, ConsumerEvent::*, Delivery, GONE_CHECKS, ResetReason, StatusKind, classify,
};
use crate::core::machine::Machine;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn consume_with(options: ConsumeOptions) -> PullConsumer {
    let mut c = PullConsumer::consume(t(0), options).unwrap();
    let _ = pulls(&mut c);
    c
}

fn consume() -> PullConsumer {
    consume_with(ConsumeOptions { max_messages: Some(10), ..ConsumeOptions::default() })
}

#[test]
fn classifies_by_code_and_description() {
    use StatusKind::*;
    let cases = [
        (100, "Idle Heartbeat", IdleHeartbeat),
        (100, "FlowControl Request", FlowControl),
        (400, "Bad Request - heartbeat value too large", BadRequest),
        (404, "No Messages", NoMessages),
        (408, "Request Timeout", RequestTimeout),
        (408, "Interest Expired", InterestExpired),
        (408, "Requests Pending", RequestsPending),
        (409, "Message Size Exceeds MaxBytes", MessageSizeExceedsMaxBytes),
        (409, "Batch Completed", BatchCompleted),
        (409, "Server Shutdown", ServerShutdown),
        (409, "Leadership Change", LeadershipChange),
        (409, "Exceeded MaxWaiting", ExceededMaxWaiting),
        (409, "Exceeded MaxRequestBatch of 100", ExceededMaxRequestBatch),
        (409, "Exceeded MaxRequestExpires of 1m0s", ExceededMaxRequestExpires),
        (409, "Exceeded MaxRequestMaxBytes of 1024", ExceededMaxRequestMaxBytes),
        (409, "Consumer Deleted", ConsumerDeleted),
        (409, "consumer is push based", PushBased),
        (412, "Required Api Level", RequiredApiLevel),
        (423, "Nats-Wrong-Pin-Id", PinIdMismatch),
        (423, "Nats-Pin-Id mismatch", PinIdMismatch),
        (503, "", NoResponders),
        (409, "Something New", Unknown),
        (408, "", Unknown),
        (299, "Whatever", Unknown),
    ];
    for (code, text, kind) in cases {
        assert_eq!(classify(StatusCode(code), text), kind, "{code} {text}");
    }
}

#[test]
fn heartbeats_and_flow_control_are_only_liveness() {
    let mut c = consume();
    let mut stalled = status(100, "Idle Heartbeat");
    stalled.headers.as_mut().unwrap().insert("Nats-Consumer-Stalled", "$JS.FC.x");
    for m in [status(100, "Idle Heartbeat"), stalled, status(100, "FlowControl Request")] {
        assert!(matches!(c.handle_input(t(1), &m), Delivery::Status(_)));
    }
    assert!(events(&mut c).is_empty());
    assert!(pulls(&mut c).is_empty());
    assert_eq!(c.pending_messages(), 10);
}

#[test]
fn pull_endings_hand_back_pending_silently() {
    for (code, text) in [
        (408, "Request Timeout"),
        (408, "Interest Expired"),
        (409, "Batch Completed"),
        (409, "Server Shutdown"),
        (423, "Nats-Wrong-Pin-Id"),
    ] {
        let mut c = consume();
        c.handle_input(t(1), &status_pending(code, text, 5, 0));
        assert_eq!(c.pending_messages(), 10, "{text}: 5 left, so refilled by 5");
        assert_eq!(pulls(&mut c)[0].batch, 5, "{text}");
        assert!(events(&mut c).iter().all(|e| *e == PinIdMismatch), "{text}");
    }
}

#[test]
fn pending_never_goes_negative() {
    let mut c = consume();
    c.handle_input(t(1), &status_pending(408, "Request Timeout", 1_000, 1_000));
    assert_eq!(pulls(&mut c)[0].batch, 10);
    let mut garbage = status(408, "Request Timeout");
    garbage.headers.as_mut().unwrap().insert("Nats-Pending-Messages", "-5");
    garbage.headers.as_mut().unwrap().insert("Nats-Pending-Bytes", "lots");
    c.handle_input(t(2), &garbage);
    assert_eq!(c.pending_messages(), 10, "malformed or negative counts as zero");
}

#[test]
fn leadership_change_resets_and_repulls() {
    let mut c = consume();
    c.handle_input(t(1), &user(10));
    c.handle_input(t(2), &status(409, "Leadership Change"));
    assert_eq!(events(&mut c), [Reset(ResetReason::LeadershipChange)]);
    assert_eq!(pulls(&mut c)[0].batch, 10);
}

#[test]
fn refused_pulls_warn_release_and_retry_after_backoff() {
    for (code, text) in [
        (409, "Exceeded MaxWaiting"),
        (409, "Exceeded MaxRequestBatch of 5"),
        (409, "Exceeded MaxRequestExpires of 10s"),
        (409, "Exceeded MaxRequestMaxBytes of 100"),
        (408, "Requests Pending"),
        (503, ""),
    ] {
        let mut c = consume();
        c.handle_input(t(1), &status(code, text));
        let [Warning(w)] = &events(&mut c)[..] else { panic!("{text}") };
        assert_eq!((w.code.0, w.description.as_str()), (code, text));
        assert_eq!(c.pending_messages(), 0, "{text}: the refused pull is not outstanding");
        assert!(pulls(&mut c).is_empty(), "{text}: no hot loop");
        assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(251)), "{text}");
        c.handle_timeout(t(251));
        assert_eq!(pulls(&mut c).len(), 1, "{text}");
        // Refused again: the backoff doubles.
        c.handle_input(t(300), &status(code, text));
        assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(800)), "{text}");
    }
}

#[test]
fn message_larger_than_the_byte_budget_warns_and_backs_off() {
    let mut c = consume_with(ConsumeOptions { max_bytes: Some(100), ..ConsumeOptions::default() });
    c.handle_input(t(1), &status_pending(409, "Message Size Exceeds MaxBytes", 1_000_000, 100));
    let [Warning(w)] = &events(&mut c)[..] else { panic!() };
    assert_eq!(w.kind, StatusKind::MessageSizeExceedsMaxBytes);
    assert!(pulls(&mut c).is_empty(), "a full-size pull failed: retry later, not now");
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(251)));
}

#[test]
fn terminal_statuses_end_consume() {
    for (code, text) in [
        (409, "Consumer Deleted"),
        (409, "Consumer is push based"),
        (400, "Bad Request - Invalid Priority Group"),
        (412, "Required Api Level"),
    ] {
        let mut c = consume();
        c.handle_input(t(1), &status(code, text));
        let [Terminal(s)] = &events(&mut c)[..] else { panic!("{text}") };
        assert_eq!(s.to_string(), format!("{code} {text}"));
        assert!(c.is_finished(), "{text}");
        assert!(pulls(&mut c).is_empty());
        assert_eq!(c.poll_deadline().map(|d| d.at), None);
        c.handle_timeout(t(1_000_000));
        assert!(events(&mut c).is_empty());
    }
}

#[test]
fn keep_waiting_survives_a_deleted_consumer() {
    let mut c = consume_with(ConsumeOptions { max_messages: Some(10), keep_waiting: true, ..Default::default() });
    c.handle_input(t(1), &status(409, "Consumer Deleted"));
    assert!(matches!(events(&mut c)[..], [Terminal(_)]));
    assert!(!c.is_finished());
    c.handle_timeout(t(251));
    assert_eq!(pulls(&mut c)[0].batch, 10);
}

#[test]
fn keep_waiting_still_ends_on_a_bad_request() {
    let mut c = consume_with(ConsumeOptions { max_messages: Some(10), keep_waiting: true, ..Default::default() });
    c.handle_input(t(1), &status(400, "Bad Request - invalid priority group"));
    assert!(matches!(events(&mut c)[..], [Terminal(_)]));
    assert!(c.is_finished());
}

#[test]
fn unknown_statuses_warn_and_carry_on() {
    let mut c = consume();
    c.handle_input(t(1), &status(409, "Something New"));
    let [Warning(w)] = &events(&mut c)[..] else { panic!() };
    assert_eq!(w.kind, StatusKind::Unknown);
    assert!(!c.is_finished());
    assert_eq!(c.pending_messages(), 10);
}

fn consumer_not_found() -> Error {
    let description = "consumer not found".to_string();
    Error::JetStream(JetStreamError { code: 404, err_code: ErrorCode::CONSUMER_NOT_FOUND, description })
}

#[test]
fn no_responders_asks_whether_the_consumer_is_gone_and_ends_after_a_few_confirmations() {
    let mut c = consume();
    let mut now = 1;
    for check in 1..=GONE_CHECKS {
        c.handle_input(t(now), &status(503, ""));
        assert!(matches!(&events(&mut c)[..], [Warning(w)] if w.kind == StatusKind::NoResponders));
        assert!(c.poll_probe(), "a probe after 503 #{check}");
        assert!(!c.poll_probe(), "one probe per 503");
        c.handle_probe(Err(consumer_not_found()));
        assert!(matches!(&events(&mut c)[..], [ConsumerGone(e)] if e.err_code == ErrorCode::CONSUMER_NOT_FOUND));
        if check < GONE_CHECKS {
            assert!(!c.is_finished() && c.poll_end().is_none());
            let at = c.poll_deadline().map(|d| d.at).unwrap();
            c.handle_timeout(at);
            now = at.offset().as_millis() as u64;
            assert_eq!(pulls(&mut c).len(), 1, "retried after a backoff");
        }
    }
    assert!(c.is_finished());
    assert_eq!(c.poll_end(), Some(consumer_not_found()));
    assert_eq!(c.poll_deadline().map(|d| d.at), None);
}

#[test]
fn a_consumer_that_answers_clears_the_count_and_keep_waiting_never_ends() {
    let mut c = consume();
    for _ in 0..GONE_CHECKS - 1 {
        c.handle_input(t(1), &status(503, ""));
        assert!(c.poll_probe());
        c.handle_probe(Err(consumer_not_found()));
    }
    c.handle_probe(Ok(()));
    c.handle_input(t(2), &status(503, ""));
    assert!(c.poll_probe());
    c.handle_probe(Err(consumer_not_found()));
    assert!(!c.is_finished(), "the count started again");

    let mut c = consume_with(ConsumeOptions { max_messages: Some(10), keep_waiting: true, ..Default::default() });
    for _ in 0..GONE_CHECKS * 3 {
        c.handle_input(t(1), &status(503, ""));
        assert!(c.poll_probe());
        c.handle_probe(Err(consumer_not_found()));
    }
    assert!(!c.is_finished());
    assert_eq!(events(&mut c).iter().filter(|e| matches!(e, ConsumerGone(_))).count() as u32, GONE_CHECKS * 3);
}
