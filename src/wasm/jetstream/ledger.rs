//! `RawCheckpointLedger`: natsjet's [`CheckpointLedger`] for one consumer:
//! messages held per epoch, kept alive with `+WPI` by the connection's
//! driver, acked in one confirmed batch when their epoch commits; with the
//! state a checkpoint saves for exactly-once (`snapshot`, `restore`,
//! `admit`, `abort`).

use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, Float64Array, Promise, Uint32Array};
use wasm_bindgen::prelude::*;

use super::ack_batch::report;
use super::consumer::RawConsumer;
use super::deliveries::RawDeliveries;
use super::whole_number;
use crate::core::error::Error;
use crate::core::plain_json;
use crate::jetstream::ack::{LedgerEvent, LedgerState, LedgerWarning};
use crate::jetstream::api::CreateConsumerRequest;
use crate::jetstream::{CheckpointLedger, LedgerOptions};
use crate::wasm::options::{millis, whole};
use crate::wasm::promise;

#[wasm_bindgen(typescript_custom_section)]
const TS_LEDGER: &str = r#"
/** A consumer setting that fits checkpoint acking badly: its code and why. */
export type RawLedgerWarning = [
  code: "MAX_ACK_PENDING_TOO_SMALL" | "ACK_WAIT_SHORTER_THAN_CHECKPOINT" | "MAX_DELIVER_FINITE" | "MAX_WAITING_BELOW_WORKERS" | "CONFIG_DIFFERS",
  message: string,
];
/** What a checkpoint saves of a ledger: its version, then per consumer its stream, its name and its sequence ranges as version 2's `runs`. */
export type RawLedgerState = [version: number, ...consumers: (string | Float64Array)[]];
/** A ledger event: its type and the message's ack token. */
export type RawLedgerEvent = [type: "redeliveryRisk" | "redelivered", token: string];
export type RawLedgerCounts = [skipped: number, aborted: number, atRisk: number, redelivered: number];
"#;

#[wasm_bindgen]
pub struct RawCheckpointLedger {
    ledger: Rc<CheckpointLedger>,
}

#[wasm_bindgen]
impl RawConsumer {
    /// A checkpoint ledger on this consumer for `workers` workers pulling
    /// `batch` messages each and checkpointing every `checkpoint_interval`
    /// ms. Several workers on an AckAll or AckNone consumer throw
    /// `INVALID_ARGUMENT`. `expecting`, a `CONSUMER.CREATE` body (JSON
    /// text), is the config the program would have made the durable with:
    /// where the server's differs, the warnings say so.
    #[wasm_bindgen(js_name = checkpointLedger)]
    pub fn checkpoint_ledger(
        &self,
        workers: f64,
        batch: f64,
        checkpoint_interval: f64,
        expecting: Option<String>,
    ) -> Result<RawCheckpointLedger, JsValue> {
        let options = LedgerOptions {
            workers: whole_number(workers.into(), "workers")?.unwrap_or(1),
            batch: whole_number(batch.into(), "batch")?.unwrap_or(1),
            checkpoint_interval: millis(checkpoint_interval.into(), "checkpointInterval")?.unwrap_or(Duration::ZERO),
        };
        let mut ledger = CheckpointLedger::new(self.consumer(), options)?;
        if let Some(body) = expecting {
            ledger = ledger.expecting(&CreateConsumerRequest::config_from_json_core(body.as_bytes())?);
        }
        Ok(RawCheckpointLedger { ledger: Rc::new(ledger) })
    }
}

#[wasm_bindgen]
impl RawCheckpointLedger {
    /// What the consumer's settings risk for this pattern (empty when they fit).
    #[wasm_bindgen(unchecked_return_type = "RawLedgerWarning[]")]
    pub fn warnings(&self) -> Array {
        let code = |w: &LedgerWarning| match w {
            LedgerWarning::MaxAckPendingTooSmall { .. } => "MAX_ACK_PENDING_TOO_SMALL",
            LedgerWarning::AckWaitShorterThanCheckpoint { .. } => "ACK_WAIT_SHORTER_THAN_CHECKPOINT",
            LedgerWarning::MaxDeliverFinite { .. } => "MAX_DELIVER_FINITE",
            LedgerWarning::MaxWaitingBelowWorkers { .. } => "MAX_WAITING_BELOW_WORKERS",
            LedgerWarning::ConfigDiffers { .. } => "CONFIG_DIFFERS",
        };
        self.ledger.warnings().iter().map(|w| Array::of2(&code(w).into(), &w.to_string().into())).collect()
    }

    /// Holds message `i` of `deliveries` until `epoch` commits; the ledger
    /// then owns its ack (acking it directly throws `ALREADY_ACKNOWLEDGED`).
    /// Gives the error for JS to throw, `undefined` when held: a call that
    /// may throw returns an array from the wasm (see `RawDeliveries.ack`).
    #[wasm_bindgen(unchecked_return_type = "Error | undefined")]
    pub fn track(&self, deliveries: &RawDeliveries, i: u32, epoch: f64) -> JsValue {
        let tracked = epoch_number(epoch).and_then(|epoch| self.ledger.track(deliveries.get(i)?, epoch));
        tracked.map_or_else(JsValue::from, |()| JsValue::UNDEFINED)
    }

