//! Partitioned consumer groups (orbit.go `pcgroups` v0.2 compatible): the
//! partitions of a stream, each consumed by one member at a time in
//! order, members added and dropped at runtime (elastic groups), a standby
//! instance of a member taking over when the pinned one dies.
//!
//! The rules every member applies alike (documents, names, distribution,
//! partition hash) are the sans-IO core's, re-exported here.

pub use crate::core::jetstream::groups::{
    ElasticConfig, MemberMapping, PartitioningFilter, StaticConfig, member, member_filters, member_partitions, names,
    partition, partition_of, strip_partition,
};
