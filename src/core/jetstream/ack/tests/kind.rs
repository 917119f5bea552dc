//! Ack bodies as processAck reads them.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::core::jetstream::ack::Ack;
use crate::core::jetstream::pull::PullRequest;

#[test]
fn bodies() {
    let cases = [
        (Ack::Ack, "+ACK"),
        (Ack::Nak(None), "-NAK"),
        (Ack::Nak(Some(Duration::from_secs(5))), r#"-NAK {"delay":5000000000}"#),
        (Ack::Progress, "+WPI"),
        (Ack::Term(None), "+TERM"),
        (Ack::Term(Some(String::new())), "+TERM"),
        (Ack::Term(Some("bad payload".into())), "+TERM bad payload"),
        (Ack::Next(None), "+NXT"),
        (Ack::Next(Some(PullRequest { batch: 5, ..Default::default() })), r#"+NXT {"batch":5}"#),
    ];
    for (kind, body) in cases {
        assert_eq!(kind.body(), body.as_bytes(), "{kind:?}");
    }
}

#[test]
fn only_progress_is_not_final() {
    assert!(!Ack::Progress.is_final());
    for kind in [Ack::Ack, Ack::Nak(None), Ack::Term(None), Ack::Next(None)] {
        assert!(kind.is_final(), "{kind:?}");
    }
}
