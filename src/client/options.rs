//! [`ConnectOptions`] and the server list it connects to.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::core::addr::ServerAddr;
use crate::core::conn::{self, Auth, AuthCallback, AuthFn};
use crate::core::error::{Error, SortCause};
use crate::driver::shared::{EventCallback, Shared};
use crate::driver::task::{Callbacks, ChooseServer, Driver, LinkOptions, READ_CHUNK};
use crate::driver::{BoxFuture, DefaultRuntime, Runtime};
use crate::transport::TlsOptions;

use super::{Client, ClientRef};
use super::{ConnectError, ConnectErrorKind, ConnectionEvent, Event};

/// Anything that names one or more servers: `"nats://a:4222,nats://b:4222"`,
/// a `Vec` or slice of URLs, or [`ServerAddr`]s.
pub trait IntoServerAddrs {
    /// The server addresses, parsed.
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
    pub(super) config: conn::Config,
    tls: TlsOptions,
    read_buffer_capacity: usize,
    #[cfg(not(target_arch = "wasm32"))]
    local_address: Option<std::net::SocketAddr>,
    callback: Option<EventCallback>,
    async_callback: Option<AsyncEventCallback>,
    /// The async auth and reconnect-to-server callbacks.
    pub(super) callbacks: Callbacks,
    /// Root and client certificate files, read when connecting (async-nats's options).
    #[cfg(not(target_arch = "wasm32"))]
    tls_files: TlsFiles,
    request_timeout: Option<Duration>,
    subscription_capacity: usize,
    subscription_capacity_bytes: usize,
}

/// An async-nats event callback: the future it returns for an event is
/// awaited before the next event's, in a task of its own.
#[cfg(not(target_arch = "wasm32"))]
type AsyncEventCallback = Arc<dyn Fn(Event) -> BoxFuture<()> + Send + Sync>;
#[cfg(target_arch = "wasm32")]
type AsyncEventCallback = Arc<dyn Fn(Event) -> BoxFuture<()>>;

#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Default)]
struct TlsFiles {
    roots: Vec<std::path::PathBuf>,
    client: Option<(std::path::PathBuf, std::path::PathBuf)>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            config: conn::Config::default(),
            tls: TlsOptions::default(),
            read_buffer_capacity: READ_CHUNK,
            #[cfg(not(target_arch = "wasm32"))]
            local_address: None,
            callback: None,
            async_callback: None,
            callbacks: Callbacks::default(),
            #[cfg(not(target_arch = "wasm32"))]
            tls_files: TlsFiles::default(),
            request_timeout: Some(Duration::from_secs(10)),
            subscription_capacity: 65_536,
            subscription_capacity_bytes: 64 * 1024 * 1024,
        }
    }
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("config", &self.config)
            .field("tls", &self.tls)
            .field("read_buffer_capacity", &self.read_buffer_capacity)
            .field("request_timeout", &self.request_timeout)
            .field("subscription_capacity", &self.subscription_capacity)
            .field("subscription_capacity_bytes", &self.subscription_capacity_bytes)
            .finish_non_exhaustive()
    }
}

impl ConnectOptions {
    /// The defaults (async-nats's): no credentials, a 10 s request timeout, reconnects without end.
    pub fn new() -> Self {
        Self::default()
    }

