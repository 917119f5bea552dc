//! Confirmations of acks sent as requests, sorted on a fake clock.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use bytes::Bytes;

use super::*;
use crate::core::header::StatusCode;
use crate::core::jetstream::ack::{AckBatch, AckConfirmations};
use crate::core::jetstream::api::AckPolicy;
use crate::core::message::Message;

fn reply(payload: &'static [u8], status: Option<(u16, &str)>) -> Message {
    Message {
        subject: "_INBOX.x.1".into(),
        reply: None,
        payload: Bytes::from_static(payload),
        headers: None,
        status: status.map(|(c, _)| StatusCode(c)),
        description: status.map(|(_, d)| d.to_string()),
        length: payload.len(),
    }
}

#[test]
fn sorts_confirmed_refused_and_unconfirmed() {
    let mut batch = AckBatch::new();
    for seq in 1..=5 {
        batch.ack(token("S", "C", seq, seq)).unwrap();
    }
    let plan = batch.plan(AckPolicy::Explicit);
    let mut confirmations = AckConfirmations::new(t(0), Duration::from_secs(5));
    for (id, ack) in plan.iter().enumerate() {
        confirmations.sent(id as u64, ack);
    }
    assert_eq!(confirmations.poll_timeout(), Some(t(5_000)));
    confirmations.handle_reply(0, &reply(b"", None));
    confirmations.handle_reply(1, &reply(b"", Some((503, ""))));
    confirmations.handle_reply(2, &reply(b"{\"error\":\"nope\"}", None));
    confirmations.handle_reply(2, &reply(b"", None)); // duplicate: ignored
    confirmations.handle_reply(99, &reply(b"", None)); // unknown: ignored
    confirmations.handle_timeout(t(4_999));
    assert!(!confirmations.is_done());
    confirmations.handle_timeout(t(5_000));
    assert!(confirmations.is_done());
    assert_eq!(confirmations.poll_timeout(), None);
    let report = confirmations.into_report();
    assert_eq!(report.confirmed, [token("S", "C", 1, 1)]);
    assert_eq!(report.unconfirmed, [token("S", "C", 2, 2), token("S", "C", 4, 4), token("S", "C", 5, 5)]);
    assert_eq!(report.refused, [(token("S", "C", 3, 3), "{\"error\":\"nope\"}".to_string())]);
}

#[test]
fn a_collapsed_ack_all_confirms_every_delivery_it_covers() {
    let mut batch = AckBatch::new();
    batch.ack(token("S", "C", 1, 1)).unwrap();
    batch.ack(token("S", "C", 2, 2)).unwrap();
    let [ack] = batch.plan(AckPolicy::All).try_into().unwrap();
    let mut confirmations = AckConfirmations::new(t(0), Duration::from_secs(1));
    confirmations.sent(7, &ack);
    confirmations.handle_reply(7, &reply(b"", Some((409, "Consumer Deleted"))));
    let report = confirmations.report();
    assert_eq!(report.refused.len(), 2);
    assert_eq!(report.refused[0].1, "409 Consumer Deleted");
}
