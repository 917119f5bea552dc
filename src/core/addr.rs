//! Server addresses: `nats://`, `tls://`, `ws://`, `wss://` URLs, with the
//! defaults NATS clients use (`nats://` and port 4222 when missing).

use std::fmt;

use crate::core::error::Error;

/// How to reach a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Plain TCP; upgraded to TLS if the server requires it.
    Nats,
    /// TCP, TLS required.
    Tls,
    /// WebSocket.
    Ws,
    /// WebSocket over TLS.
    Wss,
}

impl Scheme {
    /// Whether the scheme is `ws` or `wss`.
    pub fn is_websocket(self) -> bool {
        matches!(self, Scheme::Ws | Scheme::Wss)
    }

    fn default_port(self) -> u16 {
        match self {
            Scheme::Nats | Scheme::Tls => 4222,
            Scheme::Ws => 80,
            Scheme::Wss => 443,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Scheme::Nats => "nats",
            Scheme::Tls => "tls",
            Scheme::Ws => "ws",
            Scheme::Wss => "wss",
        }
    }
}

/// A parsed server URL. User and password, when present, are redacted from
/// `Debug` and `Display`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ServerAddr {
    /// `nats`, `tls`, `ws` or `wss`.
    pub scheme: Scheme,
    /// The host name or IP address (IPv6 without brackets).
    pub host: String,
    /// The port (the scheme's default when the URL has none: 4222, 80 or 443).
    pub port: u16,
    /// Path for WebSocket URLs (`/` when missing).
    pub path: String,
    /// The user from the URL (`user:pass@host`), if any.
    pub user: Option<String>,
    /// The password from the URL, if any.
    pub pass: Option<String>,
}

impl ServerAddr {
    /// Parses `[scheme://][user[:pass]@]host[:port][/path]`; IPv6 hosts go in brackets.
    pub fn parse(url: &str) -> Result<Self, Error> {
        let bad = |why: &str| Error::InvalidArgument(format!("server url {:?}: {why}", redact_url(url)));
        let url = url.trim();
        let (scheme, rest) = match url.split_once("://") {
            Some((s, rest)) => {
                let scheme = match s.to_ascii_lowercase().as_str() {
                    "nats" => Scheme::Nats,
                    "tls" => Scheme::Tls,
                    "ws" => Scheme::Ws,
                    "wss" => Scheme::Wss,
                    _ => return Err(bad("unknown scheme")),
                };
                (scheme, rest)
            }
            None => (Scheme::Nats, url),
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (user, pass) = match userinfo {
            Some(u) => match u.split_once(':') {
                Some((user, pass)) => (Some(user.to_string()), Some(pass.to_string())),
                None => (Some(u.to_string()), None),
            },
            None => (None, None),
        };
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let (host, after) = v6.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
            let port = match after.strip_prefix(':') {
                Some(p) => Some(p),
                None if after.is_empty() => None,
                None => return Err(bad("junk after ']'")),
            };
            (host, port)
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        if host.is_empty() {
            return Err(bad("missing host"));
        }
        if host.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
            return Err(bad("whitespace in host"));
        }
        let port = match port {
            Some(p) => p.parse::<u16>().map_err(|_| bad("bad port"))?,
            None => scheme.default_port(),
        };
        Ok(ServerAddr { scheme, host: host.to_string(), port, path: path.to_string(), user, pass })
    }

    /// `host:port`, with brackets around IPv6 hosts, as sockets want it.
    pub fn host_port(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The URL without credentials, for WebSocket requests and logs.
    pub fn url_without_credentials(&self) -> String {
        let path = if self.scheme.is_websocket() { self.path.as_str() } else { "" };
        format!("{}://{}{}", self.scheme.as_str(), self.host_port(), path)
    }

    /// async-nats's readers of a server address (natsjet also has the fields).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The scheme, as written in URLs (`nats`, `tls`, `ws`, `wss`).
    pub fn scheme(&self) -> &str {
        self.scheme.as_str()
    }

    /// Whether the address is a WebSocket one (`ws://`, `wss://`).
    pub fn is_websocket(&self) -> bool {
        self.scheme.is_websocket()
    }

    /// Whether the URL asks for TLS (`tls://` or `wss://`).
    pub fn tls_required(&self) -> bool {
        matches!(self.scheme, Scheme::Tls | Scheme::Wss)
    }

    /// Whether the URL carries a user (and maybe a password).
    pub fn has_user_pass(&self) -> bool {
        self.user.is_some()
    }

    /// The user from the URL.
    pub fn username(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// The password from the URL.
    pub fn password(&self) -> Option<&str> {
        self.pass.as_deref()
    }

    /// Whether two addresses name the same endpoint (credentials aside).
    pub fn same_endpoint(&self, other: &ServerAddr) -> bool {
        self.scheme == other.scheme && self.host == other.host && self.port == other.port
    }
}

/// `"demo.nats.io".parse::<ServerAddr>()`, as async-nats programs write it.
impl std::str::FromStr for ServerAddr {
    type Err = Error;
    fn from_str(url: &str) -> Result<Self, Error> {
        ServerAddr::parse(url)
    }
}

fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}<redacted>{}", &url[..s + 3], &url[at..]),
        (None, Some(at)) => format!("<redacted>{}", &url[at..]),
        _ => url.to_string(),
    }
}

impl fmt::Display for ServerAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url_without_credentials())
    }
}

impl fmt::Debug for ServerAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServerAddr({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn parses_defaults_and_schemes() {
        let a: ServerAddr = "nats://u:p@localhost".parse().unwrap();
        assert_eq!((a.scheme(), a.host(), a.port(), a.tls_required()), ("nats", "localhost", 4222, false));
        assert_eq!((a.username(), a.password(), a.has_user_pass()), (Some("u"), Some("p"), true));
        let a = ServerAddr::parse("localhost").unwrap();
        assert_eq!((a.scheme, a.host.as_str(), a.port), (Scheme::Nats, "localhost", 4222));
        let a = ServerAddr::parse("tls://h:5").unwrap();
        assert_eq!((a.scheme, a.port), (Scheme::Tls, 5));
        let a = ServerAddr::parse("wss://h/ws").unwrap();
        assert_eq!((a.scheme, a.port, a.path.as_str()), (Scheme::Wss, 443, "/ws"));
        let a = ServerAddr::parse("nats://[::1]:4333").unwrap();
        assert_eq!((a.host.as_str(), a.port), ("::1", 4333));
        assert_eq!(a.host_port(), "[::1]:4333");
    }

    #[test]
    fn credentials_are_kept_but_never_shown() {
        let a = ServerAddr::parse("nats://bob:s3cret@h:4222").unwrap();
        assert_eq!(a.user.as_deref(), Some("bob"));
        assert_eq!(a.pass.as_deref(), Some("s3cret"));
        assert!(!format!("{a:?} {a}").contains("s3cret"));
        let e = ServerAddr::parse("nats://bob:s3cret@h:notaport").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }

    #[test]
    fn refuses_garbage() {
        for u in ["", "ftp://h", "nats://:4222", "h:99999", "nats://h h:1", "[::1"] {
            assert!(ServerAddr::parse(u).is_err(), "{u:?}");
        }
    }
}
