//! A request the account's permissions refuse: the server never answers it,
//! it only sends `-ERR 'Permissions Violation for Publish to "SUBJECT"'`.
//! Every pending request to that subject fails at once with that error
//! (`Error::Server` with `ServerErrorKind::PermissionsViolation`), long
//! before its timeout; the connection stays up and other requests are
//! untouched. Core requests, JetStream API requests (a consumer create)
//! and KV calls alike.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::NatsServer;
use futures_util::StreamExt;
use natsjet::Error;
use natsjet::error::{PermissionOp, ServerErrorKind};
use natsjet::jetstream::api::StreamConfig;
use natsjet::jetstream::{consumer::pull, kv};

/// Far longer than a refusal takes: a timeout would show as a failure here.
const TIMEOUT: Duration = Duration::from_secs(30);
/// A generous bound on a refusal: a third of the timeout.
const REFUSED_WITHIN: Duration = Duration::from_secs(10);

/// User `limited` may publish anything but `secret.>`, consumer creates of
/// consumers named `locked` and puts to KV key `locked`.
fn server() -> NatsServer {
    NatsServer::builder()
        .jetstream()
        .config_extra(
            r#"authorization { users: [ { user: limited, password: pw,
                permissions: { publish: { allow: [">"], deny: ["secret.>",
                    "$JS.API.CONSUMER.CREATE.*.locked", "$JS.API.CONSUMER.CREATE.*.locked.>",
                    "$JS.API.CONSUMER.DURABLE.CREATE.*.locked", "$KV.*.locked"] } } } ] }"#,
        )
        .start()
}

async fn client(server: &NatsServer) -> natsjet::Client {
    let url = server.client_url().replace("nats://", "nats://limited:pw@");
    natsjet::ConnectOptions::new().request_timeout(Some(TIMEOUT)).connect(url).await.unwrap()
}

/// Asserts `cause` is the refusal of a publish to `subject`.
fn assert_refused(cause: &Error, subject: &str) {
    match cause {
        Error::Server(e) => assert_eq!(
            e.kind,
            ServerErrorKind::PermissionsViolation {
                operation: PermissionOp::Publish,
                subject: subject.into(),
                queue: None
            },
            "{e:?}"
        ),
        other => panic!("not a permissions violation: {other:?}"),
    }
}

#[tokio::test]
async fn a_refused_request_fails_at_once_and_others_are_untouched() {
    let server = server();
    let nc = client(&server).await;
    let mut service = nc.subscribe("svc.echo").await.unwrap();
    nc.flush().await.unwrap();

    // One request pending to an allowed subject, answered only after the refusal.
    let pending = tokio::spawn({
        let nc = nc.clone();
        async move { nc.request("svc.echo", Bytes::from_static(b"later")).await }
    });
    let asked = service.next().await.unwrap();

    let started = Instant::now();
    let refused = nc.request("secret.plans", Bytes::from_static(b"x")).await.unwrap_err();
    assert!(started.elapsed() < REFUSED_WITHIN, "refused after {:?}", started.elapsed());
    assert_eq!(refused.kind(), natsjet::RequestErrorKind::Other, "async-nats has no kind for it: {refused}");
    assert_refused(refused.cause(), "secret.plans");

    // The other request is still waiting and gets its answer; the connection stays up.
    assert!(!pending.is_finished());
    nc.publish(asked.reply.unwrap(), Bytes::from_static(b"answer")).await.unwrap();
    assert_eq!(pending.await.unwrap().unwrap().payload, Bytes::from_static(b"answer"));
    assert_eq!(nc.connection_state(), natsjet::State::Connected);
    let again = nc.request("secret.plans", Bytes::from_static(b"y")).await.unwrap_err();
    assert_refused(again.cause(), "secret.plans");
}

#[tokio::test]
async fn a_refused_consumer_create_and_kv_put_fail_typed_not_by_timeout() {
    let server = server();
    let nc = client(&server).await;
    let mut js = natsjet::jetstream::new(nc.clone());
    js.set_timeout(TIMEOUT);
    let config = StreamConfig { name: "ORDERS".into(), subjects: vec!["orders.>".into()], ..Default::default() };
    let stream = js.create_stream(config).await.unwrap();

    let started = Instant::now();
    let named = pull::Config { name: Some("locked".into()), ..Default::default() };
    let refused = stream.create_consumer(named).await.unwrap_err();
    assert!(started.elapsed() < REFUSED_WITHIN, "refused after {:?}", started.elapsed());
    assert_refused(refused.cause(), "$JS.API.CONSUMER.CREATE.ORDERS.locked");
    let durable = pull::Config { durable_name: Some("locked".into()), ..Default::default() };
    let refused = stream.create_consumer(durable).await.unwrap_err();
    assert_refused(refused.cause(), "$JS.API.CONSUMER.CREATE.ORDERS.locked");
    // Other names are allowed on the same connection.
    let open = pull::Config { durable_name: Some("open".into()), ..Default::default() };
    stream.create_consumer(open).await.unwrap();

    let kv = js.create_key_value(kv::Config { bucket: "prefs".into(), ..Default::default() }).await.unwrap();
    let started = Instant::now();
    let refused = kv.put("locked", Bytes::from_static(b"1")).await.unwrap_err();
    assert!(started.elapsed() < REFUSED_WITHIN, "refused after {:?}", started.elapsed());
    assert_refused(refused.cause(), "$KV.prefs.locked");
    assert_eq!(kv.put("open", Bytes::from_static(b"1")).await.unwrap(), 1);
}
