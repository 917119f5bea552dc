//! [`ConnectOptions`] and the server list it connects to.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::addr::ServerAddr;
use crate::conn::{self, Auth, AuthCallback, AuthFn};
use crate::driver::shared::{EventCallback, Shared};
use crate::driver::task::Driver;
use crate::driver::{DefaultRuntime, Runtime};
use crate::error::Error;
use crate::transport::TlsOptions;

use super::Event;
use super::{Client, ClientRef};

/// Anything that names one or more servers: `"nats://a:4222,nats://b:4222"`,
/// a `Vec` or slice of URLs, or [`ServerAddr`]s.
pub trait IntoServerAddrs {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error>;
}

impl IntoServerAddrs for &str {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.split(',').filter(|s| !s.trim().is_empty()).map(ServerAddr::parse).collect()
    }
}

impl IntoServerAddrs for String {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.as_str().into_server_addrs()
    }
}

impl IntoServerAddrs for &String {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.as_str().into_server_addrs()
    }
}

impl IntoServerAddrs for ServerAddr {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        Ok(vec![self])
    }
}

impl IntoServerAddrs for Vec<ServerAddr> {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        Ok(self)
    }
}

impl<S: AsRef<str>> IntoServerAddrs for &[S] {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.iter().map(|s| ServerAddr::parse(s.as_ref())).collect()
    }
}

impl<S: AsRef<str>> IntoServerAddrs for Vec<S> {
    fn into_server_addrs(self) -> Result<Vec<ServerAddr>, Error> {
        self.as_slice().into_server_addrs()
    }
}

/// Options for [`ConnectOptions::connect`]. Secrets never appear in `Debug`.
#[derive(Clone)]
pub struct ConnectOptions {
    config: conn::Config,
    tls: TlsOptions,
    callback: Option<EventCallback>,
    request_timeout: Option<Duration>,
    subscription_capacity: usize,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            config: conn::Config::default(),
            tls: TlsOptions::default(),
            callback: None,
            request_timeout: Some(Duration::from_secs(10)),
            subscription_capacity: 65_536,
        }
    }
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("config", &self.config)
            .field("tls", &self.tls)
            .field("request_timeout", &self.request_timeout)
            .field("subscription_capacity", &self.subscription_capacity)
            .finish_non_exhaustive()
    }
}

impl ConnectOptions {
    pub fn new() -> Self {
        Self::default()
    }

