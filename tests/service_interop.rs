//! Services interop with async-nats 0.51 (whose `service` module is 0.52's)
//! on one real server, both ways: a natsjet service discovered, called and
//! stat'ed by an async-nats client, its replies read into async-nats's own
//! types; an async-nats service discovered and called by natsjet; and
//! instances of one service from both libraries sharing its queue group.
//! The replies' JSON is compared field by field; the one difference is
//! named: natsjet's STATS also carries the service's `metadata`, as ADR-32
//! has it (async-nats ignores it).
#![cfg(all(feature = "service", not(target_arch = "wasm32")))]

mod common;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, UNIX_EPOCH};

use async_nats::service::ServiceExt as _;
use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::service::ServiceExt as _;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

fn metadata(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

async fn theirs_ask<T: DeserializeOwned>(client: &async_nats::Client, subject: &str) -> T {
    let reply = timeout(WAIT, client.request(subject.to_string(), Bytes::new())).await.unwrap().unwrap();
    serde_json::from_slice(&reply.payload).unwrap_or_else(|e| panic!("{subject}: {e}: {:?}", reply.payload))
}

async fn ours_ask<T: DeserializeOwned>(client: &natsjet::Client, subject: &str) -> T {
    let reply = timeout(WAIT, client.request(subject, Bytes::new())).await.unwrap().unwrap();
    serde_json::from_slice(&reply.payload).unwrap_or_else(|e| panic!("{subject}: {e}: {:?}", reply.payload))
}

/// The field names of a JSON object, and of its first endpoint's.
fn fields(reply: &Value) -> (Vec<String>, Vec<String>) {
    let keys = |v: &Value| {
        let mut keys: Vec<String> = v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
        keys.sort();
        keys
    };
    (keys(reply), keys(&reply["endpoints"][0]))
}

/// The same service in both libraries: `sum` adds the numbers it is sent,
/// and answers 400 "not a number" to anything else.
fn sum(payload: &[u8]) -> Result<Bytes, (String, usize)> {
    let text = String::from_utf8_lossy(payload);
    let numbers: Result<Vec<i64>, _> = text.split(',').map(|n| n.trim().parse::<i64>()).collect();
    numbers.map(|n| n.iter().sum::<i64>().to_string().into()).map_err(|_| ("not a number".to_string(), 400))
}

/// The `adder` service in library `$lib` (`natsjet` or `async_nats`), the
/// same code for both: `math.sum` with metadata, and a stats handler.
macro_rules! adder_service {
    ($lib:ident, $client:expr, $lib_name:literal) => {{
        let client = $client;
        let service = client
            .service_builder()
            .description("adds numbers")
            .metadata(metadata(&[("lib", $lib_name)]))
            .stats_handler(|key, _| serde_json::json!({ "key": key }))
            .start("adder", "1.2.0")
            .await
            .unwrap();
        let mut endpoint = service
            .group("math")
            .endpoint_builder()
            .metadata(metadata(&[("input", "csv")]))
            .add("sum")
            .await
            .unwrap();
        tokio::spawn(async move {
            while let Some(request) = endpoint.next().await {
                let answer =
                    sum(&request.message.payload).map_err(|(status, code)| $lib::service::error::Error { status, code });
                request.respond(answer).await.unwrap();
            }
        });
        // A round trip (async-nats's flush only writes): the server has the subscriptions.
        let _ = client.request(client.new_inbox(), Bytes::new()).await;
        service
    }};
}

async fn ours_service(client: &natsjet::Client) -> natsjet::service::Service {
    adder_service!(natsjet, client, "natsjet")
}

async fn theirs_service(client: &async_nats::Client) -> async_nats::service::Service {
    adder_service!(async_nats, client, "async-nats")
}

#[tokio::test]
async fn async_nats_discovers_calls_and_stats_a_natsjet_service() {
    let server = NatsServer::start();
    let ours = natsjet::connect(server.client_url()).await.unwrap();
    let theirs = async_nats::connect(server.client_url()).await.unwrap();
    let service = ours_service(&ours).await;
    let id = service.info().await.id;

    let answer = theirs.request("math.sum", "1, 2, 39".into()).await.unwrap();
    assert_eq!(answer.payload, "42");
    let failed = theirs.request("math.sum", "one".into()).await.unwrap();
    let headers = failed.headers.unwrap();
    assert_eq!(headers.get(async_nats::service::NATS_SERVICE_ERROR).unwrap().as_str(), "not a number");
    assert_eq!(headers.get(async_nats::service::NATS_SERVICE_ERROR_CODE).unwrap().as_str(), "400");
    assert!(failed.payload.is_empty());

    for level in ["$SRV.PING".to_string(), "$SRV.PING.adder".into(), format!("$SRV.PING.adder.{id}")] {
        let ping: async_nats::service::PingResponse = theirs_ask(&theirs, &level).await;
        assert_eq!(ping.kind, "io.nats.micro.v1.ping_response");
        assert_eq!((ping.name, ping.id, ping.version), ("adder".into(), id.clone(), "1.2.0".into()), "{level}");
        assert_eq!(ping.metadata, metadata(&[("lib", "natsjet")]));
    }
    let info: async_nats::service::Info = theirs_ask(&theirs, &format!("$SRV.INFO.adder.{id}")).await;
    assert_eq!((info.kind.as_str(), info.description.as_str()), ("io.nats.micro.v1.info_response", "adds numbers"));
    assert_eq!(
        info.endpoints,
        [async_nats::service::endpoint::Info {
            name: "math-sum".into(),
            subject: "math.sum".into(),
            queue_group: "q".into(),
            metadata: metadata(&[("input", "csv")]),
        }]
    );
    let stats: async_nats::service::Stats = theirs_ask(&theirs, "$SRV.STATS.adder").await;
    assert_eq!((stats.kind.as_str(), stats.id.as_str()), ("io.nats.micro.v1.stats_response", id.as_str()));
    let ours_stats = service.stats().await;
    let started = ours_ask::<natsjet::service::Stats>(&ours, "$SRV.STATS.adder").await.started;
    assert_eq!(stats.started.unix_timestamp_nanos(), started.duration_since(UNIX_EPOCH).unwrap().as_nanos() as i128);
    let sum_stats = &stats.endpoints[0];
    assert_eq!((sum_stats.name.as_str(), sum_stats.subject.as_str()), ("math-sum", "math.sum"));
    assert_eq!((sum_stats.requests, sum_stats.errors), (2, 1));
    assert_eq!(
        sum_stats.last_error,
        Some(async_nats::service::error::Error { status: "not a number".into(), code: 400 })
    );
    assert_eq!(sum_stats.processing_time, ours_stats["math.sum"].processing_time);
    assert_eq!(sum_stats.average_processing_time, ours_stats["math.sum"].average_processing_time);
    assert_eq!(sum_stats.data, Some(serde_json::json!({ "key": "math.sum" })));
    service.stop().await.unwrap();
}

#[tokio::test]
async fn natsjet_discovers_and_calls_an_async_nats_service() {
    let server = NatsServer::start();
    let ours = natsjet::connect(server.client_url()).await.unwrap();
    let theirs = async_nats::connect(server.client_url()).await.unwrap();
    let service = theirs_service(&theirs).await;
    let id = service.info().await.id;

    assert_eq!(ours.request("math.sum", "20,22".into()).await.unwrap().payload, "42");
    let failed = ours.request("math.sum", "x".into()).await.unwrap();
    let headers = failed.headers.unwrap();
    assert_eq!(headers.get(natsjet::service::NATS_SERVICE_ERROR).unwrap().as_str(), "not a number");
    assert_eq!(headers.get(natsjet::service::NATS_SERVICE_ERROR_CODE).unwrap().as_str(), "400");

    for level in ["$SRV.PING".to_string(), "$SRV.PING.adder".into(), format!("$SRV.PING.adder.{id}")] {
        let ping: natsjet::service::PingResponse = ours_ask(&ours, &level).await;
        assert_eq!((ping.kind.as_str(), ping.id.as_str()), (natsjet::service::PING_RESPONSE_TYPE, id.as_str()));
        assert_eq!(ping.metadata, metadata(&[("lib", "async-nats")]));
    }
    let info: natsjet::service::Info = ours_ask(&ours, &format!("$SRV.INFO.adder.{id}")).await;
    assert_eq!((info.name.as_str(), info.version.as_str()), ("adder", "1.2.0"));
    assert_eq!(
        info.endpoints,
        [natsjet::service::endpoint::Info {
            name: "math-sum".into(),
            subject: "math.sum".into(),
            queue_group: "q".into(),
            metadata: metadata(&[("input", "csv")]),
        }]
    );
    let stats: natsjet::service::Stats = ours_ask(&ours, &format!("$SRV.STATS.adder.{id}")).await;
    // async-nats's STATS has no metadata: it reads as empty.
    assert!(stats.metadata.is_empty());
    let theirs_stats: async_nats::service::Stats = theirs_ask(&theirs, "$SRV.STATS.adder").await;
    assert_eq!(
        stats.started.duration_since(UNIX_EPOCH).unwrap().as_nanos() as i128,
        theirs_stats.started.unix_timestamp_nanos()
    );
    let sum_stats = &stats.endpoints[0];
    assert_eq!((sum_stats.requests, sum_stats.errors), (2, 1));
    assert_eq!(sum_stats.last_error, Some(natsjet::service::error::Error { status: "not a number".into(), code: 400 }));
    assert!(sum_stats.processing_time > Duration::ZERO);
    assert_eq!(sum_stats.data, Some(serde_json::json!({ "key": "math.sum" })));
    service.stop().await.unwrap();
}

#[tokio::test]
async fn both_libraries_reply_with_the_same_json_fields() {
    let server = NatsServer::start();
    let ours = natsjet::connect(server.client_url()).await.unwrap();
    let theirs = async_nats::connect(server.client_url()).await.unwrap();
    let (ours_service, theirs_service) = (ours_service(&ours).await, theirs_service(&theirs).await);
    let (ours_id, theirs_id) = (ours_service.info().await.id, theirs_service.info().await.id);
    ours.request("math.sum", "1".into()).await.unwrap();
    ours.request("math.sum", "1".into()).await.unwrap();

    for verb in ["PING", "INFO", "STATS"] {
        let ours_reply: Value = ours_ask(&ours, &format!("$SRV.{verb}.adder.{ours_id}")).await;
        let theirs_reply: Value = ours_ask(&ours, &format!("$SRV.{verb}.adder.{theirs_id}")).await;
        let (mut ours_fields, ours_endpoint) = fields(&ours_reply);
        if verb == "STATS" {
            ours_fields.retain(|f| f != "metadata");
        }
        assert_eq!((ours_fields, ours_endpoint), fields(&theirs_reply), "{verb}");
        assert_eq!(ours_reply["type"], theirs_reply["type"]);
    }
}

#[tokio::test]
async fn instances_from_both_libraries_share_one_service() {
    let server = NatsServer::start();
    let ours = natsjet::connect(server.client_url()).await.unwrap();
    let theirs = async_nats::connect(server.client_url()).await.unwrap();
    let (ours_service, theirs_service) = (ours_service(&ours).await, theirs_service(&theirs).await);
    let (ours_id, theirs_id) = (ours_service.info().await.id, theirs_service.info().await.id);

    let caller = natsjet::connect(server.client_url()).await.unwrap();
    let mut replies = caller.request_many("$SRV.PING.adder", "").max_messages(2).max_wait(WAIT).await.unwrap();
    let mut ids = HashSet::new();
    while let Some(reply) = replies.next().await {
        let ping: natsjet::service::PingResponse = serde_json::from_slice(&reply.unwrap().payload).unwrap();
        ids.insert(ping.id);
    }
    assert_eq!(ids, HashSet::from([ours_id, theirs_id]));

    // One queue group: each request is answered once, by one of them.
    for i in 0..40 {
        let answer = caller.request("math.sum", format!("{i},1").into()).await.unwrap();
        assert_eq!(answer.payload, (i + 1).to_string());
    }
    let mut answered = 0;
    let mut replies = caller.request_many("$SRV.STATS.adder", "").max_messages(2).max_wait(WAIT).await.unwrap();
    while let Some(reply) = replies.next().await {
        let stats: natsjet::service::Stats = serde_json::from_slice(&reply.unwrap().payload).unwrap();
        assert!(stats.endpoints[0].requests > 0, "{} took none", stats.id);
        answered += stats.endpoints[0].requests;
    }
    assert_eq!(answered, 40);
}
