//! Requests over the muxed inbox.

use super::*;
use crate::core::conn::{RequestId, State};
use crate::core::error::{PermissionOp, ServerError};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn responses(events: &[Event]) -> Vec<(RequestId, Result<String, Error>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Response { id, result } => {
                Some((*id, result.clone().map(|m| String::from_utf8(m.payload.to_vec()).unwrap())))
            }
            _ => None,
        })
        .collect()
}

/// The muxed SUB and the request's PUB, from the client's output.
fn sent_request(ops: &[ClientOp]) -> (String, u64, String) {
    let mut mux = None;
    let mut reply = None;
    for op in ops {
        match op {
            ClientOp::Sub { subject, sid, .. } => mux = Some((subject.clone(), *sid)),
            ClientOp::Pub { reply: Some(r), .. } => reply = Some(r.clone()),
            _ => {}
        }
    }
    let (subject, sid) = mux.expect("a SUB for the muxed inbox");
    (subject, sid, reply.expect("a PUB with a reply"))
}

#[test]
fn request_uses_one_muxed_inbox_and_gets_its_response() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let first = s.conn.request("svc.echo", None, b"ping").unwrap();
    let (mux, sid, reply1) = sent_request(&s.take_ops());
    assert!(mux.starts_with("_INBOX.") && mux.ends_with(".*"), "{mux}");
    assert_eq!(mux.split('.').count(), 3);
    assert!(reply1.starts_with(mux.trim_end_matches('*')), "{reply1} under {mux}");

    let second = s.conn.request("svc.echo", None, b"pong").unwrap();
    let ops = s.take_ops();
    let [ClientOp::Pub { subject, reply: Some(reply2), payload, .. }] = ops.as_slice() else { panic!("{ops:?}") };
    assert_eq!((subject.as_str(), payload.as_slice()), ("svc.echo", &b"pong"[..]));
    assert_ne!(&reply1, reply2);

    s.send(&(msg(reply2, sid, None, "two") + &msg(&reply1, sid, None, "one") + &msg(&reply1, sid, None, "again")));
    assert_eq!(responses(&s.take_events()), [(second, Ok("two".into())), (first, Ok("one".into()))]);
}

#[test]
fn no_responders_status_becomes_an_error() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let id = s.conn.request("nobody.home", None, b"").unwrap();
    let (_, sid, reply) = sent_request(&s.take_ops());
    s.send(&status_msg(&reply, sid, 503));
    assert_eq!(responses(&s.take_events()), [(id, Err(Error::NoResponders))]);
}

#[test]
fn cancelled_and_unknown_replies_are_dropped() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let id = s.conn.request("svc", None, b"").unwrap();
    let (mux, sid, reply) = sent_request(&s.take_ops());
    s.conn.cancel_request(id);
    let base = mux.trim_end_matches('*');
    s.send(
        &(msg(&reply, sid, None, "late")
            + &msg(&format!("{base}999"), sid, None, "x")
            + &msg(&format!("{base}abc"), sid, None, "y")),
    );
    assert!(s.take_events().is_empty());
}

#[test]
fn requests_made_while_disconnected_wait_for_the_handshake() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let before = s.conn.request("svc", None, b"1").unwrap();
    let (mux, sid, _) = sent_request(&s.take_ops());
    s.lose(None);
    let during = s.conn.request("svc", None, b"2").unwrap();
    s.advance(2100);
    let handshake = s.handshake(INFO);
    assert_eq!(handshake[1..], [ClientOp::sub(&mux, sid), ClientOp::Ping], "the muxed inbox is resubscribed");
    let ops = s.take_ops();
    let [ClientOp::Pub { reply: Some(reply), payload, .. }] = ops.as_slice() else { panic!("{ops:?}") };
    assert_eq!(payload, b"2");
    s.send(&msg(reply, sid, None, "ok"));
    assert_eq!(responses(&s.take_events()), [(during, Ok("ok".into()))]);
    s.conn.close(s.now);
    s.drive();
    s.lose(None);
    assert_eq!(responses(&s.take_events()), [(before, Err(Error::Closed))], "unanswered requests fail on close");
}

#[test]
fn custom_inbox_prefix() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.inbox_prefix = "_I.me".into();
    let mut s = FakeServer::connected(cfg);
    assert!(s.conn.new_inbox().starts_with("_I.me."));
    s.conn.request("svc", None, b"").unwrap();
    let (mux, _, reply) = sent_request(&s.take_ops());
    assert!(mux.starts_with("_I.me.") && reply.starts_with("_I.me."), "{mux} {reply}");
}

#[test]
fn the_request_inbox_cannot_be_unsubscribed_by_hand() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    s.conn.request("svc", None, b"").unwrap();
    let (_, sid, _) = sent_request(&s.take_ops());
    let err = s.conn.unsubscribe(crate::core::conn::Sid(sid), None).unwrap_err();
    assert!(matches!(err, Error::ApiMisuse(_)));
}

