//! Tests of the test harness itself (tests/common): servers start, listen
//! where they say, enforce the auth they were given, restart on the same
//! ports, form clusters, and go away on drop. Talks the NATS protocol by
//! hand over std TCP so that it depends on nothing in natsjet.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use common::auth::{issue_user, sign_nonce};
use common::{Auth, NatsCluster, NatsServer, Tls};
use serde_json::{Value, json};

/// A minimal hand-written NATS client for checking the harness.
struct Raw {
    w: TcpStream,
    r: BufReader<TcpStream>,
    info: Value,
}

impl Raw {
    fn connect(port: u16) -> Raw {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("connect to server");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let r = BufReader::new(s.try_clone().unwrap());
        let mut raw = Raw { w: s, r, info: Value::Null };
        let line = raw.line().expect("INFO line");
        let json = line.strip_prefix("INFO ").expect("first line is INFO");
        raw.info = serde_json::from_str(json).expect("INFO is JSON");
        raw
    }

    /// Next protocol line without CRLF; None on EOF.
    fn line(&mut self) -> Option<String> {
        let mut buf = String::new();
        match self.r.read_line(&mut buf) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(buf.trim_end_matches(['\r', '\n']).to_string()),
        }
    }

    fn send(&mut self, s: &str) {
        self.w.write_all(s.as_bytes()).expect("write to server");
    }

    fn nonce(&self) -> String {
        self.info["nonce"].as_str().expect("INFO has a nonce").to_string()
    }

    /// CONNECT (fields merged over defaults) + PING; Ok on PONG, Err(-ERR line).
    fn handshake(&mut self, fields: Value) -> Result<(), String> {
        let mut connect = json!({
            "verbose": false, "pedantic": false, "protocol": 1, "headers": true,
            "lang": "natsjet-harness", "version": "0",
        });
        for (k, v) in fields.as_object().unwrap() {
            connect[k] = v.clone();
        }
        self.send(&format!("CONNECT {connect}\r\nPING\r\n"));
        loop {
            match self.line() {
                None => return Err("connection closed".into()),
                Some(l) if l == "PONG" => return Ok(()),
                Some(l) if l.starts_with("-ERR") => return Err(l),
                Some(l) if l == "PING" => self.send("PONG\r\n"),
                Some(_) => {} // INFO updates, +OK
            }
        }
    }

    /// Request/reply over a fresh inbox; returns the reply payload.
    fn request(&mut self, subject: &str, payload: &str) -> String {
        self.send(&format!("SUB _INBOX.harness 1\r\nPUB {subject} _INBOX.harness {}\r\n{payload}\r\n", payload.len()));
        loop {
            let l = self.line().expect("reply before close");
            if l == "PING" {
                self.send("PONG\r\n");
                continue;
            }
            if l.starts_with("-ERR") {
                panic!("request {subject}: {l}");
            }
            if let Some(rest) = l.strip_prefix("MSG ") {
                let size: usize = rest.rsplit(' ').next().unwrap().parse().unwrap();
                let mut body = vec![0; size + 2];
                self.r.read_exact(&mut body).unwrap();
                body.truncate(size);
                self.send("UNSUB 1\r\n");
                return String::from_utf8(body).unwrap();
            }
        }
    }
}

fn assert_auth_violation(r: Result<(), String>) {
    let err = r.expect_err("server should reject these credentials");
    assert!(err.contains("Authorization Violation"), "expected Authorization Violation, got {err}");
}

#[test]
fn plain_server_answers_ping() {
    let server = NatsServer::start();
    assert_eq!(server.client_url(), format!("nats://127.0.0.1:{}", server.port()));
    let mut raw = Raw::connect(server.port());
    assert_eq!(raw.info["port"], json!(server.port()));
    assert!(raw.info["jetstream"].as_bool() != Some(true));
    raw.handshake(json!({})).unwrap();
    assert!(server.log_path().exists());
}

#[test]
fn jetstream_server_reports_jetstream_and_answers_api() {
    let server = NatsServer::start_jetstream();
    let mut raw = Raw::connect(server.port());
    assert_eq!(raw.info["jetstream"], json!(true));
    raw.handshake(json!({})).unwrap();
    let reply: Value = serde_json::from_str(&raw.request("$JS.API.INFO", "")).unwrap();
    assert_eq!(reply["type"], "io.nats.jetstream.api.v1.account_info_response", "{reply}");
    assert!(reply.get("error").is_none(), "{reply}");
    let jsz = server.monitor_json("/jsz");
    assert!(jsz["config"]["store_dir"].as_str().unwrap().starts_with(server.store_dir().to_str().unwrap()));
}

