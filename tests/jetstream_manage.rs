//! Stream and consumer management against a real server: every call, its
//! typed errors, listing across pages, and names refused before a request.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use common::NatsServer;
use futures_util::{StreamExt, TryStreamExt};
use natsjet::jetstream::api::{ConsumerConfig, ErrorCode, JetStreamError, PublishAck, StreamConfig};
use natsjet::jetstream::{self, Context};
use natsjet::{Client, Error, HeaderMap};

async fn connect(server: &NatsServer) -> (Client, Context) {
    let client = natsjet::connect(server.client_url()).await.expect("connect");
    let js = jetstream::new(client.clone());
    (client, js)
}

fn stream_config(name: &str, subjects: &[&str]) -> StreamConfig {
    StreamConfig { name: name.into(), subjects: subjects.iter().map(|s| s.to_string()).collect(), ..Default::default() }
}

fn durable(name: &str) -> ConsumerConfig {
    ConsumerConfig { durable_name: Some(name.into()), ..Default::default() }
}

/// The API error of `result`, or a panic naming what came instead.
fn api_error<T: std::fmt::Debug, E: Into<Error>>(result: Result<T, E>) -> JetStreamError {
    match result.map_err(Into::into) {
        Err(Error::JetStream(e)) => e,
        other => panic!("expected a JetStream API error, got {other:?}"),
    }
}

/// Publishes as requests and checks each PublishAck: a plain publish, even
/// flushed, may not be stored yet when the next API call arrives.
async fn publish_all(client: &Client, messages: &[(&str, &str)]) {
    for (subject, payload) in messages {
        check_stored(client.request(*subject, bytes::Bytes::copy_from_slice(payload.as_bytes())).await);
    }
}

fn check_stored(reply: Result<natsjet::Message, natsjet::RequestError>) {
    let ack: PublishAck = jetstream::api::parse_response(&reply.unwrap().payload).unwrap();
    assert!(ack.sequence > 0);
}

/// Runs `call(0..5)` in five tasks at once; the distinct answers.
async fn race_five<F, Fut>(call: F) -> BTreeSet<Option<String>>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Option<String>> + Send + 'static,
{
    let tasks: Vec<_> = (0..5).map(|i| tokio::spawn(call(i))).collect();
    let mut answers = BTreeSet::new();
    for task in tasks {
        answers.insert(task.await.unwrap());
    }
    answers
}

#[tokio::test]
async fn stream_create_update_info_delete() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;

    let mut stream = js.create_stream(stream_config("ORDERS", &["orders.>"])).await.unwrap();
    assert_eq!(stream.name(), "ORDERS");
    assert_eq!(stream.cached_info().config.subjects, ["orders.>"]);
    assert_eq!(stream.cached_info().state.messages, 0);

    // Creating again with the same config is not an error; another config is.
    js.create_stream(stream_config("ORDERS", &["orders.>"])).await.unwrap();
    let e = api_error(js.create_stream(stream_config("ORDERS", &["other.>"])).await);
    assert_eq!(e.err_code, ErrorCode::STREAM_NAME_EXIST);

    publish_all(&client, &[("orders.1", "a"), ("orders.2", "b")]).await;
    assert_eq!(stream.info().await.unwrap().state.messages, 2);

    let mut changed = stream_config("ORDERS", &["orders.>"]);
    changed.description = Some("all orders".into());
    let info = js.update_stream(&changed).await.unwrap();
    assert_eq!(info.config.description.as_deref(), Some("all orders"));
    let fetched = js.get_stream("ORDERS").await.unwrap();
    assert_eq!(fetched.cached_info().config.description.as_deref(), Some("all orders"));
    assert_eq!(fetched.cached_info().state.messages, 2);

    let e = api_error(js.update_stream(stream_config("MISSING", &["missing"])).await);
    assert_eq!(e.err_code, ErrorCode::STREAM_NOT_FOUND);

    assert!(js.delete_stream("ORDERS").await.unwrap().success);
    let e = api_error(js.get_stream("ORDERS").await);
    assert_eq!((e.code, e.err_code, e.description.as_str()), (404, ErrorCode::STREAM_NOT_FOUND, "stream not found"));
    assert_eq!(api_error(js.delete_stream("ORDERS").await).err_code, ErrorCode::STREAM_NOT_FOUND);
}

