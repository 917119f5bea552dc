//! Credentials and how they fill CONNECT: a token, a user and password (from
//! the options, or from the server URL, which wins as in nats.go), an nkey
//! that signs the server's nonce, or a user JWT with its seed from a
//! `.creds` file, or an [`AuthCallback`] that answers the nonce itself.
//! Secrets never appear in `Debug` output or error messages.
//!
//! Nkey signing (and with it the nkeys crate, a quarter of the wasm) is the
//! default-on cargo feature `nkeys`; without it a seed or `.creds` is a
//! [`Error::Credentials`] naming the feature. The npm package leaves it out
//! and signs in JavaScript through a callback instead.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::core::addr::ServerAddr;
use crate::core::error::Error;
use crate::core::proto::ConnectInfo;

/// What an [`AuthCallback`] answers for the server's nonce. Each field it
/// sets goes into CONNECT over the options' own credentials.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CallbackAuth {
    /// A user JWT (decentralized auth); goes with `nkey` and `signature`.
    pub jwt: Option<String>,
    /// The public nkey whose seed made `signature`.
    pub nkey: Option<String>,
    /// The nonce signed with the nkey's seed (raw bytes; CONNECT carries them in base64url).
    pub signature: Option<Vec<u8>>,
    /// A user name, with `password`.
    pub user: Option<String>,
    /// The password of `user`.
    pub password: Option<String>,
    /// An auth token (`auth_token` in CONNECT).
    pub token: Option<String>,
}

/// A function from the server's nonce (empty when it sent none) to the
/// credentials to connect with; called on every (re)connect. `Send + Sync`
/// natively; JS functions in wasm are neither.
#[cfg(not(target_arch = "wasm32"))]
pub trait AuthFn: Fn(&[u8]) -> Result<CallbackAuth, Error> + Send + Sync + 'static {}
#[cfg(not(target_arch = "wasm32"))]
impl<F: Fn(&[u8]) -> Result<CallbackAuth, Error> + Send + Sync + 'static> AuthFn for F {}
/// A function from the server's nonce (empty when it sent none) to the
/// credentials to connect with; called on every (re)connect.
#[cfg(target_arch = "wasm32")]
pub trait AuthFn: Fn(&[u8]) -> Result<CallbackAuth, Error> + 'static {}
#[cfg(target_arch = "wasm32")]
impl<F: Fn(&[u8]) -> Result<CallbackAuth, Error> + 'static> AuthFn for F {}

/// A shared [`AuthFn`]; two are equal when they are the same function.
#[derive(Clone)]
pub struct AuthCallback(pub SharedAuthFn);

#[cfg(not(target_arch = "wasm32"))]
type SharedAuthFn = Arc<dyn AuthFn + Send + Sync>;
#[cfg(target_arch = "wasm32")]
type SharedAuthFn = Arc<dyn AuthFn>;

impl PartialEq for AuthCallback {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for AuthCallback {}

/// Credentials for CONNECT. Secrets never appear in `Debug`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Auth {
    /// An auth token (`auth_token` in CONNECT); a URL's lone user part wins
    /// over it.
    pub token: Option<String>,
    /// A user name, with `password`; a URL's `user:pass@` wins over them.
    pub user: Option<String>,
    /// The password of `user`.
    pub password: Option<String>,
    /// An nkey seed (`SU…`); signs the server's nonce.
    pub nkey_seed: Option<String>,
    /// A user JWT (from a `.creds` file); signed with `nkey_seed`.
    pub jwt: Option<String>,
    /// Answers the nonce; what it sets wins over the fields above.
    pub callback: Option<AuthCallback>,
    /// The driver answers the nonce (an async callback): CONNECT waits for
    /// [`Connection::handle_auth`](super::Connection::handle_auth).
    pub deferred: bool,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Auth(<redacted>)")
    }
}

impl Auth {
    /// Reads a `.creds` file: the `NATS USER JWT` block and the
    /// `USER NKEY SEED` block (dash counts on the armour lines vary).
    pub fn from_credentials(contents: &str) -> Result<Auth, Error> {
        let (jwt, seed) = credentials_parts(contents)?;
        nkey::check_seed(&seed)?;
        Ok(Auth { jwt: Some(jwt), nkey_seed: Some(seed), ..Auth::default() })
    }

