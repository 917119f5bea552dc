//! Publishing with acks: awaited at once, collected and awaited later,
//! built with message ids and expectations, and the kinds of refusals.

use std::time::Duration;

use crate::nats::jetstream::context::{PublishAckFuture, PublishErrorKind};
use crate::nats::jetstream::message::PublishMessage;
use crate::nats::jetstream::{self, stream};
use crate::nats::{self, HeaderMap, header};
use crate::{Outcome, Transcript};

pub async fn publish_with_acks(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let client = nats::connect(url).await?;
    let mut js = jetstream::new(client);
    js.set_timeout(Duration::from_secs(5));
    js.create_stream(stream::Config {
        name: "PAYMENTS".to_string(),
        subjects: vec!["payments.>".to_string()],
        duplicate_window: Duration::from_secs(60),
        ..Default::default()
    })
    .await?;

    let ack = js.publish("payments.in", "first".into()).await?.await?;
    seen.push(format!("{} {} duplicate {}", ack.stream, ack.sequence, ack.duplicate));

    let mut pending: Vec<PublishAckFuture> = Vec::new();
    for i in 0..20 {
        pending.push(js.publish(format!("payments.batch.{i}"), format!("payment {i}").into()).await?);
    }
    let mut sequences = Vec::new();
    for ack in pending {
        sequences.push(ack.await?.sequence);
    }
    seen.push(format!("batch {}..={}", sequences[0], sequences[sequences.len() - 1]));

    let publish = PublishMessage::build().payload("once".into()).message_id("pay-1");
    let first = js.send_publish("payments.once", publish).await?.await?;
    let again = js
        .send_publish("payments.once", PublishMessage::build().payload("once".into()).message_id("pay-1"))
        .await?
        .await?;
    seen.push(format!("dedup: {} then {} (duplicate {})", first.sequence, again.sequence, again.duplicate));

    let mut headers = HeaderMap::new();
    headers.insert(header::NATS_MESSAGE_ID, "pay-2");
    headers.insert("Origin", "compat");
    let ack = js.publish_with_headers("payments.headers", headers, "with headers".into()).await?.await?;
    seen.push(format!("with headers: {}", ack.sequence));

    let expected = PublishMessage::build().payload("guarded".into()).expected_last_sequence(ack.sequence);
    let guarded = js.send_publish("payments.guarded", expected).await?.await?;
    seen.push(format!("expected last sequence ok: {}", guarded.sequence));

    let stale = PublishMessage::build().payload("stale".into()).expected_last_sequence(1);
    match js.send_publish("payments.guarded", stale).await?.await {
        Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => seen.push("stale: wrong last sequence".into()),
        Err(e) => seen.push(format!("stale: {:?}", e.kind())),
        Ok(_) => seen.push("stale accepted".into()),
    }
    let wrong_stream = PublishMessage::build().payload("x".into()).expected_stream("OTHER");
    match js.send_publish("payments.x", wrong_stream).await?.await {
        Err(e) => seen.push(format!("wrong stream: {:?}", e.kind())),
        Ok(_) => seen.push("wrong stream accepted".into()),
    }
    match js.publish("nowhere.at.all", "lost".into()).await?.await {
        Err(e) if e.kind() == PublishErrorKind::StreamNotFound => seen.push("no stream: stream not found".into()),
        Err(e) => seen.push(format!("no stream: {:?}", e.kind())),
        Ok(_) => seen.push("no stream accepted".into()),
    }
    let info = js.get_stream("PAYMENTS").await?.info().await?.state.messages;
    seen.push(format!("stored {info}"));
    Ok(seen)
}