#[tokio::test]
async fn get_or_create_stream_from_many_tasks() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;

    // Configs differ, so creators that lose the race get "name already in use".
    let descriptions = race_five(|i| {
        let js = js.clone();
        let config = StreamConfig { description: Some(format!("by {i}")), ..stream_config("SHARED", &["shared.>"]) };
        async move { js.get_or_create_stream(config).await.unwrap().cached_info().config.description.clone() }
    })
    .await;
    assert_eq!(descriptions.len(), 1, "every task got the one stream: {descriptions:?}");
    let names: Vec<String> = js.stream_names().try_collect().await.unwrap();
    assert_eq!(names, ["SHARED"]);

    // An existing stream is returned as it is, whatever config is passed.
    let existing = js.get_or_create_stream(stream_config("SHARED", &["elsewhere"])).await.unwrap();
    assert_eq!(existing.cached_info().config.subjects, ["shared.>"]);
}

#[tokio::test]
async fn stream_listing_and_lookup_by_subject() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;

    let mut expected = BTreeSet::new();
    for i in 0..30 {
        let name = format!("S{i}");
        js.create_stream(stream_config(&name, &[&format!("s{i}.>")])).await.unwrap();
        expected.insert(name);
    }
    let names: BTreeSet<String> = js.stream_names().try_collect().await.unwrap();
    assert_eq!(names, expected);
    let infos: Vec<_> = js.streams().try_collect().await.unwrap();
    assert_eq!(infos.iter().map(|i| i.config.name.clone()).collect::<BTreeSet<_>>(), expected);

    let matching: Vec<String> = js.stream_names_for_subject("s7.x").try_collect().await.unwrap();
    assert_eq!(matching, ["S7"]);
    let none: Vec<String> = js.stream_names_for_subject("nothing.here").try_collect().await.unwrap();
    assert!(none.is_empty());
    assert_eq!(js.stream_by_subject("s12.a.b").await.unwrap(), "S12");
    let e = api_error(js.stream_by_subject("nothing.here").await);
    assert_eq!((e.code, e.err_code), (404, ErrorCode::STREAM_NOT_FOUND));

    // A listing can be read item by item without pinning it.
    let mut names = js.stream_names();
    assert!(names.next().await.unwrap().is_ok());
}

#[tokio::test]
async fn purge_whole_by_filter_keep_and_sequence() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let mut stream = js.create_stream(stream_config("P", &["p.*"])).await.unwrap();
    // Sequences 1..=10: odd on p.1, even on p.2.
    for _ in 0..5 {
        publish_all(&client, &[("p.1", "x"), ("p.2", "y")]).await;
    }

    let purged = stream.purge().filter("p.1").keep(2).await.unwrap();
    assert!(purged.success);
    assert_eq!(purged.purged, 3);
    assert_eq!(stream.info().await.unwrap().state.messages, 7);

    // Left: p.1 at 7, 9; p.2 at 2, 4, 6, 8, 10. Below 6 that is 2 and 4.
    assert_eq!(stream.purge().sequence(6).await.unwrap().purged, 2);
    let state = &stream.info().await.unwrap().state;
    assert_eq!((state.messages, state.first_sequence), (5, 6));

    assert_eq!(stream.purge().keep(1).await.unwrap().purged, 4);
    let state = &stream.info().await.unwrap().state;
    assert_eq!((state.messages, state.first_sequence, state.last_sequence), (1, 10, 10));

    assert_eq!(stream.purge().await.unwrap().purged, 1);
    assert_eq!(stream.info().await.unwrap().state.messages, 0);

    assert!(matches!(
        stream.purge().keep(1).sequence(2).await.map_err(natsjet::Error::from),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        stream.purge().filter("bad subject").await.map_err(natsjet::Error::from),
        Err(Error::InvalidSubject { .. })
    ));
}