    /// Client name, shown by the server's monitoring.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = Some(name.into());
        self
    }

    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.config.auth.token = Some(token.into());
        self
    }

    pub fn user_and_password(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.config.auth.user = Some(user.into());
        self.config.auth.password = Some(password.into());
        self
    }

    /// Authenticates with an nkey seed (`SU…`), signing the server's nonce.
    pub fn nkey(mut self, seed: impl Into<String>) -> Self {
        self.config.auth.nkey_seed = Some(seed.into());
        self
    }

    /// Authenticates with the contents of a `.creds` file (user JWT + seed).
    pub fn credentials(mut self, contents: &str) -> Result<Self, Error> {
        let creds = Auth::from_credentials(contents)?;
        self.config.auth.jwt = creds.jwt;
        self.config.auth.nkey_seed = creds.nkey_seed;
        Ok(self)
    }

    /// Answers the server's nonce with `callback` on every (re)connect, e.g.
    /// to sign it with a key kept elsewhere; what it returns wins over the
    /// other credentials. An error from it closes the connection.
    pub fn auth_callback(mut self, callback: impl AuthFn) -> Self {
        self.config.auth.callback = Some(AuthCallback(Arc::new(callback)));
        self
    }

    /// Reads a `.creds` file (native only; in wasm pass the contents to
    /// [`ConnectOptions::credentials`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn credentials_file(self, path: impl AsRef<std::path::Path>) -> Result<Self, Error> {
        let contents = tokio::fs::read_to_string(path.as_ref())
            .await
            .map_err(|e| Error::Credentials(format!("cannot read {}: {e}", path.as_ref().display())))?;
        self.credentials(&contents)
    }

    /// TLS settings: roots, client certificate, or a whole rustls config.
    pub fn tls(mut self, tls: TlsOptions) -> Self {
        self.tls = tls;
        self
    }

    /// Requires TLS even on `nats://` URLs.
    pub fn require_tls(mut self, required: bool) -> Self {
        self.config.tls_required = required;
        self
    }

    /// Starts TLS before the server's INFO, as servers configured with
    /// `handshake_first` expect (async-nats's `tls_first`); any URL but
    /// WebSocket ones.
    pub fn tls_first(mut self) -> Self {
        self.config.tls_first = true;
        self
    }

    pub fn ping_interval(mut self, interval: Duration) -> Self {
        self.config.ping_interval = interval;
        self
    }

    /// Unanswered keep-alive PINGs after which the connection counts as stale.
    pub fn max_pings_outstanding(mut self, max: u32) -> Self {
        self.config.max_pings_outstanding = max;
        self
    }

    /// Time allowed from opening a transport to the end of the handshake.
    pub fn connection_timeout(mut self, timeout: Duration) -> Self {
        self.config.connect_timeout = timeout;
        self
    }

    /// Reconnect attempts per server before it is dropped; `None` = forever.
    pub fn max_reconnects(mut self, max: impl Into<Option<usize>>) -> Self {
        self.config.max_reconnects = max.into();
        self
    }

    /// Base wait between attempts on one server, plus random jitter up to `jitter`.
    pub fn reconnect_delay(mut self, delay: Duration, jitter: Duration) -> Self {
        self.config.reconnect_delay = delay;
        self.config.reconnect_jitter = jitter;
        self
    }

    /// Keep retrying when the first connection fails (`connect` then returns at once).
    pub fn retry_on_initial_connect(mut self) -> Self {
        self.config.retry_on_initial_connect = true;
        self
    }

    /// Keep trying until the first connection succeeds, however many
    /// attempts that takes, and return then: `max_reconnects` counts only
    /// the attempts after it (nats.js's `waitOnFirstConnect`).
    pub fn wait_on_first_connect(mut self) -> Self {
        self.config.wait_on_first_connect = true;
        self
    }

    /// Bytes of publishes kept while reconnecting; past that, publish fails.
    pub fn reconnect_buffer_size(mut self, bytes: usize) -> Self {
        self.config.reconnect_buffer_size = bytes;
        self
    }

    /// Try servers in the given order instead of shuffling them.
    pub fn dont_randomize(mut self) -> Self {
        self.config.randomize = false;
        self
    }

    /// Ignore servers announced by the cluster.
    pub fn ignore_discovered_servers(mut self) -> Self {
        self.config.discover_servers = false;
        self
    }

    /// Don't receive messages this connection publishes.
    pub fn no_echo(mut self) -> Self {
        self.config.echo = false;
        self
    }

    pub fn custom_inbox_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.config.inbox_prefix = prefix.into();
        self
    }

    /// Default timeout of [`Client::request`]; `None` waits forever.
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Messages a subscriber may have waiting before new ones are dropped
    /// and a [`Event::SlowConsumer`] is reported.
    pub fn subscription_capacity(mut self, capacity: usize) -> Self {
        self.subscription_capacity = capacity;
        self
    }

    /// Called (from the driver task, keep it short) on every connection event.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn event_callback(mut self, callback: impl Fn(Event) + Send + Sync + 'static) -> Self {
        self.callback = Some(Arc::new(callback));
        self
    }

    /// Called (from the driver task, keep it short) on every connection event.
    #[cfg(target_arch = "wasm32")]
    pub fn event_callback(mut self, callback: impl Fn(Event) + 'static) -> Self {
        self.callback = Some(Arc::new(callback));
        self
    }

    /// Connects; returns once the first handshake succeeded (or at once with
    /// `retry_on_initial_connect`).
    pub async fn connect(self, servers: impl IntoServerAddrs) -> Result<Client, Error> {
        self.connect_with::<DefaultRuntime>(servers).await
    }

    // In wasm the shared state holds JS callbacks (not Send); there is one thread.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    pub(crate) async fn connect_with<R: Runtime>(mut self, servers: impl IntoServerAddrs) -> Result<Client, Error> {
        self.config.servers = servers.into_server_addrs()?;
        let retry = self.config.retry_on_initial_connect;
        let connect_timeout = self.config.connect_timeout;
        let seed = getrandom::u64().map_err(|e| Error::InvalidArgument(format!("no entropy source: {e}")))?;
        let conn = conn::Connection::new(self.config, R::now(), seed)?;
        let (shared, first_connect) = Shared::new(conn, self.callback);
        R::spawn(Driver::<R>::new(shared.clone(), self.tls, connect_timeout));
        let client = Client {
            inner: Arc::new(ClientRef {
                shared,
                now: R::now,
                request_timeout: self.request_timeout,
                subscription_capacity: self.subscription_capacity,
            }),
        };
        if !retry {
            first_connect.await.unwrap_or(Err(Error::Closed))?;
        }
        Ok(client)
    }
}
