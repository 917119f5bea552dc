//! The session on scripted server bytes and a fake clock, several machines
//! at once, in the style of quinn's `Pair::step`: every step drains what
//! the session has, and a bound on the steps makes a livelock fail
//! instead of hanging.

use std::time::Duration;

use bytes::BytesMut;

use super::*;
use crate::core::addr::ServerAddr;
use crate::core::conn::{Action, Config};
use crate::core::jetstream::ack::AckToken;
use crate::core::jetstream::pull::{ConsumeOptions, PullConsumer};
use crate::core::request_many::RequestStrategy;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const INFO: &str =
    "INFO {\"server_id\":\"S1\",\"version\":\"2.15.0\",\"proto\":1,\"headers\":true,\"max_payload\":1048576}\r\n";
/// More rounds than any exchange here needs: a livelock fails on it.
const STEP_BOUND: usize = 100;
/// More items than one drain of any output here yields: a machine that
/// never stops producing fails the test instead of hanging it.
const DRAIN_BOUND: usize = 10_000;
const ACK_WAIT: Duration = Duration::from_secs(30);

struct Pair {
    session: Session,
    now: Instant,
    /// What the client wrote since the last [`take_written`](Self::take_written).
    written: String,
    events: Vec<SessionEvent>,
    actions: Vec<Action>,
    read_buf: BytesMut,
}

impl Pair {
    /// A session through its handshake, with nothing left to read.
    fn connected() -> Pair {
        let servers = vec![ServerAddr::parse("nats://127.0.0.1:4222").expect("an address")];
        let config = Config { servers, randomize: false, ..Config::default() };
        let conn = Connection::new(config, Instant::ZERO, 7).expect("a valid config");
        let mut pair = Pair {
            session: Session::new(conn),
            now: Instant::ZERO,
            written: String::new(),
            events: Vec::new(),
            actions: Vec::new(),
            read_buf: BytesMut::new(),
        };
        pair.handshake();
        pair.events.clear();
        pair.take_written();
        pair
    }

    /// Drains the session once, each output within its bound: whether
    /// anything came out.
    fn step(&mut self) -> bool {
        let Pair { session, now, written, events, actions, .. } = self;
        let acted = drain("actions", || session.poll_action(), |action| actions.push(action));
        let told = drain("events", || session.poll_event(*now), |event| events.push(event));
        let wrote = drain(
            "bytes",
            || session.poll_transmit(usize::MAX),
            |bytes| {
                written.push_str(std::str::from_utf8(&bytes).expect("text protocol"));
            },
        );
        acted | told | wrote
    }

    /// Steps until nothing comes out, within the bound.
    fn settle(&mut self) {
        for _ in 0..STEP_BOUND {
            if !self.step() {
                return;
            }
        }
        panic!("the session still had output after {STEP_BOUND} steps");
    }

    fn send(&mut self, bytes: &str) {
        self.read_buf.extend_from_slice(bytes.as_bytes());
        self.session.handle_input(self.now, &mut self.read_buf);
        self.settle();
    }

    /// Moves the clock to `now + ms`, waking the session at each deadline
    /// on the way; the reasons it woke for, in order.
    fn advance(&mut self, ms: u64) -> Vec<Wake> {
        let until = self.now + Duration::from_millis(ms);
        let mut woke = Vec::new();
        for _ in 0..STEP_BOUND {
            let next = self.session.poll_deadline();
            match next.filter(|d| d.at <= until) {
                Some(deadline) => {
                    self.now = self.now.max(deadline.at);
                    woke.push(deadline.reason);
                    self.session.handle_timeout(self.now);
                    self.settle();
                }
                None => {
                    self.now = until;
                    return woke;
                }
            }
        }
        panic!("still due after {STEP_BOUND} wakes: {woke:?}");
    }

