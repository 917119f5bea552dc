//! A core subscriber that never reads, against a real server: past its
//! bounds (messages and bytes) new messages are dropped, counted and
//! reported as `SlowConsumer`, the heap stays bounded (measured by a
//! counting allocator) and the connection survives: another subscription
//! on it (with the same bounds, read as fast as the publisher sends)
//! receives everything, and the slow one reads again afterwards.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::{ConnectOptions, ConnectionEvent, Subscriber};
use tokio::time::timeout;

#[path = "common/heap_peak.rs"]
mod heap_peak;

#[global_allocator]
static HEAP: heap_peak::Counting = heap_peak::Counting;

const WAIT: Duration = Duration::from_secs(30);
const BOUND: usize = 1 << 20;
/// 40 MiB sent: forty times the slow subscriber's bound.
const COUNT: u32 = 40_000;

async fn next(sub: &mut Subscriber) -> natsjet::Message {
    timeout(WAIT, sub.next()).await.expect("a message in time").expect("open")
}

#[tokio::test]
async fn a_subscriber_that_never_reads_drops_past_its_bound_and_the_connection_survives() {
    let server = NatsServer::start();
    let slow_events = Arc::new(Mutex::new(Vec::new()));
    let sink = slow_events.clone();
    let reader = ConnectOptions::new()
        .subscription_capacity_bytes(BOUND)
        .on_event(move |e| {
            if let ConnectionEvent::SlowConsumer { sid, dropped } = e {
                sink.lock().unwrap().push((sid, dropped));
            }
        })
        .connect(server.client_url())
        .await
        .unwrap();
    let mut idle = reader.subscribe("flood").await.unwrap();
    let mut busy = reader.subscribe("flood").await.unwrap();
    reader.flush().await.unwrap();
    let publisher = natsjet::connect(server.client_url()).await.unwrap();

    let base = heap_peak::start();
    let mut payload = vec![b'x'; 1024];
    let sending = async {
        for i in 0..COUNT {
            payload[..4].copy_from_slice(&i.to_be_bytes());
            publisher.publish("flood", payload.clone().into()).await.unwrap();
            // The bound is the connection's: keep within it for the busy one.
            if i % 256 == 255 {
                publisher.flush().await.unwrap();
            }
        }
        publisher.flush().await.unwrap();
    };
    let receiving = async {
        for i in 0..COUNT {
            assert_eq!(next(&mut busy).await.payload[..4], i.to_be_bytes(), "the busy one gets everything, in order");
        }
    };
    futures_util::join!(sending, receiving);
    let peak = heap_peak::peak_since(base);

    let kept = idle.received();
    let message = (5 + 1024) as u64; // subject and payload
    assert_eq!(kept, BOUND as u64 / message, "the slow one kept what fits in its bound");
    assert_eq!(idle.dropped(), u64::from(COUNT) - kept);
    let events = slow_events.lock().unwrap().clone();
    assert!(events.iter().all(|(sid, _)| *sid == idle.sid()), "{events:?}");
    assert_eq!(events.first(), Some(&(idle.sid(), 1)), "the first drop is reported");
    assert!(events.contains(&(idle.sid(), 1000)), "and every 1000th");
    eprintln!("{COUNT} x 1 KiB to a reader that never reads: {kept} kept, heap peak {peak} bytes above the start");
    // Its bound, the busy one's messages in flight and the publisher's
    // buffer (4 MiB high water mark): far from the 40 MiB sent.
    assert!(peak < 12 << 20, "{peak} bytes at the peak");

    for i in 0..kept as u32 {
        assert_eq!(next(&mut idle).await.payload[..4], i.to_be_bytes());
    }
    publisher.publish("flood", "again".into()).await.unwrap();
    assert_eq!(&next(&mut idle).await.payload[..], b"again");
    assert_eq!(&next(&mut busy).await.payload[..], b"again");
}
