//! The group documents, in orbit.go `pcgroups` v0.2's JSON: field names,
//! which fields are left out when empty, and `null` kept apart from `[]`
//! where the Go library compares them (an elastic group's partitioning
//! filters: a member in Go stops when they differ from what it joined with,
//! so a document rewritten here must keep them byte for byte). Validation
//! follows the Go library's rules and words.

use serde::{Deserialize, Serialize};

use crate::core::error::Error;
use crate::core::jetstream::api::null_as_default;

/// Mappings as one JSON object, `{"mappings": [...]}` (plain JSON is an object).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Mappings {
    /// The mappings.
    #[serde(default, deserialize_with = "null_as_default")]
    pub mappings: Vec<MemberMapping>,
}

impl Mappings {
    /// `{"mappings": [...]}` read and its members' names checked.
    pub fn parse(json: &[u8]) -> Result<Vec<MemberMapping>, Error> {
        let read: Mappings = crate::core::plain_json::from_slice(json)
            .map_err(|e| Error::InvalidArgument(format!("not member mappings: {e}")))?;
        Ok(read.mappings)
    }
}

/// Partitions given to one member by hand.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MemberMapping {
    /// The member's name.
    pub member: String,
    /// The partition numbers it owns (0 to `max_members - 1`).
    #[serde(default, deserialize_with = "null_as_default")]
    pub partitions: Vec<i64>,
}

/// A static group: the stream's subjects already start with the partition
/// number (a stream subject transform `{{partition(N,...)}}.…` put it
/// there); members and mappings are fixed for the group's life.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StaticConfig {
    /// The number of partitions, and so of members at most.
    pub max_members: u32,
    /// Filters after the partition token (none: `>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub filters: Vec<String>,
    /// Members, given partitions by the balanced distribution.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub members: Vec<String>,
    /// Or partitions given to members by hand.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub member_mappings: Vec<MemberMapping>,
}

/// A filter of an elastic group's stream and the `*` wildcards (1-based
/// among the filter's `*`) whose tokens make the partitioning key.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PartitioningFilter {
    /// The subjects taken from the stream, e.g. `orders.*`.
    pub filter: String,
    /// The wildcards hashed into the partition; `None` (JSON `null`, as Go
    /// writes an unset list) or empty: the whole subject is the key.
    #[serde(default)]
    pub partitioning_wildcards: Option<Vec<i64>>,
}

/// An elastic group: a work-queue stream `<stream>-<group>` sources the
/// stream and puts the partition number in front of each subject; members
/// are added, dropped and remapped at any time.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ElasticConfig {
    /// The number of partitions, and so of members at most.
    pub max_members: u32,
    /// The filters and their partitioning wildcards; `None` is JSON `null`
    /// (the Go library's "no filters", which takes the whole stream).
    #[serde(default)]
    pub partitioning_filters: Option<Vec<PartitioningFilter>>,
    /// The group stream's message limit (0: none). The Go name, without the "s".
    #[serde(rename = "max_buffered_msg", default, skip_serializing_if = "is_zero")]
    pub max_buffered_msgs: i64,
    /// The group stream's byte limit (0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_buffered_bytes: i64,
    /// Members, given partitions by the balanced distribution.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub members: Vec<String>,
    /// Or partitions given to members by hand.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "null_as_default")]
    pub member_mappings: Vec<MemberMapping>,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// A `kind` group's document, read with the small JSON reader (documents
/// are plain JSON, so the wasm links no serde_json deserializer for them).
fn read<T: serde::de::DeserializeOwned>(json: &[u8], kind: &str) -> Result<T, Error> {
    crate::core::plain_json::from_slice(json)
        .map_err(|e| invalid(&format!("not a valid {kind} consumer group document: {e}")))
}

fn write(document: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(document).expect("strings and numbers serialize")
}

fn invalid(why: &str) -> Error {
    Error::InvalidArgument(format!("invalid consumer group config: {why}"))
}

/// Whether `name` is a member, by the list or by a mapping.
fn in_membership(members: &[String], mappings: &[MemberMapping], name: &str) -> bool {
    members.iter().any(|m| m == name) || mappings.iter().any(|m| m.member == name)
}

/// The rules of both kinds for the partition count, members and mappings.
fn validate_membership(max_members: u32, members: &[String], mappings: &[MemberMapping]) -> Result<(), Error> {
    if max_members < 1 {
        return Err(invalid("the max number of members must be >= 1"));
    }
    if !members.is_empty() && !mappings.is_empty() {
        return Err(invalid("either members or member mappings must be provided, not both"));
    }
    if mappings.is_empty() {
        // Members are deduplicated and capped when partitions are given out.
        return Ok(());
    }
    if mappings.len() > max_members as usize {
        return Err(invalid("the number of member mappings must be between 1 and the max number of members"));
    }
    let mut names = std::collections::BTreeSet::new();
    let mut seen = std::collections::BTreeSet::new();
    for mapping in mappings {
        if !names.insert(mapping.member.as_str()) {
            return Err(invalid("member names must be unique"));
        }
        for &p in &mapping.partitions {
            if !seen.insert(p) {
                return Err(invalid("partition numbers must be used only once"));
            }
            if p < 0 || p >= i64::from(max_members) {
                return Err(invalid("partition numbers must be between 0 and one less than the max number of members"));
            }
        }
    }
    if seen.len() != max_members as usize {
        return Err(invalid("the number of unique partition numbers must be equal to the max number of members"));
    }
    Ok(())
}

