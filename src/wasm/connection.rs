//! `connect` and `RawConnection`: the [`Client`] as JS calls it.

use futures_util::future::Either;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::batch::{header_map, pack};
use super::error::{Call, to_js};
use super::options::{ConnectionOptions, millis, parse};
use super::responses::{self, RawResponses};
use super::status::{StatusSink, forward};
use super::subscription::RawSubscription;
use super::{at_once, boxed_promise, promise, to_js_object};
use crate::Client;
use crate::core::conn::State;
use crate::core::error::Error;
use crate::driver::DefaultRuntime;

#[wasm_bindgen(typescript_custom_section)]
const TS_CONNECTION: &str = r#"
/** The server's INFO, with the server's (snake_case) names, as nats.js has it. */
export interface ServerInfo {
  server_id: string; server_name: string; version: string; go: string;
  host: string; port: number; headers: boolean; max_payload: number; proto: number;
  client_id: number; auth_required: boolean; tls_required: boolean; tls_verify: boolean;
  tls_available: boolean; connect_urls: string[]; ws_connect_urls: string[]; ldm: boolean;
  jetstream: boolean; nonce: string | null; cluster: string | null; domain: string | null;
  client_ip: string | null;
  /** The JetStream API level (ADR-44); 0 from servers before 2.11. */
  api_lvl: number;
}
/** Counters since `connect`: [inMsgs, outMsgs, inBytes, outBytes, reconnects]. */
export type RawStats = Float64Array;
"#;

/// Connects; `sink` receives every connection event from then on.
#[wasm_bindgen(unchecked_return_type = "Promise<RawConnection>")]
pub fn connect(options: Option<ConnectionOptions>, sink: StatusSink) -> Result<Promise, JsValue> {
    let (servers, options) = parse(options)?;
    let connecting = options.on_event(forward(sink)).connect_with::<DefaultRuntime>(servers);
    Ok(promise(async move { Ok(RawConnection { client: connecting.await? }.into()) }))
}

/// One connection. Freeing it (or its garbage collection) drops this handle;
/// the connection closes once subscriptions are gone too.
#[wasm_bindgen]
pub struct RawConnection {
    client: Client,
}

impl RawConnection {
    /// The connection's client, for the JetStream exports.
    #[cfg(feature = "wasm-jetstream")]
    pub(super) fn client(&self) -> &Client {
        &self.client
    }
}

#[wasm_bindgen]
impl RawConnection {
    /// Publishes at once; never waits (nats.js's `publish` is synchronous).
    /// `headers` as `[name, value, name, value…]`.
    pub fn publish(
        &self,
        subject: &str,
        payload: &[u8],
        reply: Option<String>,
        headers: Option<Vec<String>>,
    ) -> Result<(), JsValue> {
        let headers = headers.map(header_map).transpose()?;
        Ok(self.client.publish_nowait(subject, reply.as_deref(), headers.as_ref(), payload)?)
    }

    pub fn subscribe(
        &self,
        subject: &str,
        queue: Option<String>,
        timeout: Option<f64>,
    ) -> Result<RawSubscription, JsValue> {
        let timeout = millis(timeout.into(), "timeout")?;
        let mut subscriber = match queue {
            Some(queue) => self.client.subscribe_inner(subject, Some(&queue))?,
            None => self.client.subscribe_inner(subject, None)?,
        };
        if let Some(timeout) = timeout {
            subscriber.set_first_message_timeout(timeout);
        }
        Ok(RawSubscription::new(subscriber))
    }

    /// Sends a request now; the promise gets the first answer (a batch of
    /// one). With `no_mux` it comes to a subscription of its own, on
    /// `reply` or a new inbox, instead of the shared request inbox.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawBatch>")]
    pub fn request(
        &self,
        subject: &str,
        payload: &[u8],
        headers: Option<Vec<String>>,
        timeout_ms: f64,
        no_mux: Option<bool>,
        reply: Option<String>,
    ) -> Result<Promise, JsValue> {
        let headers = headers.map(header_map).transpose()?;
        let timeout = millis(timeout_ms.into(), "timeout")?;
        let answer = match (no_mux == Some(true), reply) {
            (false, None) => Either::Left(self.client.start_request(subject, headers.as_ref(), payload, timeout)?),
            (false, Some(_)) => return Err(Error::InvalidArgument("reply: only with noMux".into()).into()),
            (true, reply) => {
                let inbox = reply.unwrap_or_else(|| self.client.new_inbox());
                Either::Right(self.client.send_request_on_inbox(subject, &inbox, headers.as_ref(), payload, timeout)?)
            }
        };
        let subject = subject.to_string();
        Ok(boxed_promise(Box::pin(async move {
            // What nats.js says of an answer that did not come (a `NoRespondersError` names the subject).
            answer.await.map(|m| pack(&[m]).into()).map_err(|e| to_js(&e, Call::Request(&subject)).into())
        })))
    }

