//! JSON bodies of INFO (server to client) and CONNECT (client to server).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The server's INFO. Unknown fields are ignored; missing ones take defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ServerInfo {
    /// The server's unique id (a public nkey).
    pub server_id: String,
    /// The server's configured name (its id when none is configured).
    pub server_name: String,
    /// The server's version, e.g. `2.15.1`.
    pub version: String,
    /// The Go version the server was built with.
    pub go: String,
    /// The host the server listens on for clients.
    pub host: String,
    /// The port the server listens on for clients.
    pub port: u16,
    /// The server accepts messages with headers (HPUB/HMSG).
    pub headers: bool,
    /// Largest message the server accepts, in bytes (headers and payload).
    pub max_payload: usize,
    /// Protocol version; 1 or more means the server sends INFO updates
    /// (cluster changes, lame duck).
    pub proto: i8,
    /// The id the server gave this connection.
    pub client_id: u64,
    /// The server requires credentials in CONNECT.
    pub auth_required: bool,
    /// The server requires TLS.
    pub tls_required: bool,
    /// The server requires a client certificate.
    pub tls_verify: bool,
    /// The server offers TLS without requiring it.
    pub tls_available: bool,
    /// Cluster servers a client of this kind can reach (`host:port`; the
    /// websocket ports for WebSocket clients).
    pub connect_urls: Vec<String>,
    /// Websocket ports as servers gossip them (empty in client INFOs).
    pub ws_connect_urls: Vec<String>,
    /// Lame duck mode: the server is about to shut down (`ldm` on the wire).
    #[serde(rename = "ldm")]
    pub lame_duck_mode: bool,
    /// JetStream is enabled for this connection's account.
    pub jetstream: bool,
    /// Nonce to sign with an nkey (present when the server accepts nkeys or JWTs).
    pub nonce: Option<String>,
    /// Name of the server's cluster, if clustered.
    pub cluster: Option<String>,
    /// The server's JetStream domain, if configured.
    pub domain: Option<String>,
    /// This client's address as the server sees it.
    pub client_ip: Option<String>,
    /// The JetStream API level (ADR-44); 0 from servers before 2.11.
    pub api_lvl: u32,
}

impl ServerInfo {
    /// Whether `version` (`[v]major[.minor[.patch]]`, missing parts 0) is at
    /// least `major.minor.patch`; an unreadable version is not.
    pub fn version_at_least(&self, major: i64, minor: i64, patch: i64) -> bool {
        let version = self.version.strip_prefix('v').unwrap_or(&self.version);
        let mut parts = version.split(['.', '-', '+']).map(|part| part.parse::<i64>().ok());
        let server = match (parts.next().flatten(), parts.next(), parts.next()) {
            (Some(major), minor, patch) => (major, minor.flatten().unwrap_or(0), patch.flatten().unwrap_or(0)),
            (None, ..) => return false,
        };
        server >= (major, minor, patch)
    }
}

/// The client's CONNECT. Secrets are redacted from `Debug`.
#[derive(Clone, Default, PartialEq, Eq, Serialize)]
pub struct ConnectInfo {
    /// Ask the server for `+OK` after each command (the connection sends `false`).
    pub verbose: bool,
    /// Ask the server for stricter checks of subjects (the connection sends `false`).
    pub pedantic: bool,
    /// The client requires TLS.
    pub tls_required: bool,
    /// The connection's name, shown in the server's monitoring.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The client's language, e.g. `rust-natsjet`.
    pub lang: String,
    /// The client's version.
    pub version: String,
    /// Protocol version: 1 asks for INFO updates (cluster changes, lame duck).
    pub protocol: u8,
    /// Deliver this connection's own publishes to its matching subscriptions.
    pub echo: bool,
    /// The client handles headers (HPUB/HMSG).
    pub headers: bool,
    /// Answer a request with no subscriber with a 503 status (needs `headers`).
    pub no_responders: bool,
    /// User name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Password (redacted in `Debug`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    /// Auth token (redacted in `Debug`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_token: Option<String>,
    /// User JWT (redacted in `Debug`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jwt: Option<String>,
    /// The public nkey that signed the nonce (without a JWT).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nkey: Option<String>,
    /// The server's nonce signed with the nkey's seed, base64url (redacted in
    /// `Debug`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sig: Option<String>,
}

impl fmt::Debug for ConnectInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redact = |o: &Option<String>| o.as_ref().map(|_| "<redacted>");
        f.debug_struct("ConnectInfo")
            .field("verbose", &self.verbose)
            .field("pedantic", &self.pedantic)
            .field("tls_required", &self.tls_required)
            .field("name", &self.name)
            .field("lang", &self.lang)
            .field("version", &self.version)
            .field("protocol", &self.protocol)
            .field("echo", &self.echo)
            .field("headers", &self.headers)
            .field("no_responders", &self.no_responders)
            .field("user", &self.user)
            .field("pass", &redact(&self.pass))
            .field("auth_token", &redact(&self.auth_token))
            .field("jwt", &redact(&self.jwt))
            .field("nkey", &self.nkey)
            .field("sig", &redact(&self.sig))
            .finish()
    }
}
