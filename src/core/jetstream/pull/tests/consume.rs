//! `consume`: the first pull, refills at the thresholds, re-pulls when pulls
//! expire, drain on stop.

use crate::core::machine::Machine;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::jetstream::pull::{ConsumeOptions, ConsumerEvent::*, ResetReason};

fn consume(options: ConsumeOptions) -> PullConsumer {
    PullConsumer::consume(t(0), options).unwrap()
}

fn by_messages(n: u64) -> ConsumeOptions {
    ConsumeOptions { max_messages: Some(n), ..ConsumeOptions::default() }
}

#[test]
fn initial_pull_uses_the_consume_defaults() {
    let mut c = consume(ConsumeOptions::default());
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.batch, 300);
    assert_eq!(pull.max_bytes, 4 << 20, "a quarter of the default 16 MiB bound");
    assert_eq!(pull.expires, Some(Duration::from_secs(30)));
    assert_eq!(pull.idle_heartbeat, Some(Duration::from_secs(15)));
    assert!(!pull.no_wait);
    assert_eq!(c.pending_messages(), 300);
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(30_000)), "heartbeat watchdog at 2 × 15 s");
    for i in 0..199 {
        c.handle_input(t(i), &user(10));
    }
    assert!(pulls(&mut c).is_empty(), "101 pending");
    c.handle_input(t(199), &user(10));
    assert_eq!(pulls(&mut c)[0].batch, 200, "refilled at 100 left, by 200");
}

#[test]
fn a_threshold_given_alone_keeps_the_default_messages() {
    let options = ConsumeOptions { threshold_messages: Some(250), ..ConsumeOptions::default() };
    let mut c = consume(options);
    assert_eq!(pulls(&mut c)[0].batch, 300);
    for i in 0..50 {
        c.handle_input(t(i), &user(10));
    }
    assert_eq!(pulls(&mut c)[0].batch, 50, "refilled at 250 left");
}

#[test]
fn default_pulls_keep_what_is_requested_ahead_within_the_bytes_bound() {
    const MIB: u64 = 1 << 20;
    let mut c = consume(ConsumeOptions::default());
    c.track_buffered();
    // A reader that takes nothing: each pull is served 1 MiB messages up to
    // its budget, then ended by the server (the next does not fit).
    let mut next = pulls(&mut c);
    let mut time = 0;
    while let Some(pull) = next.pop() {
        assert_eq!(pull.max_bytes, 4 * MIB);
        for _ in 0..4 {
            time += 1;
            c.handle_input(t(time), &user(MIB as usize));
        }
        c.handle_input(t(time), &status_pending(409, "Message Size Exceeds MaxBytes", pull.batch - 4, 0));
        let (msgs, bytes) = c.buffered();
        assert!(bytes + c.pending_bytes() <= 16 * MIB, "{msgs} messages, {bytes} B buffered");
        next.extend(pulls(&mut c));
    }
    assert_eq!(c.buffered(), (16, 16 * MIB), "four pulls' worth, then no more");
    c.handle_taken(t(time), 16, 16 * MIB);
    assert_eq!(pulls(&mut c).len(), 1, "taken: pulling goes on");
}

#[test]
fn a_message_larger_than_a_default_pull_grows_the_budget() {
    let mut c = consume(ConsumeOptions::default());
    let _ = pulls(&mut c);
    c.handle_input(t(1), &status_pending(409, "Message Size Exceeds MaxBytes", 300, 4 << 20));
    let grown: Vec<_> = pulls(&mut c).iter().map(|p| p.max_bytes).collect();
    assert_eq!(grown, [8 << 20], "the next pull can take a message up to 8 MiB");
}

#[test]
fn refills_at_message_threshold_to_fill_the_buffer() {
    let mut c = consume(by_messages(10));
    let _ = pulls(&mut c);
    for i in 0..4 {
        c.handle_input(t(i), &user(10));
    }
    assert!(pulls(&mut c).is_empty(), "6 pending, above the threshold of 5");
    c.handle_input(t(5), &user(10));
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.batch, 5, "asks for what fills the buffer");
    assert_eq!(c.pending_messages(), 10);
}

#[test]
fn batch_of_one_never_gets_stuck() {
    let mut c = consume(by_messages(1));
    assert_eq!(pulls(&mut c)[0].batch, 1);
    c.handle_input(t(1), &user(10));
    assert_eq!(pulls(&mut c)[0].batch, 1);
}

