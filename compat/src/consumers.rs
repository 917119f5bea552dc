//! Consumer management: durable pull consumers with their policies, info
//! (fetched and cached), listings, lookups from the context, and the error
//! kinds of get and delete.

use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};

use crate::nats;
use crate::nats::jetstream::consumer::{self, AckPolicy, Consumer, DeliverPolicy, PullConsumer, ReplayPolicy, pull};
use crate::nats::jetstream::{self, ErrorCode, stream};
use crate::{Outcome, Transcript};

pub async fn manage_consumers(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let stream = js
        .create_stream(stream::Config {
            name: "TASKS".to_string(),
            subjects: vec!["tasks.>".to_string()],
            ..Default::default()
        })
        .await?;
    for i in 0..6 {
        js.publish(format!("tasks.{}", if i % 2 == 0 { "even" } else { "odd" }), "task".into()).await?.await?;
    }

    let mut even: PullConsumer = stream
        .create_consumer(pull::Config {
            durable_name: Some("even".to_string()),
            description: Some("even tasks".to_string()),
            ack_policy: AckPolicy::Explicit,
            deliver_policy: DeliverPolicy::All,
            replay_policy: ReplayPolicy::Instant,
            filter_subject: "tasks.even".to_string(),
            ack_wait: Duration::from_secs(30),
            max_deliver: 5,
            max_ack_pending: 100,
            ..Default::default()
        })
        .await?;
    let info = even.info().await?;
    seen.push(format!(
        "even: pending {} ack pending {} delivered {}/{} filter {}",
        info.num_pending,
        info.num_ack_pending,
        info.delivered.stream_sequence,
        info.delivered.consumer_sequence,
        info.config.filter_subject
    ));

    let mut batch = even.fetch().max_messages(2).messages().await?;
    while let Some(message) = batch.next().await {
        // Confirmed, so the info below counts them.
        message?.double_ack().await?;
    }
    let fresh = even.get_info().await?;
    seen.push(format!(
        "after two acks: pending {} ack floor {}/{}",
        fresh.num_pending, fresh.ack_floor.stream_sequence, fresh.ack_floor.consumer_sequence
    ));
    let cached = even.cached_info();
    seen.push(format!("cached still {} pending, name {}", cached.num_pending, cached.name));

    let from_stream: Consumer<pull::Config> = stream.get_consumer("even").await?;
    seen.push(format!("got {} on {}", from_stream.cached_info().name, from_stream.cached_info().stream_name));
    let from_context: PullConsumer = js.get_consumer_from_stream("even", "TASKS").await?;
    seen.push(format!("description {:?}", from_context.cached_info().config.description));

    let odd: PullConsumer = js
        .create_consumer_on_stream(
            consumer::pull::Config {
                durable_name: Some("odd".to_string()),
                filter_subject: "tasks.odd".to_string(),
                ..Default::default()
            },
            "TASKS",
        )
        .await?;
    seen.push(format!("odd ack policy {:?}", odd.cached_info().config.ack_policy));
    let same: PullConsumer = stream
        .get_or_create_consumer("odd", pull::Config { durable_name: Some("odd".to_string()), ..Default::default() })
        .await?;
    seen.push(format!("get_or_create kept filter {}", same.cached_info().config.filter_subject));

    let ephemeral: PullConsumer = stream
        .create_consumer(pull::Config { inactive_threshold: Duration::from_secs(60), ..Default::default() })
        .await?;
    seen.push(format!("ephemeral has a name: {}", !ephemeral.cached_info().name.is_empty()));
    let info: consumer::Info = stream.consumer_info("odd").await?;
    seen.push(format!("odd pending {}", info.num_pending));

    let mut names = stream.consumer_names().try_collect::<Vec<String>>().await?;
    names.sort();
    seen.push(format!("consumer names: {}", names.len()));
    let mut durables = Vec::new();
    let mut consumers = stream.consumers();
    while let Some(info) = consumers.next().await {
        if let Some(durable) = info?.config.durable_name {
            durables.push(durable);
        }
    }
    durables.sort();
    seen.push(format!("durables {durables:?}"));

    match js.get_consumer_from_stream::<pull::Config, _, _>("missing", "TASKS").await {
        Err(e) => match e.kind() {
            jetstream::stream::ConsumerErrorKind::JetStream(err)
                if err.error_code() == ErrorCode::CONSUMER_NOT_FOUND =>
            {
                seen.push("missing consumer: not found".into())
            }
            kind => seen.push(format!("missing consumer: {kind:?}")),
        },
        Ok(_) => seen.push("found a missing consumer".into()),
    }
    let deleted = stream.delete_consumer("odd").await?;
    seen.push(format!("deleted odd: {}", deleted.success));
    let deleted = js.delete_consumer_from_stream("even", "TASKS").await?;
    seen.push(format!("deleted even: {}", deleted.success));
    Ok(seen)
}
