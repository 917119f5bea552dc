//! Services (ADR-32) against a real server: endpoints, groups and queue
//! groups, metadata, the stats each answer counts, reset, stop, a stats
//! handler, error replies, discovery by PING, INFO and STATS on all three
//! subject levels, and the names and versions a service refuses. Callers
//! and discoverers use a connection of their own, as other programs would.
#![cfg(all(feature = "service", not(target_arch = "wasm32")))]

mod common;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::service::{self, Info, PingResponse, Service, ServiceExt, Stats, endpoint::Endpoint};
use natsjet::{Client, Error, HeaderMap, Message, RequestErrorKind};
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

async fn connect(server: &NatsServer) -> Client {
    natsjet::connect(server.client_url()).await.unwrap()
}

/// Answers every request of `endpoint` with `answer(payload)` until it ends.
fn serve(mut endpoint: Endpoint, answer: fn(&[u8]) -> Result<Bytes, service::error::Error>) {
    tokio::spawn(async move {
        while let Some(request) = endpoint.next().await {
            request.respond(answer(&request.message.payload)).await.unwrap();
        }
    });
}

fn upper(payload: &[u8]) -> Result<Bytes, service::error::Error> {
    Ok(String::from_utf8_lossy(payload).to_uppercase().into())
}

async fn ask<T: DeserializeOwned>(client: &Client, subject: &str) -> T {
    let reply = timeout(WAIT, client.request(subject, Bytes::new())).await.unwrap().unwrap();
    serde_json::from_slice(&reply.payload).unwrap_or_else(|e| panic!("{subject}: {e}: {:?}", reply.payload))
}

/// Every reply to `subject` from `n` responders.
async fn ask_all<T: DeserializeOwned>(client: &Client, subject: &str, n: u64) -> Vec<T> {
    let mut replies = client.request_many(subject, "").max_messages(n).max_wait(WAIT).await.unwrap();
    let mut all = Vec::new();
    while let Some(reply) = replies.next().await {
        all.push(serde_json::from_slice(&reply.unwrap().payload).unwrap());
    }
    assert_eq!(all.len() as u64, n, "replies to {subject}");
    all
}

async fn request(client: &Client, subject: &str, payload: &'static str) -> Message {
    timeout(WAIT, client.request(subject, payload.into())).await.unwrap().unwrap()
}

/// A server, a service named `name` on a client of its own, and a caller.
async fn started(name: &str) -> (NatsServer, Client, Client, Service) {
    let server = NatsServer::start();
    let (client, caller) = (connect(&server).await, connect(&server).await);
    let service = client.service_builder().start(name, "1.0.0").await.unwrap();
    (server, client, caller, service)
}

