//! Ack bodies as processAck reads them.

use std::time::Duration;

use crate::core::jetstream::ack::AckKind;
use crate::core::jetstream::pull::PullRequest;

#[test]
fn bodies() {
    let cases = [
        (AckKind::Ack, "+ACK"),
        (AckKind::Nak(None), "-NAK"),
        (AckKind::Nak(Some(Duration::from_secs(5))), r#"-NAK {"delay":5000000000}"#),
        (AckKind::Progress, "+WPI"),
        (AckKind::Term(None), "+TERM"),
        (AckKind::Term(Some(String::new())), "+TERM"),
        (AckKind::Term(Some("bad payload".into())), "+TERM bad payload"),
        (AckKind::Next(None), "+NXT"),
        (AckKind::Next(Some(PullRequest { batch: 5, ..Default::default() })), r#"+NXT {"batch":5}"#),
    ];
    for (kind, body) in cases {
        assert_eq!(kind.body(), body.as_bytes(), "{kind:?}");
    }
}

#[test]
fn only_progress_is_not_final() {
    assert!(!AckKind::Progress.is_final());
    for kind in [AckKind::Ack, AckKind::Nak(None), AckKind::Term(None), AckKind::Next(None)] {
        assert!(kind.is_final(), "{kind:?}");
    }
}
