//! The task that answers `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS` for one
//! service instance, on all three levels (every service, its name, its
//! id), until the service stops and its subscriptions end.

use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::SelectAll;

use super::{Shared, StatsHandler};
use crate::client::Subscriber;
use crate::core::conn::Sid;
use crate::core::error::Error;
use crate::core::service::Verb;
use crate::runtime::queue::lock;

/// Subscribes to every verb subject of the instance.
pub(super) fn subscribe(shared: &Shared) -> Result<SelectAll<Subscriber>, Error> {
    let identity = &shared.identity;
    let mut requests = SelectAll::new();
    for verb in Verb::ANSWERED {
        for subject in verb.subjects(&identity.name, &identity.id) {
            let subscriber = shared.client.subscribe_inner(&subject, None)?;
            lock(&shared.subscriptions).push(Sid(subscriber.sid()));
            requests.push(subscriber);
        }
    }
    Ok(requests)
}

/// Answers each request with its reply's JSON; ends when every
/// subscription has ended.
pub(super) async fn answer(
    shared: Arc<Shared>,
    mut requests: SelectAll<Subscriber>,
    mut handler: Option<StatsHandler>,
) {
    while let Some(request) = requests.next().await {
        let Some(reply) = request.reply else { continue };
        let identity = &shared.identity;
        let json = match Verb::of_subject(&request.subject) {
            Some(Verb::Ping) => serde_json::to_vec(&identity.ping()),
            Some(Verb::Info) => serde_json::to_vec(&identity.info(&lock(&shared.endpoints))),
            Some(Verb::Stats) => {
                if let Some(StatsHandler(handler)) = &mut handler {
                    // The user's code runs without the lock: it may ask the service for its stats.
                    let stats: Vec<_> = lock(&shared.endpoints).stats().map(|(k, s)| (k.to_string(), s)).collect();
                    for (key, stats) in stats {
                        let data = handler(key.clone(), stats);
                        lock(&shared.endpoints).set_data(&key, data);
                    }
                }
                serde_json::to_vec(&identity.stats(&lock(&shared.endpoints)))
            }
            Some(Verb::Schema) | None => continue,
        };
        // A reply that cannot be written (closed, full) is lost, as any
        // answer; the service goes on answering.
        if let Ok(json) = json {
            let _ = shared.client.publish(reply, json.into()).await;
        }
    }
}
