//! Services (ADR-32, async-nats's `service` module): names and versions
//! refused, a service with groups, a named endpoint with metadata, a stats
//! handler, answers and error answers, discovery and stats read by another
//! client, two instances sharing a queue group, reset and stop.

use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;

use crate::nats::service::{self, ServiceExt};
use crate::nats::{self, Client};
use crate::{Outcome, Transcript};

const WAIT: Duration = Duration::from_secs(10);

/// `a,b,...` added up.
fn add(payload: &[u8]) -> Result<Bytes, service::error::Error> {
    let text = String::from_utf8_lossy(payload);
    let numbers: Result<Vec<i64>, _> = text.split(',').map(|n| n.trim().parse::<i64>()).collect();
    match numbers {
        Ok(numbers) => Ok(numbers.iter().sum::<i64>().to_string().into()),
        Err(_) => Err(service::error::Error { status: "not a number".into(), code: 422 }),
    }
}

/// `a/b`, refusing a zero divisor.
fn divide(payload: &[u8]) -> Result<Bytes, service::error::Error> {
    let text = String::from_utf8_lossy(payload);
    let (a, b) = text.split_once('/').unwrap_or((&text, "1"));
    match (a.trim().parse::<i64>(), b.trim().parse::<i64>()) {
        (Ok(_), Ok(0)) => Err(service::error::Error { status: "division by zero".into(), code: 400 }),
        (Ok(a), Ok(b)) => Ok((a / b).to_string().into()),
        _ => Err(service::error::Error { status: "not a number".into(), code: 422 }),
    }
}

/// Serves `endpoint` with `answer` until its stream ends.
fn serve(
    mut endpoint: service::endpoint::Endpoint,
    answer: fn(&[u8]) -> Result<Bytes, service::error::Error>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(request) = endpoint.next().await {
            request.respond(answer(&request.message.payload)).await.unwrap();
        }
    })
}

/// What a reply says: its payload, or its service error headers.
fn answer(reply: &nats::Message) -> String {
    let header = |name: &str| reply.headers.as_ref().and_then(|h| h.get(name)).map(|v| v.as_str().to_string());
    match (header(service::NATS_SERVICE_ERROR), header(service::NATS_SERVICE_ERROR_CODE)) {
        (Some(status), Some(code)) => format!("error {code} {status} (payload {} bytes)", reply.payload.len()),
        _ => String::from_utf8_lossy(&reply.payload).to_string(),
    }
}

/// A discovery request's reply, read as `T`.
async fn ask<T: serde::de::DeserializeOwned>(caller: &Client, subject: &str) -> Result<T, nats::Error> {
    let reply = caller.request(subject.to_string(), Bytes::new()).await?;
    Ok(serde_json::from_slice(&reply.payload).expect("a reply of the service API"))
}

/// Returns once the server has processed everything `client` sent before
/// (async-nats's `flush` only writes): a request nobody answers.
async fn processed(client: &Client) {
    let _ = client.request(client.new_inbox(), Bytes::new()).await;
}

fn sorted(map: &HashMap<String, String>) -> Vec<(String, String)> {
    let mut pairs: Vec<_> = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    pairs.sort();
    pairs
}

