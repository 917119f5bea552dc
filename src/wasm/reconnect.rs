//! nats.js's `reconnectToServer`: a JS function that picks the server of
//! each connection attempt, called through
//! the driver (outside the connection's lock) with the pool (the pool's own
//! pick first) and the latest INFO; it answers
//! a `Server` of the pool, `{ server, delay }` (ms to wait before dialing
//! it), or `null` for the pool's pick. The pool crosses as two lists, which
//! the TS layer makes nats.js's `Server`s of (bindings/reconnect.ts), as it
//! reads the answer: serde objects would cost the wasm 2 KB gzip.

use std::time::Duration;

use js_sys::{Array, Float64Array, Function};
use wasm_bindgen::prelude::*;

use super::to_js_object;
use crate::core::conn::{ReconnectToServer, ServerChoice};
use crate::core::error::Error;
use crate::driver::{DefaultRuntime, Runtime};

#[wasm_bindgen(typescript_custom_section)]
const TS_RECONNECT: &str = r#"
/** A server of the connection's pool (nats.js's `Server`). */
export interface Server {
  readonly hostname: string;
  readonly port: number;
  /** `hostname:port`, what a pick is matched by. */
  readonly listen: string;
  /** The URL the server was given or learned by. */
  readonly src: string;
  readonly tlsName: string;
  /** Failed attempts since it last connected. */
  readonly reconnects: number;
  /** When it was last tried (ms since the epoch; 0: never). */
  readonly lastConnect: number;
  /** Learned from the cluster, not given. */
  readonly gossiped: boolean;
  readonly didConnect: boolean;
}
/**
 * Picks the server of each connection attempt (nats.js's): a server of
 * `pool`, the one the client would pick first at index 0; with a `delay`
 * (ms) to wait before dialing it; or null for the client's pick.
 */
export type ReconnectToServerHandler = (
  pool: ReadonlyArray<Server>,
  info: ServerInfo | null,
) => Server | { server: Server; delay: number } | null;
/** @internal The handler as the wasm calls it (bindings/reconnect.ts). */
export type RawReconnectToServer = (
  strings: string[],
  numbers: Float64Array,
  info: ServerInfo | null,
) => [index: number, delay: number] | null;
"#;

/// Calls `handler`, the TS layer's wrapper of nats.js's handler, with the
/// pool as lists (`hostname`, `listen`, `src` of each server in turn; its
/// `port`, failures, last attempt in ms since the epoch or 0, learned from
/// the cluster and connected once, 1 or 0), and `info`. It answers `null`
/// or `[index, delay]`; a throw closes the connection, as nats.js.
pub(super) fn choose(handler: &Function, choice: &ServerChoice) -> Result<Option<ReconnectToServer>, Error> {
    let (now, wall) = (DefaultRuntime::now(), js_sys::Date::now());
    let strings = Array::new();
    let mut numbers = Vec::with_capacity(choice.servers.len() * 5);
    // Whole milliseconds without a u128 (whose conversion to f64 the wasm would link).
    let ago = |d: Duration| d.as_secs() as f64 * 1e3 + f64::from(d.subsec_millis());
    for (s, tried) in choice.servers.iter().zip(&choice.last_attempts) {
        for text in [s.addr.host.clone(), s.addr.host_port(), s.addr.url_without_credentials()] {
            strings.push(&text.into());
        }
        let last = tried.map_or(0.0, |at| wall - ago(now.saturating_duration_since(at)));
        let port = f64::from(s.addr.port);
        numbers.extend([port, s.failed_attempts as f64, last, s.is_discovered.into(), s.did_connect.into()]);
    }
    let info = choice.info.as_ref().map(to_js_object).transpose()?.unwrap_or(JsValue::NULL);
    let numbers = Float64Array::from(&numbers[..]);
    let answer = handler.call3(&JsValue::NULL, &strings, &numbers, &info).map_err(|thrown| {
        let why = thrown.dyn_ref::<js_sys::Error>().map_or_else(|| "it threw".into(), |e| String::from(e.message()));
        Error::InvalidArgument(format!("reconnectToServer failed: {why}"))
    })?;
    let Some(pick) = answer.dyn_ref::<Array>() else { return Ok(None) };
    let [index, delay] = [0, 1].map(|i| pick.get(i).as_f64().unwrap_or(0.0));
    let server = choice.servers.get(index as usize).ok_or_else(|| {
        Error::InvalidArgument("reconnectToServer failed: the server it returned is not in the pool".into())
    })?;
    Ok(Some(ReconnectToServer { addr: server.addr.clone(), delay: Some(Duration::from_millis(delay as u64)) }))
}