impl StaticConfig {
    /// The Go library's checks, with its words.
    pub fn validate(&self) -> Result<(), Error> {
        validate_membership(self.max_members, &self.members, &self.member_mappings)
    }

    /// Whether `name` is a member (by the list or a mapping).
    pub fn is_member(&self, name: &str) -> bool {
        in_membership(&self.members, &self.member_mappings, name)
    }

    /// A document read from the bucket, checked.
    pub fn parse(json: &[u8]) -> Result<Self, Error> {
        read(json, "static").and_then(|c: StaticConfig| c.validate().map(|()| c))
    }

    /// The document's JSON, as the Go library writes it.
    pub fn to_json(&self) -> Vec<u8> {
        write(self)
    }
}

impl ElasticConfig {
    /// The Go library's checks, with its words.
    pub fn validate(&self) -> Result<(), Error> {
        if self.max_members < 1 {
            return Err(invalid("the max number of members must be >= 1"));
        }
        for pf in self.partitioning_filters.iter().flatten() {
            if pf.filter.is_empty() {
                return Err(invalid("partitioning filters must have a non-empty filter"));
            }
            let tokens: Vec<&str> = pf.filter.split('.').collect();
            let stars = tokens.iter().filter(|t| **t == "*").count();
            if stars == 0 && tokens.last() != Some(&">") {
                return Err(invalid("partitioning filters must have at least one * wildcard or end with > wildcard"));
            }
            let wildcards = pf.partitioning_wildcards.as_deref().unwrap_or_default();
            if wildcards.len() > stars {
                return Err(invalid(
                    "the number of partitioning wildcards must not be larger than the total number of * wildcards in the filter",
                ));
            }
            let mut seen = std::collections::BTreeSet::new();
            for &w in wildcards {
                if !seen.insert(w) {
                    return Err(invalid("partitioning wildcard indexes must be unique"));
                }
                if w < 1 || w > stars as i64 {
                    return Err(invalid(
                        "partitioning wildcard indexes must be between 1 and the number of * wildcards in the filter",
                    ));
                }
            }
        }
        validate_membership(self.max_members, &self.members, &self.member_mappings)
    }

    /// Whether `name` is a member (by the list or a mapping).
    pub fn is_member(&self, name: &str) -> bool {
        in_membership(&self.members, &self.member_mappings, name)
    }

    /// Whether `other` keeps what cannot change in a group's life: the
    /// partition count, the filters and the buffer limits (a member whose
    /// group changed these stops, as in Go).
    pub fn same_shape(&self, other: &ElasticConfig) -> bool {
        self.max_members == other.max_members
            && self.partitioning_filters == other.partitioning_filters
            && self.max_buffered_msgs == other.max_buffered_msgs
            && self.max_buffered_bytes == other.max_buffered_bytes
    }

    /// A document read from the bucket, checked.
    pub fn parse(json: &[u8]) -> Result<Self, Error> {
        read(json, "elastic").and_then(|c: ElasticConfig| c.validate().map(|()| c))
    }

    /// The document's JSON, as the Go library writes it.
    pub fn to_json(&self) -> Vec<u8> {
        write(self)
    }

    /// The group with `names` added to its members (empty names skipped,
    /// each once); refused when the group uses mappings.
    pub fn with_members_added(&self, names: &[String]) -> Result<ElasticConfig, Error> {
        if !self.member_mappings.is_empty() {
            return Err(Error::InvalidArgument(
                "can't add members to an elastic consumer group that uses member mappings".into(),
            ));
        }
        let mut next = self.clone();
        for name in names {
            if !name.is_empty() && !next.members.contains(name) {
                next.members.push(name.clone());
            }
        }
        Ok(next)
    }

    /// The group without the members `names`; refused when the group uses mappings.
    pub fn with_members_dropped(&self, names: &[String]) -> Result<ElasticConfig, Error> {
        if !self.member_mappings.is_empty() {
            return Err(Error::InvalidArgument(
                "can't drop members from an elastic consumer group that uses member mappings".into(),
            ));
        }
        let mut next = self.clone();
        next.members.retain(|m| !names.contains(m));
        Ok(next)
    }

    /// The group with these mappings instead of its members (checked).
    pub fn with_mappings(&self, mappings: Vec<MemberMapping>) -> Result<ElasticConfig, Error> {
        if mappings.is_empty() {
            return Err(Error::InvalidArgument("no member mappings given".into()));
        }
        let next = ElasticConfig { members: Vec::new(), member_mappings: mappings, ..self.clone() };
        next.validate()?;
        Ok(next)
    }

    /// The group without mappings (and so with no members until some are added).
    pub fn without_mappings(&self) -> ElasticConfig {
        ElasticConfig { member_mappings: Vec::new(), ..self.clone() }
    }
}
