//! Partitioned consumer groups (orbit.go `pcgroups` v0.2 compatible): the
//! partitions of a stream, each consumed by one member at a time in
//! order, members added and dropped at runtime (elastic groups), a standby
//! instance of a member taking over when the pinned one dies.
//!
//! The rules every member applies alike (documents, names, distribution,
//! partition hash) are the sans-IO core's, re-exported here.

pub use crate::core::jetstream::groups::{
    ElasticConfig, Mappings, MemberMapping, PartitioningFilter, StaticConfig, member, member_filters,
    member_partitions, names, partition, partition_of, strip_partition,
};

#[cfg(has_runtime)]
mod admin;
#[cfg(has_runtime)]
mod join;
#[cfg(has_runtime)]
mod requests;

#[cfg(has_runtime)]
pub use admin::{
    MemberState, add_members, create_elastic, create_static, delete, delete_mappings, drop_members, elastic_config,
    list, members, set_mappings, static_config, step_down,
};
#[cfg(has_runtime)]
pub use join::{GroupMessage, Member, join};

/// The two kinds of groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The stream's subjects start with the partition number; members fixed.
    Static,
    /// A work-queue stream sourced from the stream adds the partition number; members change at runtime.
    Elastic,
}

impl Kind {
    /// The KV bucket of this kind's documents.
    pub fn bucket(self) -> &'static str {
        match self {
            Kind::Static => names::STATIC_BUCKET,
            Kind::Elastic => names::ELASTIC_BUCKET,
        }
    }

    /// The stream the members' consumers live on.
    pub fn consumer_stream(self, stream: &str, group: &str) -> String {
        match self {
            Kind::Static => stream.to_string(),
            Kind::Elastic => names::elastic_stream(stream, group),
        }
    }

    /// A member's consumer name.
    pub fn consumer_name(self, group: &str, member: &str) -> String {
        match self {
            Kind::Static => names::static_consumer(group, member),
            Kind::Elastic => names::elastic_consumer(member).to_string(),
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::Static => "static",
            Kind::Elastic => "elastic",
        })
    }
}
