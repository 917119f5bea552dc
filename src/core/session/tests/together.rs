//! Every kind of machine on one session at once — a pull reader, a push
//! reader, an ordered read and a checkpoint ledger over the connection —
//! through a reconnect, a consumer leader change and a consumer deletion,
//! on scripted bytes and the fake clock: each keeps its own messages, its
//! timers fire from the one deadline, and what befalls one leaves the
//! others reading.

use std::sync::Arc;

use super::ordered::{CREATE, created, message, mux_sid, reader_of};
use super::*;
use crate::core::jetstream::ordered::{OrderedConfig, OrderedCursor};
use crate::core::jetstream::push::{PushInbox, PushOptions};
use crate::core::jetstream::read_mark::ReadMark;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The push reader's deliver subject.
const PUSH: &str = "push.d";
const HEARTBEAT: Duration = Duration::from_secs(5);

fn push_message(sid: Sid, sseq: u64) -> String {
    format!("MSG {PUSH} {} $JS.ACK.S.P.1.{sseq}.{sseq}.0.0 1\r\np\r\n", sid.0)
}

fn push_status(sid: Sid, reply: Option<&str>, description: &str) -> String {
    let headers = format!("NATS/1.0 100 {description}\r\n\r\n");
    let reply = reply.map(|r| format!("{r} ")).unwrap_or_default();
    format!("HMSG {PUSH} {} {reply}{} {}\r\n{headers}\r\n", sid.0, headers.len(), headers.len())
}

/// The payloads of the user's messages of each reader, in order.
fn delivered(events: &[SessionEvent], pull: Sid, push: Sid, id: OrderedId) -> [Vec<String>; 3] {
    let text = |m: &Message| String::from_utf8(m.payload.to_vec()).expect("text");
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for event in events {
        match event {
            SessionEvent::Routed { to: Route::Reader(sid), item: Item::Message(message) } if *sid == pull => {
                out[0].push(text(message))
            }
            SessionEvent::Routed { to: Route::Reader(sid), item: Item::Message(message) } if *sid == push => {
                out[1].push(text(message))
            }
            SessionEvent::Routed { to: Route::Ordered(i), item: Item::Message(message) } if *i == id => {
                out[2].push(text(message))
            }
            SessionEvent::Routed { to: Route::Reader(_), item: Item::Message(_) }
            | SessionEvent::Routed { to: Route::Ordered(_), item: Item::Message(_) } => panic!("{event:?}"),
            _ => {}
        }
    }
    out
}

