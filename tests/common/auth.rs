//! Auth material for test servers: token, user/password, nkey users, and
//! operator mode (decentralised JWT auth) with `.creds` files.
//!
//! JWTs are built by hand the way nats-io/jwt v2 encodes them:
//! `b64url(header) . b64url(claims) . b64url(ed25519 sig of "header.claims")`,
//! header `{"typ":"JWT","alg":"ed25519-nkey"}`, `jti` = base32 (no padding)
//! of SHA-512/256 over the claims, signed by the issuer's nkey.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use nkeys::KeyPair;
use serde_json::{Value, json};
use sha2::{Digest, Sha512_256};

/// How clients must authenticate.
#[derive(Clone, Debug)]
pub enum Auth {
    /// `authorization { token: ... }`
    Token(String),
    /// `authorization { user: ..., password: ... }`
    UserPassword { user: String, password: String },
    /// One nkey user (generated); the seed is on the server handle.
    NKey,
    /// Operator mode: generated operator, system account and one account
    /// (JetStream-enabled when the server has JetStream), memory resolver,
    /// and a `.creds` file for one user of that account.
    Creds,
}

impl Auth {
    pub fn token(t: impl Into<String>) -> Auth {
        Auth::Token(t.into())
    }
    pub fn user_password(user: impl Into<String>, password: impl Into<String>) -> Auth {
        Auth::UserPassword { user: user.into(), password: password.into() }
    }
}

/// Generated secrets, kept by the server handle.
pub(crate) enum AuthMaterial {
    Token(String),
    UserPassword { user: String, password: String },
    NKey { user: Box<KeyPair> },
    Operator(Box<OperatorSetup>),
}

impl AuthMaterial {
    pub(crate) fn generate(auth: &Auth, jetstream: bool, dir: &Path) -> AuthMaterial {
        match auth {
            Auth::Token(t) => AuthMaterial::Token(t.clone()),
            Auth::UserPassword { user, password } => {
                AuthMaterial::UserPassword { user: user.clone(), password: password.clone() }
            }
            Auth::NKey => AuthMaterial::NKey { user: Box::new(KeyPair::new_user()) },
            Auth::Creds => AuthMaterial::Operator(Box::new(OperatorSetup::generate(jetstream, dir))),
        }
    }

    /// The server config lines for this auth mode.
    pub(crate) fn config(&self) -> String {
        match self {
            AuthMaterial::Token(t) => format!("authorization {{\n  token: {}\n}}\n", q(t)),
            AuthMaterial::UserPassword { user, password } => {
                format!("authorization {{\n  user: {}\n  password: {}\n}}\n", q(user), q(password))
            }
            AuthMaterial::NKey { user } => {
                format!("authorization {{\n  users = [\n    {{ nkey: {} }}\n  ]\n}}\n", q(&user.public_key()))
            }
            AuthMaterial::Operator(op) => op.config(),
        }
    }
}

/// A user of the operator-mode account: its JWT, seed and `.creds` file.
#[derive(Clone, Debug)]
pub struct CredsUser {
    pub jwt: String,
    pub seed: String,
    pub public_key: String,
    pub creds_path: PathBuf,
}

impl CredsUser {
    /// Signs a server nonce with the user's key (what a client puts in
    /// CONNECT's `sig`): base64url without padding.
    pub fn sign_nonce(&self, nonce: &str) -> String {
        sign_nonce(&self.seed, nonce)
    }
}

/// Signs `nonce` with the nkey `seed`; base64url-no-pad signature.
pub fn sign_nonce(seed: &str, nonce: &str) -> String {
    let kp = KeyPair::from_seed(seed).expect("valid nkey seed");
    URL_SAFE_NO_PAD.encode(kp.sign(nonce.as_bytes()).expect("sign nonce"))
}

/// Operator, system account, one application account and its first user.
pub(crate) struct OperatorSetup {
    pub operator: KeyPair,
    pub operator_jwt: String,
    pub system_account: KeyPair,
    pub system_account_jwt: String,
    pub account: KeyPair,
    pub account_jwt: String,
    pub user: CredsUser,
    dir: PathBuf,
}

impl OperatorSetup {
    fn generate(jetstream: bool, dir: &Path) -> OperatorSetup {
        let operator = KeyPair::new_operator();
        let system_account = KeyPair::new_account();
        let account = KeyPair::new_account();

        let operator_jwt = encode_jwt(
            &operator,
            &operator.public_key(),
            "natsjet-test-operator",
            json!({
                "system_account": system_account.public_key(),
                "type": "operator",
                "version": 2,
            }),
        );
        let system_account_jwt = account_jwt(&operator, &system_account, "SYS", false);
        let account_jwt = account_jwt(&operator, &account, "APP", jetstream);
        let dir = dir.to_path_buf();
        let user = issue_user(&account, "user", &dir.join("user.creds"));
        OperatorSetup { operator, operator_jwt, system_account, system_account_jwt, account, account_jwt, user, dir }
    }

