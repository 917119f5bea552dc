//! Compiled, not run: the rest of async-nats's API that programs commonly
//! touch and the other programs do not (server info and statistics,
//! `connect_with_options`, `Subject`, `Request`, message status, stream and
//! consumer info fields, ack metadata, `ack_with`, account info, the KV
//! entry and status, object info, a service made from its `Config`). Each function type-checks against both
//! libraries; the names and types of what it reads are the check.

use std::time::Duration;

use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use tokio::io::AsyncReadExt;

use crate::nats;
use crate::nats::jetstream::{self, AckKind, consumer, kv, object_store, stream};

/// Core NATS: what a client and a message tell about themselves.
pub async fn core(client: nats::Client) -> Result<(), nats::Error> {
    let _inbox: String = client.new_inbox();
    let info: nats::ServerInfo = client.server_info();
    let _ = (&info.server_id, info.max_payload, &info.version, info.headers, info.lame_duck_mode);
    let stats = client.statistics();
    let _ = (&stats.in_messages, &stats.out_messages, &stats.in_bytes, &stats.out_bytes);
    let _state: nats::connection::State = client.connection_state();

    let subject: nats::Subject = nats::Subject::from("a.b");
    client.publish(subject.clone(), "x".into()).await?;
    let mut headers = nats::HeaderMap::new();
    headers.insert("X-A", nats::HeaderValue::try_from("v")?);
    headers.append("X-B", "1");
    let _ = headers.get_all("X-B").count();
    let request = nats::Request::new().payload("p".into()).headers(headers).timeout(Some(Duration::from_secs(1)));
    let answer: nats::Message = client.send_request("svc", request).await?;
    let _: (Option<nats::StatusCode>, &Option<String>, usize) = (answer.status, &answer.description, answer.length);
    let _ = answer.status == Some(nats::StatusCode::NO_RESPONDERS);

    let _auth = nats::ConnectOptions::with_token("t".into()).user_and_password("u".into(), "p".into());
    let _seed = nats::ConnectOptions::new().nkey("SU".into());
    let _file = nats::ConnectOptions::with_credentials_file("user.creds").await?;
    let address: nats::ServerAddr = "tls://h:4443".parse()?;
    let _ = (address.host(), address.port(), address.tls_required(), address.is_websocket());
    let options = nats::ConnectOptions::new()
        .no_echo()
        .ping_interval(Duration::from_secs(10))
        .connection_timeout(Duration::from_secs(2))
        .request_timeout(Some(Duration::from_secs(3)))
        .max_reconnects(Some(3))
        .subscription_capacity(1024)
        .custom_inbox_prefix("_X")
        .ignore_discovered_servers()
        .require_tls(false);
    let other = nats::connect_with_options(format!("{}:{}", info.host, info.port), options).await?;
    let mut subscriber: nats::Subscriber = other.subscribe("a").await?;
    if let Some(message) = subscriber.next().await {
        let _: &nats::Subject = &message.subject;
    }
    Ok(())
}

/// JetStream: stream and consumer info, ack metadata, acks by kind.
pub async fn jetstream(client: nats::Client) -> Result<(), nats::Error> {
    let js = jetstream::new(client);
    let config = stream::Config { name: "S".into(), max_age: Duration::from_secs(60), ..Default::default() };
    let mut created = js.create_stream(config.clone()).await?;
    let info: &stream::Info = created.cached_info();
    let state: &stream::State = &info.state;
    let _ = (state.first_sequence, state.last_sequence, state.messages, state.bytes, state.consumer_count);
    let _ = created.info().await?;
    let _ = js.update_stream(config).await?;
    let purged: u64 = created.purge().keep(3).await?.purged;
    let _ = purged;

    let config = consumer::pull::Config {
        durable_name: Some("c".into()),
        filter_subject: "a".into(),
        ack_policy: consumer::AckPolicy::Explicit,
        max_ack_pending: 10,
        ..Default::default()
    };
    let consumer: consumer::PullConsumer = created.create_consumer(config).await?;
    let mut messages = consumer.fetch().max_messages(10).expires(Duration::from_secs(1)).messages().await?;
    while let Some(message) = messages.next().await {
        let message: jetstream::Message = message?;
        let info = message.info()?;
        let _ = (info.stream, info.consumer, info.stream_sequence, info.consumer_sequence, info.pending);
        let _: i64 = info.delivered;
        let _ = (&message.message.subject, &message.subject, &message.payload, &message.reply);
        message.ack_with(AckKind::Nak(Some(Duration::from_secs(1)))).await?;
        message.double_ack().await?;
    }
    let infos: Vec<consumer::Info> = created.consumers().try_collect().await?;
    let names: Vec<String> = created.consumer_names().try_collect().await?;
    let _ = (infos.len(), names.len(), created.delete_consumer("c").await?);

    let ack: jetstream::publish::PublishAck = js.publish("a", "b".into()).await?.await?;
    let _ = (ack.stream, ack.sequence, ack.duplicate);
    js.publish_with_headers("a", nats::HeaderMap::new(), "b".into()).await?.await?;
    let account: jetstream::account::Account = js.query_account().await?;
    let _ = (account.memory, account.storage, account.streams, account.consumers, account.limits.max_memory);
    let _: bool = js.delete_stream("S").await?.success;
    Ok(())
}

