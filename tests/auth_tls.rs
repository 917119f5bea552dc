//! Authentication and TLS against real servers configured for each.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{Auth, NatsServer, Tls};
use futures_util::StreamExt;
use natsjet::error::{ServerError, ServerErrorKind};
use natsjet::{ConnectOptions, Error, TlsOptions};

async fn round_trip(client: &natsjet::Client) {
    let mut sub = client.subscribe("auth.check").await.unwrap();
    client.flush().await.unwrap();
    client.publish("auth.check", "ok".into()).await.unwrap();
    assert_eq!(&sub.next().await.unwrap().payload[..], b"ok");
}

fn assert_authorization_violation(result: Result<natsjet::Client, natsjet::ConnectError>) {
    match result.map_err(Error::from) {
        Err(Error::Server(ServerError { kind: ServerErrorKind::AuthorizationViolation, .. })) => {}
        other => panic!("expected an authorization violation, got {other:?}"),
    }
}

#[tokio::test]
async fn token() {
    let server = NatsServer::builder().auth(Auth::token("s3cret-token")).start();
    let options = ConnectOptions::new().token(server.token().to_string());
    assert!(!format!("{options:?}").contains("s3cret-token"));
    round_trip(&options.connect(server.client_url()).await.unwrap()).await;
    assert_authorization_violation(ConnectOptions::new().token("wrong".into()).connect(server.client_url()).await);
    assert_authorization_violation(natsjet::connect(server.client_url()).await);
}

#[tokio::test]
async fn user_and_password() {
    let server = NatsServer::builder().auth(Auth::user_password("alice", "pa55word")).start();
    let (user, pass) = server.user_password();
    let options = ConnectOptions::new().user_and_password(user.into(), pass.into());
    assert!(!format!("{options:?}").contains("pa55word"));
    round_trip(&options.connect(server.client_url()).await.unwrap()).await;
    assert_authorization_violation(
        ConnectOptions::new().user_and_password(user.into(), "nope".into()).connect(server.client_url()).await,
    );
    // Credentials in the URL work too, and never show in errors.
    let url = format!("nats://{user}:{pass}@127.0.0.1:{}", server.port());
    round_trip(&natsjet::connect(url).await.unwrap()).await;
}

#[tokio::test]
async fn nkey() {
    let server = NatsServer::builder().auth(Auth::NKey).start();
    let seed = server.nkey_seed().to_string();
    let options = ConnectOptions::new().nkey(seed.clone());
    assert!(!format!("{options:?}").contains(&seed));
    round_trip(&options.connect(server.client_url()).await.unwrap()).await;
    let other = nkeys::KeyPair::new_user().seed().unwrap();
    assert_authorization_violation(ConnectOptions::new().nkey(other).connect(server.client_url()).await);
    assert!(matches!(
        ConnectOptions::new().nkey("not a seed".into()).connect(server.client_url()).await.map_err(Error::from),
        Err(Error::Credentials(_))
    ));
}

#[tokio::test]
async fn auth_callback_signs_the_nonce_with_a_key_held_by_the_app() {
    let server = NatsServer::builder().auth(Auth::NKey).start();
    let key = std::sync::Arc::new(nkeys::KeyPair::from_seed(&server.nkey_seed()).unwrap());
    let signer = key.clone();
    let options = ConnectOptions::new().auth_callback(move |nonce| {
        assert!(!nonce.is_empty(), "an nkey server sends a nonce");
        Ok(natsjet::CallbackAuth {
            nkey: Some(signer.public_key()),
            signature: Some(signer.sign(nonce).unwrap()),
            ..Default::default()
        })
    });
    round_trip(&options.connect(server.client_url()).await.unwrap()).await;

    let refused = ConnectOptions::new().auth_callback(|_| Err(Error::Credentials("vault unavailable".into())));
    assert!(matches!(
        refused.connect(server.client_url()).await.map_err(Error::from),
        Err(Error::Credentials(what)) if what == "vault unavailable"
    ));
    let wrong_key = nkeys::KeyPair::new_user();
    let forged = ConnectOptions::new().auth_callback(move |nonce| {
        Ok(natsjet::CallbackAuth {
            nkey: Some(key.public_key()),
            signature: Some(wrong_key.sign(nonce).unwrap()),
            ..Default::default()
        })
    });
    assert_authorization_violation(forged.connect(server.client_url()).await);
}