#[test]
fn websocket_port_accepts_upgrade_and_sends_info() {
    let server = NatsServer::builder().websocket().start();
    assert_eq!(server.websocket_url(), format!("ws://127.0.0.1:{}", server.websocket_port()));
    let mut s = TcpStream::connect(("127.0.0.1", server.websocket_port())).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
          Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .unwrap();
    let mut r = BufReader::new(s);
    let mut status = String::new();
    r.read_line(&mut status).unwrap();
    assert!(status.starts_with("HTTP/1.1 101"), "{status}");
    loop {
        let mut h = String::new();
        r.read_line(&mut h).unwrap();
        if h == "\r\n" {
            break;
        }
    }
    // First frame: the server's INFO, in a binary frame.
    let mut hdr = [0u8; 2];
    r.read_exact(&mut hdr).unwrap();
    assert_eq!(hdr[0] & 0x0f, 0x2, "binary frame");
    let len = match hdr[1] & 0x7f {
        126 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b).unwrap();
            u16::from_be_bytes(b) as usize
        }
        127 => panic!("INFO frame too long"),
        n => n as usize,
    };
    let mut payload = vec![0; len];
    r.read_exact(&mut payload).unwrap();
    assert!(payload.starts_with(b"INFO "), "{payload:?}");
}

#[test]
fn token_auth() {
    let server = NatsServer::builder().auth(Auth::token("s3cr3t-token")).start();
    assert_eq!(server.token(), "s3cr3t-token");
    let mut ok = Raw::connect(server.port());
    assert_eq!(ok.info["auth_required"], json!(true));
    ok.handshake(json!({ "auth_token": server.token() })).unwrap();
    assert_auth_violation(Raw::connect(server.port()).handshake(json!({ "auth_token": "nope" })));
    assert_auth_violation(Raw::connect(server.port()).handshake(json!({})));
}

#[test]
fn user_password_auth() {
    let server = NatsServer::builder().auth(Auth::user_password("alice", "pa$$ \"word\"")).start();
    let (user, pass) = server.user_password();
    Raw::connect(server.port()).handshake(json!({ "user": user, "pass": pass })).unwrap();
    assert_auth_violation(Raw::connect(server.port()).handshake(json!({ "user": user, "pass": "wrong" })));
    assert_auth_violation(Raw::connect(server.port()).handshake(json!({ "user": "bob", "pass": pass })));
}

#[test]
fn nkey_auth() {
    let server = NatsServer::builder().auth(Auth::NKey).start();
    let seed = server.nkey_seed();
    assert!(seed.starts_with("SU"), "{seed}");
    assert!(server.nkey_public_key().starts_with('U'));

    let mut ok = Raw::connect(server.port());
    let nonce = ok.nonce();
    ok.handshake(json!({
        "nkey": server.nkey_public_key(),
        "sig": sign_nonce(&seed, &nonce),
    }))
    .unwrap();

    // Right public key, signature by another key.
    let other = nkeys::KeyPair::new_user();
    let mut bad = Raw::connect(server.port());
    let nonce = bad.nonce();
    assert_auth_violation(bad.handshake(json!({
        "nkey": server.nkey_public_key(),
        "sig": sign_nonce(&other.seed().unwrap(), &nonce),
    })));
    // Unknown user key, correctly signed.
    let mut unknown = Raw::connect(server.port());
    let nonce = unknown.nonce();
    assert_auth_violation(unknown.handshake(json!({
        "nkey": other.public_key(),
        "sig": sign_nonce(&other.seed().unwrap(), &nonce),
    })));
}

/// Reads the JWT and the seed back out of a `.creds` file.
fn parse_creds(path: &Path) -> (String, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let block = |begin: &str| {
        let start = text.find(begin).unwrap() + begin.len();
        text[start..].lines().find(|l| !l.trim().is_empty()).unwrap().trim().to_string()
    };
    (block("-----BEGIN NATS USER JWT-----"), block("-----BEGIN USER NKEY SEED-----"))
}