#[test]
fn refills_at_byte_threshold() {
    let mut c = consume(ConsumeOptions { max_bytes: Some(1_000), ..ConsumeOptions::default() });
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!((pull.batch, pull.max_bytes), (1_000_000, 1_000));
    c.handle_input(t(1), &user(200));
    c.handle_input(t(2), &user(200));
    assert!(pulls(&mut c).is_empty(), "600 bytes pending, above 500");
    c.handle_input(t(3), &user(100));
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!((pull.batch, pull.max_bytes), (1_000_000, 500));
    assert_eq!(c.pending_bytes(), 1_000);
}

#[test]
fn spent_byte_budget_ends_the_pull() {
    let mut c = consume(ConsumeOptions { max_bytes: Some(100), threshold_bytes: Some(0), ..Default::default() });
    let _ = pulls(&mut c);
    c.handle_input(t(1), &user(100));
    assert_eq!(c.pending_messages(), 1_000_000, "new pull counted, old one cleared");
    assert_eq!(pulls(&mut c).len(), 1);
}

#[test]
fn repulls_when_the_server_expires_the_pull() {
    let mut c = consume(by_messages(10));
    let _ = pulls(&mut c);
    c.handle_input(t(1), &user(10));
    c.handle_input(t(30_000), &status_pending(408, "Request Timeout", 9, 0));
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.batch, 10);
    assert!(events(&mut c).is_empty(), "408 is routine, not telegraphed");
}

#[test]
fn repulls_when_pulls_outlive_expires_without_an_answer() {
    let mut c = consume(by_messages(10));
    let _ = pulls(&mut c);
    c.handle_input(t(15_000), &status(100, "Idle Heartbeat"));
    c.handle_input(t(30_000), &status(100, "Idle Heartbeat"));
    // The 408 got lost: at expires + 3 s margin every pull is surely gone.
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(33_000)));
    c.handle_timeout(t(33_000));
    assert_eq!(events(&mut c), [Reset(ResetReason::PullsExpired)]);
    assert_eq!(pulls(&mut c).len(), 1);
    assert_eq!(c.pending_messages(), 10);
}

#[test]
fn stop_drains_then_reports_drained() {
    let mut c = consume(by_messages(10));
    let _ = pulls(&mut c);
    c.stop();
    c.handle_input(t(1), &user(10));
    assert!(pulls(&mut c).is_empty(), "no pulls after stop");
    assert!(events(&mut c).is_empty());
    c.handle_input(t(2), &status_pending(408, "Request Timeout", 9, 0));
    assert_eq!(events(&mut c), [Drained]);
    assert!(c.is_finished());
}

#[test]
fn stop_drains_by_deadline_when_the_end_status_is_lost() {
    let mut c = consume(by_messages(10));
    let _ = pulls(&mut c);
    c.stop();
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(33_000)), "only the pull expiry remains");
    c.handle_timeout(t(33_000));
    assert_eq!(events(&mut c), [Drained]);
}

#[test]
fn refuses_bad_options() {
    let bad = [
        ConsumeOptions { max_messages: Some(10), max_bytes: Some(10), ..Default::default() },
        ConsumeOptions { max_messages: Some(10), threshold_messages: Some(11), ..Default::default() },
        ConsumeOptions { max_messages: Some(0), ..Default::default() },
        ConsumeOptions { threshold_bytes: Some(1), ..Default::default() },
        ConsumeOptions { expires: Some(Duration::from_millis(999)), ..Default::default() },
        ConsumeOptions { idle_heartbeat: Some(Duration::from_millis(100)), ..Default::default() },
        ConsumeOptions { idle_heartbeat: Some(Duration::from_secs(16)), ..Default::default() },
    ];
    for options in bad {
        assert!(PullConsumer::consume(t(0), options.clone()).is_err(), "{options:?}");
    }
}

#[test]
fn a_slow_reader_holds_back_refills_until_it_takes_messages() {
    let mut c = consume(by_messages(10));
    c.track_buffered();
    let _ = pulls(&mut c);
    for i in 0..10 {
        c.handle_input(t(i), &user(10));
    }
    assert!(pulls(&mut c).is_empty(), "ten delivered but none taken: nothing more is pulled");
    assert_eq!(c.buffered(), (10, 100));
    // With no pull outstanding the server sends no heartbeats, and none is missed.
    c.handle_timeout(t(120_000));
    assert!(events(&mut c).iter().all(|e| !matches!(e, HeartbeatsMissed { .. })));
    assert!(pulls(&mut c).is_empty());
    c.handle_taken(t(120_001), 4, 40);
    assert!(pulls(&mut c).is_empty(), "6 held, above the threshold of 5");
    c.handle_taken(t(120_002), 1, 10);
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.batch, 5, "asks for what fills the buffer");
    assert_eq!(c.buffered(), (5, 50));
}
