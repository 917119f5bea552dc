//! A tour of the core client: publish/subscribe, queue groups, request/reply,
//! headers and flush. `scripts/demo.sh` starts a local nats-server and runs it.
//!
//! Usage: cargo run --example demo -- [nats://127.0.0.1:4222]

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use natsjet::{ConnectOptions, HeaderMap};

#[tokio::main]
async fn main() -> Result<(), natsjet::Error> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "nats://127.0.0.1:4222".into());
    let client = ConnectOptions::new()
        .name("natsjet-demo")
        .on_event(|event| println!("  [event] {event:?}"))
        .connect(url.as_str())
        .await?;
    let info = client.server_info();
    println!("connected to {} (nats-server {}, max_payload {} B)", url, info.version, info.max_payload);

    // A service answering requests, as two members of one queue group.
    for worker in 0..2 {
        let mut requests = client.queue_subscribe("demo.greet", "greeters".to_string()).await?;
        let responder = client.clone();
        tokio::spawn(async move {
            while let Some(request) = requests.next().await {
                let name = String::from_utf8_lossy(&request.payload).to_string();
                if let Some(reply) = request.reply {
                    let _ = responder.publish(reply, format!("hello {name}, from worker {worker}").into()).await;
                }
            }
        });
    }
    client.flush().await?;
    for name in ["ada", "grace", "linus"] {
        let answer = client.request("demo.greet", bytes::Bytes::copy_from_slice(name.as_ref())).await?;
        println!("request {name:>6} -> {}", String::from_utf8_lossy(&answer.payload));
    }
    match client.request("demo.nobody", "anyone?".into()).await.map_err(natsjet::Error::from) {
        Err(natsjet::Error::NoResponders) => {
            println!("request to a subject nobody serves -> no responders (typed error)")
        }
        other => println!("unexpected: {other:?}"),
    }

    // Headers travel with the message.
    let mut sub = client.subscribe("demo.headers").await?;
    let mut headers = HeaderMap::new();
    headers.insert("Trace-Id", "abc123");
    client.publish_with_headers("demo.headers", headers, "with headers".into()).await?;
    let msg = sub.next().await.expect("message");
    println!("headers: Trace-Id = {:?}", msg.headers.as_ref().and_then(|h| h.get("Trace-Id")));

    // Fan-in: publish 200,000 small messages and count them on a subscriber.
    let count = 200_000;
    let mut sink = client.subscribe("demo.firehose").await?;
    client.flush().await?;
    let started = Instant::now();
    let counter = tokio::spawn(async move {
        let mut n = 0;
        while n < count {
            if tokio::time::timeout(Duration::from_secs(10), sink.next()).await.ok().flatten().is_none() {
                break;
            }
            n += 1;
        }
        n
    });
    let payload = bytes::Bytes::from_static(&[b'x'; 128]);
    for _ in 0..count {
        client.publish("demo.firehose", payload.clone()).await?;
    }
    client.flush().await?;
    let received = counter.await.expect("counter task");
    let secs = started.elapsed().as_secs_f64();
    println!("published and received {received}/{count} x 128 B in {secs:.2} s ({:.0} msg/s)", received as f64 / secs);

    let stats = client.statistics();
    println!(
        "statistics: out {} msgs / {} B, in {} msgs / {} B",
        stats.out_messages, stats.out_bytes, stats.in_messages, stats.in_bytes
    );
    client.drain().await?;
    println!("drained and closed");
    Ok(())
}