#[test]
fn creds_auth() {
    let server = NatsServer::builder().auth(Auth::Creds).start();
    let (jwt, seed) = parse_creds(server.creds_path());
    assert_eq!(jwt, server.creds_user().jwt);
    assert!(seed.starts_with("SU"));
    // The JWT header and claims are what nats-io/jwt v2 produces.
    let mut parts = jwt.split('.');
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let header: Value = serde_json::from_slice(&b64.decode(parts.next().unwrap()).unwrap()).unwrap();
    assert_eq!(header, json!({ "typ": "JWT", "alg": "ed25519-nkey" }));
    let claims: Value = serde_json::from_slice(&b64.decode(parts.next().unwrap()).unwrap()).unwrap();
    assert_eq!(claims["nats"]["type"], "user");
    assert_eq!(claims["iss"], json!(server.account_public_key()));

    let mut ok = Raw::connect(server.port());
    let nonce = ok.nonce();
    ok.handshake(json!({ "jwt": jwt, "sig": sign_nonce(&seed, &nonce) })).unwrap();

    // A second user issued through the handle works too.
    let second = server.issue_user("second");
    assert!(second.creds_path.exists());
    let mut ok2 = Raw::connect(server.port());
    let nonce = ok2.nonce();
    ok2.handshake(json!({ "jwt": second.jwt, "sig": second.sign_nonce(&nonce) })).unwrap();

    // Right JWT, nonce signed by a different key.
    let mut bad_sig = Raw::connect(server.port());
    let nonce = bad_sig.nonce();
    let other = nkeys::KeyPair::new_user();
    assert_auth_violation(bad_sig.handshake(json!({
        "jwt": jwt, "sig": sign_nonce(&other.seed().unwrap(), &nonce),
    })));

    // A user of an account the operator never signed.
    let dir = tempfile::tempdir().unwrap();
    let stranger = issue_user(&nkeys::KeyPair::new_account(), "stranger", &dir.path().join("s.creds"));
    let mut bad_acct = Raw::connect(server.port());
    let nonce = bad_acct.nonce();
    assert_auth_violation(bad_acct.handshake(json!({
        "jwt": stranger.jwt, "sig": stranger.sign_nonce(&nonce),
    })));
}

#[test]
fn creds_account_has_jetstream() {
    let server = NatsServer::builder().jetstream().auth(Auth::Creds).start();
    let user = server.creds_user().clone();
    let mut raw = Raw::connect(server.port());
    let nonce = raw.nonce();
    raw.handshake(json!({ "jwt": user.jwt, "sig": user.sign_nonce(&nonce) })).unwrap();
    let reply: Value = serde_json::from_str(&raw.request("$JS.API.INFO", "")).unwrap();
    assert!(reply.get("error").is_none(), "{reply}");
    assert_eq!(reply["type"], "io.nats.jetstream.api.v1.account_info_response");
}

