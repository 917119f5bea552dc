//! The ledger's exactly-once half on a fake clock: what a checkpoint saves,
//! what a restore skips, what an abort naks, and what is at risk.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::error::Error;
use crate::core::jetstream::ack::{ConsumerState, LEDGER_STATE_VERSION, LedgerEvent, LedgerState};
use crate::core::machine::{Link, Machine};

/// Delivery `delivered` of stream sequence `sseq`.
fn delivery(sseq: u64, delivered: u64) -> AckToken {
    AckToken::new(format!("$JS.ACK.S.C.{delivered}.{sseq}.{}.1700000000000000000.0", sseq + 1000)).unwrap()
}

fn state(ranges: &[(u64, u64)]) -> LedgerState {
    LedgerState {
        version: LEDGER_STATE_VERSION,
        consumers: vec![ConsumerState { stream: "S".into(), consumer: "C".into(), ranges: ranges.to_vec() }],
    }
}

#[test]
fn a_snapshot_holds_tracked_epochs_up_to_it_as_ranges() {
    let mut l = ledger();
    for seq in 1..=100_000 {
        l.track(t(0), token("S", "C", seq, seq), 1).unwrap();
    }
    l.track(t(0), token("S", "C", 100_002, 100_002), 2).unwrap();
    let snap = l.snapshot(t(1), 1).unwrap();
    assert_eq!(snap, state(&[(1, 100_000)]));
    let json = serde_json::to_string(&snap).unwrap();
    assert_eq!(json, r#"{"version":2,"consumers":[{"stream":"S","consumer":"C","runs":[1,99999]}]}"#);
    assert!(json.len() < 1024, "100,000 messages without gaps fit in {} bytes", json.len());
    let two = l.snapshot(t(1), 2).unwrap();
    assert_eq!(two, state(&[(1, 100_000), (100_002, 100_002)]));
    assert!(serde_json::to_string(&two).unwrap().ends_with(r#""runs":[1,99999,2,0]}]}"#));
}

#[test]
fn states_read_back_from_runs_and_from_version_1_ranges() {
    let interleaved: Vec<(u64, u64)> = (0..1000).map(|i| (1_000_000 + 40 * i, 1_000_000 + 40 * i + 9)).collect();
    let saved = state(&interleaved);
    let json = serde_json::to_string(&saved).unwrap();
    assert_eq!(serde_json::from_str::<LedgerState>(&json).unwrap(), saved);
    let v1 = format!(
        r#"{{"version":1,"consumers":[{{"stream":"S","consumer":"C","ranges":{}}}]}}"#,
        serde_json::to_string(&interleaved).unwrap()
    );
    let read = serde_json::from_str::<LedgerState>(&v1).unwrap();
    assert_eq!(read.consumers, saved.consumers, "a state saved by the last release");
    assert!(json.len() * 3 < v1.len(), "runs: {} bytes, ranges: {}", json.len(), v1.len());

    // Made by hand out of order, overlapping: saved as the set they hold.
    let loose = state(&[(20, 30), (1, 5), (4, 8), (9, 9)]);
    let json = serde_json::to_string(&loose).unwrap();
    assert!(json.contains(r#""runs":[1,8,11,10]"#), "{json}");
    assert_eq!(serde_json::from_str::<LedgerState>(&json).unwrap(), state(&[(1, 9), (20, 30)]));
}

#[test]
fn malformed_runs_are_refused() {
    for runs in ["[1]", "[5,2,0,1]", "[5,2,1,18446744073709551615]", "[18446744073709551615,1]"] {
        let json = format!(r#"{{"version":2,"consumers":[{{"stream":"S","consumer":"C","runs":{runs}}}]}}"#);
        assert!(serde_json::from_str::<LedgerState>(&json).is_err(), "{runs}");
    }
    let neither = r#"{"version":2,"consumers":[{"stream":"S","consumer":"C"}]}"#;
    assert!(serde_json::from_str::<LedgerState>(neither).is_err());
}

#[test]
fn committed_work_stays_in_the_snapshot_until_the_ack_floor_settles_past_it() {
    let mut l = ledger();
    for seq in [3, 1, 2] {
        l.track(t(0), delivery(seq, 1), 1).unwrap();
    }
    l.track(t(0), delivery(7, 1), 2).unwrap();
    assert_eq!(l.commit(1).len(), 3);
    l.settle(&[]);
    assert_eq!(l.snapshot(t(1), 2).unwrap(), state(&[(1, 3), (7, 7)]), "confirmed is not enough");
    l.prune(t(10), "S", "C", 2);
    l.prune(t(500), "S", "C", 3);
    assert_eq!(l.snapshot(t(500), 2).unwrap(), state(&[(1, 3), (7, 7)]), "a floor just read may not be stored yet");
    l.prune(t(1_010), "S", "C", 3);
    assert_eq!(l.snapshot(t(1_010), 2).unwrap(), state(&[(3, 3), (7, 7)]), "the floor read at 10 ms has settled");
    l.prune(t(1_500), "S", "C", 3);
    assert_eq!(l.snapshot(t(1_500), 2).unwrap(), state(&[(7, 7)]));
    assert_eq!(l.applied_len(), 0);
}

#[test]
fn a_restored_redelivery_is_skipped_and_acked_with_the_next_commit() {
    let mut l = ledger();
    l.restore(&[state(&[(1, 10)]), state(&[(5, 20), (40, 40)])]).unwrap();
    assert_eq!(l.applied_len(), 21);
    assert!(!l.admit(delivery(4, 2).subject()).unwrap(), "applied before the crash");
    assert!(!l.admit(delivery(40, 3).subject()).unwrap());
    assert!(l.admit(delivery(21, 2).subject()).unwrap(), "not in the checkpoint: its work was lost with the crash");
    l.track(t(0), delivery(21, 2), 1).unwrap();
    assert_eq!(l.counts().skipped, 2);
    assert_eq!(l.commit(1), [delivery(21, 2), delivery(4, 2), delivery(40, 3)], "the epoch, then the skipped");
    assert_eq!(l.commit(2), [], "skipped once");
    l.settle(&[]);
    assert_eq!(l.snapshot(t(0), 2).unwrap(), state(&[(1, 21), (40, 40)]), "until the ack floor passes them");
}

#[test]
fn the_same_redelivery_twice_is_acked_once() {
    let mut l = ledger();
    l.restore(&[state(&[(9, 9)])]).unwrap();
    assert!(!l.admit(delivery(9, 2).subject()).unwrap());
    assert!(!l.admit(delivery(9, 2).subject()).unwrap());
    assert!(!l.admit(delivery(9, 3).subject()).unwrap());
    assert_eq!(l.commit(1), [delivery(9, 3)], "the latest delivery's ack subject");
    assert_eq!(l.counts().skipped, 3, "deliveries skipped");
}

#[test]
fn an_abort_hands_back_the_epoch_and_later_ones_to_nak() {
    let mut l = ledger();
    l.track(t(0), delivery(1, 1), 1).unwrap();
    l.track(t(0), delivery(2, 1), 2).unwrap();
    l.track(t(0), delivery(3, 1), 3).unwrap();
    assert_eq!(l.abort(t(0), 2), [delivery(2, 1), delivery(3, 1)]);
    assert_eq!(l.len(), 1);
    assert_eq!(l.counts().aborted, 2);
    assert!(l.admit(delivery(2, 2).subject()).unwrap(), "a nak'd message comes back to be processed");
    assert!(events(&mut l).is_empty(), "its redelivery was expected");
    l.track(t(1), delivery(2, 2), 2).unwrap();
    assert_eq!(l.snapshot(t(1), 2).unwrap(), state(&[(1, 2)]));
    assert_eq!(l.commit(2), [delivery(1, 1), delivery(2, 2)]);
}

#[test]
fn an_unexplained_redelivery_is_processed_and_reported() {
    let mut l = ledger();
    assert!(l.admit(delivery(5, 1).subject()).unwrap());
    assert!(events(&mut l).is_empty(), "a first delivery");
    assert!(l.admit(delivery(6, 2).subject()).unwrap());
    assert_eq!(events(&mut l), [LedgerEvent::Redelivered { token: delivery(6, 2) }]);
    assert_eq!(l.counts().redelivered, 1);
}

#[test]
fn a_message_past_its_deadline_makes_the_snapshot_fail_with_its_sequence() {
    let mut l = ledger();
    l.track(t(0), delivery(1, 1), 1).unwrap();
    l.track(t(0), delivery(2, 1), 2).unwrap();
    l.handle_link(t(1_000), Link::Down);
    // The caller asks before the ledger's own timer fired: the deadline alone decides.
    assert_eq!(l.snapshot(t(30_000), 1), Err(Error::AtRisk { sequences: vec![1] }));
    l.handle_timeout(t(30_000));
    assert_eq!(l.counts().at_risk, 2);
    l.handle_link(t(31_000), Link::Up);
    assert_eq!(l.snapshot(t(31_000), 2), Err(Error::AtRisk { sequences: vec![1, 2] }), "still at risk after +WPI");
    assert_eq!(l.abort(t(31_000), 1), [], "not nak'd: another worker may hold them now");
    assert_eq!(l.counts().aborted, 2);
    assert_eq!(l.snapshot(t(31_000), 2).unwrap(), state(&[]));
}

#[test]
fn progress_in_time_keeps_a_long_epoch_safe() {
    let mut l = ledger();
    l.track(t(0), delivery(1, 1), 1).unwrap();
    for due in [15_000, 30_000, 45_000, 60_000] {
        l.handle_timeout(t(due));
        assert!(l.poll_progress().is_some());
    }
    assert!(l.snapshot(t(70_000), 1).is_ok(), "the last +WPI went at 60 s");
    assert!(events(&mut l).is_empty());
}

#[test]
fn restore_refuses_foreign_consumers_and_unknown_versions() {
    let mut l = ledger();
    let mut other = state(&[(1, 1)]);
    other.consumers[0].consumer = "D".into();
    assert!(matches!(l.restore(&[state(&[(1, 1)]), other]), Err(Error::InvalidArgument(_))));
    assert_eq!(l.applied_len(), 0, "nothing restored when one state is refused");
    let newer = r#"{"version":3,"consumers":[]}"#;
    let err = serde_json::from_str::<LedgerState>(newer).unwrap_err().to_string();
    assert!(err.contains("version 3"), "{err}");
    assert!(serde_json::from_str::<LedgerState>(r#"{"consumers":[]}"#).is_err(), "unversioned");
    assert!(l.restore(&[state(&[(5, 4)])]).is_err(), "an empty range");
    assert!(l.admit(token("S", "other", 1, 1).subject()).is_err(), "not this ledger's consumer");
}

#[test]
fn states_read_back_as_written() {
    let s = state(&[(1, 5), (9, 9)]);
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(serde_json::from_str::<LedgerState>(&json).unwrap(), s);
    assert_eq!(s.len(), 6);
}

#[test]
fn an_unconfirmed_ack_is_held_alive_and_sent_again_with_the_next_commit() {
    let mut l = ledger();
    l.restore(&[state(&[(9, 9)])]).unwrap();
    assert!(!l.admit(delivery(9, 2).subject()).unwrap());
    l.track(t(0), delivery(1, 1), 1).unwrap();
    l.track(t(0), delivery(2, 1), 1).unwrap();
    let acks = l.commit(1);
    assert_eq!(acks, [delivery(1, 1), delivery(2, 1), delivery(9, 2)]);
    assert_eq!(l.len(), 0);
    l.settle(&[delivery(2, 1), delivery(9, 2)]);
    assert_eq!(l.len(), 1, "held again");
    l.handle_timeout(t(15_000));
    assert_eq!(l.poll_progress(), Some(vec![delivery(2, 1)]), "kept alive meanwhile");
    l.track(t(15_000), delivery(3, 1), 2).unwrap();
    assert_eq!(l.snapshot(t(15_000), 2).unwrap(), state(&[(1, 3), (9, 9)]));
    l.handle_link(t(15_000), Link::Down);
    l.handle_timeout(t(45_000));
    assert_eq!(
        l.snapshot(t(45_000), 2),
        Err(Error::AtRisk { sequences: vec![3] }),
        "the held-again ack is of an applied epoch: aborting the open one cannot help it"
    );
    assert_eq!(l.abort(t(45_000), 2), []);
    assert_eq!(l.commit(2), [delivery(2, 1), delivery(9, 2)], "sent again");
}

#[test]
fn a_union_merges_every_workers_state_per_consumer() {
    let mut other = state(&[(15, 30)]);
    other.consumers[0].consumer = "D".into();
    let union = LedgerState::union(&[state(&[(1, 10), (20, 20)]), other, state(&[(5, 12)])]);
    assert_eq!(union.consumers.len(), 2);
    assert_eq!(union.consumers[0].ranges, [(1, 12), (20, 20)]);
    assert_eq!(union.consumers[1].ranges, [(15, 30)]);
    assert_eq!(LedgerState::union(&[]), LedgerState { version: LEDGER_STATE_VERSION, consumers: vec![] });
}

#[test]
fn a_redelivery_gets_its_first_progress_at_once() {
    let mut l = ledger();
    l.track(t(20_000), delivery(1, 1), 1).unwrap();
    l.track(t(20_000), delivery(2, 2), 1).unwrap();
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(20_000)));
    l.handle_timeout(t(20_000));
    assert_eq!(l.poll_progress(), Some(vec![delivery(2, 2)]));
    assert_eq!(l.poll_deadline().map(|d| d.at), Some(t(35_000)), "then both every half ack_wait");
}

#[test]
fn a_message_admitted_then_tracked_is_held_as_one_tracked_alone() {
    let mut l = ledger();
    let (a, b) = (delivery(1, 1), delivery(2, 1));
    assert!(l.admit(a.subject()).unwrap());
    // Another message tracked in between: read from its own subject.
    l.track_subject(t(0), t(0), b.subject(), 1).unwrap();
    l.track_subject(t(0), t(0), a.subject(), 1).unwrap();
    assert!(l.track_subject(t(0), t(0), a.subject(), 1).is_err(), "tracked twice");
    assert!(l.track_subject(t(0), t(0), "not.an.ack", 1).is_err());
    let committed: Vec<u64> = l.commit(1).iter().map(AckToken::stream_sequence).collect();
    assert_eq!(committed, [1, 2]);
}

#[test]
fn a_batch_admitted_then_tracked_in_any_order_is_held_once_each() {
    let mut l = ledger();
    l.restore(&[state(&[(3, 3)])]).unwrap();
    let batch: Vec<AckToken> = (1..=6).map(|seq| delivery(seq, 1)).collect();
    let admitted: Vec<bool> = batch.iter().map(|d| l.admit(d.subject()).unwrap()).collect();
    assert_eq!(admitted, [true, true, false, true, true, true], "3 was applied before");
    // 1 in order; 2 never tracked (passed over); 5 before 4; 6 last.
    for seq in [1, 5, 4, 6] {
        l.track_subject(t(0), t(0), batch[seq as usize - 1].subject(), 1).unwrap();
    }
    assert!(l.track_subject(t(0), t(0), batch[4].subject(), 1).is_err(), "5 tracked twice");
    assert_eq!(l.len(), 4);
    let committed: Vec<u64> = l.commit(1).iter().map(AckToken::stream_sequence).collect();
    assert_eq!(committed, [1, 4, 5, 6, 3], "by consumer sequence, then the skipped redelivery");
}