/// Key-Value and Object Store: entries, status, object info, reads.
pub async fn stores(js: jetstream::Context) -> Result<(), nats::Error> {
    let store = js.get_key_value("b").await?;
    let revision: u64 = store.put("k", "v".into()).await?;
    let _: Option<Bytes> = store.get("k").await?;
    if let Some(entry) = store.entry("k").await? {
        let entry: kv::Entry = entry;
        let _ = (entry.bucket, entry.key, entry.value, entry.revision, entry.delta, entry.seen_current);
        let _ = entry.operation == kv::Operation::Put;
    }
    store.update("k", "w".into(), revision).await?;
    store.create("k2", "v".into()).await?;
    store.delete("k").await?;
    store.purge("k").await?;
    let _: Vec<String> = store.keys().await?.try_collect().await?;
    let _ = (store.watch("k.>").await?, store.watch_all().await?, store.watch_with_history("k").await?);
    let status = store.status().await?;
    let _ = (status.bucket(), status.values(), status.history());
    js.delete_key_value("b").await?;

    let bucket = js.get_object_store("o").await?;
    let info: object_store::ObjectInfo = bucket.put("n", &mut "abc".as_bytes()).await?;
    let _ = (info.name, info.size, info.chunks, info.digest, info.nuid, info.deleted, info.bucket);
    let mut object = bucket.get("n").await?;
    let mut read = Vec::new();
    object.read_to_end(&mut read).await?;
    let _ = bucket.info("n").await?;
    let _ = bucket.list().await?.try_collect::<Vec<_>>().await?;
    let _ = bucket.watch().await?;
    bucket.delete("n").await?;
    js.delete_object_store("o").await?;
    Ok(())
}

/// Services: a service from its `Config`, the verbs, queue groups of
/// groups and endpoints, an endpoint stopped alone, answers with headers,
/// and the fields of the replies and stats.
pub async fn service(client: nats::Client) -> Result<(), nats::Error> {
    use std::collections::HashMap;

    use crate::nats::service::{self, ServiceExt};

    let handler = service::StatsHandler(Box::new(|_endpoint: String, stats: service::endpoint::Stats| {
        serde_json::json!(stats.requests)
    }));
    let config = service::Config {
        name: "svc".into(),
        description: Some("d".into()),
        version: "1.0.0".into(),
        stats_handler: Some(handler),
        metadata: Some(HashMap::new()),
        queue_group: Some("workers".into()),
    };
    let mut svc: service::Service = client.add_service(config).await?;
    let _verbs =
        [service::Verb::Ping, service::Verb::Info, service::Verb::Stats, service::Verb::Schema].map(|v| v.to_string());
    let group: service::Group = svc.group_with_queue_group("g", "q2").group("h");
    let builder: service::EndpointBuilder = group.endpoint_builder().name("n").queue_group("q3");
    let mut endpoint: service::endpoint::Endpoint = builder.add("e").await?;
    if let Some(request) = endpoint.next().await {
        let request: service::Request = request;
        let _: &nats::Message = &request.message;
        let mut headers = nats::HeaderMap::new();
        headers.insert("X-A", "1");
        request.respond_with_headers(Ok("ok".into()), headers).await?;
        let error = service::error::Error { status: "s".into(), code: 500 };
        let _: String = error.to_string();
        request.respond(Err(error)).await?;
    }
    endpoint.stop().await?;
    let stats: HashMap<String, service::endpoint::Stats> = svc.stats().await;
    for s in stats.values() {
        let _ = (&s.name, &s.subject, &s.queue_group, s.requests, s.errors, s.processing_time);
        let _ = (s.average_processing_time, &s.last_error, &s.data);
    }
    let info: service::Info = svc.info().await;
    let _ = (info.kind, info.name, info.id, info.description, info.version, info.metadata);
    for e in info.endpoints {
        let e: service::endpoint::Info = e;
        let _ = (e.name, e.subject, e.queue_group, e.metadata);
    }
    let ping: service::PingResponse = serde_json::from_str("{}").unwrap_or_else(|_| unreachable!());
    let _ = (ping.kind, ping.name, ping.id, ping.version, ping.metadata);
    let reply: service::Stats = serde_json::from_str("{}").unwrap_or_else(|_| unreachable!());
    let _ = (reply.kind, reply.name, reply.id, reply.version, reply.endpoints);
    let _ = (service::NATS_SERVICE_ERROR, service::NATS_SERVICE_ERROR_CODE);
    svc.reset().await;
    svc.stop().await?;
    Ok(())
}
