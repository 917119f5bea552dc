//! The connect options async-nats 0.52 has that natsjet added, against a
//! real server: the local address the socket is bound to (as the server's
//! `/connz` sees it), a rustls `ClientConfig` for the handshake, the read
//! buffer's size, and publishes that skip the subject's token checks.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use bytes::Bytes;
use common::{NatsServer, Tls};
use futures_util::StreamExt;
use natsjet::jetstream::context::PublishErrorKind as JsPublishErrorKind;
use natsjet::rustls::pki_types::CertificateDer;
use natsjet::rustls::pki_types::pem::PemObject;
use natsjet::rustls::{ClientConfig, RootCertStore};
use natsjet::{ConnectErrorKind, ConnectOptions, Error, PublishErrorKind, SubscribeErrorKind, TlsOptions};
use tokio::time::timeout;

const WAIT: Duration = Duration::from_secs(10);

/// The ports of the server's client connections, from its monitoring.
fn connected_ports(server: &NatsServer) -> Vec<(String, u64)> {
    let connz = server.monitor_json("/connz");
    let connections = connz["connections"].as_array().cloned().unwrap_or_default();
    connections.iter().map(|c| (c["ip"].as_str().unwrap_or("").to_string(), c["port"].as_u64().unwrap_or(0))).collect()
}

#[tokio::test]
async fn the_server_sees_the_local_address_the_socket_was_bound_to() {
    let server = NatsServer::start();
    let port = common::free_port();
    let local = SocketAddr::from(([127, 0, 0, 1], port));
    let client = ConnectOptions::new().local_address(local).connect(server.client_url()).await.unwrap();
    client.flush().await.unwrap();
    assert_eq!(connected_ports(&server), [("127.0.0.1".to_string(), u64::from(port))]);

    // Port 0: the system picks the port, on the interface asked for.
    let other = ConnectOptions::new().local_address("127.0.0.1:0".parse().unwrap());
    let other = other.connect(server.client_url()).await.unwrap();
    other.flush().await.unwrap();
    assert_eq!(connected_ports(&server).len(), 2);
    drop((client, other));
}

#[tokio::test]
async fn a_local_address_that_cannot_be_bound_fails_the_connect() {
    let server = NatsServer::start();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let options = ConnectOptions::new().local_address(taken.local_addr().unwrap());
    let err = options.connect(server.client_url()).await.unwrap_err();
    assert_eq!(err.kind(), ConnectErrorKind::Io);
    assert!(matches!(err.cause(), Error::Io { kind: std::io::ErrorKind::AddrInUse, .. }), "{err:?}");

    // An IPv6 address to a server reached over IPv4 only: nothing to try.
    let options = ConnectOptions::new().local_address("[::1]:0".parse().unwrap());
    let err = options.connect(server.client_url()).await.unwrap_err();
    assert!(matches!(err.cause(), Error::Io { kind: std::io::ErrorKind::AddrNotAvailable, .. }), "{err:?}");
}

fn client_config(roots: RootCertStore) -> ClientConfig {
    ClientConfig::builder().with_root_certificates(roots).with_no_client_auth()
}

#[tokio::test]
async fn a_rustls_client_config_runs_the_handshake() {
    let server = NatsServer::builder().tls(Tls::Server).start();
    let ca_pem = server.tls_files().ca_pem.clone();
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let client = ConnectOptions::new()
        .require_tls(true)
        .tls_client_config(client_config(roots))
        .connect(server.tls_url())
        .await
        .unwrap();
    let mut sub = client.subscribe("tls.config").await.unwrap();
    client.publish("tls.config", "over rustls".into()).await.unwrap();
    let message = timeout(WAIT, sub.next()).await.unwrap().unwrap();
    assert_eq!(message.payload, "over rustls");

    // The config is used as it is: one trusting nothing fails, even when
    // the CA was given as natsjet's options first.
    let trusted = TlsOptions::new().add_root_certificates_pem(ca_pem);
    let options = ConnectOptions::new().tls(trusted).tls_client_config(client_config(RootCertStore::empty()));
    let err = options.connect(server.tls_url()).await.unwrap_err();
    assert!(matches!(err.cause(), Error::Tls(_)), "{err:?}");
}

