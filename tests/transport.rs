//! The native transports against a real nats-server: plain TCP, WebSocket,
//! TLS upgrade after INFO, wss://, client certificates, and how failures are
//! reported. Each test starts its own server on random 127.0.0.1 ports.
#![cfg(not(target_arch = "wasm32"))]

use std::future::poll_fn;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bytes::BytesMut;
use natsjet::ServerAddr;
use natsjet::error::Error;
use natsjet::transport::{TlsOptions, Transport};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use tempfile::TempDir;

const TIMEOUT: Duration = Duration::from_secs(5);
const HELLO: &[u8] = b"CONNECT {\"verbose\":false,\"protocol\":1,\"headers\":true}\r\nPING\r\n";

/// A nats-server child process, killed on drop.
struct Server {
    child: Child,
    dir: PathBuf,
    ports: Ports,
}

/// The `nats-server_<pid>.ports` file: the URLs the server listens on.
#[derive(serde::Deserialize)]
struct Ports {
    nats: Vec<String>,
    #[serde(default)]
    websocket: Vec<String>,
}

impl Server {
    /// Starts a server with `extra` appended to a config that listens on a
    /// random port and writes its ports file into `dir`.
    fn start(dir: &Path, extra: &str) -> Server {
        let conf = dir.join("server.conf");
        let config = format!(
            "listen: \"127.0.0.1:-1\"\nports_file_dir: {:?}\nlog_file: {:?}\n{extra}\n",
            dir.display().to_string(),
            dir.join("server.log").display().to_string(),
        );
        std::fs::write(&conf, config).unwrap();
        let child = Command::new("nats-server")
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server on PATH");
        let mut server = Server { child, dir: dir.to_path_buf(), ports: Ports { nats: vec![], websocket: vec![] } };
        server.ports = server.wait_for_ports();
        server
    }

    fn wait_for_ports(&mut self) -> Ports {
        let file = self.dir.join(format!("nats-server_{}.ports", self.child.id()));
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                let log = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
                panic!("nats-server exited with {status}:\n{log}");
            }
            if let Some(ports) = std::fs::read(&file).ok().and_then(|b| serde_json::from_slice(&b).ok()) {
                return ports;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("nats-server wrote no ports file in 5 s");
    }

    fn port(url: &str) -> u16 {
        ServerAddr::parse(url).unwrap().port
    }

    /// The client port, under the scheme the test wants.
    fn url(&self, scheme: &str) -> String {
        format!("{scheme}://127.0.0.1:{}", Server::port(&self.ports.nats[0]))
    }

