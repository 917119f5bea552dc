//! The names a group lives under, as orbit.go's `pcgroups` v0.2 composes
//! them: the KV buckets and keys of the group documents, the elastic
//! group's work-queue stream, the members' consumers and the priority group
//! their pulls ask in.

use crate::core::error::Error;

/// The KV bucket of static groups' documents.
pub const STATIC_BUCKET: &str = "static-consumer-groups";
/// The KV bucket of elastic groups' documents.
pub const ELASTIC_BUCKET: &str = "elastic-consumer-groups";
/// The priority group of every member consumer (pinned-client policy).
pub const PRIORITY_GROUP: &str = "PCG";

/// The document's key in its bucket: `<stream>.<group>`.
pub fn config_key(stream: &str, group: &str) -> String {
    format!("{stream}.{group}")
}

/// The stream and group of a document key, `None` for keys of another shape.
pub fn parse_config_key(key: &str) -> Option<(&str, &str)> {
    let mut parts = key.split('.');
    let stream = parts.next()?;
    let group = parts.next()?;
    Some((stream, group))
}

/// A static member's durable consumer on the stream: `<group>-<member>`.
pub fn static_consumer(group: &str, member: &str) -> String {
    format!("{group}-{member}")
}

/// The prefix of every consumer of a static group (deleting the group deletes them).
pub fn static_consumer_prefix(group: &str) -> String {
    format!("{group}-")
}

/// The work-queue stream an elastic group sources its stream into: `<stream>-<group>`.
pub fn elastic_stream(stream: &str, group: &str) -> String {
    format!("{stream}-{group}")
}

/// An elastic member's consumer on the group's stream: the member's name.
pub fn elastic_consumer(member: &str) -> &str {
    member
}

/// A stream, group or member name that can be a KV key token and a
/// consumer or stream name: not empty, and no `.`, `*`, `>`, path
/// separators, whitespace or control characters.
pub fn check_name(what: &str, name: &str) -> Result<(), Error> {
    let bad = |c: char| matches!(c, '.' | '*' | '>' | '/' | '\\') || c.is_whitespace() || c.is_control();
    if name.is_empty() {
        return Err(Error::InvalidArgument(format!("a consumer group's {what} name must not be empty")));
    }
    if name.contains(bad) {
        return Err(Error::InvalidArgument(format!(
            "a consumer group's {what} name must not contain '.', '*', '>', '/', '\\' or whitespace: {name:?}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn names_as_the_go_library_composes_them() {
        assert_eq!(config_key("orders", "cg"), "orders.cg");
        assert_eq!(parse_config_key("orders.cg"), Some(("orders", "cg")));
        assert_eq!(parse_config_key("orders"), None);
        assert_eq!(static_consumer("cg", "m1"), "cg-m1");
        assert_eq!(elastic_stream("orders", "cg"), "orders-cg");
        assert_eq!(elastic_consumer("m1"), "m1");
    }

    #[test]
    fn names_that_would_break_keys_or_subjects_are_refused() {
        assert!(check_name("group", "cg-1_a").is_ok());
        for bad in ["", "a.b", "a*", "a>", "a b", "a/b", "a\tb"] {
            assert!(matches!(check_name("group", bad), Err(Error::InvalidArgument(_))), "{bad:?}");
        }
    }
}
