//! `RawJetStream`: a JetStream [`Context`] on one connection (made by
//! `RawConnection.jetstream`, so the TS layer needs no build-specific
//! class), with acked publish and ack batches. API calls, listings and
//! consumer handles are in [`super::api`].

use bytes::Bytes;
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

use super::ack_batch::RawAckBatch;
use super::whole_number;
use crate::core::error::Error;
use crate::jetstream::api::AckPolicy;
use crate::jetstream::api::PublishAck;
use crate::jetstream::publish::{NATS_MESSAGE_TTL, Schedule};
use crate::jetstream::{self, Context, Publish};
use crate::wasm::batch::header_map;
use crate::wasm::boxed_promise;
use crate::wasm::connection::RawConnection;
use crate::wasm::error::{Call, to_js};
use crate::wasm::options::{millis, text};

#[wasm_bindgen(typescript_custom_section)]
const TS_PUBLISH: &str = r#"
/** nats.js's publish options as `RawJetStream.publish` reads them: headers flattened. */
export interface RawPublishOptions {
  headers?: string[];
  msgID?: string;
  expect?: PublishExpectations;
  /** `Nats-TTL`: a Go duration (`"90s"`, `"1h"`) or `"never"`; the stream needs `allow_msg_ttl`. */
  ttl?: string;
  /** Milliseconds to wait for the stream's ack (default: the JetStream timeout). */
  timeout?: number;
  /**
   * Attempts while no stream answers (503) or the ack does not come in
   * time, 50, 100, 200… ms apart (1, as nats.js; 0 is 1). Give re-sent
   * messages a `msgID`, so the stream drops a second copy.
   */
  retries?: number;
  /**
   * Makes the message a schedule (ADR-51): nats.js's `ScheduleOptions` as
   * `pattern, target, source, ttl, timezone, rollup` joined by line feeds
   * (which no header value holds), `""` where unset; `pattern` is the
   * `Nats-Schedule` value TS made of the specification.
   */
  schedule?: string;
  /** Stops the schedule on this subject once this message is stored (`Nats-Scheduler`, `Nats-Schedule-Next: purge`). */
  cancelSchedule?: string;
}
/** What the stream must look like for the message to be stored, as nats.js's `expect`. */
export interface PublishExpectations {
  /** The stream that must capture the subject. */
  streamName?: string;
  /** The stream's last sequence. */
  lastSequence?: number;
  /** The `Nats-Msg-Id` of the stream's last message. */
  lastMsgID?: string;
  /** The last sequence on this message's subject (0: none yet). */
  lastSubjectSequence?: number;
  /** The subject (wildcards allowed) `lastSubjectSequence` checks instead of the message's. */
  lastSubjectSequenceSubject?: string;
}
/** A stream's ack: `[stream, seq, duplicate, domain]`, and an atomic batch's id and size. */
export type RawPubAck = [stream: string, seq: number, duplicate: boolean, domain: string | undefined, batch?: string, count?: number, val?: string];
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "RawPublishOptions")]
    pub type RawPublishOptions;
    #[wasm_bindgen(method, getter)]
    fn headers(this: &RawPublishOptions) -> Option<Vec<String>>;
    #[wasm_bindgen(method, getter = msgID)]
    fn msg_id(this: &RawPublishOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn expect(this: &RawPublishOptions) -> Option<PublishExpectations>;
    #[wasm_bindgen(method, getter)]
    fn ttl(this: &RawPublishOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn timeout(this: &RawPublishOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn retries(this: &RawPublishOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn schedule(this: &RawPublishOptions) -> Option<String>;
    #[wasm_bindgen(method, getter = cancelSchedule)]
    fn cancel_schedule(this: &RawPublishOptions) -> Option<String>;

    #[wasm_bindgen(typescript_type = "PublishExpectations")]
    pub type PublishExpectations;
    #[wasm_bindgen(method, getter = streamName)]
    fn stream_name(this: &PublishExpectations) -> JsValue;
    #[wasm_bindgen(method, getter = lastSequence)]
    fn last_sequence(this: &PublishExpectations) -> JsValue;
    #[wasm_bindgen(method, getter = lastMsgID)]
    fn last_msg_id(this: &PublishExpectations) -> JsValue;
    #[wasm_bindgen(method, getter = lastSubjectSequence)]
    fn last_subject_sequence(this: &PublishExpectations) -> JsValue;
    #[wasm_bindgen(method, getter = lastSubjectSequenceSubject)]
    fn last_subject_sequence_subject(this: &PublishExpectations) -> JsValue;
}

/// A JetStream context; its publishes share one window of acks in flight.
#[wasm_bindgen]
pub struct RawJetStream {
    pub(crate) context: Context,
}

#[wasm_bindgen]
impl RawConnection {
    /// A JetStream context on this connection: `$JS.<domain>.API` with a
    /// domain (which wins, as in nats.js), else `apiPrefix`, else `$JS.API`.
    /// `timeout` (ms) bounds API calls and publish acks (default 5000);
    /// `max_ack_inflight` bounds the publishes awaiting their ack (256).
    pub fn jetstream(
        &self,
        api_prefix: Option<String>,
        domain: Option<String>,
        timeout: Option<f64>,
        max_ack_inflight: Option<f64>,
    ) -> Result<RawJetStream, JsValue> {
        let client = self.client().clone();
        let mut context = match (domain, api_prefix) {
            (Some(domain), _) => jetstream::with_domain(client, &domain),
            (None, Some(prefix)) => jetstream::with_prefix(client, &prefix),
            (None, None) => jetstream::new(client),
        };
        if let Some(timeout) = millis(timeout.into(), "timeout")? {
            context.set_timeout(timeout);
        }
        // nats.js's `retries` counts attempts, one by default: no re-send;
        // when asked for, nats.js also re-sends after a timeout.
        context.set_publish_retries(0);
        context.set_publish_retry_on_timeout(true);
        if let Some(max) = whole_number::<usize>(max_ack_inflight.into(), "maxAckInflight")? {
            context.set_max_ack_inflight(max);
        }
        Ok(RawJetStream { context })
    }
}

#[wasm_bindgen]
impl RawJetStream {
    /// The API prefix in use, e.g. `$JS.API`.
    #[wasm_bindgen(getter = apiPrefix)]
    pub fn api_prefix(&self) -> String {
        self.context.api_prefix().to_string()
    }

    /// Publishes as soon as the window has room (256 acks in flight); the
    /// promise gets the stream's ack. Publishes made in turn go out in turn.
    #[wasm_bindgen(unchecked_return_type = "Promise<RawPubAck>")]
    pub fn publish(
        &self,
        subject: String,
        payload: Vec<u8>,
        options: Option<RawPublishOptions>,
    ) -> Result<Promise, JsValue> {
        let mut context = self.context.clone();
        let mut publish = Publish::build().payload(Bytes::from(payload));
        if let Some(o) = options {
            if let Some(timeout) = millis(o.timeout(), "timeout")? {
                context.set_timeout(timeout);
            }
            if let Some(attempts) = whole_number::<u32>(o.retries(), "retries")? {
                context.set_publish_retries(attempts.saturating_sub(1));
            }
            publish = with_options(publish, &o)?;
        }
        Ok(acked(context, subject, publish))
    }

    /// An empty `AckBatch`, committed on this connection with the
    /// JetStream timeout, planned for consumers with ack policy `policy`
    /// (default `explicit`; `all`: one `+ACK` per consumer at its highest
    /// sequence; `none`: nothing is sent).
    #[wasm_bindgen(js_name = ackBatch)]
    pub fn ack_batch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "\"explicit\" | \"all\" | \"none\" | undefined")] policy: Option<String>,
    ) -> Result<RawAckBatch, JsValue> {
        let policy = match policy.as_deref() {
            None | Some("explicit") => AckPolicy::Explicit,
            Some("all") => AckPolicy::All,
            Some("none") => AckPolicy::None,
            Some(other) => return Err(Error::InvalidArgument(format!("ack policy {other:?}")).into()),
        };
        Ok(RawAckBatch::new(self.context.client().clone(), self.context.timeout(), policy))
    }
}

