//! Scripted tests of the push inbox: messages built by hand, time is
//! `Instant::from_millis`, nothing sleeps.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use bytes::Bytes;

use super::*;
use crate::core::header::{HeaderMap, StatusCode};
use crate::core::jetstream::api::ErrorCode;
use crate::core::jetstream::api::JetStreamError;

fn t(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// Heartbeat every 5 s: the watchdog fires after 10 s of silence.
fn inbox() -> PushInbox {
    PushInbox::new(t(0), Some(Duration::from_secs(5)), PushOptions::default())
}

fn user() -> Message {
    Message {
        subject: "orders.new".into(),
        reply: Some("$JS.ACK.ORDERS.push.1.1.1.1700000000000000000.0".into()),
        payload: Bytes::from_static(b"x"),
        headers: None,
        status: None,
        description: None,
        length: 60,
    }
}

fn status(code: u16, description: &str, reply: Option<&str>, headers: &[(&str, &str)]) -> Message {
    let headers: HeaderMap = headers.iter().map(|(k, v)| (*k, v.to_string())).collect();
    Message {
        subject: "deliver.push".into(),
        reply: reply.map(Into::into),
        payload: Bytes::new(),
        headers: Some(headers),
        status: Some(StatusCode(code)),
        description: Some(description.into()),
        length: 0,
    }
}

fn heartbeat() -> Message {
    status(100, "Idle Heartbeat", None, &[("Nats-Last-Consumer", "3"), ("Nats-Last-Stream", "7")])
}

fn replies(inbox: &mut PushInbox) -> Vec<String> {
    std::iter::from_fn(|| inbox.poll_reply()).collect()
}

fn events(inbox: &mut PushInbox) -> Vec<ConsumerEvent> {
    std::iter::from_fn(|| inbox.poll_event()).collect()
}

fn not_found(err_code: ErrorCode) -> JetStreamError {
    JetStreamError { code: 404, err_code, description: "consumer not found".into() }
}

#[test]
fn stream_messages_go_to_the_user() {
    let mut inbox = inbox();
    assert_eq!(inbox.handle_input(t(1), &user()), Delivery::User);
    assert!(replies(&mut inbox).is_empty() && events(&mut inbox).is_empty());
}

#[test]
fn heartbeats_are_swallowed_and_keep_the_watch_alive() {
    let mut inbox = inbox();
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(10_000)));
    assert_eq!(inbox.handle_input(t(9_000), &heartbeat()), Delivery::Status(StatusKind::IdleHeartbeat));
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(19_000)));
    inbox.handle_input(t(15_000), &user());
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(25_000)));
    inbox.handle_timeout(t(24_999));
    assert!(events(&mut inbox).is_empty() && replies(&mut inbox).is_empty());
    assert!(!inbox.poll_probe());
}

#[test]
fn a_stalled_heartbeat_is_answered_on_the_flow_control_subject() {
    let mut inbox = inbox();
    let stalled = status(100, "Idle Heartbeat", None, &[("Nats-Consumer-Stalled", "$JS.FC.ORDERS.x.1")]);
    assert_eq!(inbox.handle_input(t(1), &stalled), Delivery::Status(StatusKind::IdleHeartbeat));
    assert_eq!(replies(&mut inbox), ["$JS.FC.ORDERS.x.1"]);
}

#[test]
fn flow_control_requests_are_answered_not_delivered() {
    let mut inbox = inbox();
    let fc = status(100, "FlowControl Request", Some("$JS.FC.ORDERS.y.2"), &[]);
    assert_eq!(inbox.handle_input(t(1), &fc), Delivery::Status(StatusKind::FlowControl));
    assert_eq!(replies(&mut inbox), ["$JS.FC.ORDERS.y.2"]);
    assert!(events(&mut inbox).is_empty());
}

#[test]
fn only_the_latest_flow_control_subject_is_answered() {
    let mut inbox = inbox();
    inbox.handle_input(t(1), &status(100, "FlowControl Request", Some("$JS.FC.ORDERS.y.2"), &[]));
    let stalled = status(100, "Idle Heartbeat", None, &[("Nats-Consumer-Stalled", "$JS.FC.ORDERS.y.3")]);
    inbox.handle_input(t(2), &stalled);
    inbox.handle_input(t(3), &heartbeat());
    assert_eq!(replies(&mut inbox), ["$JS.FC.ORDERS.y.3"]);
}

