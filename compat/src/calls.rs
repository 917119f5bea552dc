//! Calls of async-nats 0.52 that natsjet once lacked: the server's limits
//! and version, `ContextBuilder`, `create_or_update_stream`,
//! `get_stream_no_info`, `Consumer::sequence`, `Message::split` with its
//! detached `Acker`, and a publish that expects the last sequence of
//! another subject.

use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};

use crate::nats;
use crate::nats::jetstream::consumer::{PullConsumer, pull};
use crate::nats::jetstream::context::{ContextBuilder, PublishErrorKind};
use crate::nats::jetstream::message::{Acker, PublishMessage};
use crate::nats::jetstream::{self, stream};
use crate::{Outcome, Transcript};

/// The server's limits and version, as the client read them.
pub async fn server_facts(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::ConnectOptions::new().request_timeout(Some(Duration::from_secs(4))).connect(url).await?;
    seen.push(format!("max payload {}", client.max_payload()));
    let info = client.try_server_info().expect("the INFO came with the connection");
    seen.push(format!("info has a version: {}", !info.version.is_empty()));
    seen.push(format!("at least 2.10.0: {}", client.is_server_compatible(2, 10, 0)));
    seen.push(format!("at least 99.0.0: {}", client.is_server_compatible(99, 0, 0)));
    seen.push(format!("request timeout {:?}", client.timeout()));
    Ok(seen)
}

/// A context built with its settings; streams created or updated, and a
/// handle made without info.
pub async fn built_context(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::connect(url).await?;
    let js = ContextBuilder::new()
        .timeout(Duration::from_secs(3))
        .ack_timeout(Duration::from_secs(2))
        .max_ack_inflight(2)
        .backpressure_on_inflight(false)
        .build(client.clone());
    let config = stream::Config { name: "LOG".into(), subjects: vec!["log.>".into()], ..Default::default() };
    let created: stream::Info = js.create_or_update_stream(config.clone()).await?;
    seen.push(format!("created {} max_messages {}", created.config.name, created.config.max_messages));
    let updated = js.create_or_update_stream(stream::Config { max_messages: 100, ..config }).await?;
    seen.push(format!("updated {} max_messages {}", updated.config.name, updated.config.max_messages));

    // A window of two, without backpressure: the third publish in flight fails at once.
    let first = js.publish("log.a", "1".into()).await?;
    let second = js.publish("log.a", "2".into()).await?;
    match js.publish("log.a", "3".into()).await {
        Err(e) if e.kind() == PublishErrorKind::MaxAckPending => seen.push("third: max ack pending".into()),
        Err(e) => seen.push(format!("third: {:?}", e.kind())),
        Ok(_) => seen.push("third: accepted".into()),
    }
    seen.push(format!("acks {} {}", first.await?.sequence, second.await?.sequence));
    js.wait_for_acks().await;

    let stream: stream::Stream<()> = js.get_stream_no_info("LOG").await?;
    let info = stream.get_info().await?;
    seen.push(format!("no-info handle reads {} messages", info.state.messages));
    let missing = js.get_stream_no_info("NOPE").await?;
    seen.push(format!("a missing stream's handle fails later: {}", missing.get_info().await.is_err()));

    let domain = ContextBuilder::new().domain("hub").timeout(Duration::from_millis(500)).build(client);
    seen.push(format!("domain context reaches nothing: {}", domain.get_stream("LOG").await.is_err()));
    Ok(seen)
}

/// Batches one after another, and messages whose acks went elsewhere.
pub async fn sequences_and_split_acks(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let stream = js
        .create_stream(stream::Config { name: "TASKS".into(), subjects: vec!["tasks.*".into()], ..Default::default() })
        .await?;
    for i in 0..5 {
        js.publish(format!("tasks.{i}"), format!("task {i}").into()).await?.await?;
    }
    let config =
        pull::Config { durable_name: Some("w".into()), ack_wait: Duration::from_secs(30), ..Default::default() };
    let consumer: PullConsumer = stream.create_consumer(config).await?;

    let mut batches = consumer.sequence(2)?.take(2);
    let mut ackers: Vec<Acker> = Vec::new();
    while let Some(batch) = batches.try_next().await? {
        let messages: Vec<jetstream::Message> = batch.try_collect().await?;
        let mut payloads = Vec::new();
        for message in messages {
            let (message, acker): (nats::Message, Acker) = message.split();
            payloads.push(String::from_utf8(message.payload.to_vec())?);
            seen.push(format!("split message has no reply: {}", message.reply.is_none()));
            ackers.push(acker);
        }
        seen.push(format!("batch {payloads:?}"));
    }
    for acker in &ackers {
        acker.double_ack().await?;
    }
    let info = consumer.get_info().await?;
    seen.push(format!("acked {} pending {}", info.ack_floor.consumer_sequence, info.num_pending));
    Ok(seen)
}

