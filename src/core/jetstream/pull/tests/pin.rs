//! Pinned-client priority groups (ADR-42): the pin id is learnt from
//! `Nats-Pin-Id`, echoed as `id`, and dropped on 423.

use super::*;
use crate::core::jetstream::pull::{ConsumeOptions, ConsumerEvent::*, FetchEnd, FetchOptions, PriorityOptions};
use crate::core::machine::Machine;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn pinned_user(id: &str) -> Message {
    let mut m = user(10);
    m.headers = Some([("Nats-Pin-Id", id)].into_iter().collect());
    m
}

fn group() -> Option<PriorityOptions> {
    Some(PriorityOptions { group: "jobs".into(), ..PriorityOptions::default() })
}

#[test]
fn pin_id_is_echoed_then_cleared_on_423() {
    let options = ConsumeOptions { max_messages: Some(2), priority: group(), ..ConsumeOptions::default() };
    let mut c = PullConsumer::consume(t(0), options).unwrap();
    let [first] = pulls(&mut c).try_into().unwrap();
    assert_eq!((first.group.as_deref(), first.id), (Some("jobs"), None));
    c.handle_input(t(1), &pinned_user("PIN1"));
    assert_eq!(events(&mut c), [Pinned { id: "PIN1".into() }]);
    assert_eq!(c.pin_id(), Some("PIN1"));
    let [refill] = pulls(&mut c).try_into().unwrap();
    assert_eq!(refill.id.as_deref(), Some("PIN1"));
    // The same pin again is no news.
    c.handle_input(t(2), &pinned_user("PIN1"));
    assert!(events(&mut c).is_empty());
    let _ = pulls(&mut c);
    // The server moved the pin elsewhere: our pulls are refused.
    c.handle_input(t(3), &status(423, "Nats-Pin-Id mismatch"));
    assert_eq!(events(&mut c), [PinIdMismatch]);
    assert_eq!(c.pin_id(), None);
    let [unpinned] = pulls(&mut c).try_into().unwrap();
    assert_eq!(unpinned.id, None, "pulls again at once, unpinned");
}

#[test]
fn fetch_starts_from_a_known_pin_and_ends_on_423() {
    let priority = PriorityOptions { pin_id: Some("OLD".into()), ..group().unwrap() };
    let options = FetchOptions { priority: Some(priority), ..FetchOptions::messages(5) };
    let mut c = PullConsumer::fetch(t(0), options).unwrap();
    assert_eq!(pulls(&mut c)[0].id.as_deref(), Some("OLD"));
    c.handle_input(t(1), &status_pending(423, "Nats-Wrong-Pin-Id", 5, 0));
    let [PinIdMismatch, FetchDone(FetchEnd::Status(_))] = &events(&mut c)[..] else { panic!() };
    assert_eq!(c.pin_id(), None);
}

#[test]
fn priority_out_of_range_is_refused() {
    let priority = PriorityOptions { priority: Some(10), ..group().unwrap() };
    let options = ConsumeOptions { priority: Some(priority), ..ConsumeOptions::default() };
    assert!(PullConsumer::consume(t(0), options).is_err());
}
