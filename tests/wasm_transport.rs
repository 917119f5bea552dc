//! The wasm transport and runtime, run by wasm-bindgen-test in Node (22+, or
//! 20 with `--experimental-websocket`). The WebSocket test needs a server
//! started outside: its `ws://` URL comes from `NATS_WS` at compile time.
//! `nats://` is tested with Node sockets in `wasm_node_socket.rs`.
#![cfg(all(target_arch = "wasm32", feature = "wasm"))]

use std::future::poll_fn;
use std::time::Duration;

use bytes::BytesMut;
use natsjet::ServerAddr;
use natsjet::driver::{Runtime, WasmRuntime};
use natsjet::error::Error;
use natsjet::transport::{TlsOptions, Transport};
use wasm_bindgen_test::wasm_bindgen_test;

const TIMEOUT: Duration = Duration::from_secs(5);

async fn read_until(t: &mut Transport, needle: &str) -> String {
    let mut buf = BytesMut::new();
    while !String::from_utf8_lossy(&buf).contains(needle) {
        let n = poll_fn(|cx| t.poll_read(cx, &mut buf)).await.unwrap();
        assert!(n > 0, "closed before {needle:?}");
    }
    String::from_utf8_lossy(&buf).into_owned()
}

#[wasm_bindgen_test]
async fn websocket_speaks_nats() {
    let Some(url) = option_env!("NATS_WS") else {
        return;
    };
    let addr = ServerAddr::parse(url).unwrap();
    let mut t = Transport::connect(&addr, &TlsOptions::default(), TIMEOUT).await.unwrap();
    assert!(read_until(&mut t, "\r\n").await.starts_with("INFO {"));
    let hello = b"CONNECT {\"verbose\":false,\"protocol\":1,\"headers\":true}\r\nPING\r\n";
    assert_eq!(poll_fn(|cx| t.poll_write(cx, hello)).await.unwrap(), hello.len());
    // Writes may be held back until the end of the JS task: a flush sends them.
    poll_fn(|cx| t.poll_flush(cx)).await.unwrap();
    read_until(&mut t, "PONG\r\n").await;
    let err = t.upgrade_tls(&addr, &TlsOptions::default()).await.err().unwrap();
    assert!(matches!(err, Error::Tls(_)), "{err:?}");
}

#[wasm_bindgen_test]
async fn refused_websocket_is_an_io_error() {
    let addr = ServerAddr::parse("ws://127.0.0.1:1").unwrap();
    let err = Transport::connect(&addr, &TlsOptions::default(), TIMEOUT).await.err().unwrap();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
}

/// This test binary never registers a socket factory.
#[wasm_bindgen_test]
async fn nats_url_without_a_socket_factory_is_invalid() {
    let addr = ServerAddr::parse("nats://127.0.0.1:4222").unwrap();
    let err = Transport::connect(&addr, &TlsOptions::default(), TIMEOUT).await.err().unwrap();
    assert!(matches!(&err, Error::InvalidArgument(m) if m.contains("needs Node.js sockets")), "{err:?}");
}

#[wasm_bindgen_test]
async fn runtime_sleeps_spawns_and_the_clock_moves_forward() {
    let start = WasmRuntime::now();
    WasmRuntime::sleep(Duration::from_millis(20)).await;
    assert!(WasmRuntime::now().saturating_duration_since(start) >= Duration::from_millis(19));

    // A sleep dropped early must not fire into freed memory.
    drop(WasmRuntime::sleep(Duration::from_millis(1)));
    WasmRuntime::sleep(Duration::from_millis(10)).await;

    let (tx, rx) = futures_channel::oneshot::channel();
    WasmRuntime::spawn(async move {
        tx.send(7).unwrap();
    });
    assert_eq!(rx.await, Ok(7));
}