/// async-nats's asynchronous auth callback: the nonce answered after an
/// await (as a KMS round trip would take), on every connect.
#[tokio::test]
async fn an_async_auth_callback_answers_the_nonce_after_an_await() {
    let server = NatsServer::builder().auth(Auth::NKey).start();
    let key = std::sync::Arc::new(nkeys::KeyPair::from_seed(&server.nkey_seed()).unwrap());
    let signer = key.clone();
    let options = ConnectOptions::with_auth_callback(move |nonce| {
        let signer = signer.clone();
        async move {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let mut auth = natsjet::Auth::new();
            auth.nkey = Some(signer.public_key());
            auth.signature = Some(signer.sign(&nonce).map_err(natsjet::AuthError::new)?);
            Ok(auth)
        }
    });
    let client = options.connect(server.client_url()).await.unwrap();
    round_trip(&client).await;
    client.force_reconnect().await.unwrap();
    round_trip(&client).await;

    let refused = ConnectOptions::with_auth_callback(|_| async { Err(natsjet::AuthError::new("vault unavailable")) });
    assert!(matches!(
        refused.connect(server.client_url()).await.map_err(Error::from),
        Err(Error::Credentials(what)) if what == "vault unavailable"
    ));
    let wrong_key = std::sync::Arc::new(nkeys::KeyPair::new_user());
    let forged = ConnectOptions::with_auth_callback(move |nonce| {
        let (key, wrong_key) = (key.clone(), wrong_key.clone());
        async move {
            Ok(natsjet::Auth {
                nkey: Some(key.public_key()),
                signature: wrong_key.sign(&nonce).ok(),
                ..Default::default()
            })
        }
    });
    assert_authorization_violation(forged.connect(server.client_url()).await);
}

/// A user JWT whose nonce is signed by an async callback: the seed can stay
/// in a KMS or HSM.
#[tokio::test]
async fn a_jwt_with_a_signing_callback() {
    let server = NatsServer::builder().auth(Auth::Creds).start();
    let user = server.creds_user();
    let key = std::sync::Arc::new(nkeys::KeyPair::from_seed(&user.seed).unwrap());
    let signed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = signed.clone();
    let options = ConnectOptions::new().jwt(user.jwt.clone(), move |nonce| {
        let key = key.clone();
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move { key.sign(&nonce).map_err(natsjet::AuthError::new) }
    });
    round_trip(&options.connect(server.client_url()).await.unwrap()).await;
    assert_eq!(signed.load(std::sync::atomic::Ordering::SeqCst), 1);

    let stranger = nkeys::KeyPair::new_user();
    let forged = ConnectOptions::with_jwt(user.jwt.clone(), move |nonce| {
        let signature = stranger.sign(&nonce).map_err(natsjet::AuthError::new);
        async move { signature }
    });
    assert_authorization_violation(forged.connect(server.client_url()).await);
}

#[tokio::test]
async fn credentials_file() {
    let server = NatsServer::builder().auth(Auth::Creds).start();
    let options = ConnectOptions::new().credentials_file(server.creds_path()).await.unwrap();
    let debug = format!("{options:?}");
    assert!(!debug.contains(&server.creds_user().seed) && !debug.contains(&server.creds_user().jwt));
    round_trip(&options.connect(server.client_url()).await.unwrap()).await;

    // A user whose account the operator never signed is refused.
    let stranger_account = nkeys::KeyPair::new_account();
    let dir = tempfile::tempdir().unwrap();
    let stranger = common::auth::issue_user(&stranger_account, "stranger", &dir.path().join("s.creds"));
    let options = ConnectOptions::new().credentials_file(&stranger.creds_path).await.unwrap();
    assert_authorization_violation(options.connect(server.client_url()).await);

    assert!(matches!(ConnectOptions::new().credentials("garbage"), Err(Error::Credentials(_))));
    assert!(matches!(
        ConnectOptions::new().credentials_file(dir.path().join("missing.creds")).await,
        Err(Error::Credentials(_))
    ));
}

fn trusted(server: &NatsServer) -> TlsOptions {
    TlsOptions::new().add_root_certificates_pem(server.tls_files().ca_pem.clone())
}

#[tokio::test]
async fn tls_url_and_upgrade_when_server_requires_it() {
    let server = NatsServer::builder().tls(Tls::Server).websocket().start();
    let client = ConnectOptions::new().tls(trusted(&server)).connect(server.tls_url()).await.unwrap();
    round_trip(&client).await;
    // nats:// to a server that requires TLS upgrades by itself.
    let client = ConnectOptions::new().tls(trusted(&server)).connect(server.client_url()).await.unwrap();
    round_trip(&client).await;
    // wss:// on the websocket listener.
    let client = ConnectOptions::new().tls(trusted(&server)).connect(server.websocket_url()).await.unwrap();
    round_trip(&client).await;
    // Without the CA the certificate is not trusted.
    let err = natsjet::connect(server.tls_url()).await.unwrap_err();
    assert!(matches!(err.cause(), Error::Tls(_)), "{err:?}");
}

#[tokio::test]
async fn require_tls_refuses_a_plain_server() {
    let server = NatsServer::start();
    let err = ConnectOptions::new().require_tls(true).connect(server.client_url()).await.unwrap_err();
    assert!(matches!(err.cause(), Error::Tls(_)), "{err:?}");
}

#[tokio::test]
async fn client_certificates() {
    let server = NatsServer::builder().tls(Tls::Verify).start();
    let files = server.tls_files();
    let tls = trusted(&server).client_auth_files(&files.client_cert, &files.client_key).unwrap();
    let client = ConnectOptions::new().tls(tls).connect(server.tls_url()).await.unwrap();
    round_trip(&client).await;
    let err = ConnectOptions::new().tls(trusted(&server)).connect(server.tls_url()).await.unwrap_err();
    assert!(matches!(err.cause(), Error::Tls(_) | Error::Io { .. }), "{err:?}");
}
