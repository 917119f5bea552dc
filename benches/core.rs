//! Core NATS benchmark: natsjet side by side with async-nats in one run,
//! against one local nats-server started here.
//!
//! Run with `cargo bench --bench core` (`BENCH_SCALE=0.1` for a quick pass).
//! Prints a table: each figure and the natsjet / async-nats ratio.

#[path = "../tests/common/mod.rs"]
mod common;
mod support;

use std::time::Duration;

use futures_util::StreamExt;
use support::{Run, Stopwatch, scale};

const PAYLOAD: [u8; 128] = [b'x'; 128];

/// Messages per second publishing `n` x 128 B, until the server has processed
/// all of them (both clients end with a request the server answers after the
/// publishes, so "done" means the same thing for each).
async fn natsjet_publish(url: &str, n: usize) -> Run {
    let client = natsjet::connect(url).await.unwrap();
    let _echo = natsjet_echo(url, "bench.echo.nj").await;
    let clock = Stopwatch::start();
    for _ in 0..n {
        client.publish("bench.pub", bytes::Bytes::from_static(&PAYLOAD)).await.unwrap();
    }
    client.request("bench.echo.nj", "".into()).await.unwrap();
    clock.stop(n)
}

async fn async_nats_publish(url: &str, n: usize) -> Run {
    let client = async_nats::connect(url).await.unwrap();
    let _echo = async_nats_echo(url, "bench.echo.an").await;
    let clock = Stopwatch::start();
    for _ in 0..n {
        client.publish("bench.pub", bytes::Bytes::from_static(&PAYLOAD)).await.unwrap();
    }
    client.request("bench.echo.an", bytes::Bytes::new()).await.unwrap();
    clock.stop(n)
}

/// Sequential request/reply round trips per second.
async fn natsjet_requests(url: &str, n: usize) -> Run {
    let client = natsjet::connect(url).await.unwrap();
    let _echo = natsjet_echo(url, "bench.rr.nj").await;
    // The responder subscribed on a connection of its own: wait until the
    // server routes to it (async-nats's flush is no round trip).
    while client.request("bench.rr.nj", bytes::Bytes::new()).await.is_err() {}
    let clock = Stopwatch::start();
    for _ in 0..n {
        client.request("bench.rr.nj", bytes::Bytes::from_static(&PAYLOAD)).await.unwrap();
    }
    clock.stop(n)
}

async fn async_nats_requests(url: &str, n: usize) -> Run {
    let client = async_nats::connect(url).await.unwrap();
    let _echo = async_nats_echo(url, "bench.rr.an").await;
    while client.request("bench.rr.an", bytes::Bytes::new()).await.is_err() {}
    let clock = Stopwatch::start();
    for _ in 0..n {
        client.request("bench.rr.an", bytes::Bytes::from_static(&PAYLOAD)).await.unwrap();
    }
    clock.stop(n)
}

/// Each client's own responder on its own connection.
async fn natsjet_echo(url: &str, subject: &str) -> tokio::task::JoinHandle<()> {
    let client = natsjet::connect(url).await.unwrap();
    let mut sub = client.subscribe(subject).await.unwrap();
    client.flush().await.unwrap();
    tokio::spawn(async move {
        while let Some(m) = sub.next().await {
            if let Some(reply) = m.reply {
                client.publish(reply, m.payload).await.unwrap();
            }
        }
    })
}

async fn async_nats_echo(url: &str, subject: &str) -> tokio::task::JoinHandle<()> {
    let client = async_nats::connect(url).await.unwrap();
    let mut sub = client.subscribe(subject.to_string()).await.unwrap();
    client.flush().await.unwrap();
    tokio::spawn(async move {
        while let Some(m) = sub.next().await {
            if let Some(reply) = m.reply {
                client.publish(reply, m.payload).await.unwrap();
            }
        }
    })
}

fn main() {
    let server = common::NatsServer::start();
    let url = server.client_url();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let publishes = scale(1_000_000);
    let requests = scale(20_000);
    // Warm up both clients and the server once.
    rt.block_on(natsjet_publish(&url, publishes / 10));
    rt.block_on(async_nats_publish(&url, publishes / 10));

    support::header();
    let ours = support::best(3, || rt.block_on(natsjet_publish(&url, publishes)));
    let theirs = support::best(3, || rt.block_on(async_nats_publish(&url, publishes)));
    support::row(&format!("core publish {publishes} x 128 B"), ours, theirs);
    let ours = support::best(3, || rt.block_on(natsjet_requests(&url, requests)));
    let theirs = support::best(3, || rt.block_on(async_nats_requests(&url, requests)));
    support::row(&format!("request/reply {requests} sequential"), ours, theirs);
    drop(rt);
    std::thread::sleep(Duration::from_millis(50));
}
