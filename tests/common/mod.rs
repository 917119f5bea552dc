//! Integration-test harness: real `nats-server` processes on free 127.0.0.1
//! ports, each with its own temporary directory, config, log and JetStream
//! store, always killed and cleaned up on drop (also when a test panics).
//!
//! This module owns process management, config files, TLS material and auth
//! material (tokens, nkeys, operator-mode JWTs and `.creds` files). It must
//! not call into natsjet's client API: tests use it to set up a server and
//! then exercise the crate against it.
//!
//! ```ignore
//! mod common;
//! use common::{Auth, NatsServer, Tls};
//!
//! let server = NatsServer::builder().jetstream().websocket().start();
//! let url = server.client_url(); // nats://127.0.0.1:<port>
//! let secured = NatsServer::builder().tls(Tls::Server).auth(Auth::Creds).start();
//! let ca = &secured.tls_files().ca_cert;
//! let creds = secured.creds_path();
//! ```
//!
//! Native only: a test file that uses it starts with
//! `#![cfg(not(target_arch = "wasm32"))]` so that `cargo test --target
//! wasm32-unknown-unknown --tests` compiles it to an empty test crate.
//!
//! Environment: `NATS_SERVER_BIN` overrides the server binary (default
//! `nats-server` on PATH); `NATS_SERVER_TRACE=1` turns on the server's
//! debug and protocol trace logging (written to the server's log file).
#![allow(dead_code)]

pub mod auth;
pub mod cluster;
pub mod fake;
pub mod http;
pub mod loss;
pub mod proxy;
pub mod server;
pub mod tls;
pub mod workload;

#[allow(unused_imports)]
pub use auth::{Auth, CredsUser};
#[allow(unused_imports)]
pub use cluster::NatsCluster;
#[allow(unused_imports)]
pub use fake::{FakeConn, FakeServer};
#[allow(unused_imports)]
pub use http::{free_port, http_get};
#[allow(unused_imports)]
pub use loss::{LossLedger, LossReport};
#[allow(unused_imports)]
pub use proxy::{Fault, FaultProxy};
#[allow(unused_imports)]
pub use server::{NatsServer, NatsServerBuilder};
#[allow(unused_imports)]
pub use tls::{Tls, TlsFiles};
#[allow(unused_imports)]
pub use workload::{publish_with_retries, work_and_ack};

use std::time::{Duration, Instant};

/// Polls `f` every 50 ms until it returns `Some`, or panics after `timeout`
/// with `what` in the message.
pub fn wait_for<T>(timeout: Duration, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return v;
        }
        if Instant::now() >= deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs each named `async fn(url: &str)` of the test file as two tests, in
/// modules `tcp` and `websocket`, each against a server of its own.
#[allow(unused_macros)]
macro_rules! over_both_transports {
    ($($name:ident),* $(,)?) => {
        mod tcp {
            $(#[tokio::test] async fn $name() {
                let s = $crate::common::NatsServer::builder().websocket().start();
                super::$name(&s.client_url()).await;
            })*
        }
        mod websocket {
            $(#[tokio::test] async fn $name() {
                let s = $crate::common::NatsServer::builder().websocket().start();
                super::$name(&s.websocket_url()).await;
            })*
        }
    };
}
#[allow(unused_imports)]
pub(crate) use over_both_transports;

/// A client that retries a lost server every 100 ms (jitter 50 ms), for
/// tests that restart the server under a reader.
#[allow(dead_code)]
pub async fn connect_quick_reconnect(url: &str) -> natsjet::Client {
    natsjet::ConnectOptions::new()
        .reconnect_delay(Duration::from_millis(100), Duration::from_millis(50))
        .connect(url)
        .await
        .unwrap()
}

/// Restarts `server` and waits (up to 20 s) until JetStream answers on `js`
/// again; what was in memory, such as ordered consumers, is gone.
#[allow(dead_code)]
pub async fn restart_jetstream(server: &mut NatsServer, js: &natsjet::jetstream::Context) {
    server.restart();
    let answered = tokio::time::timeout(Duration::from_secs(20), async {
        while js.query_account().await.is_err() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    answered.await.expect("JetStream answers after the restart");
}

/// A JetStream context on `server` and a stream `name` capturing
/// `<name, lowercase>.>`, the rest of its config from `config`.
#[allow(dead_code)]
pub async fn stream_context(
    server: &NatsServer,
    name: &str,
    config: natsjet::jetstream::api::StreamConfig,
) -> natsjet::jetstream::Context {
    let js = natsjet::connect(server.client_url()).await.unwrap().jetstream();
    let subjects = vec![format!("{}.>", name.to_lowercase())];
    js.create_stream(natsjet::jetstream::api::StreamConfig { name: name.into(), subjects, ..config }).await.unwrap();
    js
}

/// The kind of a failed call and its cause's `err_code`, if the server sent one.
#[allow(dead_code)]
pub fn kind_and_code<K: Clone>(e: natsjet::error::KindError<K>) -> (K, Option<natsjet::jetstream::api::ErrorCode>) {
    let code = match e.cause() {
        natsjet::Error::JetStream(api) => Some(api.err_code),
        _ => None,
    };
    (e.kind(), code)
}