    /// Sends a request for many replies now (nats.js `requestMany`); its
    /// replies are read from the returned `RawResponses`.
    #[wasm_bindgen(js_name = requestMany)]
    #[allow(clippy::too_many_arguments)]
    pub fn request_many(
        &self,
        subject: &str,
        payload: &[u8],
        headers: Option<Vec<String>>,
        #[wasm_bindgen(unchecked_param_type = "RequestStrategy | undefined")] strategy: Option<String>,
        max_wait: Option<f64>,
        max_messages: Option<f64>,
        stall: Option<f64>,
        no_mux: Option<bool>,
    ) -> Result<RawResponses, JsValue> {
        let headers = headers.map(header_map).transpose()?;
        let mut options = responses::options(strategy, max_wait, max_messages, stall)?;
        options.no_mux = no_mux.unwrap_or(false);
        Ok(RawResponses::new(self.client.send_request_many(subject, headers.as_ref(), payload, &options)?, subject))
    }

    /// Resolves once the server has processed everything sent before.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn flush(&self) -> Promise {
        let client = self.client.clone();
        promise(async move {
            client.flush_pong().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Unsubscribes everything, delivers what already arrived, flushes, closes.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn drain(&self) -> Promise {
        let drained = self.client.drain();
        promise(async move {
            drained.await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        let client = self.client.clone();
        promise(async move {
            client.close().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    #[wasm_bindgen(js_name = isClosed)]
    pub fn is_closed(&self) -> bool {
        self.client.connection_state() == State::Closed
    }

    /// The INFO of the server this connection is (or was last) connected to.
    #[wasm_bindgen(unchecked_return_type = "ServerInfo")]
    pub fn info(&self) -> Result<JsValue, JsValue> {
        Ok(to_js_object(&self.client.server_info())?)
    }

    #[wasm_bindgen(unchecked_return_type = "RawStats")]
    pub fn stats(&self) -> Vec<f64> {
        let s = self.client.statistics();
        [s.in_messages, s.out_messages, s.in_bytes, s.out_bytes, s.reconnects].map(|n| n as f64).to_vec()
    }

    /// A unique subject under the inbox prefix.
    #[wasm_bindgen(js_name = newInbox)]
    pub fn new_inbox(&self) -> String {
        self.client.new_inbox()
    }

    #[wasm_bindgen(js_name = isDraining)]
    pub fn is_draining(&self) -> bool {
        self.client.is_draining()
    }

    /// Milliseconds of a PING/PONG round trip.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn rtt(&self) -> Promise {
        let client = self.client.clone();
        promise(async move { Ok((client.rtt().await?.as_secs_f64() * 1000.0).into()) })
    }

    /// Drops the server connection and reconnects.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn reconnect(&self) -> Promise {
        let client = self.client.clone();
        promise(async move {
            client.force_reconnect().await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Makes `servers` the pool to reconnect to; the connection stays.
    #[wasm_bindgen(js_name = setServers)]
    pub fn set_servers(&self, servers: Vec<String>) -> Result<(), JsValue> {
        let set = self.client.set_server_pool(servers);
        Ok(at_once(async { set.await.map_err(crate::core::error::KindError::into_cause) })?)
    }

    /// `host:port` of the current (or last) server, `""` when none.
    pub fn server(&self) -> String {
        self.client.current_server().map(|s| s.host_port()).unwrap_or_default()
    }
}

/// A unique subject `<prefix>.<token>` (`_INBOX` when no prefix), without a connection.
#[wasm_bindgen(js_name = createInbox)]
pub fn create_inbox(prefix: Option<String>) -> Result<String, JsValue> {
    Ok(crate::create_inbox(prefix.as_deref())?)
}
