//! An ordered read the session runs on its own: its consumer vanishes
//! (missed heartbeats, a failed create, a reconnect, a gap) and it is made
//! again from `handle_timeout` and the server's bytes alone, with no user
//! polling anything, resuming at the next stream sequence.

use super::*;
use crate::core::jetstream::api;
use crate::core::jetstream::ordered::{OrderedConfig, OrderedCursor};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

pub(super) const CREATE: &str = "$JS.API.CONSUMER.CREATE.S.";

/// The consumer `name`'s create answer.
pub(super) fn created(reply: &str, mux_sid: &str, name: &str) -> String {
    let body = format!(
        r#"{{"type":"io.nats.jetstream.api.v1.consumer_create_response","stream_name":"S","name":"{name}","config":{{"ack_policy":"none"}},"num_pending":0}}"#
    );
    format!("MSG {reply} {mux_sid} {}\r\n{body}\r\n", body.len())
}

/// The sid and inbox of the reader started on consumer `name`: its SUB and first pull.
pub(super) fn reader_of(written: &str, name: &str) -> (String, String) {
    let next = format!("PUB $JS.API.CONSUMER.MSG.NEXT.S.{name} ");
    let inbox = written.lines().find_map(|l| l.strip_prefix(&next)).expect("a pull").split(' ').next().expect("inbox");
    let sub = written.lines().find_map(|l| l.strip_prefix(&format!("SUB {inbox} "))).expect("its subscription");
    (sub.to_string(), inbox.to_string())
}

/// The muxed inbox's sid, from the SUB the first request wrote.
pub(super) fn mux_sid(written: &str) -> String {
    let line = written.lines().find(|l| l.starts_with("SUB _INBOX.") && l.contains(".* ")).expect("the muxed inbox");
    line.rsplit(' ').next().expect("its sid").to_string()
}

pub(super) fn message(sid: &str, inbox: &str, consumer: &str, sseq: u64, cseq: u64) -> String {
    format!("MSG {inbox} {sid} $JS.ACK.S.{consumer}.1.{sseq}.{cseq}.0.0 1\r\n{sseq}\r\n")
}

/// Moves the clock to the next deadline and fires it: why the session woke.
fn fire_next(pair: &mut Pair) -> Wake {
    let next = pair.session.poll_deadline().expect("armed");
    pair.now = pair.now.max(next.at);
    pair.session.handle_timeout(pair.now);
    pair.settle();
    next.reason
}

/// What the ordered read let through, in order, and whether it was re-made.
fn taken(pair: &mut Pair, id: OrderedId) -> (Vec<String>, usize) {
    let mut payloads = Vec::new();
    let mut recreated = 0;
    for event in pair.take_events() {
        match event {
            SessionEvent::Routed { to: Route::Ordered(i), item: Item::Message(message) } if i == id => {
                payloads.push(String::from_utf8(message.payload.to_vec()).expect("text"));
            }
            SessionEvent::Routed {
                to: Route::Ordered(i),
                item: Item::Consumer(ConsumerEvent::OrderedRecreated { .. }),
            } if i == id => {
                recreated += 1;
            }
            SessionEvent::Routed { to: Route::Ordered(_), item: Item::Failed(_) }
            | SessionEvent::Routed { to: Route::Ordered(_), item: Item::Ended } => panic!("the read ended"),
            _ => {}
        }
    }
    (payloads, recreated)
}

