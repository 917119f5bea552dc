//! The JetStream walkthrough, step by step: a stream, two durable pull
//! consumers (ack all; replay instant and original), ten messages fetched
//! from each, then the Key-Value store (put, get, delete, watch) and the
//! object store (put with a progress bar, list, info, get, delete).
//! `tests/walkthrough.rs` runs it against a real server.
//!
//! Usage: cargo run --example walkthrough -- [nats://127.0.0.1:4222]

use std::io::Write;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, ReplayPolicy, StreamConfig};
use natsjet::jetstream::object_store::{self, Progress, PutOptions};
use natsjet::jetstream::{self, Context, PullConsumer, kv};

#[tokio::main]
async fn main() -> Result<(), natsjet::Error> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "nats://127.0.0.1:4222".into());
    let js = jetstream::new(natsjet::connect(url.as_str()).await?);
    run(&js).await
}

/// Every step, printed as it goes.
pub async fn run(js: &Context) -> Result<(), natsjet::Error> {
    streams_and_consumers(js).await?;
    key_value(js).await?;
    objects(js).await
}

async fn streams_and_consumers(js: &Context) -> Result<(), natsjet::Error> {
    let _ = js.delete_stream("WALK").await;
    let config = StreamConfig { name: "WALK".into(), subjects: vec!["walk.>".into()], ..Default::default() };
    let stream = js.create_stream(config).await?;
    println!("1. stream WALK stores walk.>");
    for (name, replay) in [("instant", ReplayPolicy::Instant), ("original", ReplayPolicy::Original)] {
        let config = ConsumerConfig {
            durable_name: Some(name.into()),
            ack_policy: AckPolicy::All,
            replay_policy: replay,
            ..Default::default()
        };
        stream.create_consumer(config).await?;
        println!("2. durable pull consumer {name:?}: ack policy all, replay {replay:?}");
    }
    for i in 1..=10 {
        js.publish(format!("walk.{i}"), format!("message {i}").into()).await?.await?;
    }
    println!("3. published 10 messages");
    for name in ["instant", "original"] {
        let consumer: PullConsumer = stream.get_consumer(name).await?;
        let mut batch = consumer.batch().max_messages(10).expires(Duration::from_secs(5)).messages().await?;
        let mut last = None;
        let mut count = 0;
        while let Some(message) = batch.next().await {
            let message = message?;
            count += 1;
            last = Some(message);
        }
        // Ack all: acking the last one acks every message before it.
        if let Some(last) = last {
            last.ack().await?;
        }
        println!("4. fetched {count} messages from {name:?} and acked them with one ack");
    }
    Ok(())
}

async fn key_value(js: &Context) -> Result<(), natsjet::Error> {
    let _ = js.delete_key_value("walk").await;
    let store = js.create_key_value(kv::Config { bucket: "walk".into(), history: 5, ..Default::default() }).await?;
    let mut watch = store.watch_all().await?;
    let revision = store.put("color", Bytes::from_static(b"blue")).await?;
    println!("5. kv put color=blue at revision {revision}");
    let value = store.get("color").await?.unwrap_or_default();
    println!("6. kv get color = {}", String::from_utf8_lossy(&value));
    store.delete("color").await?;
    println!("7. kv delete color: get now says {:?}", store.get("color").await?);
    for _ in 0..2 {
        if let Some(entry) = watch.next().await {
            let entry = entry?;
            println!("8. kv watch saw {} {} at revision {}", entry.operation, entry.key, entry.revision);
        }
    }
    Ok(())
}

async fn objects(js: &Context) -> Result<(), natsjet::Error> {
    let _ = js.delete_object_store("walk").await;
    let store = js.create_object_store(object_store::Config { bucket: "walk".into(), ..Default::default() }).await?;
    let data = vec![42u8; 3 << 20];
    let options = PutOptions { progress: Some(Box::new(bar)), size: Some(data.len() as u64), ..PutOptions::default() };
    let info = store.put_with("photo.jpg", &mut &data[..], options).await?;
    println!(
        "\n9. object put photo.jpg: {} bytes in {} chunks, {}",
        info.size,
        info.chunks,
        info.digest.unwrap_or_default()
    );
    let mut list = store.list().await?;
    while let Some(info) = list.next().await {
        println!("10. object list: {}", info?.name);
    }
    let info = store.info("photo.jpg").await?;
    let modified = info.modified.map(natsjet::jetstream::api::timestamp::format_rfc3339).unwrap_or_default();
    println!("11. object info: {} bytes, modified {modified}", info.size);
    let mut object = store.get("photo.jpg").await?.with_progress(Box::new(bar));
    let mut read = 0;
    while let Some(chunk) = object.next().await {
        read += chunk?.len();
    }
    println!("\n12. object get: {read} bytes, size and digest checked");
    store.delete("photo.jpg").await?;
    println!(
        "13. object delete: get now fails with {:?}",
        store.get("photo.jpg").await.map(|_| ()).map_err(|e| e.kind())
    );
    Ok(())
}

/// A progress bar on one line.
fn bar(progress: Progress) {
    let total = progress.total.unwrap_or(progress.done).max(1);
    let filled = (progress.done * 30 / total) as usize;
    print!("\r   [{}{}] {:>3}%", "#".repeat(filled), " ".repeat(30 - filled), progress.done * 100 / total);
    let _ = std::io::stdout().flush();
}
