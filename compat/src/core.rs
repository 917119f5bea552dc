//! Core NATS: connect options, publish and subscribe, headers, queue
//! groups, request and reply, and the error kinds programs match on.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;

use crate::nats::{self, HeaderMap, header};
use crate::{Outcome, Transcript};

/// Publishes with and without headers to a wildcard subscription.
pub async fn publish_subscribe(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::ConnectOptions::new().name("compat-pubsub").connect(url).await?;
    let mut subscriber = client.subscribe("greet.*").await?;

    client.publish("greet.joe", "hello".into()).await?;
    let mut headers = HeaderMap::new();
    headers.insert("Trace-Id", "42");
    headers.insert(header::NATS_MESSAGE_ID, "m-1");
    client.publish_with_headers("greet.ann", headers, Bytes::from_static(b"hi")).await?;
    client.publish_with_reply("greet.bob", "greet.replies", "yo".into()).await?;
    client.flush().await?;

    for _ in 0..3 {
        let message = subscriber.next().await.expect("subscription ended");
        seen.push(format!("{} {}", message.subject.as_str(), String::from_utf8_lossy(&message.payload)));
        if let Some(headers) = &message.headers {
            let trace = headers.get("Trace-Id").map(|v| v.as_str().to_string());
            let id = headers.get(header::NATS_MESSAGE_ID).map(|v| v.to_string());
            seen.push(format!("headers {trace:?} {id:?}"));
        }
        if let Some(reply) = &message.reply {
            seen.push(format!("reply to {}", reply.as_str()));
        }
    }

    subscriber.unsubscribe().await?;
    client.publish("greet.late", "unseen".into()).await?;
    client.flush().await?;
    seen.push(format!("after unsubscribe: {:?}", subscriber.next().await.map(|m| m.subject.to_string())));
    client.drain().await?;
    Ok(seen)
}

/// Each message of a queue group goes to one member.
pub async fn queue_groups(url: &str) -> Outcome {
    let client = nats::connect(url).await?;
    let mut first = client.queue_subscribe("jobs", "workers".into()).await?;
    let mut second = client.queue_subscribe("jobs", "workers".into()).await?;
    let mut unsub = client.subscribe("jobs").await?;
    unsub.unsubscribe_after(3).await?;
    client.flush().await?;
    for i in 0..10 {
        client.publish("jobs", format!("job {i}").into()).await?;
    }
    client.flush().await?;

    let mut taken = 0;
    while taken < 10 {
        tokio::select! {
            Some(_) = first.next() => taken += 1,
            Some(_) = second.next() => taken += 1,
        }
    }
    let mut capped = 0;
    while unsub.next().await.is_some() {
        capped += 1;
    }
    Ok(vec![format!("queue members took {taken}"), format!("unsubscribe_after(3) delivered {capped}")])
}

/// A responder task answering requests, requests with headers and a
/// timeout, and the kinds of failed requests.
pub async fn request_reply(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::ConnectOptions::new().request_timeout(Some(Duration::from_secs(5))).connect(url).await?;
    let mut requests = client.subscribe("svc.echo").await?;
    let responder = client.clone();
    tokio::spawn(async move {
        while let Some(request) = requests.next().await {
            let Some(reply) = request.reply else { continue };
            let mut answer = String::from_utf8_lossy(&request.payload).to_uppercase();
            if let Some(headers) = &request.headers {
                if let Some(who) = headers.get("Who") {
                    answer = format!("{answer} for {}", who.as_str());
                }
            }
            responder.publish(reply, answer.into()).await.unwrap();
        }
    });
    let _silent = client.subscribe("svc.silent").await?;
    client.flush().await?;

    let answer = client.request("svc.echo", "ping".into()).await?;
    seen.push(String::from_utf8_lossy(&answer.payload).to_string());

    let mut headers = HeaderMap::new();
    headers.insert("Who", "ann");
    let answer = client.request_with_headers("svc.echo", headers, "hello".into()).await?;
    seen.push(String::from_utf8_lossy(&answer.payload).to_string());

    let request = nats::Request::new().payload("built".into()).timeout(Some(Duration::from_secs(2)));
    let answer = client.send_request("svc.echo", request).await?;
    seen.push(String::from_utf8_lossy(&answer.payload).to_string());

    match client.request("svc.nobody", "anyone?".into()).await {
        Err(e) if e.kind() == nats::RequestErrorKind::NoResponders => seen.push("no responders".into()),
        Err(e) => seen.push(format!("other error: {e}")),
        Ok(_) => seen.push("an answer from nobody".into()),
    }

    let quick = nats::Request::new().payload("hello?".into()).timeout(Some(Duration::from_millis(200)));
    match client.send_request("svc.silent", quick).await {
        Err(e) => match e.kind() {
            nats::client::RequestErrorKind::TimedOut => seen.push("timed out".into()),
            kind => seen.push(format!("other kind: {kind:?}")),
        },
        Ok(_) => seen.push("an answer from the silent".into()),
    }
    Ok(seen)
}

/// Connection options and the error kinds of connect, publish and subscribe.
pub async fn connect_and_errors(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let (events_tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let client = nats::ConnectOptions::new()
        .name("compat-errors")
        .ping_interval(Duration::from_secs(10))
        .connection_timeout(Duration::from_secs(3))
        .event_callback(move |event| {
            let events_tx = events_tx.clone();
            async move {
                let _ = events_tx.send(event.to_string());
            }
        })
        .connect(url)
        .await?;
    seen.push(format!("max payload {}", client.server_info().max_payload));
    seen.push(format!("state {:?}", client.connection_state()));

    match client.subscribe("bad subject").await {
        Err(e) if e.kind() == nats::client::SubscribeErrorKind::InvalidSubject => {
            seen.push("subscribe: invalid subject".into())
        }
        other => seen.push(format!("subscribe: {:?}", other.map(|_| ()))),
    }
    match client.publish("", "x".into()).await {
        Err(e) if e.kind() == nats::client::PublishErrorKind::InvalidSubject => {
            seen.push("publish: invalid subject".into())
        }
        other => seen.push(format!("publish: {:?}", other)),
    }
    let too_big = Bytes::from(vec![0u8; client.server_info().max_payload + 1]);
    match client.publish("big", too_big).await {
        Err(e) if e.kind() == nats::client::PublishErrorKind::MaxPayloadExceeded => {
            seen.push("publish: too big".into())
        }
        other => seen.push(format!("publish: {:?}", other)),
    }

    client.drain().await?;
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(event) = events.recv().await {
            if event.contains("closed") {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    seen.push(format!("closed event: {closed}"));

    // Nobody listens on port 1.
    match nats::ConnectOptions::new().connect("nats://127.0.0.1:1").await {
        Err(e) if e.kind() == nats::ConnectErrorKind::Io => seen.push("connect: io".into()),
        Err(e) => seen.push(format!("connect: {:?}", e.kind())),
        Ok(_) => seen.push("connected to nothing".into()),
    }
    Ok(seen)
}