    /// Connect action, transport open, INFO, then the PONG that ends the handshake.
    fn handshake(&mut self) {
        self.settle();
        assert!(matches!(self.actions.drain(..).as_slice(), [Action::Connect { .. }]), "asked to connect");
        self.read_buf.clear();
        self.session.handle_transport_open(self.now);
        self.settle();
        self.send(INFO);
        assert!(self.take_written().ends_with("PING\r\n"), "the handshake ends with a PING");
        self.send("PONG\r\n");
    }

    /// The transport drops; after the reconnect delay a new handshake.
    fn reconnect(&mut self) {
        self.session.handle_transport_closed(self.now, None);
        self.settle();
        self.take_written();
        let delay = Config::default().reconnect_delay + Config::default().reconnect_jitter;
        self.advance(delay.as_millis() as u64);
        self.handshake();
    }

    fn take_written(&mut self) -> String {
        std::mem::take(&mut self.written)
    }

    fn take_events(&mut self) -> Vec<SessionEvent> {
        std::mem::take(&mut self.events)
    }

    /// The reply subject of the last request published to `subject`.
    fn reply_to(written: &str, subject: &str) -> String {
        let line = written.lines().rfind(|l| l.starts_with(&format!("PUB {subject} "))).expect("the request");
        line.split(' ').nth(2).expect("a reply subject").to_string()
    }

    /// A ledger tracking one delivery of consumer `C`, received now.
    fn track_one(&mut self) -> LedgerId {
        let mut ledger = AckLedger::new();
        ledger.set_ack_wait("S", "C", ACK_WAIT).expect("a valid consumer");
        let id = self.session.add_ledger(ledger);
        let token = AckToken::new("$JS.ACK.S.C.1.7.7.0.0").expect("an ack subject");
        self.session.ledger_track(self.now, id, token, 1).expect("tracked");
        id
    }
}

/// Takes what `poll` has into `take`, at most [`DRAIN_BOUND`] items:
/// whether there was any.
fn drain<T>(what: &str, mut poll: impl FnMut() -> Option<T>, mut take: impl FnMut(T)) -> bool {
    for taken in 0..DRAIN_BOUND {
        match poll() {
            Some(item) => take(item),
            None => return taken > 0,
        }
    }
    panic!("the session still had {what} after {DRAIN_BOUND}");
}

fn is_progress(written: &str) -> bool {
    written.contains("PUB $JS.ACK.S.C.1.7.7.0.0 4\r\n+WPI\r\n")
}

#[test]
fn every_deadline_is_folded_once_and_fires_with_its_reason() {
    let mut pair = Pair::connected();
    let ledger = pair.track_one();
    let sid = pair.session.subscribe("quiet", None).expect("a subject");
    pair.session.expect_first_message(pair.now, sid, Duration::from_millis(500));
    let options = RequestManyOptions { max_wait: Duration::from_secs(3), ..RequestManyOptions::default() };
    let key = pair.session.request_many(pair.now, "svc", None, b"", &options).expect("sent");
    pair.settle();
    pair.take_written();

    let next = pair.session.poll_deadline().expect("armed");
    assert_eq!((next.at, next.reason), (Instant::from_millis(500), Wake::FirstMessage(sid, FirstMessageWait::Timeout)));

    let woke = pair.advance(ACK_WAIT.as_millis() as u64 / 2);
    assert_eq!(
        woke,
        [
            Wake::FirstMessage(sid, FirstMessageWait::Timeout),
            Wake::Gather(key, GatherTimer::MaxWait),
            Wake::Ledger(ledger, LedgerTimer::Progress)
        ]
    );
    let events = pair.take_events();
    assert!(
        matches!(events.as_slice(), [
        SessionEvent::Routed { to: Route::FirstMessage(missed), item: Item::Ended },
        SessionEvent::Routed { to: Route::Gather(ended), item: Item::Ended },
    ] if *missed == sid && *ended == key),
        "{events:?}"
    );
    assert!(is_progress(&pair.take_written()), "the ledger's +WPI went out on its deadline");
}