fn metadata(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[tokio::test]
async fn endpoints_answer_requests() {
    let (_server, client, caller, service) = started("echo").await;
    serve(service.endpoint("echo.upper").await.unwrap(), upper);
    let mut raw = service.endpoint("echo.raw").await.unwrap();
    client.flush().await.unwrap();

    assert_eq!(request(&caller, "echo.upper", "hi").await.payload, "HI");
    let asked = caller.request("echo.raw", "as is".into());
    let answered = async {
        let request = raw.next().await.unwrap();
        assert_eq!(request.message.subject.as_str(), "echo.raw");
        request.respond(Ok(request.message.payload.clone())).await.unwrap();
    };
    let (reply, ()) = tokio::join!(asked, answered);
    let reply = reply.unwrap();
    assert_eq!(reply.payload, "as is");
    assert!(reply.headers.is_none(), "{:?}", reply.headers);
}

#[tokio::test]
async fn groups_prefix_subjects_and_endpoints_name_themselves() {
    let server = NatsServer::start();
    let (client, caller) = (connect(&server).await, connect(&server).await);
    let service = client.service_builder().queue_group("svc-q").start("shop", "2.1.0-rc.1+build.5").await.unwrap();
    let v1 = service.group("v1");
    serve(v1.endpoint("products").await.unwrap(), upper);
    serve(v1.group("admin").endpoint("users").await.unwrap(), upper);
    let own = v1.group_with_queue_group("audit", "auditors");
    serve(own.endpoint("log").await.unwrap(), upper);
    let listed = service
        .endpoint_builder()
        .name("list")
        .metadata(metadata(&[("format", "json")]))
        .queue_group("listers")
        .add("shop.list")
        .await
        .unwrap();
    serve(listed, upper);
    client.flush().await.unwrap();

    for subject in ["v1.products", "v1.admin.users", "v1.audit.log", "shop.list"] {
        assert_eq!(request(&caller, subject, "x").await.payload, "X", "{subject}");
    }

    let info: Info = ask(&caller, "$SRV.INFO.shop").await;
    let described: Vec<_> = info
        .endpoints
        .iter()
        .map(|e| (e.name.as_str(), e.subject.as_str(), e.queue_group.as_str(), e.metadata.clone()))
        .collect();
    assert_eq!(
        described,
        [
            ("v1-products", "v1.products", "svc-q", HashMap::new()),
            ("v1-admin-users", "v1.admin.users", "svc-q", HashMap::new()),
            ("v1-audit-log", "v1.audit.log", "auditors", HashMap::new()),
            ("list", "shop.list", "listers", metadata(&[("format", "json")])),
        ]
    );
    // The service's own view: keyed by name, else by subject.
    let mut keys: Vec<_> = service.stats().await.into_keys().collect();
    keys.sort();
    assert_eq!(keys, ["list", "v1.admin.users", "v1.audit.log", "v1.products"]);
    assert_eq!(service.info().await, info);
}

#[tokio::test]
async fn two_instances_share_a_queue_group_and_other_groups_get_every_request() {
    let server = NatsServer::start();
    let caller = connect(&server).await;
    let mut ids = Vec::new();
    let mut services = Vec::new();
    for _ in 0..2 {
        let client = connect(&server).await;
        let service = client.service_builder().start("worker", "1.0.0").await.unwrap();
        let id = service.info().await.id;
        let mut endpoint = service.endpoint("work").await.unwrap();
        let answer = id.clone();
        tokio::spawn(async move {
            while let Some(request) = endpoint.next().await {
                request.respond(Ok(answer.clone().into())).await.unwrap();
            }
        });
        client.flush().await.unwrap();
        ids.push(id);
        services.push(service);
    }
    let mut taken = HashMap::<String, usize>::new();
    for _ in 0..60 {
        let reply = request(&caller, "work", "job").await;
        *taken.entry(String::from_utf8(reply.payload.to_vec()).unwrap()).or_default() += 1;
    }
    assert_eq!(taken.keys().collect::<HashSet<_>>(), ids.iter().collect(), "both instances took some: {taken:?}");
    assert_eq!(taken.values().sum::<usize>(), 60);
    // Each instance counted what it answered.
    let stats: Vec<Stats> = ask_all(&caller, "$SRV.STATS.worker", 2).await;
    let counted: HashMap<_, _> = stats.iter().map(|s| (s.id.clone(), s.endpoints[0].requests)).collect();
    assert_eq!(counted, taken);

    // Endpoints in queue groups of their own each get every request.
    let client = connect(&server).await;
    let audit = client.service_builder().start("audit", "1.0.0").await.unwrap();
    let mut first = audit.endpoint_builder().queue_group("a").add("work").await.unwrap();
    let mut second = audit.endpoint_builder().name("work-b").queue_group("b").add("work").await.unwrap();
    client.flush().await.unwrap();
    let mut replies = caller.subscribe("audit.replies").await.unwrap();
    caller.flush().await.unwrap();
    for i in 0..5 {
        caller.publish_with_reply("work", "audit.replies", format!("{i}").into()).await.unwrap();
    }
    for _ in 0..5 {
        let (a, b) = (first.next().await.unwrap(), second.next().await.unwrap());
        assert_eq!(a.message.payload, b.message.payload);
        a.respond(Ok("a".into())).await.unwrap();
        b.respond(Ok("b".into())).await.unwrap();
    }
    // Each request had three answers: one of the workers, and a and b.
    let mut answers = Vec::new();
    for _ in 0..15 {
        let reply = timeout(WAIT, replies.next()).await.unwrap().unwrap();
        answers.push(String::from_utf8(reply.payload.to_vec()).unwrap());
    }
    assert_eq!(answers.iter().filter(|a| *a == "a").count(), 5);
    assert_eq!(answers.iter().filter(|a| *a == "b").count(), 5);
    assert_eq!(answers.iter().filter(|a| ids.contains(a)).count(), 5);
}

#[tokio::test]
async fn metadata_and_description_are_in_every_discovery_reply() {
    let server = NatsServer::start();
    let (client, caller) = (connect(&server).await, connect(&server).await);
    let meta = metadata(&[("region", "eu-west"), ("owner", "team-a")]);
    let service = client
        .service_builder()
        .description("stores things")
        .metadata(meta.clone())
        .start("store", "0.3.0")
        .await
        .unwrap();
    service.endpoint_builder().metadata(metadata(&[("cost", "low")])).add("store.put").await.unwrap();
    client.flush().await.unwrap();

    let ping: PingResponse = ask(&caller, "$SRV.PING.store").await;
    assert_eq!(ping.kind, "io.nats.micro.v1.ping_response");
    assert_eq!((ping.name.as_str(), ping.version.as_str(), &ping.metadata), ("store", "0.3.0", &meta));
    let info: Info = ask(&caller, "$SRV.INFO.store").await;
    assert_eq!(info.kind, "io.nats.micro.v1.info_response");
    assert_eq!((info.description.as_str(), &info.metadata), ("stores things", &meta));
    assert_eq!(info.endpoints[0].metadata, metadata(&[("cost", "low")]));
    let stats: Stats = ask(&caller, "$SRV.STATS.store").await;
    assert_eq!(stats.kind, "io.nats.micro.v1.stats_response");
    assert_eq!(stats.metadata, meta);
    // The raw JSON: ADR-32's fields, none missing.
    let raw: serde_json::Value = ask(&caller, "$SRV.STATS.store").await;
    let mut fields: Vec<_> = raw.as_object().unwrap().keys().cloned().collect();
    fields.sort();
    assert_eq!(fields, ["endpoints", "id", "metadata", "name", "started", "type", "version"]);
    assert_eq!(raw["endpoints"][0]["last_error"], "");
    assert!(raw["endpoints"][0].get("data").is_none());
}

#[tokio::test]
async fn stats_count_requests_errors_and_processing_time_until_reset() {
    let (_server, client, caller, mut service) = started("calc").await;
    let mut endpoint = service.endpoint("calc.div").await.unwrap();
    tokio::spawn(async move {
        while let Some(request) = endpoint.next().await {
            // Each answer takes at least 2 ms, which the stats must count.
            tokio::time::sleep(Duration::from_millis(2)).await;
            let answer = match request.message.payload.as_ref() {
                b"0" => Err(service::error::Error { status: "division by zero".into(), code: 400 }),
                b"x" => Err(service::error::Error { status: "not a number".into(), code: 422 }),
                _ => Ok("ok".into()),
            };
            request.respond(answer).await.unwrap();
        }
    });
    client.flush().await.unwrap();
    let stats: Stats = ask(&caller, "$SRV.STATS.calc").await;
    assert_eq!((stats.endpoints[0].requests, stats.endpoints[0].errors), (0, 0));
    assert_eq!(stats.endpoints[0].last_error, None);

    for payload in ["1", "0", "2", "x", "3"] {
        request(&caller, "calc.div", payload).await;
    }
    let stats: Stats = ask(&caller, "$SRV.STATS.calc").await;
    let div = &stats.endpoints[0];
    assert_eq!((div.name.as_str(), div.subject.as_str(), div.queue_group.as_str()), ("calc-div", "calc.div", "q"));
    assert_eq!((div.requests, div.errors), (5, 2));
    assert_eq!(div.last_error, Some(service::error::Error { status: "not a number".into(), code: 422 }));
    assert!(div.processing_time >= Duration::from_millis(10), "{:?}", div.processing_time);
    assert_eq!(div.average_processing_time, div.processing_time / 5);
    let own = service.stats().await;
    assert_eq!(own["calc.div"], *div);

    service.reset().await;
    let stats: Stats = ask(&caller, "$SRV.STATS.calc").await;
    let div = &stats.endpoints[0];
    assert_eq!(
        (div.requests, div.errors, div.processing_time, div.average_processing_time),
        (0, 0, Duration::ZERO, Duration::ZERO)
    );
    assert_eq!(div.last_error, None);
    request(&caller, "calc.div", "4").await;
    assert_eq!(service.stats().await["calc.div"].requests, 1);
}

#[tokio::test]
async fn a_stats_handler_fills_each_endpoints_data() {
    let server = NatsServer::start();
    let (client, caller) = (connect(&server).await, connect(&server).await);
    let mut asked = 0;
    let service = client
        .service_builder()
        .stats_handler(move |key, stats| {
            asked += 1;
            json!({ "key": key, "answered": stats.requests, "asked": asked })
        })
        .start("cache", "1.0.0")
        .await
        .unwrap();
    serve(service.endpoint("cache.get").await.unwrap(), upper);
    serve(service.endpoint_builder().name("set").add("cache.set").await.unwrap(), upper);
    client.flush().await.unwrap();
    request(&caller, "cache.get", "k").await;

    let stats: Stats = ask(&caller, "$SRV.STATS.cache").await;
    let data: Vec<_> = stats.endpoints.iter().map(|e| e.data.clone()).collect();
    assert_eq!(
        data,
        [
            Some(json!({ "key": "cache.get", "answered": 1, "asked": 1 })),
            Some(json!({ "key": "set", "answered": 0, "asked": 2 }))
        ]
    );
    // Made on each STATS request, and kept for the service's own view.
    assert_eq!(service.stats().await["set"].data, Some(json!({ "key": "set", "answered": 0, "asked": 2 })));
    let stats: Stats = ask(&caller, "$SRV.STATS.cache").await;
    assert_eq!(stats.endpoints[1].data, Some(json!({ "key": "set", "answered": 0, "asked": 4 })));
}

#[tokio::test]
async fn errors_are_answered_in_headers() {
    let (_server, client, caller, service) = started("strict").await;
    let mut endpoint = service.endpoint("strict.check").await.unwrap();
    tokio::spawn(async move {
        while let Some(request) = endpoint.next().await {
            let mut headers = HeaderMap::new();
            headers.insert("X-Trace", "t-1");
            headers.insert(service::NATS_SERVICE_ERROR, "from the caller");
            let answer = match request.message.payload.as_ref() {
                b"bad" => Err(service::error::Error { status: "bad input".into(), code: 400 }),
                _ => Ok("fine".into()),
            };
            request.respond_with_headers(answer, headers).await.unwrap();
        }
    });
    client.flush().await.unwrap();

    let reply = request(&caller, "strict.check", "bad").await;
    assert!(reply.payload.is_empty(), "{:?}", reply.payload);
    let headers = reply.headers.unwrap();
    assert_eq!(headers.get("Nats-Service-Error").unwrap().as_str(), "bad input");
    assert_eq!(headers.get("Nats-Service-Error-Code").unwrap().as_str(), "400");
    assert_eq!(headers.get("X-Trace").unwrap().as_str(), "t-1");
    // A success keeps the caller's headers as they are.
    let reply = request(&caller, "strict.check", "good").await;
    assert_eq!(reply.payload, "fine");
    let headers = reply.headers.unwrap();
    assert_eq!(headers.get("Nats-Service-Error").unwrap().as_str(), "from the caller");
    assert!(headers.get("Nats-Service-Error-Code").is_none());
}

#[tokio::test]
async fn discovery_on_all_three_levels() {
    let server = NatsServer::start();
    let caller = connect(&server).await;
    let mut instances = Vec::new();
    for name in ["alpha", "alpha", "beta"] {
        let client = connect(&server).await;
        let service = client.service_builder().start(name, "1.0.0").await.unwrap();
        service.endpoint(format!("{name}.do")).await.unwrap();
        client.flush().await.unwrap();
        instances.push((name, service.info().await.id, service));
    }
    let all: HashSet<_> = instances.iter().map(|(name, id, _)| (name.to_string(), id.clone())).collect();
    let alphas: HashSet<_> = all.iter().filter(|(name, _)| name == "alpha").cloned().collect();

    for (level, n, expected) in [("", 3, &all), (".alpha", 2, &alphas)] {
        for verb in ["PING", "INFO", "STATS"] {
            let replies: Vec<serde_json::Value> = ask_all(&caller, &format!("$SRV.{verb}{level}"), n).await;
            let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            let who: HashSet<_> = replies.iter().map(|r| (text(&r["name"]), text(&r["id"]))).collect();
            assert_eq!(&who, expected, "{verb}{level}");
            let kind = format!("io.nats.micro.v1.{}_response", verb.to_lowercase());
            assert!(replies.iter().all(|r| r["type"] == kind.as_str()), "{verb}{level}: {replies:?}");
        }
    }

    for (name, id, _) in &instances {
        let ping: PingResponse = ask(&caller, &format!("$SRV.PING.{name}.{id}")).await;
        assert_eq!((&ping.name, &ping.id), (&name.to_string(), id));
        let info: Info = ask(&caller, &format!("$SRV.INFO.{name}.{id}")).await;
        assert_eq!((&info.id, info.endpoints[0].subject.clone()), (id, format!("{name}.do")));
        let stats: Stats = ask(&caller, &format!("$SRV.STATS.{name}.{id}")).await;
        assert_eq!(&stats.id, id);
        assert!(stats.started <= std::time::SystemTime::now());
    }
    // An id is 22 characters of [0-9A-Za-z], like a NUID.
    for (_, id, _) in &instances {
        assert!(id.len() == 22 && id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
    }
    // Nobody answers a verb no service knows.
    let unknown = caller.request("$SRV.SCHEMA.alpha", "".into()).await.unwrap_err();
    assert_eq!(unknown.kind(), RequestErrorKind::NoResponders);
}

#[tokio::test]
async fn stop_drains_and_unsubscribes() {
    let (_server, client, caller, service) = started("brief").await;
    let id = service.info().await.id;
    let mut endpoint = service.endpoint("brief.ask").await.unwrap();
    let mut other = service.group("brief").endpoint("other").await.unwrap();
    client.flush().await.unwrap();
    // A request on its way when the service stops is still handed out.
    caller.publish_with_reply("brief.ask", "brief.late", "late".into()).await.unwrap();
    caller.flush().await.unwrap();
    let ping: PingResponse = ask(&caller, &format!("$SRV.PING.brief.{id}")).await;
    assert_eq!(ping.id, id);

    service.stop().await.unwrap();
    let late = timeout(WAIT, endpoint.next()).await.unwrap().unwrap();
    assert_eq!(late.message.payload, "late");
    assert!(timeout(WAIT, endpoint.next()).await.unwrap().is_none(), "the endpoint's stream ends");
    assert!(timeout(WAIT, other.next()).await.unwrap().is_none());

    let instance = format!("$SRV.INFO.brief.{id}");
    for subject in ["brief.ask", "brief.other", "$SRV.PING", "$SRV.PING.brief", instance.as_str()] {
        let refused = caller.request(subject, "".into()).await.unwrap_err();
        assert_eq!(refused.kind(), RequestErrorKind::NoResponders, "{subject}");
    }
    // The connection goes on.
    assert_eq!(client.connection_state(), natsjet::State::Connected);
}

#[tokio::test]
async fn dropping_the_service_stops_it() {
    let (_server, client, caller, service) = started("dropped").await;
    let mut endpoint = service.endpoint("dropped.ask").await.unwrap();
    drop(service);
    assert!(endpoint.next().await.is_none());
    client.flush().await.unwrap();
    for subject in ["dropped.ask", "$SRV.PING.dropped"] {
        let refused = caller.request(subject, "".into()).await.unwrap_err();
        assert_eq!(refused.kind(), RequestErrorKind::NoResponders, "{subject}");
    }
}

#[tokio::test]
async fn an_endpoint_stops_alone() {
    let (_server, client, caller, service) = started("half").await;
    let mut gone = service.endpoint("half.gone").await.unwrap();
    serve(service.endpoint("half.kept").await.unwrap(), upper);
    gone.stop().await.unwrap();
    assert!(gone.next().await.is_none());
    client.flush().await.unwrap();
    let refused = caller.request("half.gone", "".into()).await.unwrap_err();
    assert_eq!(refused.kind(), RequestErrorKind::NoResponders);
    assert_eq!(request(&caller, "half.kept", "k").await.payload, "K");
    // It stays described, as in async-nats.
    let info: Info = ask(&caller, "$SRV.INFO.half").await;
    assert_eq!(info.endpoints.len(), 2);
}

#[tokio::test]
async fn names_and_versions_are_checked() {
    let server = NatsServer::start();
    let client = connect(&server).await;
    let refused = |result: Result<Service, Error>| match result {
        Err(Error::InvalidArgument(why)) => why,
        Err(other) => panic!("another error: {other:?}"),
        Ok(_) => panic!("started"),
    };
    let version = "service version is not a valid semver string";
    let name = "service name is not a valid string (only A-Z, a-z, 0-9, _, - are allowed)";
    for bad in ["1.0", "v1.0.0", "1.0.0.0", "01.0.0", "", "1.0.0-"] {
        assert_eq!(refused(client.service_builder().start("ok", bad).await), version, "{bad}");
    }
    for bad in ["a.b", "with space", "", "star*", "ünï"] {
        assert_eq!(refused(client.service_builder().start(bad, "1.0.0").await), name, "{bad}");
    }
    // The version is checked first.
    assert_eq!(refused(client.service_builder().start("a.b", "x").await), version);
    let config = service::Config {
        name: "configured".into(),
        description: None,
        version: "1.0.0-alpha.1".into(),
        stats_handler: None,
        metadata: None,
        queue_group: None,
    };
    let service = client.add_service(config).await.unwrap();
    assert_eq!(service.info().await.version, "1.0.0-alpha.1");
    // An endpoint on a subject the server would refuse.
    let bad = service.endpoint("bad subject").await.err().unwrap();
    assert!(matches!(bad, Error::InvalidSubject { .. }), "{bad:?}");
}
