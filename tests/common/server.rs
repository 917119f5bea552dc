//! One `nats-server` process: builder, config file, start-up, ports,
//! stop/kill/restart, and clean-up on drop.

use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use super::auth::{Auth, AuthMaterial, CredsUser, q};
use super::http::http_get;
use super::tls::{Tls, TlsFiles};

const START_TIMEOUT: Duration = Duration::from_secs(10);
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// Builder for a [`NatsServer`]. Every option is off by default; a plain
/// server listens on a random 127.0.0.1 port with monitoring on another.
#[derive(Clone, Debug, Default)]
pub struct NatsServerBuilder {
    jetstream: bool,
    jetstream_extra: String,
    websocket: bool,
    tls: Option<Tls>,
    auth: Option<Auth>,
    extra: String,
    server_name: Option<String>,
    cluster: Option<ClusterSpec>,
}

/// Route set-up of one cluster node (used by `NatsCluster`).
#[derive(Clone, Debug)]
pub(crate) struct ClusterSpec {
    pub name: String,
    pub port: u16,
    pub routes: Vec<u16>,
}

impl NatsServerBuilder {
    /// Enables JetStream with a store dir inside the server's temp dir.
    pub fn jetstream(mut self) -> Self {
        self.jetstream = true;
        self
    }
    /// Enables JetStream with `lines` inside its block (`limits { batch { timeout: "1s" } }`).
    pub fn jetstream_with(mut self, lines: &str) -> Self {
        self.jetstream_extra.push_str(lines);
        self.jetstream()
    }
    /// Adds a WebSocket listener on a random port (`ws://`, or `wss://` with [`tls`](Self::tls)).
    pub fn websocket(mut self) -> Self {
        self.websocket = true;
        self
    }
    /// Requires TLS on the client port (and the WebSocket port) with a generated PKI.
    pub fn tls(mut self, mode: Tls) -> Self {
        self.tls = Some(mode);
        self
    }
    /// Requires clients to authenticate.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = Some(auth);
        self
    }
    /// Appends raw lines to the generated config (nats-server config syntax).
    pub fn config_extra(mut self, extra: &str) -> Self {
        self.extra.push_str(extra);
        self.extra.push('\n');
        self
    }
    /// Sets `server_name` (default `natsjet-test`).
    pub fn server_name(mut self, name: &str) -> Self {
        self.server_name = Some(name.to_string());
        self
    }
    pub(crate) fn cluster(mut self, spec: ClusterSpec) -> Self {
        self.cluster = Some(spec);
        self
    }

    /// Writes the config, starts the server and waits until it listens.
    /// Panics (after printing the server log's tail) if it does not come up.
    pub fn start(self) -> NatsServer {
        self.try_start().unwrap_or_else(|e| panic!("nats-server failed to start: {e}"))
    }

    /// Like [`start`](Self::start) but returns the start-up error (after
    /// printing the server log's tail) instead of panicking.
    pub fn try_start(self) -> Result<NatsServer, String> {
        let dir = tempfile::Builder::new()
            .prefix("natsjet-server-")
            .tempdir()
            .map_err(|e| format!("create server temp dir: {e}"))?;
        let tls = self.tls.map(|mode| TlsFiles::generate(&dir.path().join("tls"), mode.server_names()));
        let auth = self.auth.as_ref().map(|a| AuthMaterial::generate(a, self.jetstream, dir.path()));
        let mut server = NatsServer {
            config_path: dir.path().join("nats-server.conf"),
            log_path: dir.path().join("nats-server.log"),
            store_dir: dir.path().join("js"),
            dir,
            opts: self,
            tls,
            auth,
            child: None,
            ports: None,
        };
        match server.spawn() {
            Ok(()) => Ok(server),
            Err(e) => {
                server.report_start_failure(&e);
                Err(e)
            }
        }
    }
}

/// Ports the server chose at first start; reused on restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ports {
    client: u16,
    websocket: Option<u16>,
    monitoring: u16,
}

/// A running (or stopped) `nats-server` with its own temp dir. Dropping it
/// kills the process and deletes the dir.
pub struct NatsServer {
    dir: TempDir,
    config_path: PathBuf,
    log_path: PathBuf,
    store_dir: PathBuf,
    opts: NatsServerBuilder,
    tls: Option<TlsFiles>,
    auth: Option<AuthMaterial>,
    child: Option<Child>,
    ports: Option<Ports>,
}

impl NatsServer {
    pub fn builder() -> NatsServerBuilder {
        NatsServerBuilder::default()
    }

    /// A plain server (no JetStream, no auth).
    pub fn start() -> NatsServer {
        Self::builder().start()
    }

