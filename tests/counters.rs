//! Counters (ADR-49) against a real server: increments return the new
//! total exactly at any size, reads of one or many counters agree with it,
//! a counter summing other streams' counters (through sources) carries the
//! per-source breakdown, and a stream without `allow_msg_counter` or an
//! increment that is not a number are typed errors.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::str::FromStr;
use std::time::Duration;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::Error;
use natsjet::jetstream::Context;
use natsjet::jetstream::api::{ErrorCode, Source, StreamConfig, SubjectTransform};
use natsjet::jetstream::counters::{BigInt, CounterErrorKind, Entry};
use natsjet::jetstream::publish::Publish;

fn counting() -> StreamConfig {
    StreamConfig { allow_message_counter: true, allow_direct: true, ..Default::default() }
}

fn big(text: &str) -> BigInt {
    BigInt::from_str(text).unwrap()
}

use common::kind_and_code as failure;

#[tokio::test]
async fn increments_return_the_total_exactly_beyond_64_bits() {
    let server = NatsServer::start_jetstream();
    let js = common::stream_context(&server, "HITS", counting()).await;
    let hits = js.get_counter("HITS").await.unwrap();
    assert_eq!(hits.stream_name(), "HITS");
    assert_eq!(hits.add("hits.a", 5).await.unwrap(), big("5"));
    assert_eq!(hits.increment("hits.a").await.unwrap(), big("6"));
    assert_eq!(hits.decrement("hits.a").await.unwrap(), big("5"));
    assert_eq!(hits.add("hits.a", -10i64).await.unwrap(), big("-5"));
    // Past u64 and i128 alike: the server's totals are big integers.
    let huge = big("170141183460469231731687303715884105727"); // i128::MAX
    assert_eq!(hits.add("hits.big", huge.clone()).await.unwrap(), huge);
    let beyond = hits.add("hits.big", 10).await.unwrap();
    assert_eq!(beyond, big("170141183460469231731687303715884105737"));
    assert_eq!(hits.add_text("hits.big".into(), "+3".into()).await.unwrap(), beyond.clone() + 3);

    assert_eq!(hits.load("hits.a").await.unwrap(), big("-5"));
    let entry = hits.get("hits.big").await.unwrap();
    assert_eq!(entry.value, beyond + 3);
    assert_eq!(entry.increment, Some(big("3")));
    assert!(entry.sources.is_empty());
    assert_eq!((entry.subject.as_str(), entry.sequence), ("hits.big", 7));

    // The stored message is ADR-49's: the increment header, the total as JSON.
    let stored = js.get_stream("HITS").await.unwrap().get_raw_message(7).await.unwrap();
    assert_eq!(stored.headers.get("Nats-Incr").map(|v| v.as_str()), Some("+3"));
    assert_eq!(stored.payload.as_ref(), br#"{"val":"170141183460469231731687303715884105740"}"#);
}

#[tokio::test]
async fn many_counters_read_in_one_batch_with_wildcards() {
    let server = NatsServer::start_jetstream();
    let js = common::stream_context(&server, "C", counting()).await;
    let c = js.get_counter("C").await.unwrap();
    for (subject, n) in [("c.x.1", 1), ("c.x.2", 2), ("c.y.1", 3), ("c.x.1", 10)] {
        c.add(subject, n).await.unwrap();
    }
    let read = |subjects: Vec<&'static str>| {
        let c = c.clone();
        async move {
            let entries: Vec<Entry> = c.get_multiple(subjects).unwrap().map(|e| e.unwrap()).collect().await;
            entries.into_iter().map(|e| (e.subject, e.value.to_string())).collect::<Vec<_>>()
        }
    };
    // Stream order: c.x.2 (seq 2), c.y.1 (3), c.x.1 (4).
    assert_eq!(read(vec!["c.x.*"]).await, [("c.x.2".into(), "2".into()), ("c.x.1".into(), "11".into())]);
    assert_eq!(read(vec!["c.>"]).await.len(), 3);
    assert_eq!(read(vec!["c.y.1", "c.x.2"]).await, [("c.x.2".into(), "2".into()), ("c.y.1".into(), "3".into())]);
    assert!(read(vec!["c.none.*"]).await.is_empty(), "nothing matched ends the batch");
}

