//! Managing groups: create, delete and list them, add, drop and map members
//! of elastic groups, move a member's pin, and see which instance of each
//! member is pinned. The documents and streams are those of orbit.go's
//! `pcgroups` v0.2, so either side manages groups the other consumes.

use futures_util::StreamExt;

use super::Kind;
use super::requests::{self, bucket, bucket_or_create, stream_facts};
use crate::core::error::Error;
use crate::core::jetstream::groups::{ElasticConfig, MemberMapping, StaticConfig, names};
use crate::jetstream::api::{DiscardPolicy, RetentionPolicy, Source, StreamConfig, SubjectTransform};
use crate::jetstream::context::Context;
use crate::jetstream::kv;

/// A member's consumer as the server sees it: whether an instance is
/// pulling, and which one holds the pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberState {
    /// The member's name.
    pub member: String,
    /// The member's consumer exists (an elastic member's goes `ack_wait`
    /// after its last instance stops).
    pub active: bool,
    /// Pull requests waiting on the consumer (one or more per running instance).
    pub waiting: usize,
    /// The pin id of the instance that receives the member's messages.
    pub pinned_client_id: Option<String>,
    /// When it was pinned (RFC 3339).
    pub pinned_ts: Option<String>,
}

fn check(stream: &str, group: &str) -> Result<(), Error> {
    names::check_name("stream", stream)?;
    names::check_name("group", group)
}

fn not_found(kind: Kind, stream: &str, group: &str) -> Error {
    Error::InvalidArgument(format!("no {kind} consumer group {}", names::config_key(stream, group)))
}

/// A group's document and its revision.
pub(crate) async fn document(js: &Context, kind: Kind, stream: &str, group: &str) -> Result<(Vec<u8>, u64), Error> {
    check(stream, group)?;
    let store = bucket(js, kind).await?;
    match store.entry(names::config_key(stream, group)).await? {
        Some(entry) if entry.operation == kv::Operation::Put => Ok((entry.value.to_vec(), entry.revision)),
        _ => Err(not_found(kind, stream, group)),
    }
}

/// The static group's document.
pub async fn static_config(js: &Context, stream: &str, group: &str) -> Result<StaticConfig, Error> {
    StaticConfig::parse(&document(js, Kind::Static, stream, group).await?.0)
}

/// The elastic group's document.
pub async fn elastic_config(js: &Context, stream: &str, group: &str) -> Result<ElasticConfig, Error> {
    ElasticConfig::parse(&document(js, Kind::Elastic, stream, group).await?.0)
}

/// Stores `json` under the group's key unless a document is there already;
/// returns the one that is there.
async fn put_new(js: &Context, kind: Kind, stream: &str, group: &str, json: Vec<u8>) -> Result<Option<Vec<u8>>, Error> {
    let replicas = stream_facts(js, stream).await?.num_replicas;
    let store = bucket_or_create(js, kind, replicas).await?;
    let key = names::config_key(stream, group);
    match store.entry(key.as_str()).await? {
        Some(entry) if entry.operation == kv::Operation::Put => Ok(Some(entry.value.to_vec())),
        _ => {
            store.put(key, json.into()).await?;
            Ok(None)
        }
    }
}

/// Creates a static group on `stream` (whose subjects start with the
/// partition number); a group that exists with the same document is kept,
/// with another refused.
pub async fn create_static(
    js: &Context,
    stream: &str,
    group: &str,
    config: StaticConfig,
) -> Result<StaticConfig, Error> {
    check(stream, group)?;
    config.validate()?;
    if let Some(existing) = put_new(js, Kind::Static, stream, group, config.to_json()).await? {
        let existing = StaticConfig::parse(&existing)?;
        if existing != config {
            return Err(Error::InvalidArgument("the existing static consumer group config doesn't match ours".into()));
        }
    }
    Ok(config)
}

/// Creates an elastic group on `stream`: its document (no members yet
/// unless given) and the work-queue stream `<stream>-<group>` that sources
/// `stream` with the partition number put in front of each subject.
pub async fn create_elastic(
    js: &Context,
    stream: &str,
    group: &str,
    config: ElasticConfig,
) -> Result<ElasticConfig, Error> {
    check(stream, group)?;
    config.validate()?;
    let origin = stream_facts(js, stream).await?;
    let config = match put_new(js, Kind::Elastic, stream, group, config.to_json()).await? {
        Some(existing) => {
            let existing = ElasticConfig::parse(&existing)?;
            if !existing.same_shape(&config) {
                return Err(Error::InvalidArgument(
                    "the existing elastic consumer group config can not be updated to the requested one, \
                     please delete the existing elastic consumer group and create a new one"
                        .into(),
                ));
            }
            existing
        }
        None => config,
    };
    let transforms = config
        .source_transforms()
        .into_iter()
        .map(|(source, destination)| SubjectTransform { source, destination })
        .collect();
    let limit = |n: i64| if n == 0 { -1 } else { n };
    let group_stream = StreamConfig {
        name: names::elastic_stream(stream, group),
        retention: RetentionPolicy::WorkQueue,
        num_replicas: origin.num_replicas,
        storage: origin.storage,
        max_messages: limit(config.max_buffered_msgs),
        max_bytes: limit(config.max_buffered_bytes),
        discard: DiscardPolicy::New,
        sources: Some(vec![Source { name: stream.into(), subject_transforms: transforms, ..Source::default() }]),
        allow_direct: true,
        ..StreamConfig::default()
    };
    requests::create_stream(js, &group_stream).await?;
    Ok(config)
}

