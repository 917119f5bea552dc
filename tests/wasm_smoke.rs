//! The wasm build, run in Node.js by wasm-bindgen-test-runner, against a real
//! nats-server's websocket listener (`scripts/wasm-smoke.sh` starts it and
//! passes its URL in `NATS_WS` at compile time). `wasm_node_socket.rs` runs
//! the same checks over `nats://`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn connects_subscribes_publishes_and_receives() {
    let client = natsjet::connect(env!("NATS_WS")).await.expect("connect over websocket");
    wasm_common::round_trip(&client, "smoke").await;
    client.close().await.unwrap();
}
