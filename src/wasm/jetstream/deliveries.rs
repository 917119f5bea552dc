//! `RawDeliveries`: the JetStream messages of one batch, kept in Rust for
//! their acks and metadata while JS reads their bytes from the packed
//! `RawBatch` beside it. One object per batch, not per message, keeps the
//! crossing cheap; acks are synchronous and promise-free, except the
//! confirmed one.

use std::rc::Rc;

use bytes::Bytes;
use js_sys::{Array, BigInt, Promise};
use wasm_bindgen::prelude::*;

use super::whole_number;
use crate::core::error::Error;
use crate::core::subject::Subject;
use crate::jetstream::Message;
use crate::jetstream::ack::Ack;
use crate::jetstream::pull::PullRequest;
use crate::wasm::batch::{pack_without_replies, put};
use crate::wasm::options::millis;
use crate::wasm::promise;

#[wasm_bindgen(typescript_custom_section)]
const TS_DELIVERIES: &str = r#"
/**
 * A batch of JetStream messages: their bytes (replies left out: acks go by index), and their acks and metadata;
 * a consumer group member's, with each message's partition.
 */
export type RawDelivered = [messages: RawBatch, deliveries: RawDeliveries, partitions?: Uint32Array];
/** Ack kinds: 0 `+ACK`, 1 `-NAK`, 2 `+WPI` (working), 3 `+TERM`. */
export type RawAckKind = 0 | 1 | 2 | 3;
/** From the ack subject: stream, consumer, domain, delivery count, stream and consumer sequences, timestamp (ns), pending. */
export type RawDeliveryInfo = [stream: string, consumer: string, domain: string | undefined, delivered: number,
  streamSequence: number, consumerSequence: number, timestampNanos: bigint, pending: number];
"#;

#[wasm_bindgen]
pub struct RawDeliveries {
    /// Subjects, payloads and headers removed: JS holds them. What is left
    /// (the ack subject, the ack state) is what acks and metadata need.
    messages: Rc<Vec<Message>>,
}

/// `[RawBatch, RawDeliveries]` of `messages`, `null` for none.
pub(super) fn delivered(mut messages: Vec<Message>) -> JsValue {
    if messages.is_empty() {
        return JsValue::NULL;
    }
    let batch = pack_without_replies(&messages.iter().map(|m| &m.message).collect::<Vec<_>>());
    // Freed now, while in cache, rather than when JS collects the batch.
    for m in &mut messages {
        m.message.payload = Bytes::new();
        m.message.subject = Subject::default();
        m.message.headers = None;
        m.message.description = None;
    }
    own_replies(&mut messages);
    Array::of2(&batch, &RawDeliveries { messages: Rc::new(messages) }.into()).into()
}

/// Copies the replies of `messages`, kept for acks, into one buffer of their
/// own: as slices of the read buffer they would keep its chunks, payloads and
/// all, until JS collects the batch.
fn own_replies(messages: &mut [Message]) {
    let replies = || messages.iter().filter_map(|m| m.message.reply.as_deref());
    let mut bytes = vec![0; replies().map(str::len).sum()];
    replies().fold(0, |at, reply| put(&mut bytes, at, reply.as_bytes()));
    let bytes = Bytes::from(bytes);
    let mut at = 0;
    for reply in messages.iter_mut().filter_map(|m| m.message.reply.as_mut()) {
        let end = at + reply.len();
        // Always UTF-8: a whole reply's bytes.
        if let Ok(own) = Subject::from_utf8(bytes.slice(at..end)) {
            *reply = own;
        }
        at = end;
    }
}

/// An ack kind from JS, with the nak delay (ms) or term reason that goes with it.
pub(super) fn ack_kind(kind: u32, delay: Option<f64>, reason: Option<String>) -> Result<Ack, Error> {
    Ok(match kind {
        0 => Ack::Ack,
        1 => Ack::Nak(millis(delay.into(), "nak delay")?),
        2 => Ack::Progress,
        3 => Ack::Term(reason),
        _ => return Err(Error::InvalidArgument(format!("ack kind {kind}: expected 0 to 3"))),
    })
}

