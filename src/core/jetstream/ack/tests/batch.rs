//! AckBatch: one final ack per delivery, and the plan per ack policy.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;
use crate::core::error::Error;
use crate::core::jetstream::ack::{Ack, AckBatch};
use crate::core::jetstream::api::AckPolicy;

#[test]
fn a_second_final_ack_is_an_error_not_a_resend() {
    let mut batch = AckBatch::new();
    batch.ack(token("S", "C", 1, 1)).unwrap();
    let again = batch.add(token("S", "C", 1, 1), Ack::Term(None));
    assert!(matches!(again, Err(Error::InvalidArgument(_))));
    // Progress after a final ack is ignored (ADR-15).
    batch.add(token("S", "C", 1, 1), Ack::Progress).unwrap();
    assert_eq!(batch.len(), 1);
    assert_eq!(batch.plan(AckPolicy::Explicit)[0].body, "+ACK".as_bytes());
}

#[test]
fn a_final_ack_replaces_progress() {
    let mut batch = AckBatch::new();
    batch.add(token("S", "C", 1, 1), Ack::Progress).unwrap();
    batch.add(token("S", "C", 1, 1), Ack::Progress).unwrap();
    batch.add(token("S", "C", 1, 1), Ack::Nak(Some(Duration::from_secs(1)))).unwrap();
    let plan = batch.plan(AckPolicy::Explicit);
    assert_eq!(plan.len(), 1);
    assert!(plan[0].body.starts_with(b"-NAK"));
}

#[test]
fn redeliveries_are_distinct_deliveries() {
    let mut batch = AckBatch::new();
    batch.ack(token("S", "C", 1, 1)).unwrap();
    batch.ack(token("S", "C", 1, 2)).unwrap();
    assert_eq!(batch.len(), 2);
}

#[test]
fn next_cannot_be_batched() {
    assert!(AckBatch::new().add(token("S", "C", 1, 1), Ack::Next(None)).is_err());
}

#[test]
fn explicit_plans_one_publish_per_delivery_in_order() {
    let mut batch = AckBatch::new();
    batch.ack(token("S", "C", 3, 3)).unwrap();
    batch.add(token("S", "C", 1, 1), Ack::Term(Some("bad".into()))).unwrap();
    let plan = batch.plan(AckPolicy::Explicit);
    let subjects: Vec<_> = plan.iter().map(|p| p.subject.as_str()).collect();
    assert_eq!(subjects, [token("S", "C", 3, 3).subject(), token("S", "C", 1, 1).subject()]);
    assert_eq!(plan[1].body, "+TERM bad".as_bytes());
    assert!(plan.iter().all(|p| p.tokens.len() == 1));
}

#[test]
fn ack_all_collapses_to_the_highest_sequence_per_consumer() {
    let mut batch = AckBatch::new();
    for (consumer, sseq) in [("A", 5), ("A", 9), ("B", 2), ("A", 7), ("B", 4)] {
        batch.ack(token("S", consumer, sseq, sseq)).unwrap();
    }
    batch.add(token("S", "A", 1, 1), Ack::Nak(None)).unwrap();
    let plan = batch.plan(AckPolicy::All);
    assert_eq!(plan.len(), 3);
    assert_eq!(plan[0].body, "-NAK".as_bytes(), "other kinds first, one by one");
    assert_eq!(plan[1].subject, token("S", "A", 9, 9).subject());
    assert_eq!(plan[1].tokens.len(), 3, "settles every +ACK of A");
    assert_eq!(plan[2].subject, token("S", "B", 4, 4).subject());
    assert_eq!(plan[2].tokens.len(), 2);
}

#[test]
fn ack_none_sends_nothing() {
    let mut batch = AckBatch::new();
    batch.ack(token("S", "C", 1, 1)).unwrap();
    assert!(batch.plan(AckPolicy::None).is_empty());
}
