//! JSON bodies of INFO (server to client) and CONNECT (client to server).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The server's INFO. Unknown fields are ignored; missing ones take defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ServerInfo {
    pub server_id: String,
    pub server_name: String,
    pub version: String,
    pub go: String,
    pub host: String,
    pub port: u16,
    pub headers: bool,
    pub max_payload: usize,
    pub proto: i8,
    pub client_id: u64,
    pub auth_required: bool,
    pub tls_required: bool,
    pub tls_verify: bool,
    pub tls_available: bool,
    /// Cluster servers a client of this kind can reach (`host:port`; the
    /// websocket ports for WebSocket clients).
    pub connect_urls: Vec<String>,
    /// Websocket ports as servers gossip them (empty in client INFOs).
    pub ws_connect_urls: Vec<String>,
    /// Lame duck mode: the server is about to shut down (`ldm` on the wire).
    #[serde(rename = "ldm")]
    pub lame_duck_mode: bool,
    pub jetstream: bool,
    pub nonce: Option<String>,
    pub cluster: Option<String>,
    pub domain: Option<String>,
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
    pub verbose: bool,
    pub pedantic: bool,
    pub tls_required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub lang: String,
    pub version: String,
    pub protocol: u8,
    pub echo: bool,
    pub headers: bool,
    pub no_responders: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jwt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nkey: Option<String>,
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