/// Deletes a group: its document, then its consumers (static) or its
/// stream (elastic). Members stop when they see the document go.
pub async fn delete(js: &Context, kind: Kind, stream: &str, group: &str) -> Result<(), Error> {
    check(stream, group)?;
    let store = bucket(js, kind).await?;
    store.delete(names::config_key(stream, group)).await?;
    match kind {
        Kind::Static => {
            let prefix = names::static_consumer_prefix(group);
            for consumer in requests::consumers(js, stream).await? {
                if consumer.name.starts_with(&prefix) {
                    requests::delete_consumer(js, stream, &consumer.name).await?;
                }
            }
        }
        Kind::Elastic => requests::delete_stream(js, &names::elastic_stream(stream, group)).await?,
    }
    Ok(())
}

/// The groups of `kind` on `stream`.
pub async fn list(js: &Context, kind: Kind, stream: &str) -> Result<Vec<String>, Error> {
    let store = bucket(js, kind).await?;
    let mut keys = store.keys().await?;
    let mut groups = Vec::new();
    while let Some(key) = keys.next().await {
        let key = key?;
        if let Some((s, g)) = names::parse_config_key(&key)
            && s == stream
        {
            groups.push(g.to_string());
        }
    }
    Ok(groups)
}

/// Rewrites an elastic group's document with `change`, if nobody changed it since it was read.
async fn update_elastic(
    js: &Context,
    stream: &str,
    group: &str,
    change: impl FnOnce(&ElasticConfig) -> Result<ElasticConfig, Error>,
) -> Result<ElasticConfig, Error> {
    let (json, revision) = document(js, Kind::Elastic, stream, group).await?;
    let next = change(&ElasticConfig::parse(&json)?)?;
    let store = bucket(js, Kind::Elastic).await?;
    store.update(names::config_key(stream, group), next.to_json().into(), revision).await?;
    Ok(next)
}

/// Adds members to an elastic group (not one that uses mappings); returns the members.
pub async fn add_members(js: &Context, stream: &str, group: &str, members: &[String]) -> Result<Vec<String>, Error> {
    for m in members {
        names::check_name("member", m)?;
    }
    Ok(update_elastic(js, stream, group, |c| c.with_members_added(members)).await?.members)
}

/// Drops members from an elastic group; returns the members left.
pub async fn drop_members(js: &Context, stream: &str, group: &str, members: &[String]) -> Result<Vec<String>, Error> {
    Ok(update_elastic(js, stream, group, |c| c.with_members_dropped(members)).await?.members)
}

/// Gives an elastic group's partitions to members by hand (replacing its member list).
pub async fn set_mappings(js: &Context, stream: &str, group: &str, mappings: Vec<MemberMapping>) -> Result<(), Error> {
    for m in &mappings {
        names::check_name("member", &m.member)?;
    }
    update_elastic(js, stream, group, |c| c.with_mappings(mappings)).await.map(drop)
}

/// Removes an elastic group's mappings (it has no members until some are added).
pub async fn delete_mappings(js: &Context, stream: &str, group: &str) -> Result<(), Error> {
    update_elastic(js, stream, group, |c| Ok(c.without_mappings())).await.map(drop)
}

/// Makes the server drop the pin of `member`'s pinned instance: another
/// waiting instance gets the member's messages from its next pull.
pub async fn step_down(js: &Context, kind: Kind, stream: &str, group: &str, member: &str) -> Result<(), Error> {
    check(stream, group)?;
    names::check_name("member", member)?;
    let on = kind.consumer_stream(stream, group);
    requests::unpin(js, &on, &kind.consumer_name(group, member), names::PRIORITY_GROUP).await
}

/// Every member of the group's document and its consumer's state.
pub async fn members(js: &Context, kind: Kind, stream: &str, group: &str) -> Result<Vec<MemberState>, Error> {
    let (json, _) = document(js, kind, stream, group).await?;
    let (members, mappings) = match kind {
        Kind::Static => {
            let c = StaticConfig::parse(&json)?;
            (c.members, c.member_mappings)
        }
        Kind::Elastic => {
            let c = ElasticConfig::parse(&json)?;
            (c.members, c.member_mappings)
        }
    };
    let mut names_of: Vec<String> = members;
    names_of.extend(mappings.into_iter().map(|m| m.member));
    names_of.dedup();
    let infos = requests::consumers(js, &kind.consumer_stream(stream, group)).await?;
    Ok(names_of
        .into_iter()
        .map(|member| {
            let consumer = kind.consumer_name(group, &member);
            let info = infos.iter().find(|i| i.name == consumer);
            let pin = info.and_then(|i| i.priority_groups.iter().find(|g| g.group == names::PRIORITY_GROUP));
            MemberState {
                member,
                active: info.is_some(),
                waiting: info.map_or(0, |i| i.num_waiting),
                pinned_client_id: pin.and_then(|p| p.pinned_client_id.clone()),
                pinned_ts: pin.and_then(|p| p.pinned_ts.clone()),
            }
        })
        .collect())
}
