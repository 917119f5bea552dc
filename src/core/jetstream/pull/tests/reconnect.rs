//! Disconnect and reconnect: pulls held back while down, pending reset and a
//! fresh pull at once when back (ADR-37), no consumer-info round trip.

use super::*;
use crate::core::jetstream::pull::{ConsumeOptions, ConsumerEvent::*, FetchEnd, FetchOptions, ResetReason};
use crate::core::machine::{Link, Machine};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn reconnect_resets_pending_and_repulls() {
    let options = ConsumeOptions { max_messages: Some(10), ..ConsumeOptions::default() };
    let mut c = PullConsumer::consume(t(0), options).unwrap();
    let _ = pulls(&mut c);
    c.handle_input(t(1), &user(10));
    c.handle_link(t(2), Link::Down);
    c.handle_link(t(5_000), Link::Up);
    assert_eq!(events(&mut c), [Reset(ResetReason::Reconnected)]);
    let [pull] = pulls(&mut c).try_into().unwrap();
    assert_eq!(pull.batch, 10);
    assert_eq!(c.pending_messages(), 10);
}

#[test]
fn no_pulls_while_disconnected() {
    let options = ConsumeOptions { max_messages: Some(2), ..ConsumeOptions::default() };
    let mut c = PullConsumer::consume(t(0), options).unwrap();
    let _ = pulls(&mut c);
    c.handle_input(t(1), &user(10));
    // The refill was queued, but the link dropped before the caller sent it.
    c.handle_link(t(2), Link::Down);
    assert!(pulls(&mut c).is_empty());
    assert_eq!(c.pending_messages(), 1, "the unsent pull is not counted");
    // Messages already in flight are still counted.
    c.handle_input(t(3), &user(10));
    assert!(pulls(&mut c).is_empty());
    assert_eq!(c.pending_messages(), 0);
}

#[test]
fn fetch_keeps_its_deadline_across_a_disconnect() {
    let mut c = PullConsumer::fetch(t(0), FetchOptions::messages(5)).unwrap();
    let _ = pulls(&mut c);
    c.handle_link(t(1_000), Link::Down);
    assert_eq!(c.poll_deadline().map(|d| d.at), Some(t(33_000)));
    c.handle_link(t(2_000), Link::Up);
    assert!(pulls(&mut c).is_empty(), "a fetch is one pull");
    c.handle_timeout(t(33_000));
    assert_eq!(events(&mut c), [FetchDone(FetchEnd::TimedOut)]);
}