    /// Issues another user of the application account, with its own creds file.
    pub fn issue_user(&self, name: &str) -> CredsUser {
        self.issue_user_expiring(name, None)
    }

    /// [`issue_user`](Self::issue_user) whose JWT expires at `exp` (Unix seconds).
    pub fn issue_user_expiring(&self, name: &str, exp: Option<u64>) -> CredsUser {
        issue_user_expiring(&self.account, name, &self.dir.join(format!("{name}.creds")), exp)
    }

    fn config(&self) -> String {
        format!(
            "operator: {}\nsystem_account: {}\nresolver: MEMORY\nresolver_preload: {{\n  {}: {}\n  {}: {}\n}}\n",
            q(&self.operator_jwt),
            q(&self.system_account.public_key()),
            self.system_account.public_key(),
            q(&self.system_account_jwt),
            self.account.public_key(),
            q(&self.account_jwt),
        )
    }
}

fn account_jwt(operator: &KeyPair, account: &KeyPair, name: &str, jetstream: bool) -> String {
    let mut limits = json!({
        "subs": -1, "data": -1, "payload": -1,
        "imports": -1, "exports": -1, "wildcards": true,
        "conn": -1, "leaf": -1,
    });
    if jetstream {
        let l = limits.as_object_mut().unwrap();
        for k in ["mem_storage", "disk_storage", "streams", "consumer"] {
            l.insert(k.to_string(), json!(-1));
        }
    }
    encode_jwt(
        operator,
        &account.public_key(),
        name,
        json!({
            "limits": limits,
            "default_permissions": { "pub": {}, "sub": {} },
            "authorization": {},
            "type": "account",
            "version": 2,
        }),
    )
}

/// Issues a user JWT signed by `account` and writes its `.creds` file to `path`.
pub fn issue_user(account: &KeyPair, name: &str, path: &Path) -> CredsUser {
    issue_user_expiring(account, name, path, None)
}

/// [`issue_user`] with an expiry (`exp`, Unix seconds) in the user's JWT.
pub fn issue_user_expiring(account: &KeyPair, name: &str, path: &Path, exp: Option<u64>) -> CredsUser {
    let user = KeyPair::new_user();
    let jwt = encode_jwt_expiring(
        account,
        &user.public_key(),
        name,
        json!({
            "pub": {}, "sub": {},
            "subs": -1, "data": -1, "payload": -1,
            "type": "user",
            "version": 2,
        }),
        exp,
    );
    let seed = user.seed().expect("user seed");
    fs::write(path, creds_file(&jwt, &seed)).expect("write creds file");
    CredsUser { jwt, seed, public_key: user.public_key(), creds_path: path.to_path_buf() }
}

/// A JWT for `subject` with `nats` claims, issued and signed by `issuer`.
pub fn encode_jwt(issuer: &KeyPair, subject: &str, name: &str, nats: Value) -> String {
    encode_jwt_expiring(issuer, subject, name, nats, None)
}

/// [`encode_jwt`] with an expiry (`exp`, Unix seconds).
pub fn encode_jwt_expiring(issuer: &KeyPair, subject: &str, name: &str, nats: Value, exp: Option<u64>) -> String {
    let header = json!({ "typ": "JWT", "alg": "ed25519-nkey" });
    let iat = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock after 1970").as_secs();
    let mut claims = json!({
        "iat": iat,
        "iss": issuer.public_key(),
        "name": name,
        "sub": subject,
        "nats": nats,
    });
    if let Some(exp) = exp {
        claims["exp"] = json!(exp);
    }
    let digest = Sha512_256::digest(serde_json::to_vec(&claims).unwrap());
    claims["jti"] = json!(data_encoding::BASE32_NOPAD.encode(&digest));
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header).unwrap()),
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap())
    );
    let sig = issuer.sign(signing_input.as_bytes()).expect("sign jwt with nkey");
    format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(sig))
}

/// The standard `.creds` file text.
pub fn creds_file(jwt: &str, seed: &str) -> String {
    format!(
        "-----BEGIN NATS USER JWT-----\n{jwt}\n------END NATS USER JWT------\n\n\
         ************************* IMPORTANT *************************\n\
         NKEY Seed printed below can be used to sign and prove identity.\n\
         NKEYs are sensitive and should be treated as secrets.\n\n\
         -----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n\n\
         *************************************************************\n"
    )
}

/// Quotes a string for the nats-server config format.
pub(crate) fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}
