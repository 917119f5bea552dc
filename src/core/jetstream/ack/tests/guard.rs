//! Guardrails for shared durables and checkpoint acking.

use std::time::Duration;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::core::error::Error;
use crate::core::jetstream::ack::{LedgerWarning, check_config_drift, check_ledger_fit, check_shared_durable};
use crate::core::jetstream::api::{AckPolicy, ConsumerConfig};

/// A consumer as the server reports it, with `max_ack_pending` and `ack_wait`.
fn config(max_ack_pending: i64, ack_wait: Duration) -> ConsumerConfig {
    ConsumerConfig { max_ack_pending, ack_wait, max_deliver: -1, max_waiting: 512, ..Default::default() }
}

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
    assert!(check_ledger_fit(&config(1_000, secs(60)), 4, 100, secs(30)).is_empty());
    assert!(check_ledger_fit(&config(-1, secs(60)), 100, 1_000, secs(30)).is_empty(), "no limit");
    let warnings = check_ledger_fit(&config(1_000, secs(30)), 4, 500, secs(60));
    assert_eq!(
        warnings,
        [
            LedgerWarning::MaxAckPendingTooSmall { max_ack_pending: 1_000, needed: 2_000 },
            LedgerWarning::AckWaitShorterThanCheckpoint { ack_wait: secs(30), checkpoint_interval: secs(60) },
        ]
    );
    assert!(warnings[1].to_string().contains("+WPI"));
}

#[test]
fn flags_limits_that_drop_messages_or_idle_workers() {
    let secs = Duration::from_secs;
    let risky = ConsumerConfig { max_deliver: 5, max_waiting: 2, ..config(1_000, secs(60)) };
    assert_eq!(
        check_ledger_fit(&risky, 4, 100, secs(30)),
        [
            LedgerWarning::MaxDeliverFinite { max_deliver: 5 },
            LedgerWarning::MaxWaitingBelowWorkers { max_waiting: 2, workers: 4 }
        ]
    );
}

#[test]
fn reports_what_the_existing_durable_sets_otherwise() {
    let secs = Duration::from_secs;
    let existing = ConsumerConfig {
        filter_subjects: vec!["b.>".into(), "a.>".into()],
        backoff: vec![secs(1), secs(5)],
        ..config(1_000, secs(30))
    };
    let same = ConsumerConfig { filter_subjects: vec!["a.>".into(), "b.>".into()], ..existing.clone() };
    assert!(check_config_drift(&existing, &same).is_empty(), "filter order does not matter");
    let unset = ConsumerConfig { filter_subjects: same.filter_subjects.clone(), ..Default::default() };
    assert!(check_config_drift(&existing, &unset).is_empty(), "defaults leave the choice to the server");
    let wanted = ConsumerConfig {
        ack_wait: secs(60),
        max_ack_pending: 5_000,
        max_deliver: 3,
        backoff: vec![secs(2)],
        filter_subject: "a.>".into(),
        ..Default::default()
    };
    let fields: Vec<_> = check_config_drift(&existing, &wanted)
        .into_iter()
        .map(|w| match w {
            LedgerWarning::ConfigDiffers { field, existing, wanted } => format!("{field}: {existing} -> {wanted}"),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        fields,
        [
            "ack_wait: 30000ms -> 60000ms",
            "max_ack_pending: 1000 -> 5000",
            "max_deliver: -1 -> 3",
            "backoff: [1000ms, 5000ms] -> [2000ms]",
            r#"filter: ["b.>", "a.>"] -> ["a.>"]"#,
        ]
    );
}
