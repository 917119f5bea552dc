//! Partitioned consumer groups, sans-IO: the rules that every member of a
//! group must apply the same way, in Rust, in JS and in orbit.go's
//! `pcgroups` (v0.2), so that members written in either join one group.
//!
//! - [`config`]: the group documents kept in the KV buckets
//!   `static-consumer-groups` and `elastic-consumer-groups`, under the key
//!   `<stream>.<group>`, in the Go library's JSON, and their validation;
//! - [`names`]: buckets, keys, the elastic group's work-queue stream, the
//!   members' consumer names and the priority group;
//! - [`partition`]: which partitions a member owns (balanced or mapped),
//!   the consumer filters that select them, the subject transform an elastic
//!   group's stream applies, the server's partition hash, and the partition
//!   token stripped from the subject a user sees;
//! - [`member`]: the consumer config a member instance creates from the
//!   user's template (pinned client, TTLs derived from `ack_wait`);
//! - [`order`]: strict order per partition while several partitions'
//!   messages are in flight (a partition's next message waits for the ack).
//!
//! Nothing here performs I/O; `jetstream::groups` runs these rules over a
//! connection.

pub mod config;
pub mod member;
pub mod names;
pub mod order;
pub mod partition;

pub use config::{ElasticConfig, Mappings, MemberMapping, PartitioningFilter, StaticConfig};
pub use partition::{member_filters, member_partitions, partition_of, strip_partition};

#[cfg(test)]
mod tests;