pub async fn micro_service(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::connect(url).await?;
    let caller = nats::connect(url).await?;

    match client.service_builder().start("calc", "one").await {
        Err(e) => seen.push(format!("bad version refused: {}", e.to_string().contains("semver"))),
        Ok(_) => seen.push("bad version started".into()),
    }
    match client.service_builder().start("calc.v2", "1.0.0").await {
        Err(e) => seen.push(format!("bad name refused: {}", e.to_string().contains("A-Z"))),
        Ok(_) => seen.push("bad name started".into()),
    }

    let mut service = client
        .service_builder()
        .description("arithmetic")
        .metadata(HashMap::from([("team".to_string(), "math".to_string())]))
        .stats_handler(|endpoint, stats| serde_json::json!({ "endpoint": endpoint, "requests": stats.requests }))
        .start("calc", "1.2.3-beta.1")
        .await?;
    let group = service.group("calc");
    let adder = serve(group.endpoint("add").await?, add);
    let divider = group
        .endpoint_builder()
        .name("divide")
        .metadata(HashMap::from([("unit".to_string(), "integer".to_string())]))
        .add("div")
        .await?;
    let divider = serve(divider, divide);
    processed(&client).await;
    let info = service.info().await;
    seen.push(format!("started {} {} {:?} {:?}", info.name, info.version, info.description, sorted(&info.metadata)));

    for (subject, payload) in [("calc.add", "1, 2, 3"), ("calc.add", "x"), ("calc.div", "84/2"), ("calc.div", "1/0")] {
        let reply = caller.request(subject.to_string(), payload.to_string().into()).await?;
        seen.push(format!("{subject} {payload:?}: {}", answer(&reply)));
    }

    let ping: service::PingResponse = ask(&caller, "$SRV.PING.calc").await?;
    seen.push(format!(
        "ping {} {} {} {:?} id matches {}",
        ping.kind,
        ping.name,
        ping.version,
        sorted(&ping.metadata),
        ping.id == info.id
    ));
    let mut described: service::Info = ask(&caller, &format!("$SRV.INFO.calc.{}", info.id)).await?;
    seen.push(format!("info {} {:?}", described.kind, described.description));
    described.endpoints.sort_by(|a, b| a.subject.cmp(&b.subject));
    for endpoint in &described.endpoints {
        let meta = sorted(&endpoint.metadata);
        seen.push(format!("  endpoint {} on {} in {} {meta:?}", endpoint.name, endpoint.subject, endpoint.queue_group));
    }
    let mut stats: service::Stats = ask(&caller, "$SRV.STATS").await?;
    seen.push(format!("stats {} {} {}", stats.kind, stats.name, stats.version));
    stats.endpoints.sort_by(|a, b| a.subject.cmp(&b.subject));
    for endpoint in &stats.endpoints {
        let last = endpoint.last_error.as_ref().map(|e| format!("{}:{}", e.code, e.status));
        let average = endpoint.processing_time.as_nanos() / endpoint.requests.max(1) as u128;
        seen.push(format!(
            "  {} requests {} errors {} last {last:?} timed {} average {} data {}",
            endpoint.name,
            endpoint.requests,
            endpoint.errors,
            endpoint.processing_time > Duration::ZERO,
            endpoint.average_processing_time.as_nanos() == average,
            endpoint.data.clone().unwrap_or_default(),
        ));
    }

    // A second instance shares the add endpoint's queue group.
    let other_client = nats::connect(url).await?;
    let other = other_client.service_builder().start("calc", "1.2.3-beta.1").await?;
    let other_adder = serve(other.group("calc").endpoint("add").await?, add);
    processed(&other_client).await;
    let mut pongs = caller.subscribe("pongs").await?;
    caller.publish_with_reply("$SRV.PING.calc", "pongs", Bytes::new()).await?;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let pong = tokio::time::timeout(WAIT, pongs.next()).await.ok().flatten().expect("a pong");
        ids.push(serde_json::from_slice::<service::PingResponse>(&pong.payload).expect("a pong").id);
    }
    ids.sort();
    ids.dedup();
    seen.push(format!("instances answering ping: {}", ids.len()));
    service.reset().await;
    for i in 0..40 {
        caller.request("calc.add", format!("{i},1").into()).await?;
    }
    let (first, second) = (service.stats().await, other.stats().await);
    let (first, second) = (first["calc.add"].requests, second["calc.add"].requests);
    seen.push(format!("40 adds: {} answered, by both: {}", first + second, first > 0 && second > 0));
    service.reset().await;
    let mut counts: Vec<_> =
        service.stats().await.into_iter().map(|(key, s)| format!("{key}={}/{}", s.requests, s.errors)).collect();
    counts.sort();
    seen.push(format!("after reset: {counts:?}"));

    other.stop().await?;
    other_adder.await.expect("served");
    service.stop().await?;
    adder.await.expect("served");
    divider.await.expect("served");
    processed(&client).await;
    processed(&other_client).await;
    match caller.request("calc.add", "1,1".into()).await {
        Err(e) if e.kind() == nats::RequestErrorKind::NoResponders => seen.push("after stop: no responders".into()),
        Err(e) => seen.push(format!("after stop: {e}")),
        Ok(reply) => seen.push(format!("after stop: {}", answer(&reply))),
    }
    Ok(seen)
}
