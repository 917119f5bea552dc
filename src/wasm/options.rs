//! nats.js connection options (same names, durations in milliseconds) to
//! [`ConnectOptions`]. Every field is read through a typed getter and
//! checked; a wrong type is an `INVALID_ARGUMENT` error, never a guess.

use std::time::Duration;

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::{auth, reconnect};
use crate::ConnectOptions;
use crate::core::conn::Config;
use crate::core::error::Error;
use crate::transport::TlsOptions;

#[wasm_bindgen(typescript_custom_section)]
const TS_OPTIONS: &str = r#"
/**
 * Options of `connect`, named as in nats.js, with its defaults (shown).
 * Durations are in milliseconds.
 */
export interface ConnectionOptions {
  /** Server URLs: `ws://` and `wss://`; in Node also `nats://` and `tls://` (default `"127.0.0.1:4222"`, as nats.js). */
  servers?: string | string[];
  /** Client name, shown by the server's monitoring. */
  name?: string;
  token?: string;
  user?: string;
  pass?: string;
  /** Answers the server's nonce: `nkeyAuthenticator`, `credsAuthenticator`, `jwtAuthenticator`, or your own function. */
  authenticator?: Authenticator;
  /** Don't receive messages this connection publishes. */
  noEcho?: boolean;
  /** `false`: close instead of reconnecting when the connection is lost. */
  reconnect?: boolean;
  /** Failed attempts in a row after which a server is dropped; `-1` = forever (10). */
  maxReconnectAttempts?: number;
  /** Wait between attempts on one server (2000). */
  reconnectTimeWait?: number;
  /** Random extra wait, up to this, added to each reconnect wait (100). */
  reconnectJitter?: number;
  /** `reconnectJitter` when `tls` is set (1000). */
  reconnectJitterTLS?: number;
  /**
   * The wait in ms before trying a server again, asked each time, in place
   * of `reconnectTimeWait` and the jitter (one that throws or gives no
   * number waits `reconnectTimeWait`).
   */
  reconnectDelayHandler?: () => number;
  /** Picks the server of each connection attempt, as nats.js (see `ReconnectToServerHandler`). */
  reconnectToServer?: ReconnectToServerHandler;
  /** Keep-alive PING interval (120000). */
  pingInterval?: number;
  /** Unanswered PINGs after which the connection is stale (2). */
  maxPingOut?: number;
  /** From opening a transport to the end of the handshake (20000). */
  timeout?: number;
  /** Try servers in the given order instead of shuffling them. */
  noRandomize?: boolean;
  /** Ignore servers the cluster announces. */
  ignoreClusterUpdates?: boolean;
  /** Prefix of reply subjects (`"_INBOX"`). */
  inboxPrefix?: string;
  /**
   * Keep trying until the first connect succeeds, however many attempts
   * that takes; `connect` resolves then (`maxReconnectAttempts` counts only
   * the attempts after it).
   */
  waitOnFirstConnect?: boolean;
  /**
   * TLS for `nats://` and `tls://` servers in Node, as nats.js's `tls` with
   * PEM text: an object (even `{}`) requires TLS; `ca` replaces the host's
   * trusted roots; `cert` and `key` go to servers that verify clients.
   * In Node, `caFile`, `certFile` and `keyFile` are read into `ca`, `cert`
   * and `key` (a file wins, as nats.js). Browsers and `wss://` use the
   * WebSocket's own TLS.
   */
  tls?: TlsOptions | null;
  /** natsjet: bytes of publishes kept while reconnecting (8 MiB); past that, publishing throws `RECONNECT_BUFFER_FULL`. */
  reconnectBufferSize?: number;
  /**
   * natsjet: bytes waiting to be written past which `publish`, which never
   * waits, throws `OUTGOING_BUFFER_FULL` (a `ConnectionError`); what it
   * accepted before still goes out. Yield (`await` anything) to let it
   * drain. By default there is no bound but the host's, as in nats.js: past
   * 8 MiB, what waits goes to the socket (Node) or WebSocket at once, held
   * outside the wasm memory, and a host that cannot take more gets the same
   * error. The bytes the host holds unsent count toward the bound.
   */
  outgoingBufferSize?: number;
  /**
   * natsjet: the server's `max_control_line` (4096 bytes, the server's
   * default, which INFO does not announce): a subject, reply or queue group
   * that would not fit is refused with `INVALID_SUBJECT` before writing.
   */
  maxControlLine?: number;
  /** natsjet: messages a subscription may have waiting (65536); past that, new ones are dropped and a `slowConsumer` status is reported. */
  subscriptionCapacity?: number;
  /** natsjet: bytes (subject, headers, payload) a subscription may have waiting (64 MiB); past that, new messages are dropped and a `slowConsumer` status is reported. */
  subscriptionCapacityBytes?: number;
}
/** TLS settings of `connect` (Node), PEM text. */
export interface TlsOptions {
  /** CA certificates to trust instead of the host's roots. */
  ca?: string | string[];
  /** A client certificate chain, leaf first (with `key`). */
  cert?: string;
  /** The client certificate's private key (with `cert`). */
  key?: string;
  /** Node: a PEM file read into `ca`; a missing file rejects `connect` (`TLS`). */
  caFile?: string;
  /** Node: a PEM file read into `cert`. */
  certFile?: string;
  /** Node: a PEM file read into `key`. */
  keyFile?: string;
  /** TLS before the server's INFO, for servers with `handshake_first` (not `wss://`). */
  handshakeFirst?: boolean;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "ConnectionOptions")]
    pub type ConnectionOptions;
    #[wasm_bindgen(method, getter)]
    fn servers(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn name(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn token(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn user(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn pass(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn authenticator(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = noEcho)]
    fn no_echo(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn reconnect(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = maxReconnectAttempts)]
    fn max_reconnect_attempts(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = reconnectTimeWait)]
    fn reconnect_time_wait(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = reconnectJitter)]
    fn reconnect_jitter(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = reconnectJitterTLS)]
    fn reconnect_jitter_tls(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = reconnectDelayHandler)]
    fn reconnect_delay_handler(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = reconnectToServer)]
    fn reconnect_to_server(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = pingInterval)]
    fn ping_interval(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = maxPingOut)]
    fn max_ping_out(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn timeout(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = noRandomize)]
    fn no_randomize(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = ignoreClusterUpdates)]
    fn ignore_cluster_updates(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = inboxPrefix)]
    fn inbox_prefix(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = waitOnFirstConnect)]
    fn wait_on_first_connect(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn tls(this: &ConnectionOptions) -> Option<JsTlsOptions>;
    #[wasm_bindgen(method, getter = reconnectBufferSize)]
    fn reconnect_buffer_size(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = outgoingBufferSize)]
    fn outgoing_buffer_size(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = maxControlLine)]
    fn max_control_line(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = subscriptionCapacity)]
    fn subscription_capacity(this: &ConnectionOptions) -> JsValue;
    #[wasm_bindgen(method, getter = subscriptionCapacityBytes)]
    fn subscription_capacity_bytes(this: &ConnectionOptions) -> JsValue;

    #[wasm_bindgen(typescript_type = "TlsOptions")]
    pub type JsTlsOptions;
    #[wasm_bindgen(method, getter)]
    fn ca(this: &JsTlsOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn cert(this: &JsTlsOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn key(this: &JsTlsOptions) -> JsValue;
    #[wasm_bindgen(method, getter = handshakeFirst)]
    fn handshake_first(this: &JsTlsOptions) -> JsValue;
}

/// nats.js's default server.
const DEFAULT_SERVER: &str = "127.0.0.1:4222";
/// nats.js's defaults where they differ from the Rust API's (async-nats's).
const DEFAULT_MAX_RECONNECT_ATTEMPTS: usize = 10;
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
const DEFAULT_JITTER_TLS: Duration = Duration::from_secs(1);

/// The servers to connect to and the options to connect with.
pub(crate) fn parse(options: Option<ConnectionOptions>) -> Result<(Vec<String>, ConnectOptions), Error> {
    let mut opts = ConnectOptions::new()
        .max_reconnects(DEFAULT_MAX_RECONNECT_ATTEMPTS)
        .connection_timeout(DEFAULT_CONNECT_TIMEOUT)
        // The host's limit, as nats.js (see `outgoingBufferSize`).
        .outgoing_buffer_size(usize::MAX);
    let Some(o) = options else { return Ok((vec![DEFAULT_SERVER.into()], opts)) };
    let servers = servers(o.servers())?;
    if let Some(name) = text(o.name(), "name")? {
        opts = opts.name(name);
    }
    if let Some(token) = text(o.token(), "token")? {
        opts = opts.token(token);
    }
    if let Some(user) = text(o.user(), "user")? {
        opts = opts.user_and_password(user, text(o.pass(), "pass")?.unwrap_or_default());
    }
    if let Some(callback) = auth::callback(o.authenticator())? {
        opts = opts.auth_callback(callback);
    }
    if flag(o.no_echo(), "noEcho")? == Some(true) {
        opts = opts.no_echo();
    }
    if let Some(max) = number(o.max_reconnect_attempts(), "maxReconnectAttempts")? {
        opts = opts.max_reconnects(if max < 0.0 { None } else { Some(whole(max, "maxReconnectAttempts")?) });
    }
    if flag(o.reconnect(), "reconnect")? == Some(false) {
        opts = opts.max_reconnects(Some(0));
    }
    let tls = o.tls();
    let wait = millis(o.reconnect_time_wait(), "reconnectTimeWait")?;
    // As nats.js: with `tls`, reconnectJitterTLS is the jitter.
    let jitter = millis(o.reconnect_jitter(), "reconnectJitter")?;
    let jitter_tls = millis(o.reconnect_jitter_tls(), "reconnectJitterTLS")?;
    let jitter = if tls.is_some() { jitter_tls.or(Some(DEFAULT_JITTER_TLS)) } else { jitter };
    let defaults = Config::default();
    if wait.is_some() || jitter.is_some() {
        opts =
            opts.reconnect_delay(wait.unwrap_or(defaults.reconnect_delay), jitter.unwrap_or(defaults.reconnect_jitter));
    }
    if let Some(handler) = function(o.reconnect_delay_handler(), "reconnectDelayHandler")? {
        let fallback = wait.unwrap_or(defaults.reconnect_delay);
        opts = opts.reconnect_delay_per_server(move |_| {
            let ms = handler.call0(&JsValue::NULL).ok().and_then(|ms| ms.as_f64());
            ms.filter(|ms| *ms >= 0.0 && ms.is_finite()).map_or(fallback, |ms| Duration::from_millis(ms as u64))
        });
    }
    if let Some(handler) = function(o.reconnect_to_server(), "reconnectToServer")? {
        let handler = std::rc::Rc::new(handler);
        // The driver's callbacks are `Arc`s; in wasm they need not be `Send`.
        #[allow(clippy::arc_with_non_send_sync)]
        let choose: crate::driver::task::ChooseServer = std::sync::Arc::new(move |choice| {
            let handler = handler.clone();
            Box::pin(async move { reconnect::choose(&handler, &choice) })
        });
        opts = opts.choose_server(choose);
    }
    if let Some(interval) = millis(o.ping_interval(), "pingInterval")? {
        opts = opts.ping_interval(interval);
    }
    if let Some(max) = number(o.max_ping_out(), "maxPingOut")? {
        opts = opts.max_pings_outstanding(whole(max, "maxPingOut")?);
    }
    if let Some(timeout) = millis(o.timeout(), "timeout")? {
        opts = opts.connection_timeout(timeout);
    }
    if flag(o.no_randomize(), "noRandomize")? == Some(true) {
        opts = opts.dont_randomize();
    }
    if flag(o.ignore_cluster_updates(), "ignoreClusterUpdates")? == Some(true) {
        opts = opts.ignore_discovered_servers();
    }
    if let Some(prefix) = text(o.inbox_prefix(), "inboxPrefix")? {
        opts = opts.custom_inbox_prefix(prefix);
    }
    if flag(o.wait_on_first_connect(), "waitOnFirstConnect")? == Some(true) {
        opts = opts.wait_on_first_connect();
    }
    if let Some(tls) = tls {
        opts = opts.tls(tls_options(&tls)?).require_tls(true);
        if flag(tls.handshake_first(), "tls.handshakeFirst")? == Some(true) {
            opts = opts.tls_first();
        }
    }
    if let Some(bytes) = number(o.reconnect_buffer_size(), "reconnectBufferSize")? {
        opts = opts.reconnect_buffer_size(whole(bytes, "reconnectBufferSize")?);
    }
    if let Some(bytes) = number(o.outgoing_buffer_size(), "outgoingBufferSize")? {
        opts = opts.outgoing_buffer_size(whole(bytes, "outgoingBufferSize")?);
    }
    if let Some(bytes) = number(o.max_control_line(), "maxControlLine")? {
        opts = opts.max_control_line(whole(bytes, "maxControlLine")?);
    }
    if let Some(capacity) = number(o.subscription_capacity(), "subscriptionCapacity")? {
        opts = opts.subscription_capacity(whole(capacity, "subscriptionCapacity")?);
    }
    if let Some(bytes) = number(o.subscription_capacity_bytes(), "subscriptionCapacityBytes")? {
        opts = opts.subscription_capacity_bytes(whole(bytes, "subscriptionCapacityBytes")?);
    }
    Ok((servers, opts))
}

/// nats.js's `tls` option: trusted roots and a client certificate, PEM text.
fn tls_options(tls: &JsTlsOptions) -> Result<TlsOptions, Error> {
    let mut options = TlsOptions::new();
    let ca = tls.ca();
    let roots = if Array::is_array(&ca) { Array::from(&ca).to_vec() } else { vec![ca] };
    for pem in roots {
        if let Some(pem) = text(pem, "tls.ca")? {
            options = options.add_root_certificates_pem(pem);
        }
    }
    match (text(tls.cert(), "tls.cert")?, text(tls.key(), "tls.key")?) {
        (Some(cert), Some(key)) => Ok(options.client_auth_pem(cert, key)),
        (None, None) => Ok(options),
        _ => Err(Error::InvalidArgument("tls: `cert` and `key` go together".into())),
    }
}

/// A duration in milliseconds (request timeouts share this reading); beyond
/// `u64::MAX` nanoseconds (584 years) it saturates.
pub(crate) fn millis(value: JsValue, what: &str) -> Result<Option<Duration>, Error> {
    number(value, what)?
        .map(|ms| {
            if ms >= 0.0 && ms.is_finite() {
                Ok(Duration::from_nanos((ms * 1e6) as u64))
            } else {
                Err(invalid(what, "a duration in ms (>= 0)"))
            }
        })
        .transpose()
}

/// `servers`: one URL or several.
fn servers(value: JsValue) -> Result<Vec<String>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(vec![DEFAULT_SERVER.into()]);
    }
    if let Some(url) = value.as_string() {
        return Ok(vec![url]);
    }
    let Some(list) = value.dyn_ref::<js_sys::Array>() else { return Err(invalid("servers", "a string or an array")) };
    list.iter().map(|url| url.as_string().ok_or_else(|| invalid("servers", "an array of strings"))).collect()
}

