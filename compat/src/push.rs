//! Push consumers: a durable one delivering to an inbox, and one shared by
//! a deliver group.

use std::time::Duration;

use futures_util::StreamExt;

use crate::nats;
use crate::nats::jetstream::consumer::{AckPolicy, PushConsumer, push};
use crate::nats::jetstream::{self, stream};
use crate::{Outcome, Transcript};

pub async fn push_consumers(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::connect(url).await?;
    let js = jetstream::new(client.clone());
    let stream = js
        .create_stream(stream::Config {
            name: "ALERTS".to_string(),
            subjects: vec!["alerts.>".to_string()],
            ..Default::default()
        })
        .await?;
    for i in 0..10 {
        js.publish(format!("alerts.{i}"), format!("alert {i}").into()).await?.await?;
    }

    let consumer: PushConsumer = stream
        .create_consumer(push::Config {
            durable_name: Some("pager".to_string()),
            deliver_subject: client.new_inbox(),
            ack_policy: AckPolicy::Explicit,
            idle_heartbeat: Duration::from_secs(5),
            flow_control: true,
            ..Default::default()
        })
        .await?;
    let mut messages = consumer.messages().await?.take(10);
    let mut subjects = Vec::new();
    while let Some(message) = messages.next().await {
        let message = message?;
        subjects.push(message.subject.to_string());
        message.ack().await?;
    }
    seen.push(format!("push: {} first {} last {}", subjects.len(), subjects[0], subjects[9]));

    let grouped: PushConsumer = stream
        .create_consumer(push::Config {
            durable_name: Some("team".to_string()),
            deliver_subject: "deliver.team".to_string(),
            deliver_group: Some("team".to_string()),
            ..Default::default()
        })
        .await?;
    seen.push(format!("group {:?}", grouped.cached_info().config.deliver_group));
    let mut first = grouped.messages().await?;
    let mut second = grouped.messages().await?;
    let mut taken = 0;
    while taken < 10 {
        let message = tokio::select! {
            Some(message) = first.next() => message?,
            Some(message) = second.next() => message?,
        };
        message.ack().await?;
        taken += 1;
    }
    seen.push(format!("deliver group took {taken}"));
    let mut looked_up: PushConsumer = js.get_consumer_from_stream("pager", "ALERTS").await?;
    let info = looked_up.info().await?;
    seen.push(format!(
        "pager pending {} deliver subject set {}",
        info.num_pending,
        info.config.deliver_subject.is_some()
    ));
    Ok(seen)
}