#[tokio::test]
async fn get_direct_get_delete_and_erase_messages() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let config = StreamConfig { allow_direct: true, ..stream_config("M", &["m.*"]) };
    let stream = js.create_stream(config).await.unwrap();

    let headers: HeaderMap = [("X-Id", "first")].into_iter().collect();
    check_stored(client.request_with_headers("m.a", headers.clone(), "one".into()).await);
    publish_all(&client, &[("m.b", "two"), ("m.a", "three"), ("m.b", "four")]).await;

    let first = stream.get_raw_message(1).await.unwrap();
    assert_eq!((first.subject.as_str(), first.sequence, &first.payload[..]), ("m.a", 1, &b"one"[..]));
    assert_eq!(first.headers, headers);
    assert!(first.timestamp().unwrap() <= SystemTime::now());
    let second = stream.get_raw_message(2).await.unwrap();
    assert!(second.headers.is_empty());

    let last_a = stream.get_last_raw_message_by_subject("m.a").await.unwrap();
    assert_eq!((last_a.sequence, &last_a.payload[..]), (3, &b"three"[..]));
    assert_eq!(stream.get_next_raw_message_by_subject("m.b", 3).await.unwrap().sequence, 4);

    // Direct get reads the same message, with its metadata headers turned into fields.
    assert_eq!(stream.direct_get(1).await.unwrap(), first);
    assert_eq!(stream.direct_get(2).await.unwrap(), second);
    assert_eq!(stream.direct_get_last_for_subject("m.a").await.unwrap(), last_a);
    assert_eq!(stream.direct_get_next_for_subject("m.b", Some(3)).await.unwrap().sequence, 4);
    assert_eq!(stream.direct_get_next_for_subject("m.*", None).await.unwrap(), first);
    assert_eq!(js.direct_get_from_stream("M", Some("m.b"), b"").await.unwrap().sequence, 4);

    let missing = api_error(stream.get_raw_message(99).await);
    assert_eq!((missing.code, missing.err_code), (404, ErrorCode::NO_MESSAGE_FOUND));
    assert_eq!(api_error(stream.direct_get(99).await), missing);
    assert_eq!(api_error(stream.direct_get_last_for_subject("m.none").await), missing);
    assert_eq!(api_error(stream.direct_get_next_for_subject("m.a", Some(4)).await), missing);
    assert_eq!(api_error(stream.get_last_raw_message_by_subject("m.none").await).err_code, ErrorCode::NO_MESSAGE_FOUND);

    assert!(stream.delete_message(1).await.unwrap());
    assert_eq!(api_error(stream.get_raw_message(1).await).err_code, ErrorCode::NO_MESSAGE_FOUND);
    assert!(stream.erase_message(2).await.unwrap());
    assert_eq!(api_error(stream.direct_get(2).await), missing);
    // Deleting it again: the server reports "no message found" (err_code 10057).
    api_error(stream.delete_message(2).await);

    // Without allow_direct nobody answers direct gets.
    let plain = js.create_stream(stream_config("PLAIN", &["plain"])).await.unwrap();
    assert_eq!(plain.direct_get(1).await.map_err(natsjet::Error::from), Err(Error::NoResponders));
}

