//! Acked publishing that never drops a message silently: each id carries
//! its message id, a publish whose ack does not come is sent again with
//! the same id (the stream stores it once), and the loss ledger learns
//! what was published and what the server acknowledged.

use std::collections::VecDeque;
use std::time::Duration;

use natsjet::jetstream::{Context, Publish};

use super::loss::LossLedger;

/// Publishes ids `0..count` (payload and message id: the id) to
/// `stream.<id % 8>` with acks, at most 64 in flight, until every one is
/// acknowledged; `at(id)` runs before an id is first sent (to inject a
/// fault there).
pub async fn publish_with_retries(
    js: &Context,
    stream: &str,
    count: u64,
    ledger: &LossLedger,
    mut at: impl FnMut(u64),
) {
    let mut pending = VecDeque::new();
    let mut retry = VecDeque::new();
    let mut next = 0;
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
