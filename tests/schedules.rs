//! Message schedules (ADR-51) against a real server: each kind of schedule
//! fires into its target with the headers the ADR names, a cancellation
//! stops one atomically with a publish, a stream without
//! `allow_msg_schedules` refuses them with its error, the server refuses a
//! bad pattern, target, source, TTL, time zone or rollup each with its code,
//! and what nats.js refuses before sending (a cancellation with a schedule
//! or of its own subject) is refused before a byte is written.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use common::NatsServer;
use natsjet::jetstream::api::{ErrorCode, StreamConfig, StreamInfoRequest};
use natsjet::jetstream::publish::{Predefined, PublishErrorKind, Schedule};
use natsjet::jetstream::stream::StreamMessage;
use natsjet::jetstream::{Context, Publish};
use natsjet::{Error, HeaderMap};

/// A server, a context on it, and its stream `name` (`<name>.>`, with
/// message TTLs), taking schedules when `schedules`.
async fn with_stream(name: &str, schedules: bool) -> (NatsServer, Context) {
    let server = NatsServer::start_jetstream();
    let config = StreamConfig { allow_message_schedules: schedules, allow_message_ttl: true, ..Default::default() };
    let js = common::stream_context(&server, name, config).await;
    (server, js)
}

async fn publish(js: &Context, subject: &str, publish: Publish) -> Result<u64, Error> {
    Ok(js.send_publish(subject, publish).await?.await?.sequence)
}

/// Messages stored on each subject of `filter`.
async fn counts(js: &Context, name: &str, filter: &str) -> HashMap<String, u64> {
    let mut stream = js.get_stream(name).await.unwrap();
    let request = StreamInfoRequest { subjects_filter: Some(filter.into()), ..Default::default() };
    stream.info_with(request).await.unwrap().state.subjects.clone().unwrap_or_default()
}

