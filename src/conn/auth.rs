//! Credentials and how they fill CONNECT. PLACEHOLDER: being written.

/// Credentials for CONNECT. Secrets never appear in `Debug`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Auth {
    pub token: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    /// An nkey seed (`SU…`); signs the server's nonce.
    pub nkey_seed: Option<String>,
    /// A user JWT (from a `.creds` file); signed with `nkey_seed`.
    pub jwt: Option<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Auth(<redacted>)")
    }
}
