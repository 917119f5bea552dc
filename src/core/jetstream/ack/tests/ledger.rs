//! The checkpoint ledger on a fake clock: `+WPI` before every deadline,
//! commits, and redelivery risk when progress cannot go out.

use crate::core::machine::{Link, Machine};
use std::collections::HashMap;
use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::jetstream::ack::LedgerEvent;

#[test]
fn progress_goes_out_before_the_deadline_and_again_each_period() {
    let mut l = ledger();
    let tok = token("S", "C", 1, 1);
    l.track(t(0), tok.clone(), 1).unwrap();
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(15_000)));
    l.handle_timeout(t(14_999));
    assert_eq!(l.poll_progress(), None);
    for due in [15_000, 30_000, 45_000] {
        assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(due)));
        l.handle_timeout(t(due));
        assert_eq!(l.poll_progress(), Some(vec![tok.clone()]));
    }
    assert!(events(&mut l).is_empty());
}

#[test]
fn commit_returns_and_forgets_epochs_up_to_it() {
    let mut l = ledger();
    l.track(t(0), token("S", "C", 2, 2), 1).unwrap();
    l.track(t(0), token("S", "C", 1, 1), 1).unwrap();
    l.track(t(1), token("S", "C", 3, 3), 2).unwrap();
    assert_eq!(l.commit(1), [token("S", "C", 1, 1), token("S", "C", 2, 2)]);
    assert_eq!(l.len(), 1);
    assert!(l.track(t(2), token("S", "C", 4, 4), 1).is_err(), "epoch 1 is closed");
    l.handle_timeout(t(15_001));
    assert_eq!(l.poll_progress(), Some(vec![token("S", "C", 3, 3)]));
    assert_eq!(l.commit(2), [token("S", "C", 3, 3)]);
    assert!(l.is_empty());
    assert_eq!(l.poll_deadline().map(|d| d.at), None);
}

#[test]
fn a_checkpoint_lasting_three_ack_waits_keeps_every_message_alive() {
    let mut l = ledger();
    let mut last_reset = HashMap::new();
    for i in 0..100u64 {
        let tok = token("S", "C", i + 1, i + 1);
        l.track(t(i * 300), tok.clone(), 7).unwrap();
        last_reset.insert(tok, t(i * 300));
    }
    let end = t(3 * 30_000);
    let mut steps = 0;
    while let Some(now) = l.poll_deadline().map(|d| d.at).filter(|at| *at < end) {
        for reset in last_reset.values() {
            assert!(now.saturating_duration_since(*reset) < ACK_WAIT, "a deadline would pass at {now:?}");
        }
        l.handle_timeout(now);
        for tok in l.poll_progress().unwrap_or_default() {
            last_reset.insert(tok, now);
        }
        steps += 1;
        assert!(steps < 10_000, "bounded");
    }
    assert!(events(&mut l).is_empty());
    assert_eq!(l.commit(7).len(), 100);
}

#[test]
fn disconnected_past_the_deadline_reports_redelivery_risk_once() {
    let mut l = ledger();
    let tok = token("S", "C", 1, 1);
    l.track(t(0), tok.clone(), 1).unwrap();
    l.handle_link(t(10_000), Link::Down);
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(30_000)), "next: the deadline, to report it");
    l.handle_timeout(t(30_000));
    assert_eq!(events(&mut l), [LedgerEvent::RedeliveryRisk { token: tok.clone() }]);
    assert_eq!(l.poll_deadline().map(|d| d.at), None);
    l.handle_timeout(t(40_000));
    l.handle_link(t(50_000), Link::Up);
    assert!(events(&mut l).is_empty(), "reported once");
    assert_eq!(l.poll_progress(), Some(vec![tok]), "progress at once on reconnect");
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(65_000)));
}

