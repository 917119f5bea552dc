//! The subscription table: SUB/UNSUB, delivery, limits, resubscription.

use super::*;
use crate::core::conn::Sid;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn messages(events: &[Event]) -> Vec<(Sid, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Message { sid, message } => Some((*sid, String::from_utf8(message.payload.to_vec()).unwrap())),
            _ => None,
        })
        .collect()
}

fn ended(events: &[Event]) -> Vec<Sid> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::SubscriptionEnded { sid } => Some(*sid),
            _ => None,
        })
        .collect()
}

#[test]
fn subscribe_writes_sub_and_delivers_messages() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let a = s.conn.subscribe("a.*", None).unwrap();
    let b = s.conn.subscribe("b", Some("q")).unwrap();
    assert_ne!(a, b);
    assert_eq!(
        s.take_ops(),
        [ClientOp::sub("a.*", a.0), ClientOp::Sub { subject: "b".into(), queue: Some("q".into()), sid: b.0 }]
    );
    s.send(&(msg("a.x", a.0, Some("r"), "hello") + &msg("b", b.0, None, "") + &msg("zzz", 99, None, "lost")));
    let events = s.take_events();
    assert_eq!(messages(&events), [(a, "hello".into()), (b, String::new())]);
    let Event::Message { message, .. } = &events[0] else { panic!() };
    assert_eq!((message.subject.as_str(), message.reply.as_deref()), ("a.x", Some("r")));
    let stats = s.conn.statistics();
    assert_eq!((stats.in_messages, stats.in_bytes), (3, 9), "unknown sids still count as received");
}

#[test]
fn invalid_subjects_and_queues_write_nothing() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    for (subject, queue) in [("a b", None), ("a.>.b", None), ("", None), ("a", Some("q q")), ("a", Some(""))] {
        assert!(matches!(s.conn.subscribe(subject, queue), Err(Error::InvalidSubject { .. })), "{subject:?} {queue:?}");
    }
    assert!(s.take_ops().is_empty());
}

#[test]
fn unsubscribe_writes_unsub_and_ends_the_subscription() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    s.take_ops();
    s.conn.unsubscribe(sid, None).unwrap();
    assert_eq!(s.take_ops(), [ClientOp::unsub(sid.0, None)]);
    assert_eq!(ended(&s.take_events()), [sid]);
    s.send(&msg("a", sid.0, None, "late"));
    assert!(s.take_events().is_empty(), "messages in flight are dropped");
    s.conn.unsubscribe(sid, None).unwrap();
    assert!(s.take_ops().is_empty() && s.take_events().is_empty(), "a second unsubscribe is a no-op");
}

#[test]
fn unsubscribe_after_n_messages() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    s.send(&msg("a", sid.0, None, "1"));
    s.conn.unsubscribe(sid, Some(3)).unwrap();
    assert_eq!(s.take_ops(), [ClientOp::sub("a", sid.0), ClientOp::unsub(sid.0, Some(3))]);
    s.send(&(msg("a", sid.0, None, "2") + &msg("a", sid.0, None, "3") + &msg("a", sid.0, None, "4")));
    let events = s.take_events();
    assert_eq!(messages(&events), [(sid, "1".into()), (sid, "2".into()), (sid, "3".into())]);
    assert_eq!(ended(&events), [sid]);
    assert!(matches!(events.last(), Some(Event::SubscriptionEnded { .. })), "ends right after its last message");
}

#[test]
fn a_limit_already_reached_ends_at_once() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    s.send(&(msg("a", sid.0, None, "1") + &msg("a", sid.0, None, "2")));
    s.take_events();
    s.take_ops();
    s.conn.unsubscribe(sid, Some(2)).unwrap();
    assert_eq!(s.take_ops(), [ClientOp::unsub(sid.0, None)]);
    assert_eq!(ended(&s.take_events()), [sid]);
}

#[test]
fn reconnect_resubscribes_with_the_remaining_count() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let plain = s.conn.subscribe("p", Some("q")).unwrap();
    let limited = s.conn.subscribe("l", None).unwrap();
    let gone = s.conn.subscribe("g", None).unwrap();
    s.conn.unsubscribe(limited, Some(5)).unwrap();
    s.conn.unsubscribe(gone, None).unwrap();
    s.send(&(msg("l", limited.0, None, "1") + &msg("l", limited.0, None, "2")));
    let handshake = s.reconnect();
    assert_eq!(
        handshake[1..],
        [
            ClientOp::Sub { subject: "p".into(), queue: Some("q".into()), sid: plain.0 },
            ClientOp::sub("l", limited.0),
            ClientOp::unsub(limited.0, Some(3)),
            ClientOp::Ping,
        ]
    );
    s.take_events();
    s.send(&(msg("l", limited.0, None, "3") + &msg("l", limited.0, None, "4") + &msg("l", limited.0, None, "5")));
    assert_eq!(ended(&s.take_events()), [limited]);
}

#[test]
fn limit_set_after_reconnect_counts_from_the_new_sub() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    s.send(&(msg("a", sid.0, None, "1") + &msg("a", sid.0, None, "2")));
    s.reconnect();
    s.take_ops();
    s.conn.unsubscribe(sid, Some(5)).unwrap();
    assert_eq!(s.take_ops(), [ClientOp::unsub(sid.0, Some(3))], "the server counts from the new SUB");
}

#[test]
fn subscriptions_made_while_disconnected_are_sent_once_at_the_handshake() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    let ops = s.handshake(INFO);
    assert_eq!(ops[1..], [ClientOp::sub("a", sid.0), ClientOp::Ping]);
    assert!(s.take_ops().is_empty(), "not again after the PONG");
}

#[test]
fn subscribing_during_the_handshake_is_not_lost() {
    let mut s = FakeServer::new(config(&["nats://a:4222"]));
    s.expect_connect();
    s.open();
    s.send(INFO);
    s.take_ops();
    let sid = s.conn.subscribe("late", None).unwrap();
    assert_eq!(s.take_ops(), [ClientOp::sub("late", sid.0)]);
}

#[test]
fn a_draining_subscription_still_delivers_in_flight_messages() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    s.take_ops();
    s.conn.drain_subscription(sid).unwrap();
    s.conn.drain_subscription(sid).unwrap();
    assert_eq!(s.take_ops(), [ClientOp::unsub(sid.0, None)], "one UNSUB, however often drained");
    // Sent by the server before it processed the UNSUB: still delivered.
    s.send(&msg("a", sid.0, None, "in flight"));
    assert_eq!(messages(&s.take_events()), [(sid, "in flight".into())]);
    // Ending it writes nothing more.
    s.conn.unsubscribe(sid, None).unwrap();
    assert!(s.take_ops().is_empty());
    assert_eq!(ended(&s.take_events()), [sid]);
}

#[test]
fn a_draining_subscription_is_not_renewed_after_a_reconnect() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let sid = s.conn.subscribe("a", None).unwrap();
    let kept = s.conn.subscribe("b", None).unwrap();
    s.conn.drain_subscription(sid).unwrap();
    let ops = s.reconnect();
    assert!(ops.contains(&ClientOp::sub("b", kept.0)), "{ops:?}");
    assert!(!ops.contains(&ClientOp::sub("a", sid.0)), "{ops:?}");
}
