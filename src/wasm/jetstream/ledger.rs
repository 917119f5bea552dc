//! `RawCheckpointLedger`: natsjet's [`CheckpointLedger`] for one consumer:
//! messages held per epoch, kept alive with `+WPI` by the connection's
//! driver, acked in one confirmed batch when their epoch commits.

use std::rc::Rc;
use std::time::Duration;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::ack_batch::report;
use super::consumer::RawConsumer;
use super::deliveries::RawDeliveries;
use super::whole_number;
use crate::error::Error;
use crate::jetstream::ack::{LedgerEvent, LedgerWarning};
use crate::jetstream::{CheckpointLedger, LedgerOptions};
use crate::wasm::options::millis;
use crate::wasm::promise;

#[wasm_bindgen(typescript_custom_section)]
const TS_LEDGER: &str = r#"
/** A consumer setting that fits checkpoint acking badly: its code and why. */
export type RawLedgerWarning = [code: "MAX_ACK_PENDING_TOO_SMALL" | "ACK_WAIT_SHORTER_THAN_CHECKPOINT", message: string];
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
    /// `INVALID_ARGUMENT`.
    #[wasm_bindgen(js_name = checkpointLedger)]
    pub fn checkpoint_ledger(
        &self,
        workers: f64,
        batch: f64,
        checkpoint_interval: f64,
    ) -> Result<RawCheckpointLedger, JsValue> {
        let options = LedgerOptions {
            workers: whole_number(workers.into(), "workers")?.unwrap_or(1),
            batch: whole_number(batch.into(), "batch")?.unwrap_or(1),
            checkpoint_interval: millis(checkpoint_interval.into(), "checkpointInterval")?.unwrap_or(Duration::ZERO),
        };
        let ledger = CheckpointLedger::new(self.consumer(), options)?;
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
        };
        self.ledger.warnings().iter().map(|w| Array::of2(&code(w).into(), &w.to_string().into())).collect()
    }

    /// Holds message `i` of `deliveries` until `epoch` commits; the ledger
    /// then owns its ack (acking it directly throws `ALREADY_ACKNOWLEDGED`).
    pub fn track(&self, deliveries: &RawDeliveries, i: u32, epoch: f64) -> Result<(), JsValue> {
        Ok(self.ledger.track(deliveries.get(i)?, epoch_number(epoch)?)?)
    }

    /// Acks every message of epochs up to `epoch`, pipelined and confirmed.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawAckReport>")]
    pub fn commit(&self, epoch: f64) -> Result<Promise, JsValue> {
        let (ledger, epoch) = (self.ledger.clone(), epoch_number(epoch)?);
        Ok(promise(async move { ledger.commit(epoch).await.map(report) }))
    }

    /// Messages held.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.ledger.len()
    }

    /// The ack token of the next held message that may be redelivered
    /// anyway (its `+WPI` could not go out in time), or `undefined`.
    #[wasm_bindgen(js_name = tryNextEvent)]
    pub fn try_next_event(&self) -> Option<String> {
        self.ledger.try_next_event().map(|LedgerEvent::RedeliveryRisk { token }| token.into())
    }
}

fn epoch_number(epoch: f64) -> Result<u64, Error> {
    whole_number(epoch.into(), "epoch")?.ok_or_else(|| Error::InvalidArgument("epoch: expected a whole number".into()))
}