#[test]
fn a_short_disconnect_costs_nothing() {
    let mut l = ledger();
    let tok = token("S", "C", 1, 1);
    l.track(t(0), tok.clone(), 1).unwrap();
    l.handle_link(t(5_000), Link::Down);
    l.handle_link(t(20_000), Link::Up);
    assert!(events(&mut l).is_empty());
    assert_eq!(l.poll_progress(), Some(vec![tok]));
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(35_000)));
}

#[test]
fn a_late_caller_is_told_and_progress_still_goes_out() {
    let mut l = ledger();
    let tok = token("S", "C", 1, 1);
    l.track(t(0), tok.clone(), 1).unwrap();
    l.handle_timeout(t(31_000));
    assert_eq!(events(&mut l), [LedgerEvent::RedeliveryRisk { token: tok.clone() }]);
    assert_eq!(l.poll_progress(), Some(vec![tok]));
}

#[test]
fn a_message_that_waited_in_a_buffer_is_timed_from_when_it_arrived() {
    let mut l = ledger();
    // Received at 0, tracked 20 s later: its first +WPI (due at 15 s) goes at once.
    let waited = token("S", "C", 1, 1);
    l.track_received(t(20_000), t(0), waited.clone(), 1).unwrap();
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(15_000)));
    l.handle_timeout(t(20_000));
    assert_eq!(l.poll_progress(), Some(vec![waited]));
    assert!(events(&mut l).is_empty());
    // Received at 0, tracked after its 30 s ack_wait: the server may have handed it out again.
    let late = token("S", "C", 2, 2);
    l.track_received(t(31_000), t(0), late.clone(), 1).unwrap();
    l.handle_timeout(t(31_000));
    assert_eq!(events(&mut l), [LedgerEvent::RedeliveryRisk { token: late.clone() }]);
    assert_eq!(l.snapshot(t(31_000), 1), Err(crate::core::error::Error::AtRisk { sequences: vec![2] }));
}

#[test]
fn progress_not_yet_polled_at_a_disconnect_was_not_sent() {
    let mut l = ledger();
    let tok = token("S", "C", 1, 1);
    l.track(t(0), tok.clone(), 1).unwrap();
    l.track(t(1_000), token("S", "C", 2, 2), 1).unwrap();
    l.handle_timeout(t(15_000));
    l.handle_link(t(15_000), Link::Down);
    assert_eq!(l.poll_progress(), None);
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(30_000)), "its timer still runs from delivery");
    l.handle_timeout(t(30_000));
    assert_eq!(events(&mut l), [LedgerEvent::RedeliveryRisk { token: tok }]);
}

#[test]
fn refuses_what_it_cannot_keep() {
    let mut l = ledger();
    assert!(l.track(t(0), token("S", "other", 1, 1), 1).is_err(), "ack_wait unknown");
    l.track(t(0), token("S", "C", 1, 1), 1).unwrap();
    assert!(l.track(t(0), token("S", "C", 1, 1), 2).is_err(), "already tracked");
    assert!(l.set_ack_wait("S", "C", Duration::from_millis(1)).is_err());
}

#[test]
fn commits_consumers_in_name_order_each_by_consumer_sequence() {
    let mut l = ledger();
    l.set_ack_wait("S", "A", ACK_WAIT).unwrap();
    l.set_ack_wait("R", "Z", Duration::from_secs(10)).unwrap();
    l.set_ack_wait("S", "A", ACK_WAIT).unwrap(); // again: no second queue
    for tok in [token("S", "C", 5, 2), token("S", "A", 9, 3), token("R", "Z", 1, 7), token("S", "A", 8, 1)] {
        l.track(t(0), tok, 1).unwrap();
    }
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(5_000)), "the shortest ack_wait sets the first +WPI");
    let order: Vec<_> = l
        .commit(1)
        .iter()
        .map(|tok| format!("{}/{}/{}", tok.stream(), tok.consumer(), tok.stream_sequence()))
        .collect();
    assert_eq!(order, ["R/Z/1", "S/A/8", "S/A/9", "S/C/5"]);
    assert!(l.is_empty());
}
