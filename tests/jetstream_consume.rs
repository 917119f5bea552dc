//! Pull consumers against a real server: fetch, next, continuous consume,
//! acks, AckBatch and statuses.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::Error;
use natsjet::jetstream::api::{
    self, AckPolicy, ConsumerConfig, ConsumerInfo, CreateConsumerRequest, StreamConfig, StreamInfo,
};
use natsjet::jetstream::{self, Consumer, Context};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(20);

async fn setup(server: &NatsServer, stream: &str, messages: usize) -> Context {
    let client = natsjet::connect(server.client_url()).await.unwrap();
    let js = jetstream::new(client.clone());
    let config = StreamConfig { name: stream.into(), subjects: vec![format!("{stream}.>")], ..Default::default() };
    let _: StreamInfo = js.request(&api::stream_create(js.api_prefix(), stream).unwrap(), &config).await.unwrap();
    for i in 0..messages {
        client.publish(format!("{stream}.{}", i % 10), format!("{i}")).await.unwrap();
    }
    client.flush().await.unwrap();
    js
}

async fn durable(js: &Context, stream: &str, config: ConsumerConfig) -> Consumer {
    let subject = api::consumer_create(js.api_prefix(), stream, &config).unwrap();
    let request = CreateConsumerRequest { stream_name: stream.into(), config, action: Default::default() };
    let info: ConsumerInfo = js.request(&subject, &request).await.unwrap();
    Consumer::new(js.clone(), info)
}

fn durable_config(name: &str) -> ConsumerConfig {
    ConsumerConfig { durable_name: Some(name.into()), ack_policy: AckPolicy::Explicit, ..Default::default() }
}

#[tokio::test]
async fn fetch_next_and_acks() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "F", 25).await;
    let consumer = durable(&js, "F", durable_config("f")).await;
    let batch = consumer.fetch().max_messages(10).expires(Duration::from_secs(2)).messages().await.unwrap();
    let got: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(got.len(), 10);
    for (i, m) in got.iter().enumerate() {
        let m = m.as_ref().unwrap();
        let info = m.info().unwrap();
        assert_eq!((info.stream.as_str(), info.consumer.as_str()), ("F", "f"));
        assert_eq!(info.stream_sequence, i as u64 + 1);
        assert_eq!(info.delivered, 1);
        m.ack().await.unwrap();
        assert_eq!(m.ack().await.unwrap_err(), Error::AlreadyAcknowledged);
    }
    let m = consumer.next(Duration::from_secs(2)).await.unwrap().expect("one message");
    assert_eq!(m.info().unwrap().stream_sequence, 11);
    m.double_ack().await.unwrap();

    // no_wait returns what is there and ends.
    let batch = consumer.fetch().max_messages(100).no_wait().messages().await.unwrap();
    let rest: Vec<_> = timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap();
    assert_eq!(rest.len(), 14);
    // An empty no_wait fetch ends quietly.
    let batch = consumer.fetch().max_messages(5).no_wait().messages().await.unwrap();
    assert_eq!(timeout(WAIT, batch.collect::<Vec<_>>()).await.unwrap().len(), 0);
}

#[tokio::test]
async fn consume_reads_everything_and_keeps_going() {
    let server = NatsServer::start_jetstream();
    let js = setup(&server, "C", 1000).await;
    let consumer = durable(&js, "C", durable_config("c")).await;
    let mut messages = consumer.stream().max_messages_per_batch(50).messages().await.unwrap();
    for i in 0..1000u64 {
        let m = timeout(WAIT, messages.next()).await.expect("message in time").unwrap().unwrap();
        assert_eq!(m.info().unwrap().stream_sequence, i + 1);
        m.ack().await.unwrap();
    }
    // New messages keep coming to the same reader.
    js.client().publish("C.new", "late").await.unwrap();
    let m = timeout(WAIT, messages.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(&m.payload[..], b"late");
    m.ack().await.unwrap();
    messages.drain().await.unwrap();
    assert!(timeout(WAIT, messages.next()).await.unwrap().is_none());
}
