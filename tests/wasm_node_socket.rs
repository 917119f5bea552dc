//! `nats://` and `tls://` from the wasm build in Node.js, through the socket
//! shim `bindings/node/socket.mjs` (node:net/node:tls), against real servers
//! that `scripts/wasm-smoke.sh` starts and names at compile time: `NATS_URL`
//! (plain), `NATS_TLS_URL` (TLS required, client certificates verified; CA
//! and client PEMs in `NATS_TLS_CA`, `NATS_TLS_CERT`, `NATS_TLS_KEY`) and
//! `NATS_TLS_RESTART`, a script that restarts it. The build fails without them.
#![cfg(all(target_arch = "wasm32", feature = "wasm"))]

mod wasm_common;

use std::cell::RefCell;
use std::future::poll_fn;
use std::rc::Rc;
use std::time::Duration;

use bytes::BytesMut;
use futures_util::StreamExt;
use natsjet::driver::{Runtime, WasmRuntime};
use natsjet::error::Error;
use natsjet::transport::{TlsOptions, Transport, set_socket_factory};
use natsjet::{ConnectOptions, ConnectionEvent, ServerAddr};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

// ES modules, so the shim (an ES module) loads without Node's require(esm).
wasm_bindgen_test_configure!(run_in_node_experimental);

const TIMEOUT: Duration = Duration::from_secs(5);

#[wasm_bindgen(module = "/bindings/node/socket.mjs")]
extern "C" {
    #[wasm_bindgen(thread_local_v2, js_name = nodeSocketFactory)]
    static NODE_SOCKET_FACTORY: JsValue;
}

#[wasm_bindgen(inline_js = "
import { execFile } from 'node:child_process';
export function runScript(path) {
  return new Promise((resolve, reject) => execFile(path, (error) => (error ? reject(error) : resolve())));
}")]
extern "C" {
    #[wasm_bindgen(js_name = runScript)]
    fn run_script(path: &str) -> js_sys::Promise;
}

fn install() {
    NODE_SOCKET_FACTORY.with(|f| set_socket_factory(f.clone())).unwrap();
}

fn tls_options() -> TlsOptions {
    TlsOptions::new()
        .add_root_certificates_pem(env!("NATS_TLS_CA"))
        .client_auth_pem(env!("NATS_TLS_CERT"), env!("NATS_TLS_KEY"))
}

async fn read_until(t: &mut Transport, needle: &str) -> String {
    let mut buf = BytesMut::new();
    while !String::from_utf8_lossy(&buf).contains(needle) {
        let n = poll_fn(|cx| t.poll_read(cx, &mut buf)).await.unwrap();
        assert!(n > 0, "closed before {needle:?}");
    }
    String::from_utf8_lossy(&buf).into_owned()
}

#[wasm_bindgen_test]
async fn publishes_subscribes_and_requests_over_nats_url() {
    install();
    let client = natsjet::connect(env!("NATS_URL")).await.expect("connect over node:net");
    wasm_common::round_trip(&client, "node").await;
    client.close().await.unwrap();
}

#[wasm_bindgen_test]
async fn upgrades_to_tls_when_the_server_requires_it() {
    install();
    let addr = ServerAddr::parse(env!("NATS_TLS_URL")).unwrap();
    let mut t = Transport::connect(&addr, &tls_options(), TIMEOUT).await.unwrap();
    assert!(read_until(&mut t, "\r\n").await.contains("\"tls_required\":true"));
    let mut t = t.upgrade_tls(&addr, &tls_options()).await.expect("TLS through node:tls");
    assert!(t.is_tls());
    let hello = b"CONNECT {\"verbose\":false,\"protocol\":1,\"tls_required\":true}\r\nPING\r\n";
    assert_eq!(poll_fn(|cx| t.poll_write(cx, hello)).await.unwrap(), hello.len());
    // Writes may be held back until the end of the JS task: a flush sends them.
    poll_fn(|cx| t.poll_flush(cx)).await.unwrap();
    read_until(&mut t, "PONG\r\n").await;
}

#[wasm_bindgen_test]
async fn client_speaks_nats_over_tls_urls() {
    install();
    let url = env!("NATS_TLS_URL").replacen("nats://", "tls://", 1);
    let client = ConnectOptions::new().tls(tls_options()).connect(url).await.expect("connect over node:tls");
    wasm_common::round_trip(&client, "tls").await;
    client.close().await.unwrap();
}

#[wasm_bindgen_test]
async fn untrusted_server_certificate_is_a_tls_error() {
    install();
    let addr = ServerAddr::parse(env!("NATS_TLS_URL")).unwrap();
    let mut t = Transport::connect(&addr, &TlsOptions::new(), TIMEOUT).await.unwrap();
    read_until(&mut t, "\r\n").await;
    let err = t.upgrade_tls(&addr, &TlsOptions::new()).await.err().unwrap();
    assert!(matches!(err, Error::Tls(_)), "{err:?}");
}

#[wasm_bindgen_test]
async fn closed_port_is_an_io_error() {
    install();
    let addr = ServerAddr::parse("nats://127.0.0.1:1").unwrap();
    let err = Transport::connect(&addr, &TlsOptions::new(), TIMEOUT).await.err().unwrap();
    assert!(matches!(err, Error::Io { kind: std::io::ErrorKind::ConnectionRefused, .. }), "{err:?}");
    let err = natsjet::connect("nats://127.0.0.1:1").await.err().unwrap();
    assert!(matches!(err.cause(), Error::Io { .. }), "{err:?}");
}

#[wasm_bindgen_test]
async fn reconnects_over_tls_after_a_server_restart() {
    install();
    let events = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&events);
    let client = ConnectOptions::new()
        .tls(tls_options())
        .reconnect_delay(Duration::from_millis(50), Duration::ZERO)
        .on_event(move |e| seen.borrow_mut().push(e))
        .connect(env!("NATS_TLS_URL"))
        .await
        .unwrap();
    let mut sub = client.subscribe("restart.>").await.unwrap();
    client.flush().await.unwrap();
    let first_server = client.server_info().server_id;

    JsFuture::from(run_script(env!("NATS_TLS_RESTART"))).await.expect("restart script");
    for _ in 0..200 {
        if events.borrow().iter().any(|e| matches!(e, ConnectionEvent::Reconnected { .. })) {
            break;
        }
        WasmRuntime::sleep(Duration::from_millis(25)).await;
    }
    assert!(events.borrow().iter().any(|e| matches!(e, ConnectionEvent::Disconnected { .. })), "{:?}", events.borrow());
    assert!(events.borrow().iter().any(|e| matches!(e, ConnectionEvent::Reconnected { .. })), "{:?}", events.borrow());

    assert_ne!(client.server_info().server_id, first_server, "a new server process");
    // The subscription was renewed on the restarted server.
    client.publish("restart.after", "again".into()).await.unwrap();
    let msg = sub.next().await.expect("message after reconnect");
    assert_eq!(&msg.payload[..], b"again");
    client.close().await.unwrap();
}
