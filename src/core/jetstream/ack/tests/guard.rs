//! Guardrails for shared durables and checkpoint acking.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::core::error::Error;
use crate::core::jetstream::ack::{LedgerWarning, check_ledger_fit, check_shared_durable};
use crate::core::jetstream::api::AckPolicy;

#[test]
fn shared_durables_need_explicit_acks() {
    assert!(check_shared_durable(AckPolicy::Explicit, 8).is_ok());
    assert!(check_shared_durable(AckPolicy::All, 1).is_ok());
    assert!(check_shared_durable(AckPolicy::None, 1).is_ok());
    let Err(Error::InvalidArgument(why)) = check_shared_durable(AckPolicy::All, 2) else { panic!() };
    assert!(why.contains("ack floor"), "{why}");
    assert!(matches!(check_shared_durable(AckPolicy::None, 3), Err(Error::InvalidArgument(_))));
}

#[test]
fn flags_settings_that_stall_or_storm() {
    let secs = Duration::from_secs;
    assert!(check_ledger_fit(1_000, 4, 100, secs(60), secs(30)).is_empty());
    assert!(check_ledger_fit(-1, 100, 1_000, secs(60), secs(30)).is_empty(), "no limit");
    let warnings = check_ledger_fit(1_000, 4, 500, secs(30), secs(60));
    assert_eq!(
        warnings,
        [
            LedgerWarning::MaxAckPendingTooSmall { max_ack_pending: 1_000, needed: 2_000 },
            LedgerWarning::AckWaitShorterThanCheckpoint { ack_wait: secs(30), checkpoint_interval: secs(60) },
        ]
    );
    assert!(warnings[1].to_string().contains("+WPI"));
}