#[test]
fn a_flow_control_reply_waits_until_the_reader_took_what_came_before() {
    let mut inbox = inbox();
    for ms in 1..=3 {
        inbox.handle_input(t(ms), &user());
    }
    inbox.handle_input(t(4), &status(100, "FlowControl Request", Some("$JS.FC.ORDERS.y.2"), &[]));
    inbox.handle_input(t(5), &user());
    assert_eq!(inbox.reply_after(), Some(3), "the three before the request");
    inbox.handle_taken(2);
    assert!(replies(&mut inbox).is_empty(), "the server waits while the reader is behind");
    inbox.handle_taken(3);
    assert_eq!(replies(&mut inbox), ["$JS.FC.ORDERS.y.2"]);
    assert_eq!(inbox.reply_after(), None);
}

#[test]
fn a_message_the_full_reader_refused_is_not_waited_for_even_when_the_request_came_first() {
    let mut inbox = inbox();
    for ms in 1..=3 {
        inbox.handle_input(t(ms), &user());
    }
    inbox.handle_input(t(4), &status(100, "FlowControl Request", Some("$JS.FC.ORDERS.y.2"), &[]));
    // The driver learns of the refusal after the session sorted the request.
    inbox.handle_refused();
    assert_eq!(inbox.reply_after(), Some(2), "the refused third will never be taken");
    inbox.handle_taken(1);
    assert!(replies(&mut inbox).is_empty());
    inbox.handle_taken(2);
    assert_eq!(replies(&mut inbox), ["$JS.FC.ORDERS.y.2"]);
}

#[test]
fn a_stalled_heartbeat_keeps_the_wait_of_its_request_or_waits_for_all_delivered() {
    let mut inbox = inbox();
    inbox.handle_input(t(1), &user());
    inbox.handle_input(t(2), &status(100, "FlowControl Request", Some("$JS.FC.ORDERS.y.2"), &[]));
    inbox.handle_input(t(3), &user());
    let stalled = |subject| status(100, "Idle Heartbeat", None, &[("Nats-Consumer-Stalled", subject)]);
    inbox.handle_input(t(4), &stalled("$JS.FC.ORDERS.y.2"));
    assert_eq!(inbox.reply_after(), Some(1), "the same request: the same wait");
    // Its request was lost: everything delivered so far comes first.
    inbox.handle_input(t(5), &stalled("$JS.FC.ORDERS.y.3"));
    assert_eq!(inbox.reply_after(), Some(2));
    inbox.handle_taken(1);
    assert!(replies(&mut inbox).is_empty());
    inbox.handle_taken(2);
    assert_eq!(replies(&mut inbox), ["$JS.FC.ORDERS.y.3"]);
}

#[test]
fn missed_heartbeats_raise_an_event_and_a_probe_each_time() {
    let mut inbox = inbox();
    inbox.handle_timeout(t(10_000));
    assert_eq!(events(&mut inbox), [ConsumerEvent::HeartbeatsMissed { count: 2 }]);
    assert!(inbox.poll_probe());
    assert!(!inbox.poll_probe(), "handed out once");
    // Still silent, probe unanswered: it counts as lost, another goes out.
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(20_000)));
    inbox.handle_timeout(t(20_000));
    assert_eq!(events(&mut inbox), [ConsumerEvent::HeartbeatsMissed { count: 4 }]);
    assert!(inbox.poll_probe());
    // The consumer exists: keep watching.
    inbox.handle_probe(Ok(()));
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(30_000)));
    assert!(!inbox.is_finished() && inbox.poll_end().is_none(), "missing heartbeats never end it alone");
}

#[test]
fn a_probe_that_finds_no_consumer_ends_with_the_server_error() {
    let mut inbox = inbox();
    inbox.handle_timeout(t(10_000));
    assert!(inbox.poll_probe());
    inbox.handle_probe(Err(Error::Timeout));
    assert!(!inbox.is_finished(), "no answer proves nothing");
    inbox.handle_timeout(t(20_000));
    assert!(inbox.poll_probe());
    let _ = events(&mut inbox);
    inbox.handle_probe(Err(Error::JetStream(not_found(ErrorCode::CONSUMER_NOT_FOUND))));
    assert!(inbox.is_finished());
    assert_eq!(events(&mut inbox), [ConsumerEvent::ConsumerGone(not_found(ErrorCode::CONSUMER_NOT_FOUND))]);
    assert_eq!(inbox.poll_end(), Some(Error::JetStream(not_found(ErrorCode::CONSUMER_NOT_FOUND))));
    assert_eq!(inbox.poll_end(), None, "once");
    assert_eq!(inbox.poll_deadline().map(|d| d.at), None);
    assert!(!inbox.poll_probe());
}

