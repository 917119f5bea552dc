//! Credentials in CONNECT, `.creds` files, and what happens when they fail.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(feature = "nkeys")]
use base64::Engine;
#[cfg(feature = "nkeys")]
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
#[cfg(feature = "nkeys")]
use nkeys::KeyPair;

use super::*;
use crate::core::conn::{Auth, CallbackAuth, State};
use crate::core::error::{ServerError, ServerErrorKind};

const NONCE: &str = "nonce-from-the-server";

fn connect_json(cfg: Config, info: &str) -> serde_json::Value {
    let mut s = FakeServer::new(cfg);
    s.expect_connect();
    s.open();
    s.send(info);
    match s.take_ops().remove(0) {
        ClientOp::Connect(json) => json,
        other => panic!("{other:?}"),
    }
}

fn with_auth(auth: Auth) -> Config {
    Config { auth, ..config(&["nats://a:4222"]) }
}

fn nonce_info() -> String {
    info_with(&format!(r#""auth_required":true,"nonce":"{NONCE}""#))
}

#[cfg(feature = "nkeys")]
fn assert_signed(json: &serde_json::Value, key: &KeyPair) {
    let sig = URL_SAFE_NO_PAD.decode(json["sig"].as_str().unwrap()).unwrap();
    key.verify(NONCE.as_bytes(), &sig).expect("signature of the nonce");
}

#[cfg(feature = "nkeys")]
fn creds(jwt: &str, seed: &str, dashes: &str) -> String {
    format!(
        "-----BEGIN NATS USER JWT-----\n{jwt}\n{dashes}END NATS USER JWT{dashes}\n\n\
         ************************* IMPORTANT *************************\n\
         NKEY Seed printed below can be used to sign and prove identity.\n\n\
         -----BEGIN USER NKEY SEED-----\n{seed}\n{dashes}END USER NKEY SEED{dashes}\n"
    )
}

#[test]
fn token_goes_in_auth_token() {
    let json = connect_json(with_auth(Auth { token: Some("t0k".into()), ..Auth::default() }), INFO);
    assert_eq!(json["auth_token"], "t0k");
    assert!(json.get("user").is_none());
}

#[test]
fn user_and_password() {
    let auth = Auth { user: Some("bob".into()), password: Some("pw".into()), ..Auth::default() };
    let json = connect_json(with_auth(auth), INFO);
    assert_eq!((&json["user"], &json["pass"]), (&"bob".into(), &"pw".into()));
}

#[test]
fn url_credentials_win_and_a_lone_url_user_is_a_token() {
    let auth = Auth { user: Some("opt".into()), password: Some("opt".into()), ..Auth::default() };
    let json = connect_json(Config { auth: auth.clone(), ..config(&["nats://bob:pw@a:4222"]) }, INFO);
    assert_eq!((&json["user"], &json["pass"]), (&"bob".into(), &"pw".into()));
    let json = connect_json(Config { auth, ..config(&["nats://s3cret@a:4222"]) }, INFO);
    assert_eq!(json["auth_token"], "s3cret");
    assert!(json.get("user").is_none());
}

#[test]
#[cfg(feature = "nkeys")]
fn nkey_signs_the_server_nonce() {
    let key = KeyPair::new_user();
    let auth = Auth { nkey_seed: Some(key.seed().unwrap()), ..Auth::default() };
    let json = connect_json(with_auth(auth), &nonce_info());
    assert_eq!(json["nkey"], key.public_key());
    assert!(json.get("jwt").is_none());
    assert_signed(&json, &key);
}

#[test]
#[cfg(feature = "nkeys")]
fn creds_file_gives_jwt_and_signature() {
    let key = KeyPair::new_user();
    let jwt = "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln";
    for dashes in ["-----", "------"] {
        let auth = Auth::from_credentials(&creds(jwt, &key.seed().unwrap(), dashes)).unwrap();
        assert_eq!(auth.jwt.as_deref(), Some(jwt));
        let json = connect_json(with_auth(auth), &nonce_info());
        assert_eq!(json["jwt"], jwt);
        assert!(json.get("nkey").is_none(), "the JWT names the key");
        assert_signed(&json, &key);
    }
}

#[test]
#[cfg(feature = "nkeys")]
fn bad_creds_files_are_credentials_errors_that_hide_the_seed() {
    let key = KeyPair::new_user();
    let seed = key.seed().unwrap();
    assert!(matches!(Auth::from_credentials("nothing here"), Err(Error::Credentials(_))));
    let no_seed = "-----BEGIN NATS USER JWT-----\nabc\n------END NATS USER JWT------\n";
    assert!(matches!(Auth::from_credentials(no_seed), Err(Error::Credentials(_))));
    let bad_seed = format!("{}X", &seed[..seed.len() - 1]);
    let err = Auth::from_credentials(&creds("abc", &bad_seed, "------")).unwrap_err();
    assert!(matches!(err, Error::Credentials(_)));
    assert!(!err.to_string().contains(&bad_seed[4..]), "{err}");
}

#[test]
#[cfg(feature = "nkeys")]
fn secrets_stay_out_of_debug_output() {
    let seed = KeyPair::new_user().seed().unwrap();
    let auth = Auth {
        token: Some("t0k3n".into()),
        password: Some("passw0rd".into()),
        nkey_seed: Some(seed.clone()),
        jwt: Some("jwt-body".into()),
        ..Auth::default()
    };
    let cfg = Config { auth, ..config(&["nats://u:urlpass@a:4222"]) };
    let shown = format!("{cfg:?}");
    for secret in ["t0k3n", "passw0rd", seed.as_str(), "jwt-body", "urlpass"] {
        assert!(!shown.contains(secret), "{secret} leaked: {shown}");
    }
}

#[test]
#[cfg(not(feature = "nkeys"))]
fn without_the_nkeys_feature_a_seed_is_a_credentials_error_naming_it() {
    let err = Auth::from_credentials(
        "-----BEGIN NATS USER JWT-----\nabc\n------END NATS USER JWT------\n\
         -----BEGIN USER NKEY SEED-----\nSUAB\n------END USER NKEY SEED------\n",
    )
    .unwrap_err();
    assert!(matches!(&err, Error::Credentials(what) if what.contains("`nkeys`")), "{err}");
}

fn callback_auth(callback: impl crate::core::conn::AuthFn) -> Config {
    with_auth(Auth {
        token: Some("static".into()),
        user: Some("kept".into()),
        callback: Some(crate::core::conn::AuthCallback(std::sync::Arc::new(callback))),
        ..Auth::default()
    })
}

#[test]
fn callback_answers_the_nonce_and_wins_over_static_credentials() {
    let cfg = callback_auth(|nonce| {
        assert_eq!(nonce, NONCE.as_bytes());
        Ok(CallbackAuth {
            jwt: Some("the-jwt".into()),
            nkey: Some("UPUBLIC".into()),
            signature: Some(vec![0xfb, 0xff]),
            token: Some("from-callback".into()),
            ..CallbackAuth::default()
        })
    });
    let json = connect_json(cfg, &nonce_info());
    assert_eq!((&json["jwt"], &json["nkey"]), (&"the-jwt".into(), &"UPUBLIC".into()));
    assert_eq!(json["sig"], "-_8", "base64url without padding");
    assert_eq!(json["auth_token"], "from-callback");
    assert_eq!(json["user"], "kept", "fields it leaves unset keep the options' values");
}

#[test]
fn callback_gets_an_empty_nonce_when_the_server_sent_none() {
    let json = connect_json(
        callback_auth(|nonce| Ok(CallbackAuth { user: Some(format!("{}", nonce.len())), ..CallbackAuth::default() })),
        INFO,
    );
    assert_eq!(json["user"], "0");
}

#[test]
fn callback_error_closes_for_good() {
    let error = closes_for_good(callback_auth(|_| Err(Error::Credentials("no key".into()))));
    assert!(matches!(&error, Error::Credentials(what) if what == "no key"), "{error:?}");
}

/// Connects with `cfg` to a server sending a nonce: the credentials fail,
/// so no CONNECT is written and the connection closes without retrying. The error it closed with.
fn closes_for_good(mut cfg: Config) -> Error {
    cfg.retry_on_initial_connect = true;
    let mut s = FakeServer::new(cfg);
    s.expect_connect();
    s.open();
    s.send(&nonce_info());
    s.expect_close();
    assert!(s.take_ops().is_empty(), "no CONNECT without valid credentials");
    s.lose(None);
    let events = s.take_conn_events();
    let [ConnectionEvent::Closed { error: Some(error) }] = events.as_slice() else { panic!("{events:?}") };
    assert!(s.take_actions().is_empty(), "no retry");
    assert_eq!(s.conn.publish("a", None, None, b""), Err(Error::Closed));
    error.clone()
}

#[test]
fn bad_seed_at_handshake_closes_for_good() {
    let error = closes_for_good(with_auth(Auth { nkey_seed: Some("SUNOTASEED".into()), ..Auth::default() }));
    assert!(matches!(error, Error::Credentials(_)), "{error:?}");
}

#[test]
fn authorization_violation_in_handshake_is_reported_and_counts_as_a_failure() {
    let mut cfg = config(&["nats://a:4222"]);
    cfg.retry_on_initial_connect = true;
    cfg.max_reconnects = Some(2);
    let mut s = FakeServer::new(cfg);
    let auth_error = Error::Server(ServerError::from_message("Authorization Violation"));
    let mut attempts = 0;
    loop {
        s.expect_connect();
        attempts += 1;
        s.open();
        s.send(INFO);
        assert!(s.take_ops()[0].is_connect());
        s.send("-ERR 'Authorization Violation'");
        s.expect_close();
        s.lose(None);
        let events = s.take_conn_events();
        assert_eq!(events[0], disconnected("nats://a:4222", Some(auth_error.clone())));
        if let [_, ConnectionEvent::Closed { error }] = events.as_slice() {
            assert_eq!(error, &Some(auth_error.clone()));
            break;
        }
        s.advance(2100);
        assert_eq!(s.take_conn_events(), [ConnectionEvent::Reconnecting { server: addr("nats://a:4222") }]);
    }
    assert_eq!(attempts, 2, "max_reconnects failed attempts, then the server is dropped");
    let Error::Server(e) = auth_error else { unreachable!() };
    assert_eq!(e.kind, ServerErrorKind::AuthorizationViolation);
}

#[test]
fn a_deferred_answer_holds_connect_until_the_driver_gives_it() {
    let mut s = FakeServer::new(with_auth(Auth { deferred: true, token: Some("base".into()), ..Auth::default() }));
    s.expect_connect();
    s.open();
    s.send(&nonce_info());
    assert_eq!(s.take_actions(), [Action::Authenticate { nonce: NONCE.as_bytes().to_vec() }]);
    assert!(s.take_ops().is_empty(), "no CONNECT before the answer");
    let answer = CallbackAuth { user: Some("kms".into()), password: Some("signed".into()), ..Default::default() };
    s.conn.handle_auth(s.now, Ok(answer.clone()));
    s.drive();
    let ClientOp::Connect(json) = s.take_ops().remove(0) else { panic!("CONNECT") };
    assert_eq!((&json["user"], &json["pass"], &json["auth_token"]), (&"kms".into(), &"signed".into(), &"base".into()));
    s.send("PONG");
    assert_eq!(s.conn.state(), State::Connected);
    s.conn.handle_auth(s.now, Ok(answer));
    assert!(s.take_ops().is_empty(), "a late answer is dropped");

    // An answer that never comes: the handshake times out like any other.
    let mut s = FakeServer::new(with_auth(Auth { deferred: true, ..Auth::default() }));
    s.expect_connect();
    s.open();
    s.send(&nonce_info());
    s.take_actions();
    s.advance(5_000);
    assert_eq!(s.take_actions(), [Action::Close]);

    // A failed answer closes for good.
    let mut s = FakeServer::new(with_auth(Auth { deferred: true, ..Auth::default() }));
    s.expect_connect();
    s.open();
    s.send(&nonce_info());
    s.take_actions();
    s.conn.handle_auth(s.now, Err(Error::Credentials("vault unavailable".into())));
    s.drive();
    s.expect_close();
    s.lose(None);
    assert_eq!(
        s.take_conn_events(),
        [ConnectionEvent::Closed { error: Some(Error::Credentials("vault unavailable".into())) }]
    );
}
