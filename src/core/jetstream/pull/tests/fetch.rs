//! `fetch`: one pull, ended by count, bytes, a status, or the client's deadline.

use crate::core::machine::Machine;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::jetstream::pull::{ConsumerEvent::*, Delivery, FetchEnd, FetchOptions, StatusKind};

fn fetch(options: FetchOptions) -> PullConsumer {
    PullConsumer::fetch(t(0), options).unwrap()
}

#[test]
fn completes_by_count() {
    let mut c = fetch(FetchOptions::messages(3));
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.batch, 3);
    assert_eq!(pull.expires, Some(Duration::from_secs(30)));
    assert_eq!(pull.idle_heartbeat, None, "no heartbeat by default at 30 s");
    assert_eq!(c.pending_messages(), 3);
    for i in 1..=3 {
        assert_eq!(c.handle_input(t(i), &user(10)), Delivery::User);
    }
    assert_eq!(events(&mut c), [FetchDone(FetchEnd::BatchComplete)]);
    assert!(c.is_finished());
    assert_eq!(c.poll_deadline().map(|d| d.at), None);
    // A late status or message changes nothing.
    assert_eq!(c.handle_input(t(5), &status(408, "Request Timeout")), Delivery::Status(StatusKind::RequestTimeout));
    assert_eq!(c.handle_input(t(6), &user(10)), Delivery::User);
    assert!(events(&mut c).is_empty());
}

#[test]
fn completes_by_max_bytes() {
    let mut c = fetch(FetchOptions::bytes(300));
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!((pull.batch, pull.max_bytes), (1_000_000, 300));
    c.handle_input(t(1), &user(100));
    c.handle_input(t(2), &user(200));
    assert_eq!(c.pending_bytes(), 0);
    assert_eq!(events(&mut c), [FetchDone(FetchEnd::MaxBytesReached)]);
}

#[test]
fn no_wait_ends_on_404() {
    let mut c = fetch(FetchOptions { no_wait: true, ..FetchOptions::messages(5) });
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert!(pull.no_wait);
    assert_eq!(pull.expires, None, "no_wait asks for an immediate answer");
    c.handle_input(t(1), &status(404, "No Messages"));
    assert_eq!(events(&mut c), [FetchDone(FetchEnd::NoMessages)]);
}

#[test]
fn request_timeout_hands_back_pending() {
    let mut c = fetch(FetchOptions::messages(10));
    c.handle_input(t(1), &user(10));
    c.handle_input(t(2), &user(10));
    assert_eq!(c.pending_messages(), 8);
    c.handle_input(t(30_000), &status_pending(408, "Request Timeout", 8, 0));
    assert_eq!(c.pending_messages(), 0);
    assert_eq!(events(&mut c), [FetchDone(FetchEnd::Expired)]);
}

#[test]
fn message_too_large_for_budget_warns_and_ends() {
    let mut c = fetch(FetchOptions::bytes(100));
    let too_big = status_pending(409, "Message Size Exceeds MaxBytes", 1_000_000, 100);
    c.handle_input(t(1), &too_big);
    let [Warning(w), FetchDone(FetchEnd::Status(s))] = &events(&mut c)[..] else { panic!() };
    assert_eq!(w.kind, StatusKind::MessageSizeExceedsMaxBytes);
    assert_eq!(w, s);
    assert_eq!((c.pending_messages(), c.pending_bytes()), (0, 0));
}

#[test]
fn client_side_expiry_after_margin() {
    let mut c = fetch(FetchOptions { expires: Duration::from_secs(5), ..FetchOptions::messages(10) });
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(6_000)), "expires + 1 s margin");
    c.handle_timeout(t(5_999));
    assert!(events(&mut c).is_empty());
    c.handle_timeout(t(6_000));
    assert_eq!(events(&mut c), [FetchDone(FetchEnd::TimedOut)]);
    assert_eq!(c.last_timeout_reason(), Some(crate::core::jetstream::pull::Timer::PullExpiry));
}

#[test]
fn long_fetch_gets_heartbeats_and_ends_when_they_stop() {
    let mut c = fetch(FetchOptions { expires: Duration::from_secs(120), ..FetchOptions::messages(10) });
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.idle_heartbeat, Some(Duration::from_secs(30)));
    c.handle_input(t(30_000), &status(100, "Idle Heartbeat"));
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(90_000)));
    c.handle_timeout(t(90_000));
    assert_eq!(events(&mut c), [HeartbeatsMissed { count: 2 }, FetchDone(FetchEnd::HeartbeatsMissed)]);
}

#[test]
fn stop_ends_at_once() {
    let mut c = fetch(FetchOptions::messages(10));
    c.stop();
    assert_eq!(events(&mut c), [FetchDone(FetchEnd::Stopped)]);
    assert!(pulls(&mut c).is_empty(), "an unsent pull is dropped");
}

#[test]
fn refuses_options_the_server_would_reject() {
    let hb_too_large = FetchOptions {
        expires: Duration::from_secs(10),
        idle_heartbeat: Some(Duration::from_secs(6)),
        ..FetchOptions::default()
    };
    assert!(PullConsumer::fetch(t(0), hb_too_large).is_err());
    assert!(PullConsumer::fetch(t(0), FetchOptions::messages(0)).is_err());
    assert!(PullConsumer::fetch(t(0), FetchOptions { expires: Duration::ZERO, ..FetchOptions::default() }).is_err());
}