#[test]
fn invalid_request_subject_writes_nothing() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    assert!(matches!(s.conn.request("a b", None, b""), Err(Error::InvalidSubject { .. })));
    assert!(s.take_ops().is_empty(), "not even the muxed SUB");
}

#[test]
fn a_request_for_many_gets_every_reply_until_cancelled() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let many = s.conn.request_many("svc.all", None, b"who").unwrap();
    let (_, sid, reply) = sent_request(&s.take_ops());
    let one = s.conn.request("svc.one", None, b"").unwrap();
    let ops = s.take_ops();
    let [ClientOp::Pub { reply: Some(reply_one), .. }] = ops.as_slice() else { panic!("{ops:?}") };
    s.send(&(msg(&reply, sid, None, "a") + &msg(reply_one, sid, None, "x") + &msg(&reply, sid, None, "b")));
    assert_eq!(responses(&s.take_events()), [(many, Ok("a".into())), (one, Ok("x".into())), (many, Ok("b".into()))]);
    s.conn.cancel_request(many);
    s.send(&msg(&reply, sid, None, "c"));
    assert!(s.take_events().is_empty());
}

fn violation(operation: PermissionOp, subject: &str) -> Error {
    let what = match operation {
        PermissionOp::Publish => "Publish",
        PermissionOp::Subscribe => "Subscription",
    };
    Error::Server(ServerError::from_message(&format!("Permissions Violation for {what} to \"{subject}\"")))
}

#[test]
fn a_refused_publish_fails_the_requests_to_its_subject_at_once() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let first = s.conn.request("secret.x", None, b"1").unwrap();
    let (_, sid, _) = sent_request(&s.take_ops());
    let other = s.conn.request("open.x", None, b"").unwrap();
    let prefix = s.conn.request("secret", None, b"").unwrap();
    let many = s.conn.request_many("secret.x", None, b"2").unwrap();
    let ops = s.take_ops();
    let [ClientOp::Pub { reply: Some(other_reply), .. }, _, _] = ops.as_slice() else { panic!("{ops:?}") };

    s.send("-ERR 'Permissions Violation for Publish to \"secret.x\"'");
    let events = s.take_events();
    let refused = violation(PermissionOp::Publish, "secret.x");
    assert_eq!(
        responses(&events),
        [(first, Err(refused.clone())), (many, Err(refused.clone()))],
        "every request to exactly that subject, the one for many replies too"
    );
    assert_eq!(events.last(), Some(&Event::Connection(ConnectionEvent::ServerError(refused))), "still reported");
    assert_eq!(s.conn.state(), State::Connected);

    // The others stay pending and get their answers; the refused ones are forgotten.
    s.send("-ERR 'Permissions Violation for Publish to \"secret.x\"'");
    assert!(responses(&s.take_events()).is_empty(), "a second -ERR fails nothing more");
    s.send(&msg(other_reply, sid, None, "fine"));
    assert_eq!(responses(&s.take_events()), [(other, Ok("fine".into()))]);
    s.send("-ERR 'Permissions Violation for Publish to \"secret\"'");
    assert_eq!(responses(&s.take_events()), [(prefix, Err(violation(PermissionOp::Publish, "secret")))]);
}

#[test]
fn a_refused_subscription_fails_no_request() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let id = s.conn.request("secret.x", None, b"").unwrap();
    let (_, sid, reply) = sent_request(&s.take_ops());
    s.send("-ERR 'Permissions Violation for Subscription to \"secret.x\"'");
    let events = s.take_events();
    assert!(responses(&events).is_empty(), "{events:?}");
    assert_eq!(
        events,
        [Event::Connection(ConnectionEvent::ServerError(violation(PermissionOp::Subscribe, "secret.x")))]
    );
    s.send(&msg(&reply, sid, None, "late but fine"));
    assert_eq!(responses(&s.take_events()), [(id, Ok("late but fine".into()))]);
}

#[test]
fn a_refusal_split_across_reads_fails_the_request() {
    let mut s = FakeServer::connected(config(&["nats://a:4222"]));
    let id = s.conn.request("$JS.API.CONSUMER.CREATE.S.C", None, b"{}").unwrap();
    s.take_ops();
    let line = "-ERR 'Permissions Violation for Publish to \"$JS.API.CONSUMER.CREATE.S.C\"'";
    let (a, b) = line.split_at(20);
    s.send_partial(a.as_bytes());
    assert!(responses(&s.take_events()).is_empty());
    s.send(b);
    assert_eq!(
        responses(&s.take_events()),
        [(id, Err(violation(PermissionOp::Publish, "$JS.API.CONSUMER.CREATE.S.C")))]
    );
}
