//! One durable pull consumer shared by several workers, each on its own
//! connection, each binding to the consumer by name.

use std::collections::BTreeSet;
use std::time::Duration;

use futures_util::StreamExt;

use crate::nats;
use crate::nats::jetstream::consumer::{AckPolicy, PullConsumer, pull};
use crate::nats::jetstream::{self, stream};
use crate::{Outcome, Transcript};

const WORKERS: usize = 4;
const MESSAGES: u64 = 200;

/// One worker: fetches batches from the shared durable until it finds
/// nothing more, acking each message; returns the sequences it handled.
async fn worker(url: String) -> Result<Vec<u64>, nats::Error> {
    let js = jetstream::new(nats::connect(url).await?);
    let consumer: PullConsumer = js.get_stream("WORK").await?.get_consumer("shared").await?;
    let mut handled = Vec::new();
    loop {
        let mut batch = consumer.batch().max_messages(10).expires(Duration::from_millis(500)).messages().await?;
        let mut got = 0;
        while let Some(message) = batch.next().await {
            let message = message?;
            handled.push(message.info()?.stream_sequence);
            message.ack().await?;
            got += 1;
        }
        if got == 0 {
            return Ok(handled);
        }
    }
}

pub async fn shared_durable(url: &str) -> Outcome {
    let mut seen = Transcript::new();
    let js = jetstream::new(nats::connect(url).await?);
    let stream = js
        .create_stream(stream::Config {
            name: "WORK".to_string(),
            subjects: vec!["work.>".to_string()],
            ..Default::default()
        })
        .await?;
    stream
        .create_consumer(pull::Config {
            durable_name: Some("shared".to_string()),
            ack_policy: AckPolicy::Explicit,
            ack_wait: Duration::from_secs(30),
            max_ack_pending: 1000,
            ..Default::default()
        })
        .await?;
    let mut acks = Vec::new();
    for i in 0..MESSAGES {
        acks.push(js.publish(format!("work.{i}"), "unit".into()).await?);
    }
    for ack in acks {
        ack.await?;
    }

    let workers: Vec<_> = (0..WORKERS).map(|_| tokio::spawn(worker(url.to_string()))).collect();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await.expect("worker panicked")?);
    }
    let distinct: BTreeSet<u64> = all.iter().copied().collect();
    seen.push(format!("handled {} messages, {} distinct", all.len(), distinct.len()));
    let mut consumer: PullConsumer = stream.get_consumer("shared").await?;
    let info = consumer.info().await?;
    seen.push(format!(
        "ack floor {} pending {} ack pending {}",
        info.ack_floor.stream_sequence, info.num_pending, info.num_ack_pending
    ));
    Ok(seen)
}
