//! The idle-heartbeat watchdog: 2 × idle_heartbeat of silence, on the caller's clock.

use crate::core::machine::{Link, Machine};
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::jetstream::pull::{ConsumeOptions, ConsumerEvent::*, Delivery, StatusKind, Timer};

/// Heartbeat 10 s; pulls live 300 s so their expiry stays out of the way.
fn consume() -> PullConsumer {
    let options = ConsumeOptions {
        max_messages: Some(10),
        expires: Some(Duration::from_secs(300)),
        idle_heartbeat: Some(Duration::from_secs(10)),
        ..ConsumeOptions::default()
    };
    let mut c = PullConsumer::consume(t(0), options).unwrap();
    let _ = pulls(&mut c);
    c
}

#[test]
fn any_message_keeps_it_alive() {
    let mut c = consume();
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(20_000)));
    let hb = status(100, "Idle Heartbeat");
    assert_eq!(c.handle_input(t(14_000), &hb), Delivery::Status(StatusKind::IdleHeartbeat));
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(34_000)));
    c.handle_input(t(30_000), &user(10));
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(50_000)));
    c.handle_timeout(t(49_999));
    assert!(events(&mut c).is_empty());
    assert!(pulls(&mut c).is_empty());
}

#[test]
fn a_wake_at_a_deadline_messages_moved_fires_nothing() {
    // Messages move the watchdog without re-arming it: a caller that slept
    // until the deadline polled before them wakes early and is told the new one.
    let mut c = consume();
    let before = c.poll_deadline().map(|d| d.at);
    c.handle_input(t(5_000), &user(10));
    c.handle_input(t(8_000), &user(10));
    assert_eq!((before, c.poll_deadline().map(|d| d.at)), (Some(t(20_000)), Some(t(28_000))));
    c.handle_timeout(t(20_000));
    assert!(events(&mut c).is_empty());
    assert!(pulls(&mut c).is_empty());
    assert_eq!(c.last_timeout_reason(), None, "nothing fired");
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(28_000)));
    c.handle_timeout(t(28_000));
    assert_eq!(events(&mut c), [HeartbeatsMissed { count: 2 }]);
    assert_eq!(c.last_timeout_reason(), Some(Timer::Heartbeat));
}

#[test]
fn two_missed_heartbeats_raise_an_event_and_repull() {
    let mut c = consume();
    c.handle_input(t(1), &user(10));
    assert_eq!(c.pending_messages(), 9);
    c.handle_timeout(t(20_001));
    assert_eq!(events(&mut c), [HeartbeatsMissed { count: 2 }]);
    assert_eq!(c.last_timeout_reason(), Some(Timer::Heartbeat));
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.batch, 10, "pending was reset, so a full batch");
    assert!(!c.is_finished(), "never terminal");
    // Still silent: another alarm two intervals later, counting on.
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(40_001)));
    c.handle_timeout(t(40_001));
    assert_eq!(events(&mut c), [HeartbeatsMissed { count: 4 }]);
    assert_eq!(pulls(&mut c).len(), 1);
}

#[test]
fn a_slow_caller_cannot_cause_a_miss() {
    // The machine sees when things arrived, not when the user got to them:
    // a heartbeat that arrived at 19 s counts even if handled late.
    let mut c = consume();
    c.handle_input(t(19_000), &status(100, "Idle Heartbeat"));
    c.handle_timeout(t(20_000));
    assert!(events(&mut c).is_empty());
}

#[test]
fn paused_while_disconnected() {
    let mut c = consume();
    c.handle_link(t(10_000), Link::Down);
    assert_eq!(c.poll_deadline().map(|d| d.at), None, "no watchdog, no pull expiry while down");
    c.handle_timeout(t(100_000));
    assert!(events(&mut c).is_empty());
    c.handle_link(t(200_000), Link::Up);
    let _ = events(&mut c);
    let _ = pulls(&mut c);
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(220_000)), "restarted from the reconnect");
}

#[test]
fn clock_running_backwards_is_clamped() {
    let mut c = consume();
    c.handle_input(t(12_000), &status(100, "Idle Heartbeat"));
    c.handle_input(t(5_000), &status(100, "Idle Heartbeat"));
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(32_000)));
}