    fn ws_url(&self, scheme: &str) -> String {
        format!("{scheme}://127.0.0.1:{}", Server::port(&self.ports.websocket[0]))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A test CA with a server certificate (localhost, 127.0.0.1) and a client
/// certificate, written as PEM files.
struct Pki {
    ca: PathBuf,
    server_cert: PathBuf,
    server_key: PathBuf,
    client_cert: PathBuf,
    client_key: PathBuf,
}

impl Pki {
    fn generate(dir: &Path, name: &str) -> Pki {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, format!("natsjet test CA {name}"));
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        let write = |file: &str, pem: String| {
            let path = dir.join(format!("{name}-{file}.pem"));
            std::fs::write(&path, pem).unwrap();
            path
        };
        let leaf = |sans: &[&str], usage: ExtendedKeyUsagePurpose| {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(sans.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
            params.distinguished_name.push(DnType::CommonName, format!("natsjet {usage:?}"));
            params.extended_key_usages = vec![usage];
            let cert = params.signed_by(&key, &ca).unwrap();
            (cert.pem(), key.serialize_pem())
        };
        let (server_cert, server_key) = leaf(&["localhost", "127.0.0.1"], ExtendedKeyUsagePurpose::ServerAuth);
        let (client_cert, client_key) = leaf(&[], ExtendedKeyUsagePurpose::ClientAuth);
        Pki {
            ca: write("ca", ca.pem()),
            server_cert: write("server-cert", server_cert),
            server_key: write("server-key", server_key),
            client_cert: write("client-cert", client_cert),
            client_key: write("client-key", client_key),
        }
    }

    /// A `tls { }` block for the server config; `verify` demands client certificates.
    fn server_block(&self, verify: bool) -> String {
        let mut block = format!("tls {{ cert_file: {:?}, key_file: {:?}", self.server_cert, self.server_key);
        if verify {
            block += &format!(", ca_file: {:?}, verify: true", self.ca);
        }
        block + " }"
    }

    fn trusting_client(&self) -> TlsOptions {
        TlsOptions::new().add_root_certificates_file(&self.ca).unwrap()
    }
}

async fn connect(url: &str, tls: &TlsOptions) -> Result<Transport, Error> {
    Transport::connect(&ServerAddr::parse(url).unwrap(), tls, TIMEOUT).await
}

async fn upgrade(transport: Transport, url: &str, tls: &TlsOptions) -> Result<Transport, Error> {
    transport.upgrade_tls(&ServerAddr::parse(url).unwrap(), tls).await
}

/// Reads until `buf` holds `needle`; end of stream is an error.
async fn read_until(transport: &mut Transport, buf: &mut BytesMut, needle: &str) -> io::Result<String> {
    let read = async {
        while !String::from_utf8_lossy(buf).contains(needle) {
            if poll_fn(|cx| transport.poll_read(cx, buf)).await? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        Ok(String::from_utf8_lossy(buf).into_owned())
    };
    tokio::time::timeout(TIMEOUT, read).await?
}

async fn write_all(transport: &mut Transport, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        let n = poll_fn(|cx| transport.poll_write(cx, data)).await?;
        data = &data[n..];
    }
    poll_fn(|cx| transport.poll_flush(cx)).await
}

async fn read_info(transport: &mut Transport) -> String {
    let mut buf = BytesMut::new();
    let info = read_until(transport, &mut buf, "\r\n").await.unwrap();
    assert!(info.starts_with("INFO {"), "{info:?}");
    info
}

/// CONNECT + PING, then waits for the PONG.
async fn ping_pong(transport: &mut Transport) -> io::Result<()> {
    write_all(transport, HELLO).await?;
    let mut buf = BytesMut::new();
    read_until(transport, &mut buf, "PONG\r\n").await.map(drop)
}

async fn close(mut transport: Transport) {
    poll_fn(|cx| transport.poll_close(cx)).await.unwrap();
}

#[tokio::test]
async fn tcp_reads_info_and_answers_ping() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path(), "");
    let mut t = connect(&server.url("nats"), &TlsOptions::default()).await.unwrap();
    assert!(!t.is_tls());
    read_info(&mut t).await;
    ping_pong(&mut t).await.unwrap();
    close(t).await;
}

#[tokio::test]
async fn websocket_carries_the_protocol_in_binary_frames() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path(), "websocket { listen: \"127.0.0.1:-1\", no_tls: true }");
    let mut t = connect(&server.ws_url("ws"), &TlsOptions::default()).await.unwrap();
    assert!(!t.is_tls());
    read_info(&mut t).await;
    ping_pong(&mut t).await.unwrap();
    close(t).await;
}

#[tokio::test]
async fn tls_upgrade_after_info() {
    let dir = TempDir::new().unwrap();
    let pki = Pki::generate(dir.path(), "a");
    let server = Server::start(dir.path(), &pki.server_block(false));
    let url = server.url("tls");
    let mut t = connect(&url, &TlsOptions::default()).await.unwrap();
    assert!(read_info(&mut t).await.contains("\"tls_required\":true"));
    let mut t = upgrade(t, &url, &pki.trusting_client()).await.unwrap();
    assert!(t.is_tls());
    ping_pong(&mut t).await.unwrap();
    close(t).await;
}

#[tokio::test]
async fn wss_does_tls_before_the_websocket_handshake() {
    let dir = TempDir::new().unwrap();
    let pki = Pki::generate(dir.path(), "a");
    let ws = format!("websocket {{ listen: \"127.0.0.1:-1\", {} }}", pki.server_block(false));
    let server = Server::start(dir.path(), &ws);
    let mut t = connect(&server.ws_url("wss"), &pki.trusting_client()).await.unwrap();
    assert!(t.is_tls());
    read_info(&mut t).await;
    ping_pong(&mut t).await.unwrap();
    close(t).await;
}