#[test]
fn replies_go_to_their_request_for_many_and_the_rest_passes_on() {
    let mut pair = Pair::connected();
    let sid = pair.session.subscribe("plain", None).expect("a subject");
    let options =
        RequestManyOptions { strategy: RequestStrategy::Count, max_messages: Some(2), ..RequestManyOptions::default() };
    let key = pair.session.request_many(pair.now, "svc", None, b"", &options).expect("sent");
    pair.settle();
    let written = pair.take_written();
    let reply = Pair::reply_to(&written, "svc");
    let mux = written.lines().find_map(|l| l.strip_prefix("SUB _INBOX.")).expect("the muxed inbox");
    let mux_sid = mux.rsplit(' ').next().expect("its sid");

    pair.send(&format!(
        "MSG {reply} {mux_sid} 1\r\na\r\nMSG plain {} 1\r\nb\r\nMSG {reply} {mux_sid} 1\r\nc\r\n",
        sid.0
    ));
    let events = pair.take_events();
    assert!(
        matches!(events.as_slice(), [
        SessionEvent::Routed { to: Route::Gather(_), item: Item::Message(a) },
        SessionEvent::Connection(Event::Message { message: b, .. }),
        SessionEvent::Routed { to: Route::Gather(_), item: Item::Message(c) },
        SessionEvent::Routed { to: Route::Gather(ended), item: Item::Ended },
    ] if a.payload == "a" && b.payload == "b" && c.payload == "c" && *ended == key),
        "{events:?}"
    );
    assert!(pair.session.poll_deadline().is_some_and(|d| d.reason == Wake::Connection(conn::Timer::Ping)));
}

#[test]
fn a_reconnect_holds_progress_back_and_sends_it_on_return() {
    let mut pair = Pair::connected();
    let ledger = pair.track_one();
    pair.advance(10_000);
    pair.session.handle_transport_closed(pair.now, None);
    pair.settle();
    assert!(
        pair.take_events()
            .iter()
            .any(|e| matches!(e, SessionEvent::Connection(Event::Connection(ConnectionEvent::Disconnected { .. }))))
    );
    // The first reconnect goes at once; while down, the ledger only
    // watches the delivery's ack deadline, and sends no +WPI.
    let next = pair.session.poll_deadline().expect("armed");
    assert_eq!((next.at, next.reason), (Instant::ZERO + ACK_WAIT, Wake::Ledger(ledger, LedgerTimer::Missed)));

    // Down past the +WPI's due time: it goes out as soon as the link is back.
    pair.advance(ACK_WAIT.as_millis() as u64 / 2);
    pair.take_written();
    pair.handshake();
    let written = pair.take_written();
    assert!(is_progress(&written), "due progress goes out on the reconnect: {written:?}");
    let next = pair.session.poll_deadline().expect("armed");
    assert!(next.at > pair.now, "nothing left overdue after the reconnect");
    assert_eq!(pair.session.ledger_len(ledger), Some(1), "the delivery is still held");
}

#[test]
fn a_delivery_at_risk_while_down_is_reported_through_the_session() {
    let mut pair = Pair::connected();
    let ledger = pair.track_one();
    pair.session.handle_transport_closed(pair.now, None);
    pair.settle();
    pair.take_events();
    // Still down when the delivery's ack deadline passes: no +WPI could go.
    let woke = pair.advance(ACK_WAIT.as_millis() as u64);
    assert!(woke.contains(&Wake::Ledger(ledger, LedgerTimer::Missed)), "{woke:?}");
    let events = pair.take_events();
    let at_risk: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, SessionEvent::Routed { to: Route::Ledger(_), item: Item::Ledger(_) }))
        .collect();
    assert!(
        matches!(at_risk.as_slice(), [SessionEvent::Routed { to: Route::Ledger(id), item: Item::Ledger(LedgerEvent::RedeliveryRisk { token }) }]
            if *id == ledger && token.subject() == "$JS.ACK.S.C.1.7.7.0.0"),
        "{events:?}"
    );
    assert!(pair.take_written().is_empty(), "nothing is written while down");
}