    /// A JetStream-enabled server.
    pub fn start_jetstream() -> NatsServer {
        Self::builder().jetstream().start()
    }

    // ---- addresses -------------------------------------------------------

    fn ports(&self) -> Ports {
        self.ports.expect("server has started")
    }

    /// Client port on 127.0.0.1 (stable across restarts).
    pub fn port(&self) -> u16 {
        self.ports().client
    }
    /// `nats://127.0.0.1:<port>` (also for TLS servers: TLS is negotiated after INFO).
    pub fn client_url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port())
    }
    /// `tls://127.0.0.1:<port>`.
    pub fn tls_url(&self) -> String {
        format!("tls://127.0.0.1:{}", self.port())
    }
    /// WebSocket port; panics unless built with `.websocket()`.
    pub fn websocket_port(&self) -> u16 {
        self.ports().websocket.expect("server was not built with .websocket()")
    }
    /// `ws://127.0.0.1:<port>` (`wss://` when the server has TLS).
    pub fn websocket_url(&self) -> String {
        let scheme = if self.tls.is_some() { "wss" } else { "ws" };
        format!("{scheme}://127.0.0.1:{}", self.websocket_port())
    }
    /// Monitoring (HTTP) port.
    pub fn monitoring_port(&self) -> u16 {
        self.ports().monitoring
    }
    /// `http://127.0.0.1:<port>`.
    pub fn monitoring_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.monitoring_port())
    }
    /// GET a monitoring endpoint, e.g. `/connz`, `/jsz`, `/healthz`.
    pub fn http_get(&self, path: &str) -> Result<(u16, String), String> {
        http_get(self.monitoring_port(), path)
    }
    /// GET a monitoring endpoint that must answer 200 with JSON.
    pub fn monitor_json(&self, path: &str) -> serde_json::Value {
        let (status, body) = self.http_get(path).unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
    }

    // ---- files -----------------------------------------------------------

    /// The server's temp dir (config, log, ports file, store, TLS, creds).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }
    /// JetStream store dir (kept across restarts).
    pub fn store_dir(&self) -> &Path {
        &self.store_dir
    }
    /// Last `lines` lines of the server log.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = fs::read_to_string(&self.log_path).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    // ---- TLS and auth material --------------------------------------------

    /// The generated PKI; panics unless built with `.tls(..)`.
    pub fn tls_files(&self) -> &TlsFiles {
        self.tls.as_ref().expect("server was not built with .tls(..)")
    }
    pub fn token(&self) -> &str {
        match &self.auth {
            Some(AuthMaterial::Token(t)) => t,
            _ => panic!("server was not built with Auth::Token"),
        }
    }
    /// (user, password)
    pub fn user_password(&self) -> (&str, &str) {
        match &self.auth {
            Some(AuthMaterial::UserPassword { user, password }) => (user, password),
            _ => panic!("server was not built with Auth::UserPassword"),
        }
    }
    /// Seed (`SU...`) of the nkey user.
    pub fn nkey_seed(&self) -> String {
        match &self.auth {
            Some(AuthMaterial::NKey { user }) => user.seed().expect("nkey seed"),
            _ => panic!("server was not built with Auth::NKey"),
        }
    }
    /// Public key (`U...`) of the nkey user.
    pub fn nkey_public_key(&self) -> String {
        match &self.auth {
            Some(AuthMaterial::NKey { user }) => user.public_key(),
            _ => panic!("server was not built with Auth::NKey"),
        }
    }
    /// The operator-mode user (JWT, seed, creds path).
    pub fn creds_user(&self) -> &CredsUser {
        match &self.auth {
            Some(AuthMaterial::Operator(op)) => &op.user,
            _ => panic!("server was not built with Auth::Creds"),
        }
    }
    /// Path of the user's `.creds` file.
    pub fn creds_path(&self) -> &Path {
        &self.creds_user().creds_path
    }
    /// Issues another user of the same account (own `.creds` file in the temp dir).
    pub fn issue_user(&self, name: &str) -> CredsUser {
        self.issue_user_expiring(name, None)
    }
    /// [`issue_user`](Self::issue_user) whose JWT expires at `exp` (Unix seconds).
    pub fn issue_user_expiring(&self, name: &str, exp: Option<u64>) -> CredsUser {
        match &self.auth {
            Some(AuthMaterial::Operator(op)) => op.issue_user_expiring(name, exp),
            _ => panic!("server was not built with Auth::Creds"),
        }
    }
    /// Public key of the operator-mode application account.
    pub fn account_public_key(&self) -> String {
        match &self.auth {
            Some(AuthMaterial::Operator(op)) => op.account.public_key(),
            _ => panic!("server was not built with Auth::Creds"),
        }
    }

    // ---- process control ---------------------------------------------------

    /// Process id of the running server.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("server is not running").id()
    }

    /// Pid of the process if it was started and not stopped/killed through
    /// this handle (it may still have exited on its own).
    pub fn running_pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// True while the process is alive.
    pub fn is_running(&mut self) -> bool {
        match &mut self.child {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// SIGKILL and wait: an abrupt crash (no lame duck, no flush).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM (graceful shutdown) and wait; SIGKILL after 10 s.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal(&child, libc::SIGTERM);
            let deadline = Instant::now() + STOP_TIMEOUT;
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGUSR2: enter lame-duck mode (clients get INFO `ldm: true`, then are closed).
    pub fn lame_duck(&self) {
        signal(self.child.as_ref().expect("server is not running"), libc::SIGUSR2);
    }

    /// SIGSTOP: the server keeps its sockets but answers nothing until
    /// [`resume`](Self::resume). Returns once every thread has stopped: the
    /// signal reaches the threads one after another, and on a busy machine
    /// one could still answer what is sent right after `kill`.
    pub fn pause(&self) {
        let child = self.child.as_ref().expect("server is not running");
        signal(child, libc::SIGSTOP);
        let tasks = format!("/proc/{}/task", child.id());
        let stopped = |tid: &std::fs::DirEntry| {
            let stat = std::fs::read_to_string(tid.path().join("stat")).unwrap_or_default();
            stat.rsplit(") ").next().is_some_and(|rest| rest.starts_with('T'))
        };
        while !std::fs::read_dir(&tasks).expect("the server's threads").flatten().all(|tid| stopped(&tid)) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// SIGCONT after [`pause`](Self::pause).
    pub fn resume(&self) {
        signal(self.child.as_ref().expect("server is not running"), libc::SIGCONT);
    }

    /// Stops the server if running (gracefully), then starts it again on the
    /// same ports with the same store dir, TLS files and auth material.
    pub fn restart(&mut self) {
        self.stop();
        self.respawn();
    }

    /// Like [`restart`](Self::restart) but kills instead of a graceful stop.
    pub fn kill_and_restart(&mut self) {
        self.kill();
        self.respawn();
    }

    // ---- internals -----------------------------------------------------------

    fn render_config(&self, fixed: Option<Ports>) -> String {
        let dir = self.dir.path();
        let mut c = String::new();
        let name = self.opts.server_name.as_deref().unwrap_or("natsjet-test");
        let port = |p: Option<u16>| p.map_or("-1".to_string(), |p| p.to_string());
        c += &format!("server_name: {}\n", q(name));
        c += &format!("listen: \"127.0.0.1:{}\"\n", port(fixed.map(|p| p.client)));
        c += &format!("http: \"127.0.0.1:{}\"\n", port(fixed.map(|p| p.monitoring)));
        c += &format!("ports_file_dir: {}\n", q(&dir.to_string_lossy()));
        if std::env::var_os("NATS_SERVER_TRACE").is_some_and(|v| v != "0" && !v.is_empty()) {
            c += "debug: true\ntrace: true\n";
        }
        if self.opts.jetstream {
            let extra = &self.opts.jetstream_extra;
            c += &format!("jetstream {{\n  store_dir: {}\n  {extra}\n}}\n", q(&self.store_dir.to_string_lossy()));
        }
        if let Some(files) = &self.tls {
            c += &format!(
                "tls {{\n  cert_file: {}\n  key_file: {}\n  ca_file: {}\n  verify: {}\n  handshake_first: {}\n  timeout: 5\n}}\n",
                q(&files.server_cert.to_string_lossy()),
                q(&files.server_key.to_string_lossy()),
                q(&files.ca_cert.to_string_lossy()),
                self.opts.tls == Some(Tls::Verify),
                self.opts.tls == Some(Tls::First),
            );
        }
        if self.opts.websocket {
            let listen = format!("127.0.0.1:{}", port(fixed.and_then(|p| p.websocket)));
            match &self.tls {
                None => c += &format!("websocket {{\n  listen: {}\n  no_tls: true\n}}\n", q(&listen)),
                Some(files) => {
                    c += &format!(
                        "websocket {{\n  listen: {}\n  tls {{\n    cert_file: {}\n    key_file: {}\n  }}\n}}\n",
                        q(&listen),
                        q(&files.server_cert.to_string_lossy()),
                        q(&files.server_key.to_string_lossy()),
                    )
                }
            }
        }
        if let Some(cl) = &self.opts.cluster {
            let routes: Vec<String> = cl.routes.iter().map(|p| format!("    \"nats-route://127.0.0.1:{p}\"")).collect();
            c += &format!(
                "cluster {{\n  name: {}\n  listen: \"127.0.0.1:{}\"\n  routes = [\n{}\n  ]\n}}\n",
                q(&cl.name),
                cl.port,
                routes.join("\n")
            );
        }
        if let Some(auth) = &self.auth {
            c += &auth.config();
        }
        c += &self.opts.extra;
        c
    }

    /// Starts a stopped or killed server again on the same ports and store.
    pub fn respawn(&mut self) {
        if let Err(e) = self.spawn() {
            self.report_start_failure(&e);
            panic!("nats-server failed to restart: {e}");
        }
    }

    fn report_start_failure(&self, e: &str) {
        eprintln!(
            "---- nats-server failed to start: {e}\n---- config {}:\n{}\n---- log tail {}:\n{}\n----",
            self.config_path.display(),
            fs::read_to_string(&self.config_path).unwrap_or_default(),
            self.log_path.display(),
            self.log_tail(40),
        );
    }

    /// Starts the process (on the remembered ports after the first start).
    fn spawn(&mut self) -> Result<(), String> {
        assert!(self.child.is_none(), "server already running");
        let fixed = self.ports;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let log_start = fs::metadata(&self.log_path).map_or(0, |m| m.len() as usize);
            match self.try_spawn(fixed) {
                Ok(ports) => {
                    if let Some(old) = fixed {
                        if old != ports {
                            self.kill();
                            return Err(format!("came back on {ports:?}, not {old:?}"));
                        }
                    }
                    self.ports = Some(ports);
                    return Ok(());
                }
                Err(e) => {
                    self.kill();
                    let log = fs::read(&self.log_path).unwrap_or_default();
                    let this_run = String::from_utf8_lossy(&log[log_start.min(log.len())..]);
                    if this_run.contains("address already in use") {
                        // A fixed port may still be held briefly by a dying
                        // process; retry a few times before giving up.
                        if fixed.is_some() && attempt < 20 {
                            std::thread::sleep(Duration::from_millis(250));
                            continue;
                        }
                        return Err(format!("{e} (address already in use)"));
                    }
                    return Err(e);
                }
            }
        }
    }

    fn try_spawn(&mut self, fixed: Option<Ports>) -> Result<Ports, String> {
        fs::write(&self.config_path, self.render_config(fixed)).map_err(|e| format!("write config: {e}"))?;
        let mut log =
            OpenOptions::new().create(true).append(true).open(&self.log_path).map_err(|e| format!("open log: {e}"))?;
        let _ = writeln!(log, "==== harness: starting nats-server ====");
        let stderr = log.try_clone().map_err(|e| e.to_string())?;
        let bin = server_bin();
        let child = Command::new(&bin)
            .arg("-c")
            .arg(&self.config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(stderr))
            .spawn()
            .map_err(|e| format!("spawn {bin:?}: {e} (install it with scripts/setup.sh, or set NATS_SERVER_BIN)"))?;
        let pid = child.id();
        self.child = Some(child);
        let ports_file = self.dir.path().join(format!("nats-server_{pid}.ports"));
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(Ok(Some(status))) = self.child.as_mut().map(|c| c.try_wait()) {
                return Err(format!("nats-server exited during start-up: {status}"));
            }
            if let Some(ports) = self.read_ports_file(&ports_file) {
                return Ok(ports);
            }
            if Instant::now() >= deadline {
                return Err(format!("no complete ports file {} after {START_TIMEOUT:?}", ports_file.display()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn read_ports_file(&self, path: &Path) -> Option<Ports> {
        let text = fs::read_to_string(path).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        let first_port = |key: &str| -> Option<u16> {
            let url = v.get(key)?.as_array()?.first()?.as_str()?;
            url.rsplit(':').next()?.trim_end_matches('/').parse().ok()
        };
        let client = first_port("nats")?;
        let monitoring = first_port("monitoring")?;
        let websocket = if self.opts.websocket { Some(first_port("websocket")?) } else { None };
        Some(Ports { client, websocket, monitoring })
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "---- test panicked; nats-server log tail ({}):\n{}\n----",
                self.log_path.display(),
                self.log_tail(30)
            );
        }
        self.kill();
        // TempDir's own Drop removes the directory.
    }
}

/// The server binary: `$NATS_SERVER_BIN` or `nats-server` on PATH.
pub fn server_bin() -> PathBuf {
    std::env::var_os("NATS_SERVER_BIN")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("nats-server"))
}

fn signal(child: &Child, sig: libc::c_int) {
    let pid = child.id() as libc::pid_t;
    // SAFETY: kill(2) on our own, not yet reaped, child process.
    unsafe {
        libc::kill(pid, sig);
    }
}