#[tokio::test]
async fn batched_direct_gets_end_after_the_last_message() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let config = StreamConfig { allow_direct: true, ..stream_config("B", &["b.*"]) };
    js.create_stream(config).await.unwrap();
    let published: Vec<(String, String)> = (1..=10).map(|i| (format!("b.{}", i % 3), format!("m{i}"))).collect();
    let pairs: Vec<(&str, &str)> = published.iter().map(|(s, p)| (s.as_str(), p.as_str())).collect();
    publish_all(&client, &pairs).await;

    let batch = |body: &str| js.direct_get_batch_from_stream("B", body.as_bytes()).unwrap();
    let got: Vec<_> = batch(r#"{"seq":3,"batch":4}"#).try_collect().await.unwrap();
    assert_eq!(got.iter().map(|m| m.sequence).collect::<Vec<_>>(), [3, 4, 5, 6]);
    assert_eq!(&got[0].payload[..], b"m3");
    let on_subject: Vec<_> = batch(r#"{"seq":1,"batch":10,"next_by_subj":"b.1"}"#).try_collect().await.unwrap();
    assert_eq!(on_subject.iter().map(|m| m.sequence).collect::<Vec<_>>(), [1, 4, 7, 10]);
    // The newest of each subject, in stream order.
    let last: Vec<_> = batch(r#"{"multi_last":["b.0","b.1","b.2"]}"#).try_collect().await.unwrap();
    assert_eq!(last.iter().map(|m| m.sequence).collect::<Vec<_>>(), [8, 9, 10]);
    // Past the end: nothing, and the stream ends.
    assert!(batch(r#"{"seq":50,"batch":5}"#).try_collect::<Vec<_>>().await.unwrap().is_empty());
    // Stopping early drops the rest.
    let mut partial = batch(r#"{"seq":1,"batch":10}"#);
    assert_eq!(partial.next().await.unwrap().unwrap().sequence, 1);
    partial.stop();
    assert!(partial.next().await.is_none());
    // Without allow_direct nobody answers.
    js.create_stream(stream_config("NB", &["nb"])).await.unwrap();
    let refused =
        js.direct_get_batch_from_stream("NB", br#"{"seq":1,"batch":2}"#).unwrap().try_collect::<Vec<_>>().await;
    assert_eq!(refused.unwrap_err(), Error::NoResponders);
}

#[tokio::test]
async fn consumer_lifecycle() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    let stream = js.create_stream(stream_config("C", &["c.>"])).await.unwrap();

    let mut config = durable("d1");
    config.description = Some("first".into());
    let consumer = stream.create_consumer(config.clone()).await.unwrap();
    assert_eq!((consumer.name(), consumer.stream_name()), ("d1", "C"));

    config.description = Some("second".into());
    let updated = stream.update_consumer(config.clone()).await.unwrap();
    assert_eq!(updated.cached_info().config.description.as_deref(), Some("second"));
    // Create-or-update changes it back.
    config.description = Some("third".into());
    stream.create_consumer(config.clone()).await.unwrap();
    assert_eq!(stream.consumer_info("d1").await.unwrap().config.description.as_deref(), Some("third"));

    // Strict create: the same config is fine, another one is refused.
    stream.create_consumer_strict(config.clone()).await.unwrap();
    config.description = Some("fourth".into());
    assert_eq!(api_error(stream.create_consumer_strict(config).await).err_code, ErrorCode::CONSUMER_ALREADY_EXISTS);
    assert_eq!(api_error(stream.update_consumer(durable("nope")).await).err_code, ErrorCode::CONSUMER_DOES_NOT_EXIST);

    let got = stream.get_consumer::<ConsumerConfig>("d1").await.unwrap();
    assert_eq!(got.cached_info().config.description.as_deref(), Some("third"));
    let e = api_error(stream.get_consumer::<ConsumerConfig>("nope").await);
    assert_eq!((e.code, e.err_code), (404, ErrorCode::CONSUMER_NOT_FOUND));

    // get_or_create: creates under the given name, and never changes an existing one.
    let created = stream.get_or_create_consumer("d2", ConsumerConfig::default()).await.unwrap();
    assert_eq!(created.cached_info().config.durable_name.as_deref(), Some("d2"));
    let other = ConsumerConfig { description: Some("other".into()), ..Default::default() };
    let existing = stream.get_or_create_consumer("d1", other).await.unwrap();
    assert_eq!(existing.cached_info().config.description.as_deref(), Some("third"));
    assert!(matches!(
        stream.get_or_create_consumer("d3", durable("d4")).await.map_err(natsjet::Error::from),
        Err(Error::InvalidArgument(_))
    ));

    // The same calls by stream name on the context.
    let ctx_made = js.create_consumer_on_stream(durable("d3"), "C").await.unwrap();
    assert_eq!(ctx_made.name(), "d3");
    assert_eq!(js.get_consumer_from_stream::<ConsumerConfig, _, _>("d3", "C").await.unwrap().name(), "d3");
    let strict = js.create_consumer_strict_on_stream(ConsumerConfig { max_deliver: 3, ..durable("d3") }, "C").await;
    assert_eq!(api_error(strict).err_code, ErrorCode::CONSUMER_ALREADY_EXISTS);
    let updated = js.update_consumer_on_stream(ConsumerConfig { max_deliver: 3, ..durable("d3") }, "C").await.unwrap();
    assert_eq!(updated.cached_info().config.max_deliver, 3);
    assert_eq!(js.consumer_info_from_stream("d3", "C").await.unwrap().config.max_deliver, 3);

    let names: BTreeSet<String> = stream.consumer_names().try_collect().await.unwrap();
    assert_eq!(names, BTreeSet::from(["d1".to_string(), "d2".into(), "d3".into()]));
    let infos: Vec<_> = stream.consumers().try_collect().await.unwrap();
    assert_eq!(infos.len(), 3);
    assert!(infos.iter().all(|i| i.stream_name == "C"));

    assert!(js.delete_consumer_from_stream("d3", "C").await.unwrap().success);
    assert!(stream.delete_consumer("d2").await.unwrap().success);
    assert_eq!(api_error(stream.delete_consumer("d2").await).err_code, ErrorCode::CONSUMER_NOT_FOUND);
    let e = api_error(stream.consumer_info("d2").await);
    assert_eq!((e.code, e.err_code), (404, ErrorCode::CONSUMER_NOT_FOUND));
    let names: Vec<String> = stream.consumer_names().try_collect().await.unwrap();
    assert_eq!(names, ["d1"]);
    assert_eq!(js.get_stream("C").await.unwrap().cached_info().state.consumer_count, 1);
}

#[tokio::test]
async fn get_or_create_consumer_from_many_tasks() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    let stream = js.create_stream(stream_config("W", &["w.>"])).await.unwrap();

    let descriptions = race_five(|i| {
        let stream = stream.clone();
        let config = ConsumerConfig { description: Some(format!("worker {i}")), ..Default::default() };
        async move {
            stream.get_or_create_consumer("workers", config).await.unwrap().cached_info().config.description.clone()
        }
    })
    .await;
    assert_eq!(descriptions.len(), 1, "every worker got the one consumer: {descriptions:?}");
    let names: Vec<String> = stream.consumer_names().try_collect().await.unwrap();
    assert_eq!(names, ["workers"]);
}

#[tokio::test]
async fn pause_and_resume_consumer() {
    let server = NatsServer::start_jetstream();
    let (_client, js) = connect(&server).await;
    let stream = js.create_stream(stream_config("PAUSE", &["pause"])).await.unwrap();
    stream.create_consumer(durable("d")).await.unwrap();

    let until = SystemTime::now() + Duration::from_secs(60);
    let paused = stream.pause_consumer("d", until).await.unwrap();
    assert!(paused.paused);
    assert!(paused.pause_remaining > Some(Duration::from_secs(50)));
    let info = stream.consumer_info("d").await.unwrap();
    assert!(info.paused);
    let pause_until = info.config.pause_until.as_deref().and_then(jetstream::api::timestamp::parse_rfc3339);
    assert_eq!(pause_until, Some(until));

    let resumed = stream.resume_consumer("d").await.unwrap();
    assert!(!resumed.paused);
    assert!(!stream.consumer_info("d").await.unwrap().paused);
    assert_eq!(api_error(stream.pause_consumer("nope", until).await).err_code, ErrorCode::CONSUMER_NOT_FOUND);
}

#[tokio::test]
async fn invalid_names_are_refused_before_any_request() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let stream = js.create_stream(stream_config("OK", &["ok"])).await.unwrap();
    let sent = client.statistics().out_messages;

    let invalid = |r: Result<_, Error>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(invalid(js.get_stream("a.b").await.map(drop).map_err(Error::from)));
    assert!(invalid(js.create_stream(stream_config("a b", &[])).await.map(drop).map_err(Error::from)));
    assert!(invalid(js.get_or_create_stream(stream_config("", &[])).await.map(drop).map_err(Error::from)));
    assert!(invalid(js.update_stream(stream_config("a*", &[])).await.map(drop).map_err(Error::from)));
    assert!(invalid(js.delete_stream("a>").await.map(drop).map_err(Error::from)));
    assert!(invalid(js.create_consumer_on_stream(durable("c"), "a.b").await.map(drop).map_err(Error::from)));
    assert!(invalid(
        js.get_consumer_from_stream::<ConsumerConfig, _, _>("c.d", "OK").await.map(drop).map_err(Error::from)
    ));
    assert!(invalid(js.delete_consumer_from_stream("c", "").await.map(drop).map_err(Error::from)));
    assert!(invalid(stream.create_consumer(durable("x.y")).await.map(drop).map_err(Error::from)));
    assert!(invalid(
        stream.get_or_create_consumer("x y", ConsumerConfig::default()).await.map(drop).map_err(Error::from)
    ));
    assert!(invalid(stream.consumer_info("*").await.map(drop).map_err(Error::from)));
    assert!(invalid(stream.pause_consumer("a/b", SystemTime::now()).await.map(drop).map_err(Error::from)));
    assert!(matches!(
        js.stream_by_subject("a..b").await.map_err(natsjet::Error::from),
        Err(Error::InvalidSubject { .. })
    ));
    let first = js.stream_names_for_subject("bad subject").next().await.map(|r| r.map_err(Error::from));
    assert!(matches!(first, Some(Err(Error::InvalidSubject { .. }))));
    assert!(matches!(
        stream.direct_get_last_for_subject("a b").await.map_err(natsjet::Error::from),
        Err(Error::InvalidSubject { .. })
    ));
    assert!(matches!(
        stream.get_last_raw_message_by_subject("").await.map_err(natsjet::Error::from),
        Err(Error::InvalidSubject { .. })
    ));

    client.flush().await.unwrap();
    assert_eq!(client.statistics().out_messages, sent, "nothing was published");
}

#[tokio::test]
async fn server_without_jetstream_answers_no_responders() {
    let server = NatsServer::start();
    let (_client, js) = connect(&server).await;
    assert_eq!(js.query_account().await.map_err(natsjet::Error::from), Err(Error::NoResponders));
    assert_eq!(js.get_stream("S").await.map(drop).map_err(Error::from), Err(Error::NoResponders));
    assert_eq!(
        js.create_stream(stream_config("S", &["s"])).await.map(drop).map_err(Error::from),
        Err(Error::NoResponders)
    );
    assert_eq!(js.stream_names().next().await.map(|r| r.map_err(Error::from)), Some(Err(Error::NoResponders)));
}

#[tokio::test]
async fn account_info_counts_streams_and_consumers() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let before = js.query_account().await.unwrap();
    assert_eq!((before.streams, before.consumers), (0, 0));

    let stream = js.create_stream(stream_config("A", &["a"])).await.unwrap();
    stream.create_consumer(durable("d")).await.unwrap();
    publish_all(&client, &[("a", "payload")]).await;

    let after = js.query_account().await.unwrap();
    assert_eq!((after.streams, after.consumers), (1, 1));
    assert!(after.storage > 0);
    assert!(after.requests.total > before.requests.total);
}

/// The stream sequences of one `no_wait` fetch of up to `n` messages, acked or not.
async fn fetch_seqs(consumer: &jetstream::Consumer, n: usize, ack: bool) -> Vec<u64> {
    let batch = consumer.fetch().max_messages(n).no_wait().messages().await.unwrap();
    let messages: Vec<_> = batch.try_collect().await.unwrap();
    let mut seqs = Vec::new();
    for m in messages {
        seqs.push(m.info().unwrap().stream_sequence);
        if ack {
            m.double_ack().await.unwrap();
        }
    }
    seqs
}

#[tokio::test]
async fn reset_consumer_to_the_ack_floor_and_to_a_sequence() {
    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let stream = js.create_stream(stream_config("RESET", &["reset.>"])).await.unwrap();
    publish_all(&client, &[("reset.a", "1"), ("reset.b", "2"), ("reset.a", "3"), ("reset.b", "4"), ("reset.a", "5")])
        .await;
    let mut consumer = stream.create_consumer(durable("d")).await.unwrap();
    assert_eq!(fetch_seqs(&consumer, 2, true).await, [1, 2]);
    assert_eq!(fetch_seqs(&consumer, 2, false).await, [3, 4]);

    // Back to the ack floor: 3 and 4 are pending no more and come again, first.
    let reset = stream.reset_consumer("d", None).await.unwrap();
    assert_eq!((reset.reset_seq, reset.info.name.as_str(), reset.info.num_ack_pending), (3, "d", 0));
    assert_eq!(fetch_seqs(&consumer, 1, true).await, [3]);

    // To a sequence, from the consumer handle, which keeps the reply's info.
    let reset = consumer.reset(Some(5)).await.unwrap();
    assert_eq!(reset.reset_seq, 5);
    assert_eq!(consumer.cached_info().num_pending, 1);
    assert_eq!(fetch_seqs(&consumer, 10, true).await, [5]);
    let reset = js.reset_consumer_from_stream("d", "RESET", Some(2)).await.unwrap();
    assert_eq!(reset.reset_seq, 2);

    // Refused for a deliver policy without a start, and nobody answers for a missing consumer.
    let new_only = ConsumerConfig { deliver_policy: jetstream::api::DeliverPolicy::New, ..durable("new") };
    stream.create_consumer(new_only).await.unwrap();
    let e = api_error(stream.reset_consumer("new", Some(1)).await);
    assert!(e.description.contains("not allowed"), "{e:?}");
    assert_eq!(api_error(stream.reset_consumer("nope", None).await).err_code, ErrorCode::CONSUMER_NOT_FOUND);
    assert!(matches!(
        stream.reset_consumer("a.b", None).await.map_err(natsjet::Error::from),
        Err(Error::InvalidArgument(_))
    ));
}

#[tokio::test]
async fn unpin_a_pinned_priority_group() {
    use jetstream::api::PriorityPolicy;

    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let stream = js.create_stream(stream_config("PIN", &["pin"])).await.unwrap();
    publish_all(&client, &[("pin", "1"), ("pin", "2")]).await;
    let config = ConsumerConfig {
        priority_groups: vec!["g".into()],
        priority_policy: PriorityPolicy::PinnedClient,
        ..durable("d")
    };
    let consumer = stream.create_consumer(config).await.unwrap();
    let batch = consumer.batch().max_messages(1).group("g").messages().await.unwrap();
    let got: Vec<_> = batch.try_collect().await.unwrap();
    assert_eq!(got.len(), 1);
    let pinned = |info: &jetstream::api::ConsumerInfo| info.priority_groups[0].pinned_client_id.is_some();
    assert!(pinned(&stream.consumer_info("d").await.unwrap()), "the fetch pinned the group");

    stream.unpin_consumer("d", "g").await.unwrap();
    assert!(!pinned(&stream.consumer_info("d").await.unwrap()));
    consumer.unpin("g").await.unwrap();
    js.unpin_consumer_from_stream("d", "PIN", "g").await.unwrap();
    assert!(api_error(stream.unpin_consumer("d", "other").await).description.contains("group"));
    assert_eq!(api_error(stream.unpin_consumer("nope", "g").await).err_code, ErrorCode::CONSUMER_NOT_FOUND);
}

#[tokio::test]
async fn stream_info_with_subject_counts_and_deleted_sequences() {
    use jetstream::api::StreamInfoRequest;

    let server = NatsServer::start_jetstream();
    let (client, js) = connect(&server).await;
    let mut stream = js.create_stream(stream_config("DETAIL", &["d.>"])).await.unwrap();
    publish_all(&client, &[("d.a.1", "x"), ("d.a.2", "x"), ("d.a.1", "x"), ("d.b.1", "x"), ("d.a.3", "x")]).await;
    assert!(stream.delete_message(2).await.unwrap());

    let plain = stream.info().await.unwrap();
    assert_eq!((plain.state.subjects.as_ref(), plain.state.deleted.as_ref().map_or(0, Vec::len)), (None, 0));
    let request =
        StreamInfoRequest { subjects_filter: Some("d.a.*".into()), deleted_details: true, ..Default::default() };
    let info = stream.info_with(request).await.unwrap();
    let subjects: BTreeSet<(String, u64)> = info.state.subjects.clone().unwrap().into_iter().collect();
    assert_eq!(subjects, BTreeSet::from([("d.a.1".to_string(), 2), ("d.a.3".into(), 1)]));
    assert_eq!(info.state.deleted.as_deref(), Some(&[2][..]));

    let all = StreamInfoRequest { subjects_filter: Some(">".into()), ..Default::default() };
    assert_eq!(stream.info_with(all).await.unwrap().state.subjects.as_ref().map(|s| s.len()), Some(3));
    let none = StreamInfoRequest { subjects_filter: Some("x.>".into()), ..Default::default() };
    assert_eq!(stream.info_with(none).await.unwrap().state.subjects, None);
    let pages = js.stream_info_json("DETAIL", &StreamInfoRequest::default()).await.unwrap();
    assert_eq!(pages.len(), 1);
    let bad = StreamInfoRequest { subjects_filter: Some("a..b".into()), ..Default::default() };
    assert!(matches!(stream.info_with(bad).await, Err(Error::InvalidSubject { .. })));
}