#[test]
fn an_unpolled_ordered_read_is_made_again_from_the_clock_and_resumes_without_gap_or_repeat() {
    let mut pair = Pair::connected();
    let cursor = OrderedCursor::new(OrderedConfig::default(), "U").expect("a valid prefix");
    let options = ConsumeOptions { max_messages: Some(10), ..ConsumeOptions::default() };
    let spec = OrderedSpec {
        api_prefix: "$JS.API".into(),
        stream: "S".into(),
        mode: OrderedMode::Consume(options),
        create_timeout: Duration::from_secs(5),
    };
    let id = pair.session.attach_ordered(pair.now, spec, cursor, None).expect("attached");
    pair.settle();
    let written = pair.take_written();
    let mux = mux_sid(&written);
    let reply = Pair::reply_to(&written, &format!("{CREATE}U_1"));
    pair.send(&created(&reply, &mux, "U_1"));
    let (sid, inbox) = reader_of(&pair.take_written(), "U_1");
    pair.send(&message(&sid, &inbox, "U_1", 1, 1));
    pair.send(&message(&sid, &inbox, "U_1", 2, 2));
    let (mut all, recreated) = taken(&mut pair, id);
    assert_eq!((all.clone(), recreated), (vec!["1".to_string(), "2".into()], 1));

    // The server goes silent: the heartbeat deadline retires the reader and
    // sends the next create, starting after sequence 2; it finds no responder.
    while !matches!(fire_next(&mut pair), Wake::Reader(..)) {}
    let written = pair.take_written();
    assert!(written.contains("PUB $JS.API.CONSUMER.DELETE.S.U_1 "), "the old consumer is deleted: {written}");
    assert!(written.contains(r#""opt_start_seq":3"#), "{written}");
    let reply = Pair::reply_to(&written, &format!("{CREATE}U_2"));
    pair.send(&format!("HMSG {reply} {mux} 16 16\r\nNATS/1.0 503\r\n\r\n\r\n"));
    assert!(pair.take_written().is_empty(), "the retry waits");

    // The retry runs from the session's deadline.
    assert_eq!(fire_next(&mut pair), Wake::Ordered(id, OrderedTimer::Retry));
    let written = pair.take_written();
    let reply = Pair::reply_to(&written, &format!("{CREATE}U_3"));
    assert!(written.contains(r#""opt_start_seq":3"#), "{written}");
    pair.send(&created(&reply, &mux, "U_3"));
    let (sid, inbox) = reader_of(&pair.take_written(), "U_3");
    pair.send(&message(&sid, &inbox, "U_3", 3, 1));
    let (items, recreated) = taken(&mut pair, id);
    assert_eq!(recreated, 1, "U_3 is reported");
    all.extend(items);

    // A reconnect: a memory consumer may be gone, so the next one is made.
    pair.reconnect();
    pair.settle();
    let written = pair.take_written();
    assert!(written.contains(r#""opt_start_seq":4"#), "{written}");
    let reply = Pair::reply_to(&written, &format!("{CREATE}U_4"));
    pair.send(&created(&reply, &mux, "U_4"));
    let (sid, inbox) = reader_of(&pair.take_written(), "U_4");
    pair.send(&message(&sid, &inbox, "U_4", 4, 1));
    // A gap (consumer sequence 2 went missing): dropped, and the next consumer resumes after 4.
    pair.send(&message(&sid, &inbox, "U_4", 6, 3));
    all.extend(taken(&mut pair, id).0);
    let written = pair.take_written();
    assert!(written.contains(&format!("{CREATE}U_5 ")) && written.contains(r#""opt_start_seq":5"#), "{written}");
    assert_eq!(all, ["1", "2", "3", "4"], "each message once, in order");

    // Its user stops: the cursor comes back where the session left it.
    let retired = pair.session.retire_ordered(id).expect("attached");
    let (cursor, current) = (retired.cursor, retired.current.map(|c| c.name));
    assert_eq!((cursor.stream_sequence(), current, retired.reusable), (4, Some("U_4".to_string()), false));
    assert!(!pair.session.poll_deadline().is_some_and(|d| matches!(d.reason, Wake::Ordered(..))));
}

#[test]
fn a_create_answered_with_the_servers_error_ends_the_read_in_its_word() {
    let mut pair = Pair::connected();
    let mut cursor = OrderedCursor::new(OrderedConfig::default(), "U").expect("a valid prefix");
    cursor.handle_created();
    cursor.end_without_stream();
    let spec = OrderedSpec {
        api_prefix: "$JS.API".into(),
        stream: "S".into(),
        mode: OrderedMode::Consume(ConsumeOptions::default()),
        create_timeout: Duration::from_secs(5),
    };
    let id = pair.session.attach_ordered(pair.now, spec, cursor, None).expect("attached");
    pair.settle();
    let written = pair.take_written();
    let reply = Pair::reply_to(&written, &format!("{CREATE}U_1"));
    let body = r#"{"type":"io.nats.jetstream.api.v1.consumer_create_response","error":{"code":404,"err_code":10059,"description":"stream not found"}}"#;
    pair.send(&format!("MSG {reply} {} {}\r\n{body}\r\n", mux_sid(&written), body.len()));
    let events = pair.take_events();
    assert!(
        matches!(events.as_slice(), [
            SessionEvent::Routed { to: Route::Ordered(_), item: Item::Failed(Error::JetStream(e)) },
            SessionEvent::Routed { to: Route::Ordered(ended), item: Item::Ended },
        ] if e.err_code == api::ErrorCode::STREAM_NOT_FOUND && *ended == id),
        "{events:?}"
    );
    assert!(!pair.session.poll_deadline().is_some_and(|d| matches!(d.reason, Wake::Ordered(..))), "no retry");
}