    /// Fills the credential fields of CONNECT for `addr`, signing `nonce`
    /// when an nkey seed is set.
    pub(super) fn fill_connect(
        &self,
        addr: &ServerAddr,
        nonce: Option<&str>,
        answered: Option<CallbackAuth>,
        connect: &mut ConnectInfo,
    ) -> Result<(), Error> {
        match (&addr.user, &addr.pass) {
            (Some(user), Some(pass)) => {
                connect.user = Some(user.clone());
                connect.pass = Some(pass.clone());
            }
            // A lone URL user is a token (nats.go does the same).
            (Some(token), None) => connect.auth_token = Some(token.clone()),
            _ => {
                connect.user.clone_from(&self.user);
                connect.pass.clone_from(&self.password);
                connect.auth_token.clone_from(&self.token);
            }
        }
        match (&self.nkey_seed, &self.jwt) {
            (Some(seed), jwt) => {
                let (sig, public_key) = nkey::sign(seed, nonce.unwrap_or_default().as_bytes())?;
                connect.sig = Some(sig);
                match jwt {
                    Some(jwt) => connect.jwt = Some(jwt.clone()),
                    None => connect.nkey = Some(public_key),
                }
            }
            (None, Some(_)) => return Err(Error::Credentials("a user JWT needs its nkey seed".into())),
            (None, None) => {}
        }
        let answer = match (answered, &self.callback) {
            (Some(answer), _) => Some(answer),
            (None, Some(AuthCallback(callback))) => Some(callback(nonce.unwrap_or_default().as_bytes())?),
            (None, None) => None,
        };
        if let Some(answer) = answer {
            let set = |field: &mut Option<String>, value: Option<String>| {
                if value.is_some() {
                    *field = value;
                }
            };
            set(&mut connect.jwt, answer.jwt);
            set(&mut connect.nkey, answer.nkey);
            set(&mut connect.sig, answer.signature.map(|sig| URL_SAFE_NO_PAD.encode(sig)));
            set(&mut connect.user, answer.user);
            set(&mut connect.pass, answer.password);
            set(&mut connect.auth_token, answer.token);
        }
        Ok(())
    }
}

/// The user JWT and nkey seed of a `.creds` file's contents (the
/// `NATS USER JWT` and `USER NKEY SEED` blocks), not checked.
pub fn credentials_parts(contents: &str) -> Result<(String, String), Error> {
    let jwt =
        armored_block(contents, "NATS USER JWT").ok_or_else(|| Error::Credentials("no NATS USER JWT block".into()))?;
    let seed = armored_block(contents, "USER NKEY SEED")
        .ok_or_else(|| Error::Credentials("no USER NKEY SEED block".into()))?;
    Ok((jwt, seed))
}

#[cfg(feature = "nkeys")]
mod nkey {
    use nkeys::KeyPair;

    use super::{Engine as _, URL_SAFE_NO_PAD};

    use crate::core::error::Error;

    /// The seed's key pair; the error never echoes the seed.
    fn key_pair(seed: &str) -> Result<KeyPair, Error> {
        KeyPair::from_seed(seed).map_err(|_| Error::Credentials("invalid nkey seed".into()))
    }

    pub(super) fn check_seed(seed: &str) -> Result<(), Error> {
        key_pair(seed).map(drop)
    }

    /// The signature of `nonce` (URL-safe base64, as CONNECT wants it) and
    /// the seed's public key.
    pub(super) fn sign(seed: &str, nonce: &[u8]) -> Result<(String, String), Error> {
        let key = key_pair(seed)?;
        let sig = key.sign(nonce).map_err(|_| Error::Credentials("could not sign the server nonce".into()))?;
        Ok((URL_SAFE_NO_PAD.encode(sig), key.public_key()))
    }
}

#[cfg(not(feature = "nkeys"))]
mod nkey {
    use crate::core::error::Error;

    fn missing() -> Error {
        Error::Credentials("nkey and .creds authentication need natsjet's cargo feature `nkeys`".into())
    }

    pub(super) fn check_seed(_: &str) -> Result<(), Error> {
        Err(missing())
    }

    pub(super) fn sign(_: &str, _: &[u8]) -> Result<(String, String), Error> {
        Err(missing())
    }
}

/// The text between `---…BEGIN <label>…---` and the next `---` line.
fn armored_block(contents: &str, label: &str) -> Option<String> {
    let mut lines = contents.lines().map(str::trim);
    lines.find(|l| l.starts_with("---") && l.contains("BEGIN") && l.contains(label))?;
    let body: String = lines.take_while(|l| !l.starts_with("---")).collect();
    (!body.is_empty()).then_some(body)
}