#[tokio::test]
async fn untrusted_server_certificate_is_a_tls_error() {
    let dir = TempDir::new().unwrap();
    let pki = Pki::generate(dir.path(), "a");
    let other = Pki::generate(dir.path(), "b");
    let ws = format!("websocket {{ listen: \"127.0.0.1:-1\", {} }}", pki.server_block(false));
    let server = Server::start(dir.path(), &format!("{}\n{ws}", pki.server_block(false)));
    let url = server.url("tls");

    // A different private CA, and the default webpki roots: neither trusts it.
    for roots in [other.trusting_client(), TlsOptions::default()] {
        let mut t = connect(&url, &roots).await.unwrap();
        read_info(&mut t).await;
        let err = upgrade(t, &url, &roots).await.err().expect("upgrade must fail");
        assert!(matches!(err, Error::Tls(_)), "{err:?}");

        let err = connect(&server.ws_url("wss"), &roots).await.err().expect("wss must fail");
        assert!(matches!(err, Error::Tls(_)), "{err:?}");
    }
}

#[tokio::test]
async fn client_certificate_is_presented_when_the_server_verifies() {
    let dir = TempDir::new().unwrap();
    let pki = Pki::generate(dir.path(), "a");
    let server = Server::start(dir.path(), &pki.server_block(true));
    let url = server.url("tls");

    let with_cert = pki.trusting_client().client_auth_files(&pki.client_cert, &pki.client_key).unwrap();
    let mut t = connect(&url, &with_cert).await.unwrap();
    read_info(&mut t).await;
    let mut t = upgrade(t, &url, &with_cert).await.unwrap();
    ping_pong(&mut t).await.unwrap();
    close(t).await;

    // Without a certificate the server refuses: during the handshake, or
    // (TLS 1.3) with an alert on the first read after it.
    let mut t = connect(&url, &pki.trusting_client()).await.unwrap();
    read_info(&mut t).await;
    match upgrade(t, &url, &pki.trusting_client()).await {
        Err(err) => assert!(matches!(err, Error::Tls(_)), "{err:?}"),
        Ok(mut t) => {
            let err = ping_pong(&mut t).await.expect_err("accepted without certificate");
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err:?}");
        }
    }
}

#[tokio::test]
async fn garbage_pem_is_a_tls_error() {
    let dir = TempDir::new().unwrap();
    let pki = Pki::generate(dir.path(), "a");
    let server = Server::start(dir.path(), &pki.server_block(false));
    let url = server.url("tls");
    let bad = TlsOptions::new().add_root_certificates_pem("not a certificate");
    let mut t = connect(&url, &bad).await.unwrap();
    read_info(&mut t).await;
    let err = upgrade(t, &url, &bad).await.err().expect("no roots");
    assert!(matches!(err, Error::Tls(_)), "{err:?}");
}

#[tokio::test]
async fn refused_connection_is_an_io_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = connect(&format!("nats://127.0.0.1:{port}"), &TlsOptions::default()).await.err().unwrap();
    assert!(matches!(err, Error::Io { kind: io::ErrorKind::ConnectionRefused, .. }), "{err:?}");
}

#[tokio::test]
async fn stalled_websocket_handshake_times_out() {
    // Accepts the TCP connection and never answers the HTTP upgrade.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    let silent = tokio::spawn(async move { listener.accept().await.map(|(socket, _)| socket) });
    let addr = ServerAddr::parse(&url).unwrap();
    let err = Transport::connect(&addr, &TlsOptions::default(), Duration::from_millis(200)).await.err().unwrap();
    assert_eq!(err, Error::Timeout);
    drop(silent.await);
}

#[tokio::test]
async fn upgrading_a_websocket_is_refused() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path(), "websocket { listen: \"127.0.0.1:-1\", no_tls: true }");
    let url = server.ws_url("ws");
    let t = connect(&url, &TlsOptions::default()).await.unwrap();
    let err = upgrade(t, &url, &TlsOptions::default()).await.err().unwrap();
    assert!(matches!(err, Error::Tls(_)), "{err:?}");
}
