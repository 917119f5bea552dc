//! Connection events ([`Event`]) to the TS layer's `StatusSink`, which turns
//! them into nats.js status objects, the `closed()` promise and callbacks.
//! Servers go out as `host:port`, as nats.js names them.

use wasm_bindgen::prelude::*;

use super::error::{Call, to_js};
use crate::{ConnectionEvent as Event, ServerAddr};

#[wasm_bindgen(typescript_custom_section)]
const TS_STATUS: &str = r#"
/** Connection events without numbers or lists, named as nats.js's status types where nats.js has one. */
export type SinkStatusType = "connected" | "disconnect" | "reconnecting" | "reconnect" | "ldm" | "staleConnection" | "error" | "close" | "forceReconnect";
/** Receives connection events, called from the connection's task: keep it short. */
export interface StatusSink {
  /** `server` (`host:port`) comes with `connected`, `disconnect`, `reconnecting`, `reconnect` and `ldm`; `error` with `error`, and with `disconnect` and `close` when one caused them. */
  status(type: SinkStatusType, server: string | undefined, error: Error | undefined): void;
  /** The cluster's server list changed (`host:port` each). */
  update(added: string[], deleted: string[]): void;
  /** A keep-alive PING went out; `pendingPings` are unanswered, it included. */
  ping(pendingPings: number): void;
  /** Subscription `sid` dropped messages, `dropped` so far. */
  slowConsumer(sid: number, dropped: number): void;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "StatusSink")]
    pub type StatusSink;
    // `catch` on each: an exception in the sink must not unwind through the driver.
    #[wasm_bindgen(method, catch)]
    fn status(
        this: &StatusSink,
        kind: &str,
        server: Option<String>,
        error: Option<js_sys::Error>,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn update(this: &StatusSink, added: Vec<String>, deleted: Vec<String>) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn ping(this: &StatusSink, pending_pings: u32) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = slowConsumer)]
    fn slow_consumer(this: &StatusSink, sid: f64, dropped: f64) -> Result<(), JsValue>;
}

/// The `event_callback` that hands every event to `sink`.
pub(crate) fn forward(sink: StatusSink) -> impl Fn(Event) + 'static {
    move |event| {
        let at = |server: ServerAddr| Some(server.host_port());
        let js = |error: Option<crate::Error>| error.map(|e| to_js(&e, Call::Event));
        // What the sink throws is its own business; the driver goes on.
        let _ = match event {
            Event::Connected { server } => sink.status("connected", at(server), None),
            Event::Disconnected { server, error } => sink.status("disconnect", at(server), js(error)),
            Event::Reconnecting { server } => sink.status("reconnecting", at(server), None),
            Event::Reconnected { server } => sink.status("reconnect", at(server), None),
            Event::LameDuck { server } => sink.status("ldm", at(server), None),
            Event::StaleConnection { .. } => sink.status("staleConnection", None, None),
            Event::ForcedReconnect { .. } => sink.status("forceReconnect", None, None),
            Event::ServerError(error) => sink.status("error", None, js(Some(error))),
            Event::Closed { error } => sink.status("close", None, js(error)),
            // JS picks by index into the pool: it cannot name another server.
            Event::Draining | Event::ServerNotInPool { .. } => Ok(()),
            Event::ClusterUpdate { added, deleted } => sink.update(host_ports(&added), host_ports(&deleted)),
            Event::Ping { pending_pings } => sink.ping(pending_pings),
            Event::SlowConsumer { sid, dropped } => sink.slow_consumer(sid as f64, dropped as f64),
        };
    }
}

fn host_ports(servers: &[ServerAddr]) -> Vec<String> {
    servers.iter().map(ServerAddr::host_port).collect()
}