#[test]
fn a_request_for_many_survives_a_reconnect_on_its_own_clock() {
    let mut pair = Pair::connected();
    let options = RequestManyOptions { max_wait: Duration::from_secs(5), ..RequestManyOptions::default() };
    let key = pair.session.request_many(pair.now, "svc", None, b"", &options).expect("sent");
    pair.settle();
    pair.reconnect();
    let events = pair.take_events();
    assert!(
        !events.iter().any(|e| matches!(e, SessionEvent::Routed { to: Route::Gather(_), item: Item::Ended })),
        "{events:?}"
    );
    pair.advance(5_000);
    assert!(
        pair.take_events()
            .iter()
            .any(|e| matches!(e, SessionEvent::Routed { to: Route::Gather(k), item: Item::Ended } if *k == key))
    );
}

#[test]
fn a_closed_session_forgets_its_machines() {
    let mut pair = Pair::connected();
    let sid = pair.session.subscribe("quiet", None).expect("a subject");
    pair.session.expect_first_message(pair.now, sid, Duration::from_millis(500));
    let options = RequestManyOptions::default();
    pair.session.request_many(pair.now, "svc", None, b"", &options).expect("sent");
    pair.session.close(pair.now);
    pair.settle();
    pair.session.handle_transport_closed(pair.now, None);
    pair.settle();
    assert!(
        pair.take_events()
            .iter()
            .any(|e| matches!(e, SessionEvent::Connection(Event::Connection(ConnectionEvent::Closed { .. }))))
    );
    assert_eq!(pair.session.poll_deadline(), None, "nothing left to wake for");
    assert!(pair.advance(10_000).is_empty());
}

#[test]
fn a_draining_session_unsubscribes_and_refuses_a_forced_reconnect() {
    let mut pair = Pair::connected();
    let sid = pair.session.subscribe("work", None).expect("a subject");
    pair.settle();
    pair.take_written();
    assert!(!pair.session.is_draining());
    pair.session.drain(&[sid]).expect("drained");
    pair.settle();
    assert_eq!(pair.take_written(), format!("UNSUB {}\r\n", sid.0));
    assert!(pair.session.is_draining());
    assert!(matches!(pair.session.force_reconnect(pair.now), Err(Error::ApiMisuse(_))));
    pair.settle();
    assert!(pair.actions.is_empty(), "no reconnect was started");
    // In flight before the UNSUB: still delivered.
    pair.send(&format!("MSG work {} 2\r\nhi\r\n", sid.0));
    assert!(pair.take_events().iter().any(|e| matches!(e, SessionEvent::Connection(Event::Message { .. }))));
}

const NEXT: &str = "$JS.API.CONSUMER.MSG.NEXT.S.C";

/// A consume reader of consumer `C` on inbox `_INBOX.r`, with its first pull out.
fn attach_pull(pair: &mut Pair) -> Sid {
    let sid = pair.session.subscribe("_INBOX.r", None).expect("an inbox");
    let options = ConsumeOptions { max_messages: Some(10), ..ConsumeOptions::default() };
    let machine = PullConsumer::consume(pair.now, options).expect("valid options");
    pair.session.attach_reader(sid, Reader::pull(machine, NEXT.into(), "_INBOX.r".into(), None));
    pair.settle();
    sid
}

fn pulls(written: &str) -> usize {
    written.matches(&format!("PUB {NEXT} _INBOX.r ")).count()
}

fn status(sid: Sid, code: u16, description: &str) -> String {
    let headers = format!("NATS/1.0 {code} {description}\r\n\r\n");
    format!("HMSG _INBOX.r {} {} {}\r\n{headers}\r\n", sid.0, headers.len(), headers.len())
}