/// The last message on `subject` once there is one (within 5 s).
async fn last_on(js: &Context, name: &str, subject: &str) -> StreamMessage {
    let stream = js.get_stream(name).await.unwrap();
    let start = Instant::now();
    loop {
        if let Ok(m) = stream.get_last_raw_message_by_subject(subject).await {
            return m;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "nothing on {subject}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn header<'a>(m: &'a StreamMessage, name: &str) -> Option<&'a str> {
    m.headers.get(name).map(|v| v.as_str())
}

#[tokio::test]
async fn a_one_shot_schedule_fires_once_and_is_gone() {
    let (_server, js) = with_stream("SCHED", true).await;
    let at = SystemTime::now() + Duration::from_secs(1);
    let mut headers = HeaderMap::new();
    headers.insert("X-Order", "7");
    let schedule = Schedule::at(at, "sched.out.at");
    let message = Publish::build().payload(Bytes::from_static(b"hello")).headers(headers).schedule(schedule);
    publish(&js, "sched.at", message).await.unwrap();
    let fired = last_on(&js, "SCHED", "sched.out.at").await;
    assert!(SystemTime::now() >= at, "not before its time");
    assert_eq!(&fired.payload[..], b"hello");
    assert_eq!(header(&fired, "X-Order"), Some("7"), "the schedule's headers go along");
    assert_eq!(header(&fired, "Nats-Scheduler"), Some("sched.at"));
    assert_eq!(header(&fired, "Nats-Schedule-Next"), Some("purge"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let left = counts(&js, "SCHED", "sched.>").await;
    assert_eq!(left, HashMap::from([("sched.out.at".to_string(), 1)]), "the schedule is removed once it fired");
}

#[tokio::test]
async fn interval_and_cron_schedules_repeat() {
    let (_server, js) = with_stream("REP", true).await;
    let every = Schedule::every(Duration::from_secs(1), "rep.out.every").ttl(Duration::from_secs(60));
    publish(&js, "rep.every", Publish::build().payload(Bytes::from_static(b"e")).schedule(every)).await.unwrap();
    let cron = Schedule::cron("* * * * * *", "rep.out.cron").time_zone("America/New_York").rollup();
    publish(&js, "rep.cron", Publish::build().payload(Bytes::from_static(b"c")).schedule(cron)).await.unwrap();
    let hourly = Schedule::predefined(Predefined::Hourly, "rep.out.hourly").time_zone("UTC");
    publish(&js, "rep.hourly", Publish::build().schedule(hourly)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let seen = counts(&js, "REP", "rep.out.>").await;
    assert!(seen["rep.out.every"] >= 2, "{seen:?}");
    assert_eq!(seen["rep.out.cron"], 1, "rolled up: the latest only ({seen:?})");
    assert!(!seen.contains_key("rep.out.hourly"));
    let every = last_on(&js, "REP", "rep.out.every").await;
    assert_eq!(header(&every, "Nats-TTL"), Some("60"));
    let next = header(&every, "Nats-Schedule-Next").unwrap();
    assert!(next.ends_with('Z') && next.contains('T'), "the next firing's time: {next}");
    let cron = last_on(&js, "REP", "rep.out.cron").await;
    assert!(cron.sequence > 3, "fired repeatedly (seq {})", cron.sequence);
    assert_eq!(header(&cron, "Nats-Rollup"), Some("sub"));
    let schedules = counts(&js, "REP", "rep.*").await;
    assert_eq!(schedules.len(), 3, "the schedules stay: {schedules:?}");
}

#[tokio::test]
async fn a_source_schedule_samples_the_sources_last_message() {
    let (_server, js) = with_stream("SAMPLE", true).await;
    for reading in ["20", "21", "22"] {
        publish(&js, "sample.temp", Publish::build().payload(Bytes::from(reading))).await.unwrap();
    }
    let schedule = Schedule::every(Duration::from_secs(1), "sample.out").source("sample.temp");
    publish(&js, "sample.every", Publish::build().payload(Bytes::from_static(b"none")).schedule(schedule))
        .await
        .unwrap();
    let sampled = last_on(&js, "SAMPLE", "sample.out").await;
    assert_eq!(&sampled.payload[..], b"22");
}

#[tokio::test]
async fn a_cancellation_stops_the_schedule_atomically_with_its_publish() {
    let (_server, js) = with_stream("CANCEL", true).await;
    let at = SystemTime::now() + Duration::from_secs(2);
    let seq = publish(&js, "cancel.at", Publish::build().schedule(Schedule::at(at, "cancel.out"))).await.unwrap();
    // Only if the schedule is still there (ADR-51): its sequence is expected.
    let cancel = Publish::build()
        .payload(Bytes::from_static(b"cancelled"))
        .cancel_schedule("cancel.at")
        .expected_last_subject_sequence(seq)
        .expected_last_subject_sequence_subject("cancel.at");
    publish(&js, "cancel.done", cancel).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2800)).await;
    let left = counts(&js, "CANCEL", "cancel.>").await;
    assert_eq!(left, HashMap::from([("cancel.done".to_string(), 1)]), "purged, never fired");
}

#[tokio::test]
async fn a_stream_without_allow_msg_schedules_refuses_them() {
    let (_server, js) = with_stream("NOSCHED", false).await;
    let schedule = Schedule::every(Duration::from_secs(5), "nosched.out");
    let refused = js.send_publish("nosched.every", Publish::build().schedule(schedule)).await.unwrap().await;
    let refused = refused.unwrap_err();
    assert_eq!(refused.kind(), PublishErrorKind::Other);
    assert!(matches!(refused.cause(), Error::JetStream(e) if e.err_code == ErrorCode::MESSAGE_SCHEDULES_DISABLED));
    let cancel = publish(&js, "nosched.x", Publish::build().cancel_schedule("nosched.every")).await;
    assert!(matches!(cancel, Err(Error::JetStream(e)) if e.err_code == ErrorCode::MESSAGE_SCHEDULES_DISABLED));
    assert!(counts(&js, "NOSCHED", ">").await.is_empty());
}

#[tokio::test]
async fn the_server_refuses_what_it_cannot_schedule_with_its_code() {
    let (_server, js) = with_stream("JUDGED", true).await;
    let out = "judged.out";
    let refused = [
        (Schedule::cron("0 0 5 * *", out), ErrorCode::MESSAGE_SCHEDULES_PATTERN_INVALID),
        (Schedule::cron("60 * * * * *", out), ErrorCode::MESSAGE_SCHEDULES_PATTERN_INVALID),
        (Schedule::every(Duration::from_millis(500), out), ErrorCode::MESSAGE_SCHEDULES_PATTERN_INVALID),
        (Schedule::new("@every 5 minutes", out), ErrorCode::MESSAGE_SCHEDULES_PATTERN_INVALID),
        (Schedule::new("@at tomorrow", out), ErrorCode::MESSAGE_SCHEDULES_PATTERN_INVALID),
        (Schedule::every(Duration::from_secs(5), out).time_zone("UTC"), ErrorCode::MESSAGE_SCHEDULES_PATTERN_INVALID),
        (Schedule::cron("0 0 5 * * *", out).time_zone("Mars/Olympus"), ErrorCode::MESSAGE_SCHEDULES_TIME_ZONE_INVALID),
        (Schedule::cron("@daily", "judged.s"), ErrorCode::MESSAGE_SCHEDULES_TARGET_INVALID),
        (Schedule::cron("@daily", "judged.*"), ErrorCode::MESSAGE_SCHEDULES_TARGET_INVALID),
        (Schedule::cron("@daily", out).source(out), ErrorCode::MESSAGE_SCHEDULES_SOURCE_INVALID),
        (Schedule::cron("@daily", out).ttl_text("soon"), ErrorCode::MESSAGE_SCHEDULES_TTL_INVALID),
    ];
    for (schedule, code) in refused {
        let what = format!("{schedule:?}");
        let ack = js.send_publish("judged.s", Publish::build().schedule(schedule)).await.unwrap().await;
        let refused = ack.unwrap_err();
        assert_eq!(refused.kind(), PublishErrorKind::Other, "{what}");
        assert!(matches!(refused.cause(), Error::JetStream(e) if e.err_code == code), "{what}: {refused}");
    }
    let cancel = publish(&js, "judged.x", Publish::build().cancel_schedule("bad subject")).await;
    assert!(matches!(cancel, Err(Error::JetStream(e)) if e.err_code == ErrorCode::MESSAGE_SCHEDULES_SCHEDULER_INVALID));
    assert!(counts(&js, "JUDGED", ">").await.is_empty(), "nothing was stored");
}

#[tokio::test]
async fn what_nats_js_refuses_is_refused_before_sending() {
    let (_server, js) = with_stream("LOCAL", true).await;
    let bad = [
        Publish::build().schedule(Schedule::cron("@daily", "local.out")).cancel_schedule("local.x"),
        Publish::build().cancel_schedule("local.s"),
    ];
    for message in bad {
        let refused = js.send_publish("local.s", message).await.unwrap_err();
        assert!(matches!(refused.cause(), Error::InvalidArgument(_)), "{refused}");
    }
    assert_eq!(js.acks_in_flight(), 0);
    assert!(counts(&js, "LOCAL", ">").await.is_empty(), "nothing was written");
}