/// The `RawPubAck` promise of a publish (Key-Value writes come through
/// `publish` too, with the subject and headers Rust makes for them).
fn acked(context: Context, subject: String, publish: Publish) -> Promise {
    boxed_promise(Box::pin(async move {
        let acked = async { context.send_publish(subject.clone(), publish).await?.await }.await;
        // nats.js names the subject nobody answered (no stream captures it).
        let ack = acked.map_err(|e| to_js(&Error::from(e), Call::Other(&subject)))?;
        Ok(raw_pub_ack(ack))
    }))
}

/// The `RawPubAck` of `ack`.
pub(super) fn raw_pub_ack(ack: PublishAck) -> JsValue {
    let domain = Some(ack.domain).filter(|d| !d.is_empty()).map_or(JsValue::UNDEFINED, JsValue::from);
    let raw = Array::of4(&ack.stream.into(), &(ack.sequence as f64).into(), &ack.duplicate.into(), &domain);
    if let (Some(batch), Some(count)) = (ack.batch_id, ack.batch_size) {
        raw.push(&batch.into());
        raw.push(&(count as f64).into());
    }
    // A counter's new total (ADR-49), after the batch's places.
    if let Some(total) = ack.value {
        raw.set(6, total.into());
    }
    raw.into()
}

/// `publish` with nats.js's options `o`: headers first (they replace what
/// is set before them), then the id, TTL, schedule and expectations.
pub(super) fn with_options(mut publish: Publish, o: &RawPublishOptions) -> Result<Publish, Error> {
    if let Some(headers) = o.headers() {
        publish = publish.headers(header_map(headers)?);
    }
    if let Some(id) = text(o.msg_id(), "msgID")? {
        publish = publish.message_id(id);
    }
    if let Some(ttl) = text(o.ttl(), "ttl")? {
        publish = publish.header(NATS_MESSAGE_TTL, ttl);
    }
    if let Some(fields) = o.schedule() {
        publish = publish.schedule(schedule(&fields)?);
    }
    if let Some(subject) = o.cancel_schedule() {
        publish = publish.cancel_schedule(subject);
    }
    let Some(e) = o.expect() else { return Ok(publish) };
    if let Some(stream) = text(e.stream_name(), "expect.streamName")? {
        publish = publish.expected_stream(stream);
    }
    if let Some(seq) = whole_number(e.last_sequence(), "expect.lastSequence")? {
        publish = publish.expected_last_sequence(seq);
    }
    if let Some(id) = text(e.last_msg_id(), "expect.lastMsgID")? {
        publish = publish.expected_last_message_id(id);
    }
    if let Some(seq) = whole_number(e.last_subject_sequence(), "expect.lastSubjectSequence")? {
        publish = publish.expected_last_subject_sequence(seq);
    }
    if let Some(subject) = text(e.last_subject_sequence_subject(), "expect.lastSubjectSequenceSubject")? {
        publish = publish.expected_last_subject_sequence_subject(subject);
    }
    Ok(publish)
}

/// nats.js's `ScheduleOptions` from `pattern, target, source, ttl, timezone,
/// rollup` on lines (empty ones left out, as nats.js leaves out falsy ones).
fn schedule(fields: &str) -> Result<Schedule, Error> {
    let mut fields = fields.split('\n');
    let mut next = || fields.next().unwrap_or_default();
    let mut schedule = Schedule::new(next(), next());
    let (source, ttl, zone, rollup) = (next(), next(), next(), next());
    if !source.is_empty() {
        schedule = schedule.source(source);
    }
    if !ttl.is_empty() {
        schedule = schedule.ttl_text(ttl);
    }
    if !zone.is_empty() {
        schedule = schedule.time_zone(zone);
    }
    match rollup {
        "" => Ok(schedule),
        "sub" => Ok(schedule.rollup()),
        _ => Err(Error::InvalidArgument(format!("schedule rollup {rollup:?}: only sub"))),
    }
}
