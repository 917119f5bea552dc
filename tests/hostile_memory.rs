//! Memory under hostile input, measured: a counting global allocator (this
//! test binary only) records the peak of live heap bytes while a fake
//! server (tests/common/fake.rs) sends a 1 GiB size, a control line that
//! never ends, or a PING flood it never reads the answers to. The peak
//! must stay within the client's configured limits, whatever was sent.
//! One test, the cases one after the other: the peak is the process's.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::{FakeConn, FakeServer};
use natsjet::{ConnectOptions, ConnectionEvent, Error};

#[path = "common/heap_peak.rs"]
mod heap_peak;

#[global_allocator]
static HEAP: heap_peak::Counting = heap_peak::Counting;

/// The fake server's `max_payload` (its INFO), the client's longest
/// control line (`ParserLimits::default`) and the high water mark of its
/// output, over which publishers wait and reading pauses (the driver's
/// `HIGH_WATER`).
const MAX_PAYLOAD: usize = 1 << 20;
const MAX_CONTROL_LINE: usize = 64 << 10;
const HIGH_WATER: usize = 4 << 20;
/// What each case sends at most: far more than any limit.
const FLOOD: usize = 256 << 20;

/// Heap bytes above the start of the case at their peak while the fake
/// server plays `fault` after the handshake, and the error the client
/// closed with.
fn peak_during(fault: impl Fn(&mut FakeConn) + Send + 'static) -> (usize, Option<Error>) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let fake = FakeServer::start(move |conn| {
        // The fault starts once the client measures: at its SUB.
        assert!(conn.handshake() && conn.expect_op("SUB").is_some());
        fault(conn);
    });
    let (tx, mut closed) = tokio::sync::mpsc::unbounded_channel();
    let options = ConnectOptions::new().max_reconnects(0).on_event(move |event| {
        if let ConnectionEvent::Closed { error } = event {
            let _ = tx.send(error);
        }
    });
    runtime.block_on(async {
        let client = options.connect(fake.url()).await.unwrap();
        let base = heap_peak::start();
        let _sub = client.subscribe("go").await.unwrap();
        let error = tokio::time::timeout(Duration::from_secs(60), closed.recv())
            .await
            .expect("the client closes")
            .expect("with an event");
        drop(client);
        (heap_peak::peak_since(base), error)
    })
}

#[test]
fn memory_stays_within_the_limits() {
    let mut figures = Vec::new();

    let (peak, error) = peak_during(|conn| {
        if conn.send(b"MSG a 1 1073741824\r\n") {
            conn.flood(&[b'x'; 4096], FLOOD);
        }
    });
    assert!(matches!(error, Some(Error::Protocol(_))), "{error:?}");
    figures.push(("1 GiB size", peak));

    let (peak, error) = peak_during(|conn| {
        if conn.send(b"MSG a 1 ") {
            conn.flood(&[b'7'; 4096], FLOOD);
        }
    });
    assert!(matches!(&error, Some(Error::Protocol(cause)) if cause.to_string().contains("control line")), "{error:?}");
    figures.push(("endless control line", peak));

    // PINGs until the client's answers fill the socket and the client's
    // buffers; the fake server never reads them, so the client must stop
    // reading (or give up) rather than queue a PONG for every PING.
    let (peak, error) = peak_during(|conn| {
        conn.flood(&[&b"PING\r\n"[..]; 700].concat(), FLOOD);
        conn.close();
    });
    assert!(matches!(error, Some(Error::Io { .. })), "{error:?}");
    figures.push(("PING flood, never read", peak));

    for (case, peak) in &figures {
        eprintln!("{case}: peak {peak} bytes above the start");
    }
    // Limits: a control line, a payload and the output up to its high
    // water mark, each with room for a buffer's growth (its capacity
    // doubles, and the old one lives while it is copied); a tenth of a
    // flood would be far above.
    let bound = 3 * (MAX_CONTROL_LINE + MAX_PAYLOAD + HIGH_WATER);
    for (case, peak) in figures {
        assert!(peak < bound, "{case}: {peak} bytes at the peak, over {bound}");
    }
}