#[test]
fn pull_push_ordered_and_a_ledger_through_a_reconnect_a_leader_change_and_a_deletion() {
    let mut pair = Pair::connected();
    let pull = attach_pull(&mut pair);
    let mark = Arc::new(ReadMark::new());
    let push = pair.session.subscribe(PUSH, None).expect("a subject");
    let inbox = PushInbox::new(pair.now, Some(HEARTBEAT), PushOptions::default());
    let info = Some("$JS.API.CONSUMER.INFO.S.P".to_string());
    pair.session.attach_reader(push, Reader::push(inbox, info, mark.clone()));
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
    assert_eq!(pulls(&written), 1, "the pull reader's first pull");
    let mux = mux_sid(&written);
    pair.send(&created(&Pair::reply_to(&written, &format!("{CREATE}U_1")), &mux, "U_1"));
    let (ordered, ordered_inbox) = reader_of(&pair.take_written(), "U_1");
    pair.take_events();

    // One read carries a message for each; a ledger holds the pull reader's.
    pair.send(&format!(
        "MSG orders {} $JS.ACK.S.C.1.7.7.0.0 1\r\na\r\n{}{}",
        pull.0,
        push_message(push, 1),
        message(&ordered, &ordered_inbox, "U_1", 1, 1)
    ));
    let mut all = delivered(&pair.take_events(), pull, push, id);
    assert_eq!(all, [vec!["a"], vec!["p"], vec!["1"]]);
    let ledger = pair.track_one();

    // The push consumer's server waits for flow control: the reply waits
    // for its user to take what came before.
    pair.send(&push_status(push, Some("$JS.FC.P.1"), "FlowControl Request"));
    assert!(!pair.take_written().contains("$JS.FC.P.1"), "held until the message before is taken");
    assert!(mark.take_one(), "the user is told to report");
    assert!(pair.session.reader_taken(pair.now, push, 1, 1));
    pair.settle();
    assert!(pair.take_written().contains("PUB $JS.FC.P.1 0\r\n\r\n"), "answered once taken");

    // A reconnect: the pull reader pulls again, the ordered read makes its
    // next consumer after sequence 1, the push reader watches afresh.
    pair.reconnect();
    pair.settle();
    let written = pair.take_written();
    assert_eq!(pulls(&written), 1, "re-pulled after the reconnect");
    assert!(written.contains(r#""opt_start_seq":2"#), "{written}");
    let events = pair.take_events();
    for sid in [pull, push] {
        assert!(
            events.iter().any(
                |e| matches!(e, SessionEvent::Routed { to: Route::Reader(s), item: Item::Consumer(ConsumerEvent::Reset(_)) } if *s == sid)
            ),
            "{sid:?} reports its reset: {events:?}"
        );
    }
    pair.send(&created(&Pair::reply_to(&written, &format!("{CREATE}U_2")), &mux, "U_2"));
    let (ordered, ordered_inbox) = reader_of(&pair.take_written(), "U_2");

    // A new leader of the pull reader's consumer forgot its pull.
    pair.send(&status(pull, 409, "Leadership Change"));
    assert_eq!(pulls(&pair.take_written()), 1, "re-pulled after the leader change");

    // Everyone reads on; the ordered read resumes at 2, no gap, no repeat.
    pair.send(&format!(
        "MSG orders {} $JS.ACK.S.C.1.8.8.0.0 1\r\nb\r\n{}{}",
        pull.0,
        push_message(push, 2),
        message(&ordered, &ordered_inbox, "U_2", 2, 1)
    ));
    let more = delivered(&pair.take_events(), pull, push, id);
    all.iter_mut().zip(more).for_each(|(all, more)| all.extend(more));
    assert_eq!(all, [vec!["a", "b"], vec!["p", "p"], vec!["1", "2"]]);

    // Half an ack_wait on, the push reader's heartbeats coming: the ledger's
    // +WPI goes out on its deadline, folded with every reader's.
    let mut woke = Vec::new();
    while pair.now < Instant::ZERO + ACK_WAIT / 2 {
        woke.extend(pair.advance(HEARTBEAT.as_millis() as u64 - 1));
        pair.send(&push_status(push, None, "Idle Heartbeat"));
    }
    assert!(woke.contains(&Wake::Ledger(ledger, LedgerTimer::Progress)), "{woke:?}");
    assert!(is_progress(&pair.take_written()), "the ledger kept its delivery alive");
    let events = pair.take_events();
    assert!(
        !events.iter().any(|e| matches!(
            e,
            SessionEvent::Routed { to: Route::Reader(_), item: Item::Consumer(ConsumerEvent::HeartbeatsMissed { .. }) }
        )),
        "{events:?}"
    );

    // The pull reader's consumer is deleted: that reader ends with the
    // error; the others read on.
    pair.send(&status(pull, 409, "Consumer Deleted"));
    let events = pair.take_events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SessionEvent::Routed { to: Route::Reader(sid), item: Item::Failed(Error::ConsumerStatus(_)) } if *sid == pull)),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, SessionEvent::Routed { to: Route::Reader(sid), item: Item::Ended } if *sid == pull)),
        "{events:?}"
    );
    pair.send(&format!("{}{}", push_message(push, 3), message(&ordered, &ordered_inbox, "U_2", 3, 2)));
    assert_eq!(delivered(&pair.take_events(), pull, push, id), [vec![], vec!["p"], vec!["3"]]);
    assert_eq!(pair.session.ledger_len(ledger), Some(1), "the ledger still holds its delivery");
    assert_eq!(pair.session.ordered_consumer_name(id).as_deref(), Some("U_2"));
    let next = pair.session.poll_deadline().expect("armed");
    assert!(!matches!(next.reason, Wake::Reader(s, _) if s == pull), "the ended reader has no deadline: {next:?}");
}
