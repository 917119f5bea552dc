//! The walkthrough example, run against a real server.
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "../examples/walkthrough.rs"]
#[allow(dead_code)]
mod walkthrough;

#[tokio::test]
async fn the_walkthrough_runs_every_step() {
    let server = common::NatsServer::start_jetstream();
    let js = natsjet::jetstream::new(natsjet::connect(server.client_url()).await.unwrap());
    walkthrough::run(&js).await.unwrap();
    // Run twice: each step starts from a clean slate.
    walkthrough::run(&js).await.unwrap();
}
