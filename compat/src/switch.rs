//! What a program written for async-nats 0.52 did that natsjet once failed
//! to compile: pull builders that take `usize` counts and sizes, a link
//! made from the `Object` that `get` returned, unit `Event` variants in a
//! `match`, and 0.52's header values (`TryFrom`, `from_lossy`, line breaks
//! turned into spaces).

use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};
use tokio::io::AsyncReadExt;

use crate::nats;
use crate::nats::jetstream::consumer::{PriorityPolicy, pull};
use crate::nats::jetstream::{self, object_store, stream};
use crate::{Outcome, Transcript};

/// Every pull builder call with the `usize` async-nats gives it.
pub async fn pull_builder_arities(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let stream = js
        .create_stream(stream::Config { name: "JOBS".into(), subjects: vec!["jobs.>".into()], ..Default::default() })
        .await?;
    for i in 0..12 {
        js.publish(format!("jobs.{i}"), format!("job {i}").into()).await?.await?;
    }
    let consumer = stream
        .create_consumer(pull::Config {
            durable_name: Some("worker".into()),
            priority_policy: PriorityPolicy::Overflow,
            priority_groups: vec!["jobs".into()],
            ..Default::default()
        })
        .await?;

    let (count, bytes): (usize, usize) = (3, 1024 * 1024);
    let fetched: Vec<jetstream::Message> =
        consumer.fetch().max_messages(count).max_bytes(bytes).group("jobs").messages().await?.try_collect().await?;
    seen.push(format!("fetch {}", fetched.len()));
    for message in &fetched {
        message.ack().await?;
    }

    let batch: Vec<jetstream::Message> = consumer
        .batch()
        .max_messages(count)
        .max_bytes(bytes)
        .expires(Duration::from_secs(2))
        .heartbeat(Duration::from_millis(500))
        .group("jobs")
        .min_pending(1)
        .min_ack_pending(0)
        .messages()
        .await?
        .try_collect()
        .await?;
    seen.push(format!("batch {}", batch.len()));
    for message in &batch {
        message.ack().await?;
    }

    // An overflow pull is served only while this many are pending: six are.
    let starved: Vec<jetstream::Message> = consumer
        .batch()
        .max_messages(count)
        .expires(Duration::from_secs(1))
        .group("jobs")
        .min_pending(100)
        .messages()
        .await?
        .try_collect()
        .await?;
    seen.push(format!("overflow below min_pending {}", starved.len()));

    let mut messages = consumer
        .stream()
        .max_messages_per_batch(count)
        .expires(Duration::from_secs(2))
        .heartbeat(Duration::from_millis(500))
        .group("jobs")
        .messages()
        .await?;
    let mut subjects = Vec::new();
    while subjects.len() < 6 {
        let message = messages.next().await.expect("the stream ended")?;
        subjects.push(message.subject.to_string());
        message.ack().await?;
    }
    seen.push(format!("stream {subjects:?}"));

    let mut by_bytes = consumer.stream().max_bytes_per_batch(bytes).group("jobs").messages().await?;
    let quiet = tokio::time::timeout(Duration::from_millis(300), by_bytes.next()).await.is_err();
    seen.push(format!("nothing left: {quiet}"));
    Ok(seen)
}

/// A link made from the object `get` returned, and one from its info.
pub async fn link_to_object(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let bucket = js.create_object_store(object_store::Config { bucket: "docs".into(), ..Default::default() }).await?;
    bucket.put("report.txt", &mut "quarterly".as_bytes()).await?;

    let object = bucket.get("report.txt").await?;
    let link = bucket.add_link("latest", &object).await?;
    seen.push(format!("link {} to {:?}", link.name, link.options.and_then(|o| o.link).and_then(|l| l.name)));
    let info = bucket.info("report.txt").await?;
    bucket.add_link("also", &info).await?;

    let mut text = String::new();
    bucket.get("latest").await?.read_to_string(&mut text).await?;
    seen.push(format!("through the link: {text}"));
    Ok(seen)
}

