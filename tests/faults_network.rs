//! Network faults on purpose: a proxy between client and server cuts
//! (RST), stalls, slows or half-opens the connection in the middle of an
//! acked publish, a shared durable consume, a KV watch and an object get,
//! over TCP and over WebSocket. The client must notice (missed pongs,
//! missed heartbeats), reconnect, re-pull and resume; each test prints its
//! loss line and asserts nothing was lost.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::{Fault, FaultProxy, LossLedger, NatsServer, publish_with_retries, work_and_ack};
use futures_util::StreamExt;
use natsjet::jetstream::api::{AckPolicy, ConsumerConfig, StreamConfig};
use natsjet::jetstream::kv;
use natsjet::jetstream::object_store;
use natsjet::jetstream::{self, Context};
use tokio::time::timeout;

/// Bound on each whole run, well under a minute on a loaded machine.
const RUN: Duration = Duration::from_secs(45);

#[derive(Clone, Copy, Debug)]
enum Transport {
    Tcp,
    WebSocket,
}

/// A server with JetStream and a websocket port, and a proxy in front of
/// the port `transport` speaks.
fn server_and_proxy(transport: Transport) -> (NatsServer, FaultProxy, String) {
    let server = NatsServer::builder().jetstream().websocket().start();
    let (proxy, url) = match transport {
        Transport::Tcp => {
            let p = FaultProxy::start(server.port());
            let url = p.nats_url();
            (p, url)
        }
        Transport::WebSocket => {
            let p = FaultProxy::start(server.websocket_port());
            let url = p.ws_url();
            (p, url)
        }
    };
    (server, proxy, url)
}

/// A client that notices a dead link within about a second (PING every
/// 250 ms, two unanswered make it stale) and reconnects at once. The slow
/// link keeps it: there its PONGs come late, queued behind what the link
/// still has to carry, but the bytes still coming in show the link alive
/// (a 750 ms window used to declare it dead again and again, every time
/// before a 128 KiB object chunk was through: 59 reconnects in 45 s and
/// no progress).
async fn watchful_client(url: &str) -> natsjet::Client {
    natsjet::ConnectOptions::new()
        .ping_interval(Duration::from_millis(250))
        .max_pings_outstanding(2)
        .connection_timeout(Duration::from_secs(2))
        .reconnect_delay(Duration::from_millis(100), Duration::from_millis(50))
        .connect(url)
        .await
        .unwrap()
}

async fn direct(server: &NatsServer) -> Context {
    jetstream::new(natsjet::connect(server.client_url()).await.unwrap())
}