#[tokio::test]
async fn a_counter_over_sources_carries_the_breakdown() {
    let server = NatsServer::start_jetstream();
    let js = common::stream_context(&server, "EU", counting()).await;
    let config = StreamConfig { name: "US".into(), subjects: vec!["us.>".into()], ..counting() };
    js.create_stream(config).await.unwrap();
    let (eu, us) = (js.get_counter("EU").await.unwrap(), js.get_counter("US").await.unwrap());
    eu.add("eu.hits", 10).await.unwrap();
    us.add("us.hits", 5).await.unwrap();

    // The aggregate listens on no subject; both regions land on `total.hits`.
    let source = |name: &str, from: &str| Source {
        name: name.into(),
        subject_transforms: vec![SubjectTransform { source: from.into(), destination: "total.hits".into() }],
        ..Default::default()
    };
    let config = StreamConfig {
        name: "TOTAL".into(),
        sources: Some(vec![source("EU", "eu.hits"), source("US", "us.hits")]),
        ..counting()
    };
    js.create_stream(config).await.unwrap();
    let total = js.get_counter("TOTAL").await.unwrap();
    let entry = settled(&total, "total.hits", "15").await;
    assert_eq!(entry.sources["EU"]["eu.hits"], big("10"));
    assert_eq!(entry.sources["US"]["us.hits"], big("5"));

    // A later increment in one region moves its share and the total.
    eu.add("eu.hits", -4).await.unwrap();
    let entry = settled(&total, "total.hits", "11").await;
    assert_eq!(entry.sources["EU"]["eu.hits"], big("6"));
    assert_eq!(entry.sources["US"]["us.hits"], big("5"));
    assert_eq!(entry.increment, Some(big("-4")), "the server rewrites the sourced increment to the delta");
    let many: Vec<_> = total.get_multiple(["total.*"]).unwrap().collect().await;
    assert_eq!(many.len(), 1);
    assert_eq!(many[0].as_ref().unwrap(), &entry);
}

/// The entry once sourcing brought the total to `want` (sources are asynchronous).
async fn settled(counter: &natsjet::jetstream::counters::Counter, subject: &str, want: &str) -> Entry {
    for _ in 0..100 {
        if let Ok(entry) = counter.get(subject).await {
            if entry.value == big(want) {
                return entry;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{subject} never reached {want}: {:?}", counter.get(subject).await);
}

#[tokio::test]
async fn failures_are_typed() {
    let server = NatsServer::start_jetstream();
    let js = common::stream_context(&server, "PLAIN", StreamConfig { allow_direct: true, ..Default::default() }).await;
    let config = StreamConfig { name: "NODIRECT".into(), subjects: vec!["nd.>".into()], ..counting() };
    js.create_stream(StreamConfig { allow_direct: false, ..config }).await.unwrap();
    let counters = common::stream_context(&server, "C", counting()).await;

    // Binding checks the stream's flags; a missing stream is its own kind.
    assert_eq!(js.get_counter("PLAIN").await.unwrap_err().kind(), CounterErrorKind::CounterNotEnabled);
    assert_eq!(js.get_counter("NODIRECT").await.unwrap_err().kind(), CounterErrorKind::DirectAccessRequired);
    let missing = js.get_counter("NOPE").await.unwrap_err();
    assert_eq!(failure(missing), (CounterErrorKind::CounterNotFound, Some(ErrorCode::STREAM_NOT_FOUND)));

    // The server's own refusals: an increment on a plain stream (10168),
    // one that is not a number (10171), a counter publish without one (10169).
    let incr = |value: &str| Publish::build().payload(Bytes::new()).header("Nats-Incr", value);
    let refused = |js: &Context, subject: &'static str, publish: Publish| {
        let js = js.clone();
        async move {
            let e = js.send_publish(subject, publish).await.unwrap().await.unwrap_err();
            match natsjet::Error::from(e) {
                Error::JetStream(api) => api.err_code,
                other => panic!("not a JetStream error: {other:?}"),
            }
        }
    };
    assert_eq!(refused(&js, "plain.a", incr("1")).await, ErrorCode::MESSAGE_INCR_DISABLED);
    assert_eq!(refused(&counters, "c.a", incr("one")).await, ErrorCode::MESSAGE_INCR_INVALID);
    assert_eq!(refused(&counters, "c.a", incr("1.5")).await, ErrorCode::MESSAGE_INCR_INVALID);
    assert_eq!(refused(&counters, "c.a", Publish::build().payload("x".into())).await, ErrorCode::MESSAGE_INCR_MISSING);

    // The same through the counter API: typed, the server's code kept; a
    // text that is not a number is refused before it is sent.
    let c = counters.get_counter("C").await.unwrap();
    let bad = c.add_text("c.a".into(), "1e3".into()).await.unwrap_err();
    assert_eq!(failure(bad.clone()), (CounterErrorKind::InvalidCounterValue, None));
    assert!(matches!(bad.cause(), Error::InvalidArgument(_)));
    let plain = natsjet::jetstream::counters::Counter::from_stream(js.get_stream("PLAIN").await.unwrap());
    assert_eq!(plain.unwrap_err().kind(), CounterErrorKind::CounterNotEnabled);

    // Reading a subject without a counter, and nothing was stored by the refusals.
    assert_eq!(failure(c.load("c.a").await.unwrap_err()).0, CounterErrorKind::NoCounterForSubject);
    assert_eq!(failure(c.get("c.a").await.unwrap_err()).0, CounterErrorKind::NoCounterForSubject);
    assert_eq!(js.get_stream("C").await.unwrap().get_info().await.unwrap().state.messages, 0);
}
