//! Ordered consumers, pull and push: the stream in order from one reader,
//! without acks or a durable.

use futures_util::StreamExt;

use crate::nats;
use crate::nats::jetstream::consumer::{DeliverPolicy, pull, push};
use crate::nats::jetstream::{self, stream};
use crate::{Outcome, Transcript};

pub async fn ordered_consumers(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::connect(url).await?;
    let js = jetstream::new(client.clone());
    let stream = js
        .create_stream(stream::Config {
            name: "LOG".to_string(),
            subjects: vec!["log.>".to_string()],
            ..Default::default()
        })
        .await?;
    for i in 0..12 {
        js.publish(format!("log.{}", if i % 3 == 0 { "warn" } else { "info" }), format!("line {i}").into())
            .await?
            .await?;
    }

    let consumer = stream
        .create_consumer(pull::OrderedConfig { filter_subject: "log.info".to_string(), ..Default::default() })
        .await?;
    let mut messages = consumer.messages().await?.take(8);
    let mut sequences = Vec::new();
    while let Some(message) = messages.next().await {
        sequences.push(message?.info()?.stream_sequence);
    }
    seen.push(format!("ordered pull: {sequences:?}"));

    let consumer = stream
        .create_consumer(pull::OrderedConfig { deliver_policy: DeliverPolicy::Last, ..Default::default() })
        .await?;
    let mut messages = consumer.messages().await?;
    let last = messages.next().await.expect("no last message")?;
    seen.push(format!("ordered from last: {}", String::from_utf8_lossy(&last.payload)));

    let consumer = stream
        .create_consumer(push::OrderedConfig {
            deliver_subject: client.new_inbox(),
            filter_subject: "log.warn".to_string(),
            ..Default::default()
        })
        .await?;
    let mut messages = consumer.messages().await?.take(4);
    let mut payloads = Vec::new();
    while let Some(message) = messages.next().await {
        payloads.push(String::from_utf8_lossy(&message?.payload).to_string());
    }
    seen.push(format!("ordered push: {payloads:?}"));
    Ok(seen)
}