/// A publish that expects the last sequence of another subject (the
/// header async-nats 0.52 has no call for).
pub async fn last_sequence_of_another_subject(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    js.create_stream(stream::Config { name: "ORDERS".into(), subjects: vec!["orders.*".into()], ..Default::default() })
        .await?;
    js.publish("orders.a", "1".into()).await?.await?;
    js.publish("orders.b", "2".into()).await?.await?;
    let expect = |sequence: u64, subject: &str| {
        PublishMessage::build()
            .payload("3".into())
            .expected_last_subject_sequence(sequence)
            .header("Nats-Expected-Last-Subject-Sequence-Subject", subject)
    };
    let ack = js.send_publish("orders.c", expect(2, "orders.*")).await?.await?;
    seen.push(format!("stored at {}", ack.sequence));
    match js.send_publish("orders.c", expect(2, "orders.a")).await?.await {
        Err(e) => seen.push(format!("refused: {:?}", e.kind())),
        Ok(ack) => seen.push(format!("stored at {}", ack.sequence)),
    }
    Ok(seen)
}

/// A reconnect paced by the program's own delay callback.
pub async fn paced_reconnect(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = calls.clone();
    let client = nats::ConnectOptions::new()
        .reconnect_delay_callback(move |attempts| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Duration::from_millis(50 * attempts as u64)
        })
        .connect(url)
        .await?;
    client.force_reconnect().await?;
    let paced_and_back = tokio::time::timeout(Duration::from_secs(10), async {
        while calls.load(std::sync::atomic::Ordering::SeqCst) == 0
            || client.connection_state() != nats::connection::State::Connected
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    seen.push(format!("paced by the callback, then connected: {}", paced_and_back.await.is_ok()));
    client.flush().await?;
    Ok(seen)
}

/// The server pool read and replaced while connected.
pub async fn server_pool(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::ConnectOptions::new().ignore_discovered_servers().connect(url).await?;
    let port = client.server_info().port;
    let pool: Vec<nats::Server> = client.server_pool().await?;
    seen.push(format!("pool {:?}", pool.iter().map(|s| (s.addr.port() == port, s.did_connect)).collect::<Vec<_>>()));
    match client.set_server_pool(Vec::<nats::ServerAddr>::new()).await {
        Err(e) if e.kind() == nats::client::SetServerPoolErrorKind::EmptyPool => seen.push("empty: refused".into()),
        other => seen.push(format!("empty: {:?}", other.map_err(|e| e.kind()))),
    }
    let spare = format!("nats://127.0.0.1:{}", port.wrapping_add(1));
    client.set_server_pool(vec![url.to_string(), spare]).await?;
    let pool = client.server_pool().await?;
    let described: Vec<_> = pool.iter().map(|s| (s.addr.port() == port, s.is_discovered, s.failed_attempts)).collect();
    seen.push(format!("new pool {} servers, ours in it: {}", pool.len(), described.iter().any(|d| d.0)));
    client.flush().await?;
    seen.push(format!("still {}", client.connection_state()));
    Ok(seen)
}

/// What signs a nonce for [`async_auth`]: a key the program never holds.
pub type Signer = std::sync::Arc<dyn Fn(&[u8]) -> Vec<u8> + Send + Sync>;

/// Connections whose nonce is answered by async callbacks: one returning
/// the whole `Auth`, one signing for a user JWT (`jwt` empty: an nkey
/// user, and the second is skipped).
pub async fn async_auth(url: &str, public_key: String, sign: Signer, jwt: String) -> Outcome {
    let mut seen = Transcript::new();
    let (signer, user_jwt) = (sign.clone(), Some(jwt.clone()).filter(|jwt| !jwt.is_empty()));
    let client = nats::ConnectOptions::with_auth_callback(move |nonce| {
        let (key, signer, user_jwt) = (public_key.clone(), signer.clone(), user_jwt.clone());
        async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let mut auth = nats::Auth::new();
            auth.nkey = Some(key);
            auth.jwt = user_jwt;
            auth.signature = Some(signer(&nonce));
            Ok(auth)
        }
    })
    .connect(url)
    .await?;
    client.flush().await?;
    seen.push("auth callback: connected".into());
    let refused =
        nats::ConnectOptions::with_auth_callback(|_| async { Err(nats::AuthError::new("no key")) }).connect(url).await;
    seen.push(format!("failing callback connects: {}", refused.is_ok()));
    if !jwt.is_empty() {
        let client = nats::ConnectOptions::with_jwt(jwt, move |nonce| {
            let signature = sign(&nonce);
            async move { Ok(signature) }
        })
        .connect(url)
        .await?;
        client.flush().await?;
        seen.push("jwt: connected".into());
    }
    Ok(seen)
}

/// A reconnect to the server the program's callback picks from the pool.
pub async fn picked_reconnect(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = asked.clone();
    let client = nats::ConnectOptions::new()
        .reconnect_to_server_callback(move |servers: Vec<nats::Server>, info: nats::ServerInfo| {
            // async-nats 0.52 shows a default INFO until a reconnect succeeded; natsjet the last server's.
            record.lock().unwrap().push((servers.len(), info.max_payload));
            let pick =
                servers.first().map(|s| nats::ReconnectToServer { addr: s.addr.clone(), delay: Some(Duration::ZERO) });
            async move { pick }
        })
        .connect(url)
        .await?;
    client.force_reconnect().await?;
    let back = tokio::time::timeout(Duration::from_secs(10), async {
        while asked.lock().unwrap().is_empty() || client.connection_state() != nats::connection::State::Connected {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    seen.push(format!("asked, then connected: {}", back.await.is_ok()));
    let pool = asked.lock().unwrap().first().map(|(servers, _)| *servers);
    seen.push(format!("shown the pool: {pool:?}"));
    Ok(seen)
}
