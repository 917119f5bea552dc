//! `RawAckBatch`: natsjet's [`AckBatch`] on one connection: acks of
//! messages or stored tokens, committed in one flush or confirmed.

use std::mem;
use std::time::Duration;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::deliveries::{RawDeliveries, ack_kind};
use crate::Client;
use crate::jetstream::ack::{AckBatch, AckReport, AckToken};
use crate::jetstream::api::AckPolicy;
use crate::wasm::options::millis;
use crate::wasm::promise;

#[wasm_bindgen(typescript_custom_section)]
const TS_ACK_BATCH: &str = r#"
/** How a confirmed commit ended, per delivery (ack token): applied, no answer in time (safe to resend), or refused with the server's reason. */
export type RawAckReport = [confirmed: string, unconfirmed: string, refused: [token: string, reason: string][]];
"#;

#[wasm_bindgen]
pub struct RawAckBatch {
    batch: AckBatch,
    client: Client,
    /// How long a confirmed commit waits by default.
    timeout: Duration,
}

impl RawAckBatch {
    pub(super) fn new(client: Client, timeout: Duration, policy: AckPolicy) -> Self {
        RawAckBatch { batch: AckBatch::with_policy(policy), client, timeout }
    }
}

impl RawAckBatch {
    /// The acks gathered, leaving an empty batch with the same policy.
    fn take(&mut self) -> AckBatch {
        let policy = self.batch.policy();
        mem::replace(&mut self.batch, AckBatch::with_policy(policy))
    }
}

#[wasm_bindgen]
impl RawAckBatch {
    /// Adds a final ack (or `+WPI`) of message `i` of `deliveries`; the
    /// message then refuses any other final ack.
    #[wasm_bindgen(js_name = addMessage)]
    pub fn add_message(
        &mut self,
        deliveries: &RawDeliveries,
        i: u32,
        kind: u32,
        delay: Option<f64>,
        reason: Option<String>,
    ) -> Result<(), JsValue> {
        Ok(self.batch.add_message(deliveries.get(i)?, ack_kind(kind, delay, reason)?)?)
    }

    /// Adds an ack of the delivery named by `token` (from `ackToken()`).
    #[wasm_bindgen(js_name = addToken)]
    pub fn add_token(
        &mut self,
        token: String,
        kind: u32,
        delay: Option<f64>,
        reason: Option<String>,
    ) -> Result<(), JsValue> {
        Ok(self.batch.add(AckToken::new(token)?, ack_kind(kind, delay, reason)?)?)
    }

    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.batch.len()
    }

    /// Publishes every ack added so far and resolves once the server has
    /// processed them (one flush). The batch is empty again.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn commit(&mut self) -> Promise {
        let (batch, client) = (self.take(), self.client.clone());
        promise(async move {
            batch.commit(&client).await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Sends every ack as a request and waits up to `timeout` ms (default:
    /// the JetStream timeout) for the server's answers. The batch is empty again.
    #[wasm_bindgen(js_name = commitConfirmed, unchecked_return_type = "Promise<RawAckReport>")]
    pub fn commit_confirmed(&mut self, timeout: Option<f64>) -> Result<Promise, JsValue> {
        let timeout = millis(timeout.into(), "timeout")?.unwrap_or(self.timeout);
        let (batch, client) = (self.take(), self.client.clone());
        Ok(promise(async move { Ok(report(batch.commit_confirmed(&client, timeout).await?).into()) }))
    }
}

/// `[confirmed, unconfirmed, refused]` of a confirmed commit: the confirmed
/// and unconfirmed tokens each as one string, separated by `\n` (one string
/// across, not one per token: a ledger commits thousands), split in JS.
pub(super) fn report(report: AckReport) -> Array {
    let tokens = |tokens: Vec<AckToken>| {
        let mut joined = String::with_capacity(tokens.iter().map(|t| t.subject().len() + 1).sum());
        for token in &tokens {
            if !joined.is_empty() {
                joined.push('\n');
            }
            joined.push_str(token.subject());
        }
        JsValue::from(joined)
    };
    let refused = report.refused.into_iter().map(|(t, why)| Array::of2(&String::from(t).into(), &why.into()));
    Array::of3(&tokens(report.confirmed), &tokens(report.unconfirmed), &refused.collect::<Array>())
}
