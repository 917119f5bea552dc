//! Every ack kind: ack, nak (now and with a delay), progress, term, next,
//! double ack, and what the delivery count says about redeliveries.

use std::time::Duration;

use futures_util::StreamExt;

use crate::nats;
use crate::nats::jetstream::consumer::{AckPolicy, PullConsumer, pull};
use crate::nats::jetstream::{self, AckKind, stream};
use crate::{Outcome, Transcript};

/// The next message of `consumer`, waiting up to two seconds.
async fn next(consumer: &PullConsumer) -> Result<Option<jetstream::Message>, nats::Error> {
    let mut batch = consumer.batch().max_messages(1).expires(Duration::from_secs(2)).messages().await?;
    match batch.next().await {
        Some(message) => Ok(Some(message?)),
        None => Ok(None),
    }
}

/// Notes a message's stream sequence and how often it was delivered.
fn note(seen: &mut Transcript, message: &jetstream::Message, what: &str) -> Result<(), nats::Error> {
    let info = message.info()?;
    let delivered: i64 = info.delivered;
    seen.push(format!("{what}: seq {} delivered {delivered}", info.stream_sequence));
    Ok(())
}

pub async fn every_ack_kind(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let stream = js
        .create_stream(stream::Config {
            name: "JOBS".to_string(),
            subjects: vec!["jobs.>".to_string()],
            ..Default::default()
        })
        .await?;
    let consumer: PullConsumer = stream
        .create_consumer(pull::Config {
            durable_name: Some("worker".to_string()),
            ack_policy: AckPolicy::Explicit,
            ack_wait: Duration::from_secs(10),
            ..Default::default()
        })
        .await?;
    js.publish("jobs.nak", "redo".into()).await?.await?;
    let message = next(&consumer).await?.expect("jobs.nak");
    note(&mut seen, &message, "nak")?;
    message.ack_with(AckKind::Nak(None)).await?;
    let message = next(&consumer).await?.expect("jobs.nak again");
    note(&mut seen, &message, "redelivered")?;
    message.ack().await?;

    js.publish("jobs.delay", "later".into()).await?.await?;
    let message = next(&consumer).await?.expect("jobs.delay");
    message.ack_with(AckKind::Nak(Some(Duration::from_millis(300)))).await?;
    let message = next(&consumer).await?.expect("jobs.delay again");
    note(&mut seen, &message, "after delay")?;
    message.ack_with(AckKind::Progress).await?;
    message.ack_with(AckKind::Progress).await?;
    message.double_ack().await?;
    seen.push("progress twice, then double ack".into());

    js.publish("jobs.poison", "poison".into()).await?.await?;
    let message = next(&consumer).await?.expect("jobs.poison");
    note(&mut seen, &message, "term")?;
    message.ack_with(AckKind::Term).await?;

    js.publish("jobs.confirmed", "confirmed".into()).await?.await?;
    let message = next(&consumer).await?.expect("jobs.confirmed");
    message.double_ack_with(AckKind::Ack).await?;

    js.publish("jobs.next", "and the next".into()).await?.await?;
    let message = next(&consumer).await?.expect("jobs.next");
    // Acks and asks for more; with no reply subject, nothing more comes.
    message.ack_with(AckKind::Next).await?;

    seen.push(format!("nothing left: {}", next(&consumer).await?.is_none()));
    let mut consumer = consumer;
    let info = consumer.info().await?;
    seen.push(format!(
        "ack floor {} pending {} ack pending {} redelivered {}",
        info.ack_floor.stream_sequence, info.num_pending, info.num_ack_pending, info.num_redelivered
    ));
    Ok(seen)
}