    /// Client name, shown by the server's monitoring.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = Some(name.into());
        self
    }

    /// Options that authenticate with `token`.
    pub fn with_token(token: String) -> Self {
        Self::new().token(token)
    }

    /// Options that authenticate with a user and password.
    pub fn with_user_and_password(user: String, password: String) -> Self {
        Self::new().user_and_password(user, password)
    }

    /// Options that authenticate with an nkey seed.
    pub fn with_nkey(seed: String) -> Self {
        Self::new().nkey(seed)
    }

    /// Options that authenticate with the contents of a `.creds` file.
    pub fn with_credentials(contents: &str) -> Result<Self, Error> {
        Self::new().credentials(contents)
    }

    /// Authenticates with `token`.
    pub fn token(mut self, token: String) -> Self {
        self.config.auth.token = Some(token);
        self
    }

    /// Authenticates with a user and password.
    pub fn user_and_password(mut self, user: String, password: String) -> Self {
        self.config.auth.user = Some(user);
        self.config.auth.password = Some(password);
        self
    }

    /// Authenticates with an nkey seed (`SU…`), signing the server's nonce.
    pub fn nkey(mut self, seed: String) -> Self {
        self.config.auth.nkey_seed = Some(seed);
        self
    }

    /// Authenticates with the contents of a `.creds` file (user JWT + seed).
    pub fn credentials(mut self, contents: &str) -> Result<Self, Error> {
        let creds = Auth::from_credentials(contents)?;
        self.config.auth.jwt = creds.jwt;
        self.config.auth.nkey_seed = creds.nkey_seed;
        Ok(self)
    }

    /// The wait before each reconnect attempt, from the attempts since the
    /// last connection (1 for the first), instead of the reconnect delay and
    /// jitter. Called in the driver between attempts: keep it a computation.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reconnect_delay_callback(mut self, callback: impl Fn(usize) -> Duration + Send + Sync + 'static) -> Self {
        self.config.reconnect_delay_callback = Some(conn::ReconnectDelay(Arc::new(callback)));
        self
    }

    /// nats.js's `reconnectDelayHandler`: the wait before trying a server
    /// again, counted from its last attempt.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn reconnect_delay_per_server(mut self, callback: impl Fn(usize) -> Duration + 'static) -> Self {
        self.config.reconnect_delay_callback = Some(conn::ReconnectDelay(Arc::new(callback)));
        self.config.reconnect_delay_per_server = true;
        self
    }

    /// Picks the server of each attempt from the pool (and the last
    /// server's INFO; a default one before the first connection), and how
    /// long to wait before trying it; `None` (or a server outside the pool)
    /// keeps the usual order and delay.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn reconnect_to_server_callback<F, Fut>(self, callback: F) -> Self
    where
        F: Fn(Vec<crate::Server>, crate::ServerInfo) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<crate::ReconnectToServer>> + Send + 'static,
    {
        let callback = Arc::new(callback);
        self.choose_server(Arc::new(move |choice| {
            let callback = callback.clone();
            Box::pin(async move { Ok(callback(choice.servers, choice.info.unwrap_or_default()).await) })
        }))
    }

    /// The driver asks `choose` which server each attempt goes to.
    pub(crate) fn choose_server(mut self, choose: ChooseServer) -> Self {
        self.config.choose_server = true;
        self.callbacks.choose_server = Some(choose);
        self
    }

    /// Answers the server's nonce with `callback` on every (re)connect, e.g.
    /// to sign it with a key kept elsewhere; what it returns wins over the
    /// other credentials. An error from it closes the connection.
    pub fn auth_callback(mut self, callback: impl AuthFn) -> Self {
        self.config.auth.callback = Some(AuthCallback(Arc::new(callback)));
        self
    }

    /// Options that authenticate with the `.creds` file at `path` (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn with_credentials_file(path: impl AsRef<std::path::Path>) -> Result<Self, Error> {
        Self::new().credentials_file(path).await
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

    /// Trusts the CA certificates in this PEM file, read when connecting.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn add_root_certificates(mut self, path: std::path::PathBuf) -> Self {
        self.tls_files.roots.push(path);
        self
    }

    /// Presents this client certificate chain and key (PEM files, read when connecting).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn add_client_certificate(mut self, cert: std::path::PathBuf, key: std::path::PathBuf) -> Self {
        self.tls_files.client = Some((cert, key));
        self
    }

    /// Uses `config` for the TLS handshake as it is (async-nats's call;
    /// [`TlsOptions::client_config`] under natsjet's options): roots and
    /// client certificates given elsewhere are then not read. Build it with
    /// the rustls this crate re-exports, [`crate::rustls`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn tls_client_config(mut self, config: crate::rustls::ClientConfig) -> Self {
        self.tls = std::mem::take(&mut self.tls).client_config(Arc::new(config));
        self
    }

    /// Binds the TCP socket to `address` before connecting: the network
    /// interface (its IP) and, unless the port is 0, the local port every
    /// connection and reconnection comes from. Unlike async-nats, which
    /// binds only `nats://` and `tls://` sockets, `ws://` and `wss://` ones
    /// are bound too. Only the server's addresses of `address`'s family
    /// (IPv4 or IPv6) are tried; an address that cannot be bound fails the
    /// attempt with [`ConnectErrorKind::Io`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn local_address(mut self, address: std::net::SocketAddr) -> Self {
        self.local_address = Some(address);
        self
    }

    /// The room each read from the server gets (default 64 KiB, at least
    /// 64 bytes): the read buffer starts with this capacity and gets as much
    /// again when less than a quarter of it is left. A message larger than
    /// this still arrives whole: the buffer makes room for exactly the rest
    /// of a message under way. Smaller means less memory per connection and
    /// more reads for the same bytes.
    pub fn read_buffer_capacity(mut self, size: u16) -> Self {
        self.read_buffer_capacity = usize::from(size);
        self
    }

    /// async-nats bounds its command channel with this (default 2048
    /// commands): past it, calls wait for its connection task to take
    /// their commands. natsjet has no command channel: a call writes its
    /// command into the connection's outgoing buffer itself, under a lock,
    /// so no queue of commands forms and the capacity is not used. What the
    /// channel protects, memory in front of a connection that writes slower
    /// than the program publishes, is bounded in bytes there: async
    /// publishes wait while 4 MiB wait to be written (or
    /// [`outgoing_buffer_size`](Self::outgoing_buffer_size) if smaller),
    /// and [`Client::publish_nowait`] fails past `outgoing_buffer_size`.
    pub fn client_capacity(self, capacity: usize) -> Self {
        let _ = capacity;
        self
    }

    /// Publishes and requests check only what keeps the protocol line
    /// whole: a subject or reply that is empty or holds whitespace or a
    /// control character (a space would make the subject a reply, a CR/LF
    /// start a command of its own) is still refused with
    /// [`PublishErrorKind::InvalidSubject`](super::PublishErrorKind::InvalidSubject); empty tokens
    /// (`a..b`, `.a`, `a.`) are let through. Subscriptions and queue groups
    /// are checked in full whatever this says. async-nats checks publishes
    /// for whitespace only, and with this set only for emptiness; it never
    /// checks their tokens.
    pub fn skip_subject_validation(mut self, skip: bool) -> Self {
        self.config.skip_subject_validation = skip;
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

    /// How often a keep-alive PING goes out (default 2 minutes).
    pub fn ping_interval(mut self, interval: Duration) -> Self {
        self.config.ping_interval = interval;
        self
    }

    /// Unanswered keep-alive PINGs after which the connection counts as
    /// stale, unless server bytes arrived in the last interval: on a slow
    /// link the PONGs wait behind what it still carries, and the link is alive.
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

    /// Bytes waiting to be written past which a publish that does not
    /// wait ([`Client::publish_nowait`](crate::Client::publish_nowait),
    /// JavaScript's `publish`) fails with
    /// [`Error::OutgoingBufferFull`](crate::Error::OutgoingBufferFull)
    /// (default 64 MiB: well inside wasm32's 4 GiB, and more than a second
    /// of writing on a fast link). Async publishes wait at 4 MiB, or at
    /// this bound if it is smaller.
    pub fn outgoing_buffer_size(mut self, bytes: usize) -> Self {
        self.config.outgoing_buffer_size = bytes;
        self
    }

    /// The server's `max_control_line`, if it was raised from its default
    /// of 4096 bytes (the server does not announce it): subjects, replies
    /// and queue groups that would not fit are refused before writing.
    pub fn max_control_line(mut self, bytes: usize) -> Self {
        self.config.max_control_line = bytes;
        self
    }

    /// Try servers in the given order instead of shuffling them.
    pub fn dont_randomize(mut self) -> Self {
        self.config.randomize = false;
        self
    }

    /// The async-nats name of [`dont_randomize`](Self::dont_randomize).
    pub fn retain_servers_order(self) -> Self {
        self.dont_randomize()
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

    /// The prefix of inbox subjects (default `_INBOX`), for accounts whose permissions allow another.
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

    /// Bytes (subject, headers and payload) a subscriber may have waiting
    /// before new messages are dropped and a [`Event::SlowConsumer`] is
    /// reported (default 64 MiB, nats.go's pending bytes limit): with large
    /// messages this bound comes before [`subscription_capacity`](Self::subscription_capacity)'s.
    /// Push consumers' readers have the same bounds.
    pub fn subscription_capacity_bytes(mut self, bytes: usize) -> Self {
        self.subscription_capacity_bytes = bytes;
        self
    }

    /// Called from the driver task, in order, on every connection event
    /// with its server and cause (natsjet's finer [`ConnectionEvent`]):
    /// nothing waits in between, so keep it short (a channel send).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_event(mut self, callback: impl Fn(ConnectionEvent) + Send + Sync + 'static) -> Self {
        self.callback = Some(Arc::new(callback));
        self
    }

    /// Called from the driver task, in order, on every connection event
    /// with its server and cause (natsjet's finer [`ConnectionEvent`]):
    /// nothing waits in between, so keep it short (a channel send).
    #[cfg(target_arch = "wasm32")]
    pub fn on_event(mut self, callback: impl Fn(ConnectionEvent) + 'static) -> Self {
        self.callback = Some(Arc::new(callback));
        self
    }

    /// async-nats's event callback, with async-nats's [`Event`]: the future
    /// `callback` returns for an event runs in a task of its own, each to
    /// its end before the next event's, so a slow one holds back only later
    /// events.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn event_callback<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(Event) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.async_callback = Some(Arc::new(move |event| Box::pin(callback(event))));
        self
    }

    /// async-nats's event callback, with async-nats's [`Event`]: the future
    /// `callback` returns for an event runs in a task of its own, each to
    /// its end before the next event's, so a slow one holds back only later
    /// events.
    #[cfg(target_arch = "wasm32")]
    pub fn event_callback<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(Event) -> Fut + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        self.async_callback = Some(Arc::new(move |event| Box::pin(callback(event))));
        self
    }

    /// The driver's callback: [`on_event`](Self::on_event)'s, and a
    /// channel to a task spawned now that awaits `event_callback`'s futures.
    fn events<R: Runtime>(&mut self) -> Option<EventCallback> {
        let Some(callback) = self.async_callback.take() else {
            return self.callback.take();
        };
        let (tx, mut rx) = futures_channel::mpsc::unbounded::<Event>();
        R::spawn(async move {
            use futures_util::StreamExt;
            while let Some(event) = rx.next().await {
                callback(event).await;
            }
        });
        let listener = self.callback.take();
        Some(Arc::new(move |event: ConnectionEvent| {
            for event in Event::from_connection(&event) {
                let _ = tx.unbounded_send(event);
            }
            if let Some(listener) = &listener {
                listener(event);
            }
        }))
    }

    /// Reads the certificate files given by path into the TLS options.
    #[cfg(not(target_arch = "wasm32"))]
    fn read_tls_files(&mut self) -> Result<(), Error> {
        let files = std::mem::take(&mut self.tls_files);
        for root in files.roots {
            self.tls = std::mem::take(&mut self.tls).add_root_certificates_file(root)?;
        }
        if let Some((cert, key)) = files.client {
            self.tls = std::mem::take(&mut self.tls).client_auth_files(cert, key)?;
        }
        Ok(())
    }

    /// Connects; returns once the first handshake succeeded (or at once with
    /// `retry_on_initial_connect`).
    pub async fn connect(self, servers: impl IntoServerAddrs) -> Result<Client, ConnectError> {
        self.connect_with::<DefaultRuntime>(servers).await.map_err(ConnectErrorKind::error)
    }

    // In wasm the shared state holds JS callbacks (not Send); there is one thread.
    #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
    pub(crate) async fn connect_with<R: Runtime>(mut self, servers: impl IntoServerAddrs) -> Result<Client, Error> {
        self.config.servers = servers.into_server_addrs()?;
        #[cfg(not(target_arch = "wasm32"))]
        self.read_tls_files()?;
        let retry = self.config.retry_on_initial_connect;
        let skip_subject_validation = self.config.skip_subject_validation;
        let seed = getrandom::u64().map_err(|e| Error::InvalidArgument(format!("no entropy source: {e}")))?;
        let events = self.events::<R>();
        let link = LinkOptions {
            tls: self.tls,
            connect_timeout: self.config.connect_timeout,
            read_chunk: self.read_buffer_capacity,
            #[cfg(not(target_arch = "wasm32"))]
            local_address: self.local_address,
        };
        let conn = conn::Connection::new(self.config, R::now(), seed)?;
        let (shared, first_connect) = Shared::new(conn, events);
        R::spawn(Driver::<R>::new(shared.clone(), link, self.callbacks));
        let client = Client {
            inner: Arc::new(ClientRef {
                shared,
                now: R::now,
                request_timeout: self.request_timeout,
                subscription_capacity: self.subscription_capacity,
                subscription_capacity_bytes: self.subscription_capacity_bytes,
                skip_subject_validation,
            }),
        };
        if !retry {
            first_connect.await.unwrap_or(Err(Error::Closed))?;
        }
        Ok(client)
    }
}
