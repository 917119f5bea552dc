//! A publisher that never waits (`publish_nowait`, what JavaScript's
//! synchronous `publish` calls) against a real server: past the outgoing
//! buffer's bound it is refused with a typed error, the heap stays close
//! to the bytes accepted (measured by a counting allocator), and once it
//! yields everything accepted arrives, in order.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::NatsServer;
use futures_util::StreamExt;
use natsjet::{ConnectOptions, Error};
use tokio::time::timeout;

#[path = "common/heap_peak.rs"]
mod heap_peak;

#[global_allocator]
static HEAP: heap_peak::Counting = heap_peak::Counting;

const BOUND: usize = 16 << 20;
/// `PUB fast 1024\r\n`, the payload and its CRLF.
const FRAME: usize = 15 + 1024 + 2;

// One runtime thread: the driver cannot write while the loop runs, as in
// a JavaScript loop that does not yield.
#[tokio::test(flavor = "current_thread")]
async fn a_publisher_that_never_waits_meets_the_bound_and_loses_nothing_accepted() {
    let server = NatsServer::start();
    let reader = natsjet::connect(server.client_url()).await.unwrap();
    let mut sub = reader.subscribe("fast").await.unwrap();
    reader.flush().await.unwrap();
    let client = ConnectOptions::new().outgoing_buffer_size(BOUND).connect(server.client_url()).await.unwrap();

    let mut payload = vec![b'x'; 1024];
    let mut accepted = 0u32;
    let base = heap_peak::start();
    let refused = loop {
        payload[..4].copy_from_slice(&accepted.to_be_bytes());
        match client.publish_nowait("fast", None, None, &payload) {
            Ok(()) => accepted += 1,
            Err(e) => break e,
        }
        assert!(accepted < 1_000_000, "a publish over the bound was accepted");
    };
    let peak = heap_peak::peak_since(base);
    assert_eq!(refused, Error::OutgoingBufferFull { capacity: BOUND });
    let accepted_bytes = accepted as usize * FRAME;
    assert!((BOUND..BOUND + FRAME).contains(&accepted_bytes), "{accepted} accepted");
    assert_eq!(client.publish_nowait("fast", None, None, b"still full"), Err(refused));
    eprintln!("{accepted} x 1 KiB accepted ({accepted_bytes} bytes); heap peak {peak} bytes above the start");
    // Blocks the size of the data: one buffer doubling would hold up to
    // twice it, and three times while it copies.
    assert!(peak < accepted_bytes + accepted_bytes / 8, "{peak} bytes at the peak for {accepted_bytes}");

    client.flush().await.unwrap();
    for i in 0..accepted {
        let message = timeout(Duration::from_secs(30), sub.next()).await.expect("in time").expect("open");
        assert_eq!(message.payload[..4], i.to_be_bytes());
    }
    client.publish_nowait("fast", None, None, b"again").unwrap();
    let message = timeout(Duration::from_secs(10), sub.next()).await.expect("in time").expect("open");
    assert_eq!(&message.payload[..], b"again");
}
