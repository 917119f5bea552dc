//! The wasm build, run in Node.js by wasm-bindgen-test-runner, against a real
//! nats-server's websocket listener (`scripts/wasm-smoke.sh` starts it and
//! passes its URL in `NATS_WS` at compile time).
#![cfg(target_arch = "wasm32")]

use futures_util::StreamExt;
use wasm_bindgen_test::wasm_bindgen_test;

fn server_url() -> &'static str {
    option_env!("NATS_WS").expect("NATS_WS must name the server's websocket URL at build time")
}

#[wasm_bindgen_test]
async fn connects_subscribes_publishes_and_receives() {
    let client = natsjet::connect(server_url()).await.expect("connect over websocket");
    let mut sub = client.subscribe("smoke.>").await.unwrap();
    client.flush().await.unwrap();
    for i in 0..10 {
        client.publish(format!("smoke.{i}"), format!("hello {i}")).await.unwrap();
    }
    for i in 0..10 {
        let msg = sub.next().await.expect("message");
        assert_eq!(msg.subject, format!("smoke.{i}"));
        assert_eq!(&msg.payload[..], format!("hello {i}").as_bytes());
    }
    let reply_sub = client.subscribe("smoke.echo").await.unwrap();
    let responder = client.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let mut reply_sub = reply_sub;
        if let Some(req) = reply_sub.next().await {
            responder.publish(req.reply.unwrap(), req.payload).await.unwrap();
        }
    });
    client.flush().await.unwrap();
    let answer = client.request("smoke.echo", "ping").await.unwrap();
    assert_eq!(&answer.payload[..], b"ping");
    assert_eq!(client.request("nobody.home", "x").await.unwrap_err(), natsjet::Error::NoResponders);
    client.close().await.unwrap();
}