/// Waits (bounded) until the proxy has accepted `connections` in all: the
/// client noticed the fault and reconnected. The slow link is no fault to
/// notice: each client kept its first connection.
async fn reconnected(proxy: &FaultProxy, fault: Fault, connections: usize, what: &str) {
    if fault == Fault::Slow {
        assert_eq!(proxy.accepted(), connections / 2, "{what}: no reconnect over the slow link");
        return;
    }
    let waited = timeout(Duration::from_secs(10), async {
        while proxy.accepted() < connections {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    assert!(waited.await.is_ok(), "{what}: {} connections", proxy.accepted());
}

fn name(test: &str, fault: Fault, transport: Transport) -> String {
    format!("{test} {fault:?} over {transport:?}")
}

fn id_of(payload: &[u8]) -> u64 {
    std::str::from_utf8(payload).unwrap().parse().unwrap()
}

// ---- mid-publish -----------------------------------------------------------

async fn mid_publish(fault: Fault, transport: Transport) {
    const COUNT: u64 = 1_000;
    let (server, proxy, url) = server_and_proxy(transport);
    let checker = direct(&server).await;
    checker
        .create_stream(StreamConfig { name: "F".into(), subjects: vec!["F.>".into()], ..Default::default() })
        .await
        .unwrap();
    let mut js = jetstream::new(watchful_client(&url).await);
    js.set_timeout(Duration::from_secs(1));
    let ledger = LossLedger::new();
    let published = publish_with_retries(&js, "F", 0..COUNT, &ledger, |id| {
        if id == COUNT / 3 {
            proxy.inject(fault);
        }
    });
    timeout(RUN, published).await.expect("every publish acked in time");
    reconnected(&proxy, fault, 2, "the client reconnected").await;
    // Read the stream back on a direct connection: each id exactly once.
    let stream = checker.get_stream("F").await.unwrap();
    let consumer = stream
        .create_consumer(ConsumerConfig { durable_name: Some("check".into()), ..Default::default() })
        .await
        .unwrap();
    let mut messages = consumer.messages().await.unwrap();
    let stored = stream.clone().info().await.unwrap().state.messages;
    for _ in 0..stored {
        let m = timeout(RUN, messages.next()).await.unwrap().unwrap().unwrap();
        m.double_ack().await.unwrap();
        ledger.consumed(id_of(&m.payload), m.info().unwrap().delivered);
    }
    ledger.check(&name("mid-publish", fault, transport), 0);
    assert_eq!(stored, COUNT, "the stream holds each id once");
}

// ---- mid-consume -----------------------------------------------------------

/// Waits until every id was consumed and the server holds no ack pending.
async fn all_consumed_and_acked(checker: &Context, ledger: &LossLedger, count: u64) {
    let stream = checker.get_stream("C").await.unwrap();
    loop {
        if ledger.consumed_count() as u64 >= count {
            let info = stream.consumer_info("work").await.unwrap();
            if info.ack_floor.stream_sequence == count && info.num_ack_pending == 0 {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn mid_consume(fault: Fault, transport: Transport) {
    const COUNT: u64 = 1_500;
    let (server, proxy, url) = server_and_proxy(transport);
    let checker = direct(&server).await;
    checker
        .create_stream(StreamConfig { name: "C".into(), subjects: vec!["C.>".into()], ..Default::default() })
        .await
        .unwrap();
    let ledger = LossLedger::new();
    timeout(RUN, publish_with_retries(&checker, "C", 0..COUNT, &ledger, |_| {})).await.unwrap();
    let config = ConsumerConfig {
        durable_name: Some("work".into()),
        ack_policy: AckPolicy::Explicit,
        ack_wait: Duration::from_secs(2),
        max_ack_pending: 200,
        ..Default::default()
    };
    checker.get_stream("C").await.unwrap().create_consumer(config).await.unwrap();
    let mut workers = Vec::new();
    for _ in 0..2 {
        let js = jetstream::new(watchful_client(&url).await);
        workers.push(tokio::spawn(work_and_ack(js, "C", "work", ledger.clone())));
    }
    let run = async {
        while ledger.consumed_count() < COUNT as usize / 3 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        proxy.inject(fault);
        all_consumed_and_acked(&checker, &ledger, COUNT).await;
    };
    let done = timeout(RUN, run).await;
    workers.iter().for_each(|w| w.abort());
    if done.is_err() {
        ledger.check(&name("mid-consume (timed out)", fault, transport), 200);
        panic!("not every message consumed in time");
    }
    ledger.check(&name("mid-consume", fault, transport), 200);
    reconnected(&proxy, fault, 4, "both workers reconnected").await;
}

// ---- mid-KV-watch ----------------------------------------------------------

async fn mid_kv_watch(fault: Fault, transport: Transport) {
    const COUNT: u64 = 300;
    let (server, proxy, url) = server_and_proxy(transport);
    let config = kv::Config { bucket: "W".into(), ..Default::default() };
    let writer = direct(&server).await.create_key_value(config).await.unwrap();
    let reader = jetstream::new(watchful_client(&url).await).get_key_value("W").await.unwrap();
    let mut watch = reader.watch_all().await.unwrap();
    let ledger = LossLedger::new();
    let run = async {
        let mut revisions = Vec::new();
        for i in 0..COUNT {
            ledger.published(i + 1);
            if i == COUNT / 3 {
                proxy.inject(fault);
            }
            // One key per write, so every revision stays in the bucket.
            let revision = writer.put(format!("k.{i}"), i.to_string().into()).await.unwrap();
            ledger.server_acked(revision);
            // Read what has come, without waiting for the faulted link.
            while let Ok(Some(entry)) = timeout(Duration::from_millis(1), watch.next()).await {
                revisions.push(entry.unwrap().revision);
            }
        }
        while revisions.len() < COUNT as usize {
            let entry = watch.next().await.expect("the watch goes on").unwrap();
            revisions.push(entry.revision);
        }
        revisions
    };
    let revisions = timeout(RUN, run).await.expect("the watch resumed in time");
    for revision in &revisions {
        ledger.consumed(*revision, 1);
    }
    ledger.check(&name("mid-kv-watch", fault, transport), 0);
    reconnected(&proxy, fault, 2, "the watcher reconnected").await;
    assert_eq!(revisions, (1..=COUNT).collect::<Vec<_>>(), "no gap, no repeat, in order");
}

// ---- mid-object-get --------------------------------------------------------

async fn mid_object_get(fault: Fault, transport: Transport) {
    const SIZE: usize = 512 << 10;
    let (server, proxy, url) = server_and_proxy(transport);
    // Bytes that do not compress: over WebSocket the server may deflate them,
    // and a compressible object would be through before the fault.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let data: Vec<u8> = (0..SIZE)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let config = object_store::Config { bucket: "O".into(), ..Default::default() };
    let writer = direct(&server).await.create_object_store(config).await.unwrap();
    writer.put("blob", &mut &data[..]).await.unwrap();
    let store = jetstream::new(watchful_client(&url).await).get_object_store("O").await.unwrap();
    // Paced from the start, so the fault lands while chunks are still on their way.
    proxy.slow(Some(1 << 20));
    let ledger = LossLedger::new();
    ledger.published(0);
    ledger.server_acked(0);
    let mut errors = Vec::new();
    let run = async {
        for attempt in 0.. {
            let read = async {
                let mut object = store.get("blob").await?;
                let mut got = Vec::new();
                while let Some(chunk) = object.next().await {
                    got.extend_from_slice(&chunk?);
                    if attempt == 0 && got.len() >= SIZE / 4 && proxy.open_connections() > 0 {
                        // The pacing goes with the fault: a PONG queued behind the paced
                        // backlog would make the new link look dead too (the slow case).
                        proxy.slow(None);
                        proxy.inject(fault);
                    }
                }
                Ok::<_, natsjet::Error>(got)
            };
            match read.await {
                Ok(got) => return got,
                // A typed error, never a silent short or corrupt read; the caller tries again.
                Err(e) => errors.push(e),
            }
        }
        unreachable!()
    };
    let got = timeout(RUN, run)
        .await
        .unwrap_or_else(|_| panic!("no get completed in time, {} connections", proxy.accepted()));
    assert!(got == data, "a completed get returns exactly the object ({} of {SIZE} bytes)", got.len());
    ledger.consumed(0, 1);
    println!("{}: errors before success: {errors:?}", name("mid-object-get", fault, transport));
    ledger.check(&name("mid-object-get", fault, transport), 0);
    reconnected(&proxy, fault, 2, "the getter reconnected").await;
    assert!(errors.iter().all(|e| !matches!(e, natsjet::Error::DigestMismatch { .. })), "{errors:?}");
}

macro_rules! fault_matrix {
    ($($case:ident),* $(,)?) => {
        $(mod $case {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn cut_over_tcp() { super::$case(Fault::Cut, Transport::Tcp).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn stall_over_tcp() { super::$case(Fault::Stall, Transport::Tcp).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn slow_over_tcp() { super::$case(Fault::Slow, Transport::Tcp).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn half_open_over_tcp() { super::$case(Fault::HalfOpen, Transport::Tcp).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn cut_over_websocket() { super::$case(Fault::Cut, Transport::WebSocket).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn stall_over_websocket() { super::$case(Fault::Stall, Transport::WebSocket).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn slow_over_websocket() { super::$case(Fault::Slow, Transport::WebSocket).await }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn half_open_over_websocket() { super::$case(Fault::HalfOpen, Transport::WebSocket).await }
        })*
    };
}

fault_matrix!(mid_publish, mid_consume, mid_kv_watch, mid_object_get);