#[test]
fn a_deleted_stream_ends_it_too() {
    let mut inbox = inbox();
    inbox.handle_timeout(t(10_000));
    assert!(inbox.poll_probe());
    inbox.handle_probe(Err(Error::JetStream(not_found(ErrorCode::STREAM_NOT_FOUND))));
    assert_eq!(inbox.poll_end(), Some(Error::JetStream(not_found(ErrorCode::STREAM_NOT_FOUND))));
}

#[test]
fn keeping_waiting_reports_a_gone_consumer_and_listens_on() {
    let mut inbox = PushInbox::new(t(0), Some(Duration::from_secs(5)), PushOptions { keep_waiting: true });
    inbox.handle_timeout(t(10_000));
    assert!(inbox.poll_probe());
    let _ = events(&mut inbox);
    inbox.handle_probe(Err(Error::JetStream(not_found(ErrorCode::CONSUMER_NOT_FOUND))));
    assert_eq!(events(&mut inbox), [ConsumerEvent::ConsumerGone(not_found(ErrorCode::CONSUMER_NOT_FOUND))]);
    assert!(!inbox.is_finished() && inbox.poll_end().is_none());
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(20_000)), "still watching");
    // It comes back: its messages are delivered again.
    assert_eq!(inbox.handle_input(t(12_000), &user()), Delivery::User);
}

#[test]
fn terminal_statuses_end_with_a_typed_error() {
    let mut inbox = inbox();
    let deleted = status(409, "Consumer Deleted", None, &[]);
    assert_eq!(inbox.handle_input(t(1), &deleted), Delivery::Status(StatusKind::ConsumerDeleted));
    assert!(inbox.is_finished());
    let error = Error::ConsumerStatus(PullStatus::new(StatusCode(409), "Consumer Deleted"));
    assert_eq!(inbox.poll_end(), Some(error));
    assert!(
        matches!(events(&mut inbox)[..], [ConsumerEvent::Terminal(ref s)] if s.kind == StatusKind::ConsumerDeleted)
    );
    assert_eq!(inbox.poll_deadline().map(|d| d.at), None);
}

#[test]
fn other_statuses_are_warnings() {
    let mut inbox = inbox();
    let odd = status(409, "Leadership Change", None, &[]);
    assert_eq!(inbox.handle_input(t(1), &odd), Delivery::Status(StatusKind::LeadershipChange));
    assert!(matches!(events(&mut inbox)[..], [ConsumerEvent::Warning(_)]));
    assert!(!inbox.is_finished());
}

#[test]
fn the_watch_pauses_while_disconnected_and_a_reconnect_restarts_it_and_is_reported() {
    let mut inbox = inbox();
    inbox.handle_link(t(3_000), Link::Down);
    assert_eq!(inbox.poll_deadline().map(|d| d.at), None);
    inbox.handle_timeout(t(60_000));
    assert!(events(&mut inbox).is_empty());
    inbox.handle_link(t(60_000), Link::Up);
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(70_000)));
    assert_eq!(events(&mut inbox), [ConsumerEvent::Reset(ResetReason::Reconnected)]);
}

#[test]
fn without_idle_heartbeat_nothing_is_watched() {
    let mut inbox = PushInbox::new(t(0), None, PushOptions::default());
    assert_eq!(inbox.poll_deadline().map(|d| d.at), None);
    inbox.handle_timeout(t(1_000_000));
    assert!(events(&mut inbox).is_empty() && !inbox.poll_probe());
}

#[test]
fn time_running_backwards_is_clamped() {
    let mut inbox = inbox();
    inbox.handle_input(t(5_000), &user());
    inbox.handle_input(t(1_000), &user());
    assert_eq!(inbox.poll_deadline().map(|d| d.at), Some(t(15_000)));
}
