//! The workload of fault tests and the soak. Acked publishing that never
//! drops a message silently: each id carries its message id, a publish
//! whose ack does not come is sent again with the same id (the stream
//! stores it once). And a shared-durable worker that acks after its work.
//! Both tell the loss ledger what they did.

use std::collections::VecDeque;
use std::time::Duration;

use futures_util::StreamExt;
use natsjet::jetstream::{AckKind, Context, Publish, PullConsumer};

use super::loss::LossLedger;

/// Publishes the ids of `ids` (payload and message id: the id) to
/// `stream.<id % 8>` with acks, at most 64 in flight, until every one is
/// acknowledged; `at(id)` runs before an id is first sent (to inject a
/// fault there).
pub async fn publish_with_retries(
    js: &Context,
    stream: &str,
    ids: std::ops::Range<u64>,
    ledger: &LossLedger,
    mut at: impl FnMut(u64),
) {
    let count = ids.end;
    let mut pending = VecDeque::new();
    let mut retry = VecDeque::new();
    let mut next = ids.start;
    while next < count || !pending.is_empty() || !retry.is_empty() {
        while pending.len() < 64 && (next < count || !retry.is_empty()) {
            let id = retry.pop_front().unwrap_or_else(|| {
                ledger.published(next);
                at(next);
                next += 1;
                next - 1
            });
            let publish = Publish::build().payload(id.to_string().into()).message_id(id.to_string());
            match js.send_publish(format!("{stream}.{}", id % 8), publish).await {
                Ok(ack) => pending.push_back((id, ack)),
                Err(_) => {
                    retry.push_back(id);
                    break;
                }
            }
        }
        match pending.pop_front() {
            Some((id, ack)) => match ack.await {
                Ok(_) => ledger.server_acked(id),
                Err(_) => retry.push_back(id),
            },
            // Nothing in flight and the client refuses: back off a little before trying again.
            None => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// A worker on durable `durable` of `stream`: it processes each message
/// (payload: its id), then acks with confirmation. A failed ack is
/// ambiguous (it may have reached the server, its answer cut off): the
/// message counts as consumed, and if the ack was lost the server sends it
/// again, which shows as a duplicate. Runs until its task is aborted.
pub async fn work_and_ack(js: Context, stream: &str, durable: &str, ledger: LossLedger) {
    let consumer: PullConsumer = js.get_stream(stream).await.unwrap().get_consumer(durable).await.unwrap();
    let mut messages = consumer
        .stream()
        .max_messages_per_batch(50)
        .heartbeat(Duration::from_millis(500))
        .expires(Duration::from_secs(2))
        .messages()
        .await
        .unwrap();
    while let Some(message) = messages.next().await {
        let Ok(message) = message else { continue }; // missed heartbeats and the like: the stream goes on
        let delivered = message.info().unwrap().delivered;
        let _ = message.double_ack_within(AckKind::Ack, Duration::from_secs(1)).await;
        let id = std::str::from_utf8(&message.payload).ok().and_then(|s| s.parse().ok()).expect("an id payload");
        ledger.consumed(id, delivered);
    }
}
