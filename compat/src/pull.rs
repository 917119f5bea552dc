//! Reading a pull consumer: fetch, batch, the endless messages stream and
//! its builder, and message metadata.

use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};

use crate::nats;
use crate::nats::jetstream::consumer::{PullConsumer, pull};
use crate::nats::jetstream::{self, stream};
use crate::{Outcome, Transcript};

pub async fn fetch_batch_messages(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let stream = js
        .create_stream(stream::Config {
            name: "EVENTS".to_string(),
            subjects: vec!["events.>".to_string()],
            ..Default::default()
        })
        .await?;
    for i in 0..30 {
        js.publish(format!("events.{i}"), format!("event {i}").into()).await?.await?;
    }
    let consumer: PullConsumer =
        stream.create_consumer(pull::Config { durable_name: Some("reader".to_string()), ..Default::default() }).await?;

    // fetch: what is there now, up to the limit, without waiting for more.
    let mut fetched = consumer.fetch().max_messages(5).messages().await?;
    let mut subjects = Vec::new();
    while let Some(message) = fetched.next().await {
        let message = message?;
        subjects.push(message.subject.to_string());
        message.ack().await?;
    }
    seen.push(format!("fetch: {subjects:?}"));

    // batch: waits up to `expires` for the whole batch.
    let batch = consumer.batch().max_messages(10).expires(Duration::from_secs(2)).messages().await?;
    let messages: Vec<jetstream::Message> = batch.try_collect().await?;
    for message in &messages {
        message.ack().await?;
    }
    let info = messages.last().expect("an empty batch").info()?;
    seen.push(format!(
        "batch: {} up to stream sequence {} ({} pending)",
        messages.len(),
        info.stream_sequence,
        info.pending
    ));

    // The rest is read by other consumers: a reader dropped with messages
    // it pulled but did not hand out leaves them to the ack wait.
    let rest = consumer.fetch().max_messages(20).messages().await?.count().await;
    seen.push(format!("fetch the rest: {rest}"));
    let empty = consumer.fetch().max_messages(5).messages().await?.count().await;
    seen.push(format!("empty fetch: {empty}"));

    // messages: pulls continuously; take what the program wants.
    let reader: PullConsumer =
        stream.create_consumer(pull::Config { durable_name: Some("all".to_string()), ..Default::default() }).await?;
    let mut messages = reader.messages().await?.take(30);
    let mut payloads = Vec::new();
    while let Some(message) = messages.next().await {
        let message = message?;
        payloads.push(String::from_utf8_lossy(&message.payload).to_string());
        message.ack().await?;
    }
    seen.push(format!("messages: {} from {} to {}", payloads.len(), payloads[0], payloads[payloads.len() - 1]));

    let tuned: PullConsumer =
        stream.create_consumer(pull::Config { durable_name: Some("tuned".to_string()), ..Default::default() }).await?;
    let mut messages = tuned
        .stream()
        .max_messages_per_batch(3)
        .heartbeat(Duration::from_secs(1))
        .expires(Duration::from_secs(5))
        .messages()
        .await?;
    let mut count = 0;
    while let Some(message) = messages.next().await {
        let message = message?;
        let info = message.info()?;
        message.ack().await?;
        count += 1;
        if info.pending == 0 {
            seen.push(format!(
                "stream builder: {count}, last {} of {} by {}",
                info.stream_sequence, info.stream, info.consumer
            ));
            break;
        }
    }
    Ok(seen)
}