impl RawDeliveries {
    /// The batch's messages, in order.
    pub(super) fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub(super) fn get(&self, i: u32) -> Result<&Message, Error> {
        self.messages.get(i as usize).ok_or_else(|| Error::InvalidArgument(format!("no message {i} in this batch")))
    }
}

#[wasm_bindgen]
impl RawDeliveries {
    /// Sends ack `kind` for message `i` at once, without waiting for the
    /// server. Gives the error (a second final ack: `ALREADY_ACKNOWLEDGED`)
    /// for JS to throw, `undefined` when sent: a call that may throw
    /// returns an array from the wasm, one more object per message.
    #[wasm_bindgen(unchecked_return_type = "Error | undefined")]
    pub fn ack(&self, i: u32, kind: u32, delay: Option<f64>, reason: Option<String>) -> JsValue {
        let sent = ack_kind(kind, delay, reason).and_then(|kind| self.get(i)?.ack_nowait(kind));
        sent.map_or_else(JsValue::from, |()| JsValue::UNDEFINED)
    }

    /// `+ACK` for message `i` at once, as [`ack`](Self::ack) sends it: the
    /// ack nearly every message gets, without the other kinds' arguments.
    #[wasm_bindgen(js_name = sendAck, unchecked_return_type = "Error | undefined")]
    pub fn send_ack(&self, i: u32) -> JsValue {
        let sent = self.get(i).and_then(|m| m.ack_nowait(Ack::Ack));
        sent.map_or_else(JsValue::from, |()| JsValue::UNDEFINED)
    }

    /// nats.js's `next`: acks message `i` with `+NXT`, asking for `batch`
    /// more (1) within `expires` ms (the server's default) or at once
    /// (`no_wait`), delivered to `subject` (nowhere without one, as nats.js).
    pub fn next(
        &self,
        i: u32,
        subject: Option<String>,
        batch: Option<f64>,
        expires: Option<f64>,
        no_wait: Option<bool>,
    ) -> Result<(), JsValue> {
        let request = PullRequest {
            batch: whole_number::<u64>(batch.into(), "batch")?.unwrap_or(1).max(1),
            expires: millis(expires.into(), "expires")?.filter(|d| !d.is_zero()),
            no_wait: no_wait.unwrap_or(false),
            ..PullRequest::default()
        };
        let message = self.get(i)?;
        match subject.filter(|s| !s.is_empty()) {
            Some(deliver_to) => message.ack_next_nowait(&deliver_to, Some(request))?,
            None => message.ack_nowait(Ack::Next(Some(request)))?,
        }
        Ok(())
    }

    /// Acks message `i` as a request: resolves `true` once the server
    /// applied it, waiting `timeout` ms at most (the JetStream timeout when
    /// unset). A timeout is ambiguous, not proof of failure.
    #[wasm_bindgen(js_name = ackAck, unchecked_return_type = "Promise<boolean>")]
    pub fn ack_ack(&self, i: u32, timeout: Option<f64>) -> Result<Promise, JsValue> {
        let timeout = millis(timeout.into(), "ackAck timeout")?.unwrap_or(self.get(i)?.ack_timeout());
        let messages = self.messages.clone();
        Ok(promise(async move {
            messages[i as usize].double_ack_within(Ack::Ack, timeout).await?;
            Ok(JsValue::TRUE)
        }))
    }

    /// Message `i`'s delivery metadata, from its ack subject.
    #[wasm_bindgen(unchecked_return_type = "RawDeliveryInfo")]
    pub fn info(&self, i: u32) -> Result<Array, JsValue> {
        let m = self.get(i)?.info()?;
        let domain = m.domain.map_or(JsValue::UNDEFINED, JsValue::from);
        let info: [JsValue; 8] = [
            m.stream.into(),
            m.consumer.into(),
            domain,
            (m.delivered as f64).into(),
            (m.stream_sequence as f64).into(),
            (m.consumer_sequence as f64).into(),
            BigInt::from(m.timestamp_nanos).into(),
            (m.pending as f64).into(),
        ];
        Ok(info.iter().collect())
    }

    /// Message `i`'s ack token (its ack subject), to ack later from any connection.
    #[wasm_bindgen(js_name = ackToken)]
    pub fn ack_token(&self, i: u32) -> Result<String, JsValue> {
        Ok(self.get(i)?.ack_token()?.into())
    }
}
