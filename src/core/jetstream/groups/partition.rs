//! Partitions: which a member owns, the consumer filters that select them,
//! the subject transform of an elastic group's stream, the server's
//! partition hash, and the partition token taken off a subject.
//!
//! The balanced distribution is orbit.go's (every member must compute the
//! same one): members deduplicated, sorted bytewise and capped at the
//! partition count; with `n` members and `p` partitions, `k = p / n`, the
//! first `n * k` partitions go in runs of `k` to the members in order and
//! the rest round-robin from the first member. A member keeps most of its
//! partitions when one joins or leaves.

use super::config::{ElasticConfig, MemberMapping, PartitioningFilter, StaticConfig};

/// The partitions `member` owns, in increasing order: by the balanced
/// distribution of `members` when there are members, else by `mappings`
/// (in the order the mapping lists them).
pub fn member_partitions(members: &[String], max_members: u32, mappings: &[MemberMapping], member: &str) -> Vec<u32> {
    if !members.is_empty() {
        let mut sorted: Vec<&str> = Vec::with_capacity(members.len());
        for m in members {
            if !sorted.contains(&m.as_str()) {
                sorted.push(m);
            }
        }
        sorted.sort_unstable();
        sorted.truncate(max_members as usize);
        let n = sorted.len() as u32;
        let per = max_members / n;
        return (0..max_members)
            .filter(|&i| {
                let owner = if i < n * per { (i / per) % n } else { (i - n * per) % n };
                sorted[owner as usize] == member
            })
            .collect();
    }
    mappings
        .iter()
        .filter(|m| m.member == member)
        .flat_map(|m| m.partitions.iter().filter_map(|&p| u32::try_from(p).ok()))
        .collect()
}

/// The consumer filters of `member`'s partitions: `<partition>.<filter>`
/// for each filter (none: `>`), filters outer and partitions inner as in
/// Go. Mapped partitions take `<partition>.>` whatever the filters, as Go
/// does; where that repeats a filter (several filters and mappings) it is
/// kept once, since the server refuses overlapping filters.
pub fn member_filters(
    members: &[String],
    max_members: u32,
    mappings: &[MemberMapping],
    member: &str,
    filters: &[&str],
) -> Vec<String> {
    let filters: &[&str] = if filters.is_empty() { &[">"] } else { filters };
    let partitions = member_partitions(members, max_members, mappings, member);
    let mut out: Vec<String> = Vec::new();
    for filter in filters {
        for p in &partitions {
            let f = if members.is_empty() { format!("{p}.>") } else { format!("{p}.{filter}") };
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

impl StaticConfig {
    /// The filters of `member`'s consumer on the stream.
    pub fn member_filters(&self, member: &str) -> Vec<String> {
        let filters: Vec<&str> = self.filters.iter().map(String::as_str).collect();
        member_filters(&self.members, self.max_members, &self.member_mappings, member, &filters)
    }
}

impl ElasticConfig {
    /// The filters of `member`'s consumer on the group's stream.
    pub fn member_filters(&self, member: &str) -> Vec<String> {
        let filters: Vec<&str> = self.partitioning_filters.iter().flatten().map(|f| f.filter.as_str()).collect();
        member_filters(&self.members, self.max_members, &self.member_mappings, member, &filters)
    }

    /// The subject transforms (source, destination) of the group stream's
    /// source: each filter's `*` become `{{Wildcard(i)}}`, behind
    /// `{{Partition(N,w…)}}` over the partitioning wildcards. No filters:
    /// `>` to `{{Partition(N)}}.>`, as Go writes it.
    pub fn source_transforms(&self) -> Vec<(String, String)> {
        match self.partitioning_filters.as_deref() {
            Some(filters) if !filters.is_empty() => {
                filters.iter().map(|f| (f.filter.clone(), transform_destination(f, self.max_members))).collect()
            }
            _ => {
                let all = PartitioningFilter { filter: ">".into(), partitioning_wildcards: Some(Vec::new()) };
                vec![(">".into(), transform_destination(&all, self.max_members))]
            }
        }
    }

    /// The partition the group's stream gives a message of `subject` (the
    /// first filter that matches it decides), as the server computes it;
    /// `None` when no filter matches.
    pub fn partition_of(&self, subject: &str) -> Option<u32> {
        match self.partitioning_filters.as_deref() {
            Some(filters) if !filters.is_empty() => {
                filters.iter().find_map(|f| partition_of(subject, f, self.max_members))
            }
            _ => partition_of(
                subject,
                &PartitioningFilter { filter: ">".into(), ..Default::default() },
                self.max_members,
            ),
        }
    }
}

/// A transform destination for one partitioning filter.
pub fn transform_destination(filter: &PartitioningFilter, max_members: u32) -> String {
    let mut star = 0;
    let dest: Vec<String> = filter
        .filter
        .split('.')
        .map(|t| {
            if t == "*" {
                star += 1;
                format!("{{{{Wildcard({star})}}}}")
            } else {
                t.to_string()
            }
        })
        .collect();
    let dest = dest.join(".");
    let wildcards = filter.partitioning_wildcards.as_deref().unwrap_or_default();
    if wildcards.is_empty() {
        format!("{{{{Partition({max_members})}}}}.{dest}")
    } else {
        let list: Vec<String> = wildcards.iter().map(i64::to_string).collect();
        format!("{{{{Partition({max_members},{})}}}}.{dest}", list.join(","))
    }
}

/// FNV-1a, 32 bits: the server's partition hash.
fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// The partition of `subject` under `filter`, as the server's
/// `{{Partition(N,w…)}}` computes it: the tokens at the filter's
/// partitioning wildcards, concatenated without separator, FNV-1a hashed,
/// modulo `max_members`. Without partitioning wildcards the key is the
/// whole subject, dots included (`{{Partition(N)}}`, checked against
/// nats-server 2.15 in `tests/consumer_groups.rs`).
/// `None` when `subject` does not match `filter` or `max_members` is 0.
pub fn partition_of(subject: &str, filter: &PartitioningFilter, max_members: u32) -> Option<u32> {
    if max_members == 0 || !filter_matches(&filter.filter, subject) {
        return None;
    }
    let stars: Vec<usize> = filter.filter.split('.').enumerate().filter(|(_, t)| *t == "*").map(|(i, _)| i).collect();
    let tokens: Vec<&str> = subject.split('.').collect();
    let wildcards = filter.partitioning_wildcards.as_deref().unwrap_or_default();
    if wildcards.is_empty() {
        return Some(fnv1a32(subject.as_bytes()) % max_members);
    }
    let mut key = Vec::new();
    for &w in wildcards {
        let index = *stars.get(usize::try_from(w).ok()?.checked_sub(1)?)?;
        key.extend_from_slice(tokens.get(index)?.as_bytes());
    }
    Some(fnv1a32(&key) % max_members)
}

/// Whether a literal `subject` matches `filter` (`*` one token, `>` one or more at the end).
fn filter_matches(filter: &str, subject: &str) -> bool {
    let mut subject = subject.split('.');
    for f in filter.split('.') {
        match (f, subject.next()) {
            (">", Some(_)) => return true,
            ("*", Some(_)) => {}
            (f, Some(t)) if f == t => {}
            _ => return false,
        }
    }
    subject.next().is_none()
}

/// The subject without its first token (the partition number), as a
/// member hands it to the user; a subject of one token stays as it is.
pub fn strip_partition(subject: &str) -> &str {
    subject.split_once('.').map_or(subject, |(_, rest)| rest)
}
