//! The end rules on a fake clock: every strategy and edge, no sleeping.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

fn reply(payload: &'static str) -> Message {
    Message {
        subject: "_INBOX.abc.1".into(),
        reply: None,
        payload: payload.into(),
        headers: None,
        status: None,
        description: None,
        length: payload.len(),
    }
}

fn gather(strategy: RequestStrategy, f: impl FnOnce(&mut RequestManyOptions)) -> Gather {
    let mut options = RequestManyOptions { strategy, ..RequestManyOptions::default() };
    f(&mut options);
    Gather::new(ms(0), &options).expect("valid options")
}

#[test]
fn defaults_are_nats_js_defaults() {
    let options = RequestManyOptions::default();
    assert_eq!(options.strategy, RequestStrategy::Timer);
    assert_eq!(options.max_wait, Duration::from_secs(1));
    assert_eq!(options.max_messages, None);
    assert_eq!(options.stall, None);
}

#[test]
fn zero_max_wait_is_refused() {
    let options = RequestManyOptions { max_wait: Duration::ZERO, ..RequestManyOptions::default() };
    assert!(matches!(Gather::new(ms(0), &options), Err(Error::InvalidArgument(_))));
}

#[test]
fn timer_takes_everything_until_max_wait() {
    let mut g = gather(RequestStrategy::Timer, |o| o.max_messages = Some(1));
    assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(1000)));
    for t in [1, 2, 500, 999] {
        assert!(g.handle_input(ms(t), &reply("x")));
    }
    // max_messages and empty payloads mean nothing to the timer.
    assert!(g.handle_input(ms(999), &reply("")));
    assert!(!g.is_finished());
    g.handle_timeout(ms(999));
    assert!(!g.is_finished());
    g.handle_timeout(ms(1000));
    assert_eq!(g.end(), Some(End::MaxWait));
    assert_eq!(g.received(), 5);
    assert_eq!(g.poll_deadline().map(|d| d.at), None);
    assert!(!g.handle_input(ms(1001), &reply("late")));
}

#[test]
fn zero_replies_end_at_max_wait() {
    for strategy in [RequestStrategy::Timer, RequestStrategy::Count, RequestStrategy::Stall, RequestStrategy::Sentinel]
    {
        let mut g = gather(strategy, |o| {
            o.max_wait = Duration::from_millis(250);
            o.max_messages = Some(3);
            o.stall = Some(Duration::from_millis(50));
        });
        // No stall timer before the first reply.
        assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(250)), "{strategy:?}");
        g.handle_timeout(ms(249));
        assert!(!g.is_finished(), "{strategy:?}");
        g.handle_timeout(ms(250));
        assert_eq!(g.end(), Some(End::MaxWait), "{strategy:?}");
        assert_eq!(g.received(), 0);
    }
}

#[test]
fn a_reply_past_max_wait_before_the_timer_fired_is_dropped() {
    let mut g = gather(RequestStrategy::Timer, |_| {});
    assert!(!g.handle_input(ms(1000), &reply("x")));
    assert_eq!(g.end(), Some(End::MaxWait));
}

#[test]
fn count_ends_at_max_messages() {
    let mut g = gather(RequestStrategy::Count, |o| o.max_messages = Some(3));
    assert!(g.handle_input(ms(1), &reply("a")));
    assert!(g.handle_input(ms(2), &reply("b")));
    assert!(!g.is_finished());
    assert!(g.handle_input(ms(3), &reply("c")));
    assert_eq!(g.end(), Some(End::MaxMessages));
    assert_eq!(g.poll_deadline().map(|d| d.at), None);
    // A fourth responder is too late.
    assert!(!g.handle_input(ms(4), &reply("d")));
    assert_eq!(g.received(), 3);
}

#[test]
fn count_with_fewer_replies_ends_at_max_wait() {
    let mut g = gather(RequestStrategy::Count, |o| o.max_messages = Some(5));
    assert!(g.handle_input(ms(1), &reply("a")));
    assert!(g.handle_input(ms(2), &reply("b")));
    g.handle_timeout(ms(1000));
    assert_eq!(g.end(), Some(End::MaxWait));
    assert_eq!(g.received(), 2);
}

#[test]
fn count_without_a_count_is_a_timer() {
    for max in [None, Some(0)] {
        let mut g = gather(RequestStrategy::Count, |o| o.max_messages = max);
        for t in 0..50 {
            assert!(g.handle_input(ms(t), &reply("x")));
        }
        assert!(!g.is_finished());
        g.handle_timeout(ms(1000));
        assert_eq!(g.end(), Some(End::MaxWait));
    }
}