fn function(value: JsValue, what: &str) -> Result<Option<js_sys::Function>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.dyn_into().map(Some).map_err(|_| invalid(what, "a function"))
}

pub(crate) fn text(value: JsValue, what: &str) -> Result<Option<String>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.as_string().map(Some).ok_or_else(|| invalid(what, "a string"))
}

pub(crate) fn flag(value: JsValue, what: &str) -> Result<Option<bool>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.as_bool().map(Some).ok_or_else(|| invalid(what, "a boolean"))
}

pub(crate) fn number(value: JsValue, what: &str) -> Result<Option<f64>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.as_f64().filter(|n| !n.is_nan()).map(Some).ok_or_else(|| invalid(what, "a number"))
}

/// A non-negative integer that fits `T`.
pub(crate) fn whole<T: TryFrom<u64>>(n: f64, what: &str) -> Result<T, Error> {
    if n < 0.0 || n.fract() != 0.0 || n > u64::MAX as f64 {
        return Err(invalid(what, "a whole number >= 0"));
    }
    T::try_from(n as u64).map_err(|_| invalid(what, "a smaller number"))
}

/// A bucket's `storage` as nats.js names it.
#[cfg(feature = "wasm-kv")]
pub(crate) fn storage(name: &str) -> Result<crate::jetstream::api::StorageType, Error> {
    use crate::jetstream::api::StorageType;
    match name {
        "file" => Ok(StorageType::File),
        "memory" => Ok(StorageType::Memory),
        other => Err(Error::InvalidArgument(format!("storage {other:?}: \"file\" or \"memory\""))),
    }
}

/// Names and values in turn (a bucket's `metadata`) as a map; an odd last
/// name is left out.
#[cfg(feature = "wasm-kv")]
pub(crate) fn pairs(list: &[String]) -> std::collections::HashMap<String, String> {
    list.chunks_exact(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect()
}

fn invalid(what: &str, expected: &str) -> Error {
    Error::InvalidArgument(format!("{what}: expected {expected}"))
}