    /// Whether to process message `i` of `deliveries`: `false` for a
    /// redelivery of work already applied, which the ledger then acks with
    /// the next commit; the error for JS to throw.
    #[wasm_bindgen(unchecked_return_type = "boolean | Error")]
    pub fn admit(&self, deliveries: &RawDeliveries, i: u32) -> JsValue {
        let admitted = deliveries.get(i).and_then(|m| self.ledger.admit(m));
        admitted.map_or_else(JsValue::from, JsValue::from)
    }

    /// `admit` of the messages of `deliveries` from index `from` on, at
    /// once: the indexes of those not to process, ascending, `undefined`
    /// when all are to be. One that cannot be judged (another consumer's)
    /// passes.
    #[wasm_bindgen(js_name = admitAll, unchecked_return_type = "Uint32Array | undefined")]
    pub fn admit_all(&self, deliveries: &RawDeliveries, from: u32) -> Result<JsValue, JsValue> {
        let messages = deliveries.messages().get(from as usize..).unwrap_or_default();
        let skipped = self.ledger.admit_all(messages)?;
        let skipped: Vec<u32> = skipped.into_iter().map(|i| from + i as u32).collect();
        Ok(if skipped.is_empty() { JsValue::UNDEFINED } else { Uint32Array::from(&skipped[..]).into() })
    }

    /// What the checkpoint of `epoch` must save: its version, then per
    /// consumer its stream, name and `runs` (floats, without JSON: the
    /// wrapper makes the `LedgerState`); throws `AT_RISK` when a message of
    /// the epoch may have reached another worker.
    #[wasm_bindgen(unchecked_return_type = "RawLedgerState")]
    pub fn snapshot(&self, epoch: f64) -> Result<Array, JsValue> {
        let state = self.ledger.snapshot(epoch_number(epoch)?)?;
        let out = Array::of1(&state.version.into());
        for c in &state.consumers {
            out.push(&c.stream.as_str().into());
            out.push(&c.consumer.as_str().into());
            out.push(&Float64Array::from(&c.runs(|n| n as f64)[..]));
        }
        Ok(out)
    }

    /// Takes the states (JSON text, one per worker) saved by the last checkpoint.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn restore(&self, states: Vec<String>) -> Result<Promise, JsValue> {
        // serde-json-core in the wasm (plain_json): serde_json's reader costs ~24 KB gzip.
        let states = states
            .iter()
            .map(|json| plain_json::from_slice::<LedgerState>(json.as_bytes()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|why| Error::InvalidArgument(format!("ledger state: {why}")))?;
        let ledger = self.ledger.clone();
        Ok(promise(async move {
            ledger.restore(&states).await?;
            Ok(JsValue::UNDEFINED)
        }))
    }

    /// Naks the messages of `epoch` and every later one; resolves to how many.
    #[wasm_bindgen(unchecked_return_type = "Promise<number>")]
    pub fn abort(&self, epoch: f64) -> Result<Promise, JsValue> {
        let (ledger, epoch) = (self.ledger.clone(), epoch_number(epoch)?);
        Ok(promise(async move { Ok((ledger.abort(epoch).await? as f64).into()) }))
    }

    #[wasm_bindgen(unchecked_return_type = "RawLedgerCounts")]
    pub fn counts(&self) -> Array {
        let c = self.ledger.counts();
        let n = |n: u64| JsValue::from(n as f64);
        Array::of4(&n(c.skipped), &n(c.aborted), &n(c.at_risk), &n(c.redelivered))
    }

    /// Acks every message of epochs up to `epoch`, confirmed per consumer by the answer to its last ack.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawAckReport>")]
    pub fn commit(&self, epoch: f64) -> Result<Promise, JsValue> {
        let (ledger, epoch) = (self.ledger.clone(), epoch_number(epoch)?);
        Ok(promise(async move { Ok(report(ledger.commit(epoch).await?).into()) }))
    }

    /// Messages held.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.ledger.len()
    }

    /// The next event: a held message that may be redelivered anyway (its
    /// `+WPI` could not go out in time), or a redelivery nothing here
    /// explains; `undefined` for none.
    #[wasm_bindgen(js_name = tryNextEvent, unchecked_return_type = "RawLedgerEvent | undefined")]
    pub fn try_next_event(&self) -> Option<Array> {
        let (kind, token) = match self.ledger.try_next_event()? {
            LedgerEvent::RedeliveryRisk { token } => ("redeliveryRisk", token),
            LedgerEvent::Redelivered { token } => ("redelivered", token),
        };
        Some(Array::of2(&kind.into(), &String::from(token).into()))
    }
}

/// A whole epoch number, read without a JS value: this runs for every message tracked.
fn epoch_number(epoch: f64) -> Result<u64, Error> {
    whole(epoch, "epoch")
}