#[tokio::test]
async fn messages_arrive_whole_through_a_small_or_large_read_buffer() {
    let server = NatsServer::start();
    let sizes = [0, 1, 63, 64, 65, 1000, 70_000, 300_000];
    for capacity in [0, 100, u16::MAX] {
        let client = ConnectOptions::new().read_buffer_capacity(capacity).connect(server.client_url()).await.unwrap();
        let mut sub = client.subscribe("reads").await.unwrap();
        for size in sizes {
            let payload: Bytes = (0..size).map(|i| (i % 251) as u8).collect();
            client.publish("reads", payload).await.unwrap();
        }
        for size in sizes {
            let message = timeout(WAIT, sub.next()).await.unwrap().unwrap();
            let expected: Bytes = (0..size).map(|i| (i % 251) as u8).collect();
            assert_eq!(message.payload, expected, "{size} bytes through a read buffer of {capacity}");
        }
    }
}

/// The messages the server took from the connection named `name`.
fn messages_in(server: &NatsServer, name: &str) -> u64 {
    let connz = server.monitor_json("/connz");
    let connections = connz["connections"].as_array().cloned().unwrap_or_default();
    let connection = connections.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("{name}: {connz}"));
    connection["in_msgs"].as_u64().unwrap_or(0)
}

#[tokio::test]
async fn skipping_subject_validation_lets_empty_tokens_through_and_nothing_else() {
    let server = NatsServer::start_jetstream();
    let strict = ConnectOptions::new().name("strict").connect(server.client_url()).await.unwrap();
    let err = strict.publish("a..b", "x".into()).await.unwrap_err();
    assert_eq!(err.kind(), PublishErrorKind::InvalidSubject);
    strict.flush().await.unwrap();
    assert_eq!(messages_in(&server, "strict"), 0);

    // The server takes it (and delivers it nowhere: no subscription
    // matches a subject with an empty token).
    let options = ConnectOptions::new().name("lenient").skip_subject_validation(true);
    let lenient = options.connect(server.client_url()).await.unwrap();
    lenient.publish("a..b", "x".into()).await.unwrap();
    lenient.publish_with_reply(".a", "b.", "x".into()).await.unwrap();
    lenient.flush().await.unwrap();
    assert_eq!(messages_in(&server, "lenient"), 2);

    // What would break the protocol line is refused still, and so are
    // subscriptions with empty tokens.
    for bad in ["", "a b", "a\r\nPUB b 1", "a\tb"] {
        let err = lenient.publish(bad, "x".into()).await.unwrap_err();
        assert_eq!(err.kind(), PublishErrorKind::InvalidSubject, "{bad:?}");
    }
    let err = lenient.publish_with_reply("a", "r r", "x".into()).await.unwrap_err();
    assert_eq!(err.kind(), PublishErrorKind::InvalidSubject);
    assert_eq!(lenient.subscribe("a..b").await.unwrap_err().kind(), SubscribeErrorKind::InvalidSubject);

    // JetStream publishes check as the connection does: the lenient one
    // goes out, and no stream takes it.
    let err = natsjet::jetstream::new(strict).publish("a..b", "x".into()).await.unwrap_err();
    assert!(matches!(err.cause(), Error::InvalidSubject { .. }), "{err:?}");
    let ack = natsjet::jetstream::new(lenient).publish("a..b", "x".into()).await.unwrap();
    let err = timeout(WAIT, ack).await.unwrap().unwrap_err();
    assert_eq!(err.kind(), JsPublishErrorKind::StreamNotFound, "{err:?}");
    // (tried again on no responders, as every JetStream publish is)
    assert!(messages_in(&server, "lenient") > 2);
}
