//! Connection events ([`Event`]) to the TS layer's `StatusSink`, which turns
//! them into nats.js status objects, the `closed()` promise and callbacks.

use wasm_bindgen::prelude::*;

use super::error::to_js;
use crate::Event;

#[wasm_bindgen(typescript_custom_section)]
const TS_STATUS: &str = r#"
/** Connection events, named as nats.js's status types where nats.js has one. */
export type StatusType = "connected" | "disconnect" | "reconnect" | "ldm" | "error" | "slowConsumer" | "close" | "forceReconnect";
/** Receives connection events, called from the connection's task: keep it short. */
export interface StatusSink {
  /** `sid` and `dropped` come with `slowConsumer`; `error` with `error`, and with `disconnect` and `close` when one caused them. */
  status(type: StatusType, error: Error | undefined, sid: number | undefined, dropped: number | undefined): void;
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "StatusSink")]
    pub type StatusSink;
    /// `catch`: an exception in the sink must not unwind through the driver.
    #[wasm_bindgen(method, catch)]
    fn status(
        this: &StatusSink,
        kind: &str,
        error: Option<js_sys::Error>,
        sid: Option<f64>,
        dropped: Option<f64>,
    ) -> Result<(), JsValue>;
}

/// The `event_callback` that hands every event to `sink`.
pub(crate) fn forward(sink: StatusSink) -> impl Fn(Event) + 'static {
    move |event| {
        let (kind, error, slow) = match event {
            Event::Connected => ("connected", None, None),
            Event::Disconnected { error } => ("disconnect", error, None),
            Event::Reconnected => ("reconnect", None, None),
            Event::LameDuck => ("ldm", None, None),
            Event::ForcedReconnect => ("forceReconnect", None, None),
            Event::ServerError(error) => ("error", Some(error), None),
            Event::SlowConsumer { sid, dropped } => ("slowConsumer", None, Some((sid as f64, dropped as f64))),
            Event::Closed { error } => ("close", error, None),
        };
        // What the sink throws is its own business; the driver goes on.
        let _ = sink.status(kind, error.as_ref().map(|e| to_js(e, None)), slow.map(|s| s.0), slow.map(|s| s.1));
    }
}
