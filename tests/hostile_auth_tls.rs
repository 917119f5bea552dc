//! TLS and credentials gone wrong: a CA that did not sign the server's
//! certificate, a certificate for another host, wrong and expired
//! credentials, each a typed error that says what; and no secret (token,
//! password, nkey seed, JWT, creds file) in `Debug`, `Display`, errors,
//! events or what the TLS stack logs.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{Auth, NatsServer, Tls, TlsFiles, tls::OTHER_HOST};
use natsjet::error::{ServerError, ServerErrorKind};
use natsjet::{CallbackAuth, ConnectOptions, ConnectionEvent, Error, TlsOptions};

fn trusting(ca_pem: &str) -> TlsOptions {
    TlsOptions::new().add_root_certificates_pem(ca_pem.to_string())
}

#[tokio::test]
async fn a_ca_that_did_not_sign_the_certificate() {
    let server = NatsServer::builder().tls(Tls::Server).start();
    let dir = tempfile::tempdir().unwrap();
    let stranger = TlsFiles::generate(dir.path(), Tls::Server.server_names());
    let error = ConnectOptions::new()
        .max_reconnects(0)
        .tls(trusting(&stranger.ca_pem))
        .connect(server.tls_url())
        .await
        .map_err(Error::from)
        .unwrap_err();
    // The stranger CA has the same name as the one that signed: rustls
    // finds it, and its signature does not verify.
    assert!(
        matches!(&error, Error::Tls(text) if text.starts_with("invalid peer certificate") && (text.contains("UnknownIssuer") || text.contains("BadSignature"))),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_certificate_for_another_host() {
    let server = NatsServer::builder().tls(Tls::OtherHost).start();
    let error = ConnectOptions::new()
        .max_reconnects(0)
        .tls(trusting(&server.tls_files().ca_pem))
        .connect(server.tls_url())
        .await
        .map_err(Error::from)
        .unwrap_err();
    // Which name was asked for, and which the certificate holds.
    assert!(
        matches!(&error, Error::Tls(text) if text.contains("not valid for name") && text.contains("127.0.0.1") && text.contains(OTHER_HOST)),
        "{error:?}"
    );
}

#[tokio::test]
async fn tls_first_where_the_server_asks_for_it() {
    let server = NatsServer::builder().tls(Tls::First).start();
    let tls = || trusting(&server.tls_files().ca_pem);
    for url in [server.client_url(), server.tls_url()] {
        let client = ConnectOptions::new().tls(tls()).tls_first().connect(&url).await.unwrap();
        client.flush().await.unwrap();
        assert!(client.server_info().tls_required, "{url}");
    }
    // A client that waits for the INFO first gets none.
    let error = ConnectOptions::new()
        .max_reconnects(0)
        .connection_timeout(Duration::from_secs(1))
        .tls(tls())
        .connect(server.tls_url())
        .await
        .map_err(Error::from)
        .unwrap_err();
    assert_eq!(error, Error::Timeout);
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

#[tokio::test]
async fn expired_user_jwt() {
    let server = NatsServer::builder().auth(Auth::Creds).start();
    let expired = server.issue_user_expiring("expired", Some(now_secs() - 60));
    let options = ConnectOptions::new().max_reconnects(0).credentials_file(&expired.creds_path).await.unwrap();
    let error = options.connect(server.client_url()).await.map_err(Error::from).unwrap_err();
    assert!(
        matches!(
            &error,
            Error::Server(ServerError {
                kind: ServerErrorKind::AuthenticationExpired | ServerErrorKind::AuthorizationViolation,
                ..
            })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_user_jwt_that_expires_while_connected() {
    let server = NatsServer::builder().auth(Auth::Creds).start();
    let user = server.issue_user_expiring("short-lived", Some(now_secs() + 2));
    let (tx, mut closed) = tokio::sync::mpsc::unbounded_channel();
    let options = ConnectOptions::new()
        .max_reconnects(0)
        .on_event(move |event| {
            if let ConnectionEvent::Closed { error } = event {
                let _ = tx.send(error);
            }
        })
        .credentials_file(&user.creds_path)
        .await
        .unwrap();
    let client = options.connect(server.client_url()).await.unwrap();
    let error = tokio::time::timeout(Duration::from_secs(20), closed.recv()).await.expect("closed").unwrap();
    assert!(
        matches!(error, Some(Error::Server(ServerError { kind: ServerErrorKind::AuthenticationExpired, .. }))),
        "{error:?}"
    );
    drop(client);
}

/// Everything rustls (the one dependency that logs) writes, captured.
struct Captured(Mutex<Vec<String>>);

impl log::Log for Captured {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, record: &log::Record) {
        self.0.lock().unwrap().push(format!("{} {}", record.target(), record.args()));
    }
    fn flush(&self) {}
}

fn captured_log() -> &'static Captured {
    static LOG: OnceLock<&'static Captured> = OnceLock::new();
    LOG.get_or_init(|| {
        let captured: &'static Captured = Box::leak(Box::new(Captured(Mutex::new(Vec::new()))));
        log::set_logger(captured).unwrap();
        log::set_max_level(log::LevelFilter::Trace);
        captured
    })
}

/// Asserts that `text` (named `what`) holds none of `secrets`.
#[track_caller]
fn assert_clean(what: &str, text: &str, secrets: &[&str]) {
    for secret in secrets {
        assert!(!text.contains(secret), "{what} shows a secret: {text}");
    }
}

/// Connects with `options` to `url`, recording every event; returns the
/// outcome and the events, formatted both ways.
async fn attempt(options: ConnectOptions, url: &str) -> Vec<String> {
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let options = options.max_reconnects(0).on_event(move |event| {
        seen.lock().unwrap().push(format!("{event:?}"));
    });
    let mut shown = vec![format!("{options:?}")];
    match options.connect(url).await {
        Ok(client) => {
            client.flush().await.unwrap();
            client.close().await.unwrap();
        }
        Err(e) => shown.extend([format!("{e:?}"), e.to_string()]),
    }
    shown.extend(events.lock().unwrap().iter().cloned());
    shown
}

#[tokio::test]
async fn secrets_never_show() {
    let log = captured_log();
    let token = "tok-S3CRET-a1b2c3";
    let password = "pw-S3CRET-d4e5f6";
    let server = NatsServer::builder().tls(Tls::Server).auth(Auth::token(token)).start();
    let tls = || trusting(&server.tls_files().ca_pem);
    let mut shown = Vec::new();
    // Right and wrong tokens, over TLS so that rustls logs too.
    shown.extend(attempt(ConnectOptions::new().tls(tls()).token(token.to_string()), &server.tls_url()).await);
    shown.extend(attempt(ConnectOptions::new().tls(tls()).token("tok-S3CRET-wrong".into()), &server.tls_url()).await);
    // A password in the options and in the URL.
    let options = ConnectOptions::new().tls(tls()).user_and_password("alice".into(), password.to_string());
    shown.extend(attempt(options, &server.tls_url()).await);
    let url = format!("tls://alice:{password}@127.0.0.1:{}", server.port());
    shown.extend(attempt(ConnectOptions::new().tls(tls()), &url).await);
    // An nkey seed, a creds file, and an auth callback's answer.
    let seed = nkeys::KeyPair::new_user().seed().unwrap();
    shown.extend(attempt(ConnectOptions::new().tls(tls()).nkey(seed.clone()), &server.tls_url()).await);
    let account = nkeys::KeyPair::new_account();
    let dir = tempfile::tempdir().unwrap();
    let user = common::auth::issue_user(&account, "u", &dir.path().join("u.creds"));
    let creds = std::fs::read_to_string(&user.creds_path).unwrap();
    let options = ConnectOptions::new().tls(tls()).credentials(&creds).unwrap();
    shown.extend(attempt(options, &server.tls_url()).await);
    let (jwt, user_seed) = (user.jwt.clone(), user.seed.clone());
    let options = ConnectOptions::new().tls(tls()).auth_callback(move |_| {
        Ok(CallbackAuth { jwt: Some(jwt.clone()), token: Some("tok-S3CRET-callback".into()), ..Default::default() })
    });
    shown.extend(attempt(options, &server.tls_url()).await);
    // Credentials that do not load.
    for bad in [creds.replace(&user.jwt, "not-a-jwt"), creds.replace(&user_seed, "SUbroken"), format!("{token}\n")] {
        if let Err(e) = ConnectOptions::new().credentials(&bad) {
            shown.extend([format!("{e:?}"), e.to_string()]);
        }
    }
    let bad_seed = format!("{}x", &seed[..seed.len() - 1]);
    shown.extend(attempt(ConnectOptions::new().tls(tls()).nkey(bad_seed.clone()), &server.tls_url()).await);

    let jwt_body = user.jwt.split('.').nth(1).unwrap();
    let secrets = [token, "tok-S3CRET", password, &seed, &bad_seed, &user.seed, &user.jwt, jwt_body];
    assert!(shown.len() > 20, "{shown:?}");
    for text in &shown {
        assert_clean("formatted options, errors or events", text, &secrets);
    }
    let logged = log.0.lock().unwrap();
    assert!(!logged.is_empty(), "rustls logged nothing");
    for line in logged.iter() {
        assert_clean("the log", line, &secrets);
    }
}