/// The events a program matches on, with async-nats's unit variants.
pub async fn match_events(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let (events_tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let client = nats::ConnectOptions::new()
        .event_callback(move |event| {
            let events_tx = events_tx.clone();
            async move {
                let name = match event {
                    nats::Event::Connected => "connected".to_string(),
                    nats::Event::Disconnected => "disconnected".to_string(),
                    nats::Event::LameDuckMode => "lame duck".to_string(),
                    nats::Event::Draining => "draining".to_string(),
                    nats::Event::Closed => "closed".to_string(),
                    nats::Event::SlowConsumer(sid) => format!("slow consumer {sid}"),
                    nats::Event::ServerError(error) => format!("server error {error}"),
                    nats::Event::ClientError(error) => format!("client error {error}"),
                };
                let _ = events_tx.send(name);
            }
        })
        .connect(url)
        .await?;
    seen.push(next_event(&mut events).await);
    client.force_reconnect().await?;
    seen.push(next_event(&mut events).await);
    seen.push(next_event(&mut events).await);
    client.drain().await?;
    seen.push(next_event(&mut events).await);
    seen.push(next_event(&mut events).await);
    Ok(seen)
}

async fn next_event(events: &mut tokio::sync::mpsc::UnboundedReceiver<String>) -> String {
    let event = tokio::time::timeout(Duration::from_secs(5), events.recv()).await;
    event.ok().flatten().unwrap_or_else(|| "no event".into())
}

/// async-nats 0.52's header values: refused, made lossy, or sent as given.
pub async fn header_values(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::connect(url).await?;
    let mut subscriber = client.subscribe("headers").await?;

    match nats::HeaderValue::try_from("a\r\nb") {
        Err(e) => seen.push(format!("try_from refused: {e}")),
        Ok(value) => seen.push(format!("try_from took {value:?}")),
    }
    let refused: Result<nats::HeaderValue, nats::header::ParseHeaderValueError> = "x\ny".parse();
    seen.push(format!("parse refused: {}", refused.is_err()));
    let owned = nats::HeaderValue::try_from(String::from("owned"))?;

    let mut headers = nats::HeaderMap::new();
    headers.insert("X-Owned", owned);
    headers.insert("X-Lossy", nats::HeaderValue::from_lossy("one\ntwo"));
    headers.insert("X-Inserted", "three\r\nfour");
    headers.append("X-Number", nats::HeaderValue::from(42u64));
    client.publish_with_headers("headers", headers, "h".into()).await?;

    let message = subscriber.next().await.expect("the message");
    let headers = message.headers.expect("headers");
    for name in ["X-Owned", "X-Lossy", "X-Inserted", "X-Number"] {
        seen.push(format!("{name}: {:?}", headers.get(name).map(|v| v.as_str())));
    }
    Ok(seen)
}

/// What a program's own code does inside `Result<_, async_nats::Error>`:
/// `?` on its parse errors and messages, server addresses parsed from
/// strings, states and status codes printed and compared.
pub async fn program_errors(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let servers = vec![url.parse::<nats::ServerAddr>()?];
    let client = nats::connect(servers).await?;
    seen.push(format!("state {}", client.connection_state()));

    let mut subscriber = client.subscribe("numbers").await?;
    client.publish("numbers", "41".into()).await?;
    let message = subscriber.next().await.expect("a message");
    let number: u32 = std::str::from_utf8(&message.payload)?.trim().parse()?;
    seen.push(format!("parsed {}", number + 1));
    match parse_payload(b"forty-two") {
        Err(e) => seen.push(format!("own error: {e}")),
        Ok(n) => seen.push(format!("parsed {n}")),
    }

    let inbox = client.new_inbox();
    let mut replies = client.subscribe(inbox.clone()).await?;
    client.publish_with_reply("nobody.home", inbox, "?".into()).await?;
    let status: Option<nats::status::StatusCode> = replies.next().await.and_then(|reply| reply.status);
    seen.push(format!("status {:?}", status.map(|s| (s.as_u16(), s.is_server_error(), s == 503))));
    Ok(seen)
}

fn parse_payload(payload: &[u8]) -> Result<u32, nats::Error> {
    let text = std::str::from_utf8(payload)?;
    if text.starts_with("forty") {
        return Err(format!("{text:?} is spelled out").into());
    }
    Ok(text.parse()?)
}