#[test]
fn stall_ends_after_a_quiet_time_after_the_first_reply() {
    let mut g = gather(RequestStrategy::Stall, |o| o.stall = Some(Duration::from_millis(100)));
    assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(1000)));
    // The first reply can take most of max_wait.
    assert!(g.handle_input(ms(600), &reply("a")));
    assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(700)));
    assert!(g.handle_input(ms(650), &reply("b")));
    assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(750)));
    g.handle_timeout(ms(749));
    assert!(!g.is_finished());
    g.handle_timeout(ms(750));
    assert_eq!(g.end(), Some(End::Stall));
    assert_eq!(g.received(), 2);
}

#[test]
fn stall_defaults_to_300_ms() {
    for stall in [None, Some(Duration::ZERO)] {
        let mut g = gather(RequestStrategy::Stall, |o| o.stall = stall);
        assert!(g.handle_input(ms(10), &reply("a")));
        assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(310)));
    }
}

#[test]
fn stall_never_extends_past_max_wait() {
    let mut g = gather(RequestStrategy::Stall, |o| o.stall = Some(Duration::from_millis(300)));
    // Replies keep coming faster than the stall: max_wait still caps the request.
    for t in (0..1000).step_by(100) {
        assert!(g.handle_input(ms(t), &reply("x")));
    }
    assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(1000)));
    g.handle_timeout(ms(1000));
    assert_eq!(g.end(), Some(End::MaxWait));
    assert_eq!(g.received(), 10);
}

#[test]
fn stall_is_ignored_by_other_strategies() {
    let mut g = gather(RequestStrategy::Timer, |o| o.stall = Some(Duration::from_millis(10)));
    assert!(g.handle_input(ms(1), &reply("a")));
    assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(1000)));
}

#[test]
fn sentinel_ends_at_an_empty_reply_which_is_delivered() {
    let mut g = gather(RequestStrategy::Sentinel, |_| {});
    assert!(g.handle_input(ms(1), &reply("a")));
    assert!(g.handle_input(ms(2), &reply("b")));
    assert!(g.handle_input(ms(3), &reply("")));
    assert_eq!(g.end(), Some(End::Sentinel));
    assert!(!g.handle_input(ms(4), &reply("after")));
    assert_eq!(g.received(), 3);
}

#[test]
fn sentinel_first_ends_at_once() {
    let mut g = gather(RequestStrategy::Sentinel, |_| {});
    assert!(g.handle_input(ms(5), &reply("")));
    assert_eq!(g.end(), Some(End::Sentinel));
    assert_eq!(g.poll_deadline().map(|d| d.at), None);
}

#[test]
fn sentinel_that_never_comes_ends_at_max_wait() {
    let mut g = gather(RequestStrategy::Sentinel, |_| {});
    assert!(g.handle_input(ms(5), &reply("a")));
    g.handle_timeout(ms(1000));
    assert_eq!(g.end(), Some(End::MaxWait));
}

#[test]
fn no_responders_fails_and_nothing_follows() {
    let mut g = gather(RequestStrategy::Count, |o| o.max_messages = Some(3));
    g.handle_failure();
    assert_eq!(g.end(), Some(End::Failed));
    assert_eq!(g.poll_deadline().map(|d| d.at), None);
    assert!(!g.handle_input(ms(1), &reply("late")));
    // The first end stays.
    g.cancel();
    g.handle_timeout(ms(2000));
    assert_eq!(g.end(), Some(End::Failed));
}

#[test]
fn closing_after_some_replies_keeps_them() {
    let mut g = gather(RequestStrategy::Timer, |_| {});
    assert!(g.handle_input(ms(1), &reply("a")));
    g.handle_failure();
    assert_eq!(g.end(), Some(End::Failed));
    assert_eq!(g.received(), 1);
}

#[test]
fn cancel_ends_without_a_timer() {
    let mut g = gather(RequestStrategy::Stall, |_| {});
    assert!(g.handle_input(ms(1), &reply("a")));
    g.cancel();
    assert_eq!(g.end(), Some(End::Cancelled));
    assert_eq!(g.poll_deadline().map(|d| d.at), None);
}

#[test]
fn time_running_backwards_is_clamped() {
    let mut g = gather(RequestStrategy::Stall, |o| o.stall = Some(Duration::from_millis(100)));
    assert!(g.handle_input(ms(500), &reply("a")));
    // An older `now` does not move the stall earlier.
    assert!(g.handle_input(ms(100), &reply("b")));
    assert_eq!(g.poll_deadline().map(|d| d.at), Some(ms(600)));
    g.handle_timeout(ms(50));
    assert!(!g.is_finished());
}