#[test]
fn tls_server_requires_tls() {
    let server = NatsServer::builder().tls(Tls::Server).websocket().start();
    let raw = Raw::connect(server.port());
    assert_eq!(raw.info["tls_required"], json!(true));
    assert!(raw.info["tls_verify"].as_bool() != Some(true));
    assert!(server.websocket_url().starts_with("wss://127.0.0.1:"));
    assert!(server.tls_url().starts_with("tls://127.0.0.1:"));
    let files = server.tls_files();
    assert!(files.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
    for p in [&files.ca_cert, &files.server_cert, &files.server_key, &files.client_cert, &files.client_key] {
        assert!(std::fs::read_to_string(p).unwrap().contains("-----BEGIN"), "{p:?}");
    }

    let verify = NatsServer::builder().tls(Tls::Verify).start();
    let raw = Raw::connect(verify.port());
    assert_eq!(raw.info["tls_required"], json!(true));
    assert_eq!(raw.info["tls_verify"], json!(true));
}

#[test]
fn restart_keeps_ports_and_store() {
    let mut server = NatsServer::builder().jetstream().websocket().start();
    let (port, ws, mon) = (server.port(), server.websocket_port(), server.monitoring_port());
    let first_pid = server.pid();
    Raw::connect(port).handshake(json!({})).unwrap();

    server.restart();
    assert_ne!(server.pid(), first_pid);
    assert_eq!((server.port(), server.websocket_port(), server.monitoring_port()), (port, ws, mon));
    Raw::connect(port).handshake(json!({})).unwrap();
    assert!(server.store_dir().join("jetstream").exists());

    server.kill();
    assert!(!server.is_running());
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    server.restart();
    assert_eq!(server.port(), port);
    let mut raw = Raw::connect(port);
    assert_eq!(raw.info["jetstream"], json!(true));
    raw.handshake(json!({})).unwrap();

    server.kill_and_restart();
    assert_eq!(server.port(), port);
    Raw::connect(port).handshake(json!({})).unwrap();
}

#[test]
fn lame_duck_tells_clients() {
    let server =
        NatsServer::builder().config_extra("lame_duck_duration: \"30s\"\nlame_duck_grace_period: \"1s\"").start();
    let mut raw = Raw::connect(server.port());
    raw.handshake(json!({})).unwrap();
    server.lame_duck();
    loop {
        let l = raw.line().expect("INFO with ldm before close");
        if let Some(info) = l.strip_prefix("INFO ") {
            let info: Value = serde_json::from_str(info).unwrap();
            if info["ldm"] == json!(true) {
                break;
            }
        }
    }
}

#[test]
fn bad_config_is_reported_not_hung() {
    let r = NatsServer::builder().config_extra("this is { not a valid config").try_start();
    assert!(r.is_err());
}

#[test]
fn concurrent_servers_get_different_ports() {
    let handles: Vec<_> = (0..2).map(|_| std::thread::spawn(|| NatsServer::builder().jetstream().start())).collect();
    let servers: Vec<NatsServer> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_ne!(servers[0].port(), servers[1].port());
    assert_ne!(servers[0].monitoring_port(), servers[1].monitoring_port());
    assert_ne!(servers[0].dir(), servers[1].dir());
    for s in &servers {
        Raw::connect(s.port()).handshake(json!({})).unwrap();
    }
}

#[test]
fn drop_kills_process_and_removes_dir() {
    let server = NatsServer::start_jetstream();
    let pid = server.pid();
    let dir = server.dir().to_path_buf();
    let port = server.port();
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    drop(server);
    assert!(!Path::new(&format!("/proc/{pid}")).exists(), "pid {pid} still there");
    assert!(!dir.exists(), "{dir:?} still there");
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn drop_on_panic_kills_process() {
    let (tx, rx) = std::sync::mpsc::channel();
    let r = std::thread::spawn(move || {
        let server = NatsServer::start();
        tx.send((server.pid(), server.dir().to_path_buf())).unwrap();
        panic!("test failure with a live server (expected)");
    })
    .join();
    assert!(r.is_err());
    let (pid, dir) = rx.recv().unwrap();
    assert!(!Path::new(&format!("/proc/{pid}")).exists());
    assert!(!dir.exists());
}

#[test]
fn cluster_forms_and_killed_node_restarts() {
    let mut cluster = NatsCluster::start(3);
    let urls = cluster.client_urls();
    assert_eq!(urls.len(), 3);
    for i in 0..3 {
        let node = cluster.node(i);
        assert_eq!(node.http_get("/healthz").unwrap().0, 200);
        let mut raw = Raw::connect(node.port());
        assert_eq!(raw.info["cluster"], json!("natsjet-test"));
        assert_eq!(raw.info["jetstream"], json!(true));
        raw.handshake(json!({})).unwrap();
        let reply: Value = serde_json::from_str(&raw.request("$JS.API.INFO", "")).unwrap();
        assert!(reply.get("error").is_none(), "{reply}");
    }
    let leader = cluster.leader().expect("a meta leader");

    // Kill the meta leader: the others elect a new one; then bring it back.
    let port = cluster.node(leader).port();
    cluster.kill(leader);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    cluster.wait_ready();
    assert_ne!(cluster.leader(), Some(leader));
    cluster.restart(leader);
    assert_eq!(cluster.node(leader).port(), port);
    for i in 0..3 {
        assert_eq!(cluster.node(i).http_get("/healthz").unwrap().0, 200);
    }
}

/// Cross-check with a reference client (async-nats, a dev-dependency) that
/// the generated PKI and `.creds` files are usable by a real TLS client.
#[tokio::test]
async fn generated_tls_and_creds_work_with_a_reference_client() {
    let server = NatsServer::builder().tls(Tls::Verify).auth(Auth::Creds).start();
    let files = server.tls_files().clone();
    let client = async_nats::ConnectOptions::with_credentials_file(server.creds_path())
        .await
        .unwrap()
        .add_root_certificates(files.ca_cert.clone())
        .add_client_certificate(files.client_cert.clone(), files.client_key.clone())
        .require_tls(true)
        .connect(server.tls_url())
        .await
        .expect("TLS + creds connect");
    client.flush().await.unwrap();

    // Without a client certificate, a verify server refuses the handshake.
    let refused = async_nats::ConnectOptions::with_credentials_file(server.creds_path())
        .await
        .unwrap()
        .add_root_certificates(files.ca_cert)
        .require_tls(true)
        .connection_timeout(Duration::from_secs(2))
        .connect(server.tls_url());
    let refused = tokio::time::timeout(Duration::from_secs(10), refused).await;
    assert!(!matches!(refused, Ok(Ok(_))), "connected without a client cert");
}
