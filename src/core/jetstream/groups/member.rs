//! A member instance's consumer: the user's config as a template, with the
//! name, filters and pinned-client priority group filled in, and the
//! timings orbit.go derives from `ack_wait` (so every instance of a member,
//! in Go or here, creates the same consumer and fails over alike):
//!
//! | what | value |
//! |---|---|
//! | `ack_wait` | the user's, or 5 s when unset |
//! | pinned TTL (`priority_timeout`) | `max(ack_wait, 1 s)` |
//! | pull `expires` | `max(ack_wait / 2, 1 s)` |
//! | elastic `inactive_threshold` | `ack_wait` |
//! | elastic re-join check | every `ack_wait + 500 ms` |

use std::time::Duration;

use super::names;
use crate::core::error::Error;
use crate::core::jetstream::api::{AckPolicy, ConsumerConfig, PriorityPolicy};

/// `ack_wait` when the template leaves it unset.
pub const DEFAULT_ACK_WAIT: Duration = Duration::from_secs(5);
/// The shortest pinned TTL and pull expiry.
pub const MIN_PIN_TTL: Duration = Duration::from_secs(1);

/// The template's `ack_wait`, or the default.
pub fn ack_wait(template: &ConsumerConfig) -> Duration {
    if template.ack_wait.is_zero() { DEFAULT_ACK_WAIT } else { template.ack_wait }
}

/// How long the server keeps a silent pinned instance pinned.
pub fn pinned_ttl(ack_wait: Duration) -> Duration {
    ack_wait.max(MIN_PIN_TTL)
}

/// The `expires` of a member's pulls.
pub fn pull_expiry(ack_wait: Duration) -> Duration {
    (ack_wait / 2).max(MIN_PIN_TTL)
}

/// How long a message handed out may stay unsettled (neither acked, nak'd
/// nor in progress) before the instance takes its handler for hung and
/// steps down: twice `ack_wait`, when the partition gate stops holding the
/// message's partition for it too.
pub fn hang_bound(ack_wait: Duration) -> Duration {
    ack_wait * 2
}

/// How often an elastic member that is in the group but has no consumer tries again.
pub fn rejoin_interval(ack_wait: Duration) -> Duration {
    ack_wait + Duration::from_millis(500)
}

fn pinned(mut config: ConsumerConfig, filters: Vec<String>) -> ConsumerConfig {
    config.ack_wait = ack_wait(&config);
    config.filter_subject = String::new();
    config.filter_subjects = filters;
    config.priority_groups = vec![names::PRIORITY_GROUP.to_string()];
    config.priority_policy = PriorityPolicy::PinnedClient;
    config.priority_timeout = pinned_ttl(config.ack_wait);
    config.deliver_subject = None;
    config.deliver_group = None;
    config
}

/// A static member's durable consumer on the stream.
pub fn static_consumer_config(
    template: &ConsumerConfig,
    group: &str,
    member: &str,
    filters: Vec<String>,
) -> ConsumerConfig {
    let mut config = pinned(template.clone(), filters);
    config.durable_name = Some(names::static_consumer(group, member));
    config.name = None;
    config
}

/// An elastic member's consumer on the group's stream: named after the
/// member, gone `ack_wait` after its last instance stops pulling. Acks must
/// be explicit (the work-queue stream removes what is acked).
pub fn elastic_consumer_config(
    template: &ConsumerConfig,
    member: &str,
    filters: Vec<String>,
) -> Result<ConsumerConfig, Error> {
    if template.ack_policy != AckPolicy::Explicit {
        return Err(Error::InvalidArgument(
            "the ack policy when consuming from elastic consumer groups must be explicit".into(),
        ));
    }
    let mut config = pinned(template.clone(), filters);
    config.durable_name = None;
    config.name = Some(names::elastic_consumer(member).to_string());
    config.inactive_threshold = config.ack_wait;
    Ok(config)
}