#[test]
fn a_pull_reader_and_a_ledger_through_a_reconnect_a_leader_change_and_a_deletion() {
    let mut pair = Pair::connected();
    let sid = attach_pull(&mut pair);
    assert_eq!(pulls(&pair.take_written()), 1, "the first pull goes out when attached");
    assert!(pair.session.take_pulled() && !pair.session.take_pulled(), "the driver learns it once");

    // A message for the user, whose ack a checkpoint ledger then holds.
    pair.send(&format!("MSG orders {} $JS.ACK.S.C.1.7.7.0.0 1\r\na\r\n", sid.0));
    let events = pair.take_events();
    assert!(
        matches!(events.as_slice(), [SessionEvent::Routed { to: Route::Reader(s), item: Item::Message(m) }] if *s == sid && m.payload == "a")
    );
    let ledger = pair.track_one();

    // A reconnect: the server forgot the pull, so it goes out again.
    pair.reconnect();
    assert_eq!(pulls(&pair.take_written()), 1, "re-pulled after the reconnect");
    assert!(
        pair.take_events()
            .iter()
            .any(|e| matches!(e, SessionEvent::Routed { to: Route::Reader(_), item: Item::Consumer(_) })),
        "the reset is reported"
    );

    // A new consumer leader forgot every pull: pull again, keep reading.
    pair.send(&status(sid, 409, "Leadership Change"));
    assert_eq!(pulls(&pair.take_written()), 1, "re-pulled after the leader change");
    let events = pair.take_events();
    assert!(
        !events.iter().any(|e| matches!(e, SessionEvent::Routed { to: Route::Reader(_), item: Item::Ended })),
        "{events:?}"
    );

    // The +WPI goes out on its deadline with the reader's heartbeat watch running.
    pair.advance(ACK_WAIT.as_millis() as u64 / 2);
    assert!(is_progress(&pair.take_written()), "the ledger kept the delivery alive");
    assert_eq!(pair.session.ledger_len(ledger), Some(1));

    // The consumer is deleted: an error for the user, the event, the end.
    pair.take_events();
    pair.send(&status(sid, 409, "Consumer Deleted"));
    let events = pair.take_events();
    assert!(
        matches!(events.as_slice(), [
        SessionEvent::Routed { to: Route::Reader(_), item: Item::Failed(Error::ConsumerStatus(_)) },
        SessionEvent::Routed { to: Route::Reader(_), item: Item::Consumer(ConsumerEvent::Terminal(_)) },
        SessionEvent::Routed { to: Route::Reader(ended), item: Item::Ended },
        SessionEvent::Connection(Event::SubscriptionEnded { .. }),
    ] if *ended == sid),
        "{events:?}"
    );
    assert!(pair.take_written().contains(&format!("UNSUB {}\r\n", sid.0)), "its subscription ends");
    assert!(!pair.session.reader_taken(pair.now, sid, 1, 1), "retired");
}

#[test]
fn a_reader_stopped_by_its_user_is_retired_and_wakes_nothing() {
    let mut pair = Pair::connected();
    let sid = attach_pull(&mut pair);
    assert!(matches!(pair.session.poll_deadline(), Some(Deadline { reason: Wake::Reader(s, _), .. }) if s == sid));
    assert!(pair.session.retire_reader(sid));
    pair.settle();
    assert!(pair.take_written().contains(&format!("UNSUB {}\r\n", sid.0)));
    pair.take_events();
    assert!(!pair.session.poll_deadline().is_some_and(|d| matches!(d.reason, Wake::Reader(..))));
    pair.send(&format!("MSG orders {} $JS.ACK.S.C.1.8.8.0.0 1\r\nb\r\n", sid.0));
    assert!(pair.take_events().is_empty(), "a late message goes nowhere");
}

mod ordered;
mod together;
