//! async-nats's asynchronous authentication: [`Auth`], what a callback
//! answers the server's nonce with (after a round trip to a KMS, say), and
//! [`AuthError`]. The driver awaits the answer; the handshake waits for it
//! within the connection timeout.

use std::fmt;
#[cfg(not(target_arch = "wasm32"))]
use std::{future::Future, sync::Arc};

#[cfg(not(target_arch = "wasm32"))]
use super::ConnectOptions;
use crate::core::conn::CallbackAuth;
use crate::core::error::Error;
#[cfg(not(target_arch = "wasm32"))]
use crate::driver::task::AsyncAuth;

/// Credentials for one connection, as async-nats's auth callback returns them.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Auth {
    /// The user's JWT, for servers that check JWTs (with `nkey` and `signature`).
    pub jwt: Option<String>,
    /// The public nkey whose seed made `signature`.
    pub nkey: Option<String>,
    /// The server's nonce signed (raw bytes).
    pub signature: Option<Vec<u8>>,
    /// A user name, with `password`.
    pub username: Option<String>,
    /// The password of `username`.
    pub password: Option<String>,
    /// An authentication token.
    pub token: Option<String>,
}

impl Auth {
    /// No credentials; set the fields that apply.
    pub fn new() -> Auth {
        Auth::default()
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Auth(<redacted>)")
    }
}

impl From<Auth> for CallbackAuth {
    fn from(auth: Auth) -> Self {
        let Auth { jwt, nkey, signature, username, password, token } = auth;
        CallbackAuth { jwt, nkey, signature, user: username, password, token }
    }
}

/// Why an auth callback could not answer; the connection closes with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError(String);

impl AuthError {
    /// The reason, which the connection's error will carry.
    pub fn new(why: impl ToString) -> Self {
        AuthError(why.to_string())
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AuthError({})", self.0)
    }
}

impl std::error::Error for AuthError {}

impl From<AuthError> for Error {
    fn from(e: AuthError) -> Self {
        Error::Credentials(e.0)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl ConnectOptions {
    /// Options whose every (re)connect answers the server's nonce with
    /// what `callback` resolves to.
    pub fn with_auth_callback<F, Fut>(callback: F) -> Self
    where
        F: Fn(Vec<u8>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Auth, AuthError>> + Send + 'static,
    {
        let callback = Arc::new(callback);
        Self::new().answer_nonce(Arc::new(move |nonce| {
            let answer = callback(nonce);
            Box::pin(async move { Ok(answer.await?.into()) })
        }))
    }

    /// Options that connect with the user `jwt`, the nonce signed by
    /// `sign` (e.g. by a key that never leaves a KMS or HSM).
    pub fn with_jwt<F, Fut>(jwt: String, sign: F) -> Self
    where
        F: Fn(Vec<u8>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<u8>, AuthError>> + Send + 'static,
    {
        Self::new().jwt(jwt, sign)
    }

    /// Connects with the user `jwt`, the nonce signed by `sign`.
    pub fn jwt<F, Fut>(self, jwt: String, sign: F) -> Self
    where
        F: Fn(Vec<u8>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<u8>, AuthError>> + Send + 'static,
    {
        let sign = Arc::new(sign);
        self.answer_nonce(Arc::new(move |nonce| {
            let (jwt, signature) = (jwt.clone(), sign(nonce));
            Box::pin(async move {
                Ok(CallbackAuth { jwt: Some(jwt), signature: Some(signature.await?), ..Default::default() })
            })
        }))
    }

    fn answer_nonce(mut self, auth: AsyncAuth) -> Self {
        self.config.auth.deferred = true;
        self.callbacks.auth = Some(auth);
        self
    }
}
