//! The rules against `tests/vectors/consumer_groups.json` (computed from
//! orbit.go's and nats-server's definitions by scripts/groups-vectors.py)
//! and the Go library's validation cases.

use std::time::Duration;

use serde_json::Value;

use super::*;
use crate::core::error::Error;
use crate::core::jetstream::api::{AckPolicy, ConsumerConfig, PriorityPolicy};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn vectors() -> Value {
    serde_json::from_str(include_str!("../../../../tests/vectors/consumer_groups.json")).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

fn wildcards(v: &Value) -> Option<Vec<i64>> {
    v.as_array().map(|a| a.iter().map(|n| n.as_i64().unwrap()).collect())
}

#[test]
fn go_documents_read_and_write_back_byte_for_byte() {
    for doc in vectors()["documents"].as_array().unwrap() {
        let json = doc["go_json"].as_str().unwrap();
        let written = match doc["kind"].as_str().unwrap() {
            "static" => StaticConfig::parse(json.as_bytes()).unwrap().to_json(),
            _ => ElasticConfig::parse(json.as_bytes()).unwrap().to_json(),
        };
        assert_eq!(String::from_utf8(written).unwrap(), json);
    }
}

#[test]
fn null_filters_stay_null_when_members_change() {
    let config = ElasticConfig::parse(br#"{"max_members":2,"partitioning_filters":null}"#).unwrap();
    let added = config.with_members_added(&["b".into(), "a".into(), "b".into(), String::new()]).unwrap();
    assert_eq!(added.to_json(), br#"{"max_members":2,"partitioning_filters":null,"members":["b","a"]}"#);
    assert!(added.same_shape(&config));
    let dropped = added.with_members_dropped(&["b".into()]).unwrap();
    assert_eq!(dropped.members, ["a"]);
}

#[test]
fn balanced_distribution_is_the_go_one() {
    for case in vectors()["distributions"].as_array().unwrap() {
        let members = strings(&case["members"]);
        let max = case["max_members"].as_u64().unwrap() as u32;
        let mut all = Vec::new();
        for (member, expected) in case["partitions"].as_object().unwrap() {
            let got = member_partitions(&members, max, &[], member);
            let expected: Vec<u32> = expected.as_array().unwrap().iter().map(|p| p.as_u64().unwrap() as u32).collect();
            assert_eq!(got, expected, "{members:?} over {max}: {member}");
            all.extend(got);
        }
        all.sort_unstable();
        assert_eq!(all, (0..max).collect::<Vec<_>>(), "every partition once");
    }
}

#[test]
fn partition_hash_is_the_servers() {
    for case in vectors()["partitions"].as_array().unwrap() {
        let filter = PartitioningFilter {
            filter: case["filter"].as_str().unwrap().into(),
            partitioning_wildcards: wildcards(&case["wildcards"]),
        };
        let max = case["max_members"].as_u64().unwrap() as u32;
        let subject = case["subject"].as_str().unwrap();
        assert_eq!(partition_of(subject, &filter, max), Some(case["partition"].as_u64().unwrap() as u32), "{subject}");
    }
    let filter = PartitioningFilter { filter: "orders.*".into(), partitioning_wildcards: Some(vec![1]) };
    assert_eq!(partition_of("other.x", &filter, 4), None);
    assert_eq!(partition_of("orders.x.y", &filter, 4), None);
    assert_eq!(partition_of("orders.x", &filter, 0), None);
}

#[test]
fn transforms_are_the_go_ones() {
    for case in vectors()["transforms"].as_array().unwrap() {
        let filter = PartitioningFilter {
            filter: case["filter"].as_str().unwrap().into(),
            partitioning_wildcards: wildcards(&case["wildcards"]),
        };
        let max = case["max_members"].as_u64().unwrap() as u32;
        assert_eq!(partition::transform_destination(&filter, max), case["dest"].as_str().unwrap());
    }
    let none = ElasticConfig { max_members: 3, ..ElasticConfig::default() };
    assert_eq!(none.source_transforms(), [(">".to_string(), "{{Partition(3)}}.>".to_string())]);
}

#[test]
fn member_filters_as_go_builds_them() {
    let members: Vec<String> = vec!["m2".into(), "m1".into()];
    assert_eq!(member_filters(&members, 4, &[], "m1", &[]), ["0.>", "1.>"]);
    assert_eq!(member_filters(&members, 3, &[], "m2", &["a.*", "b.>"]), ["1.a.*", "1.b.>"]);
    assert!(member_filters(&members, 4, &[], "m9", &[]).is_empty());
    let mappings = vec![MemberMapping { member: "x".into(), partitions: vec![3, 1] }];
    assert_eq!(member_filters(&[], 4, &mappings, "x", &["a.*", "b.*"]), ["3.>", "1.>"]);
}

#[test]
fn strip_takes_the_partition_token_off() {
    assert_eq!(strip_partition("3.orders.k1"), "orders.k1");
    assert_eq!(strip_partition("orders"), "orders");
}

fn refused(json: &str) -> String {
    match ElasticConfig::parse(json.as_bytes()) {
        Err(Error::InvalidArgument(why)) => why,
        other => panic!("{json}: {other:?}"),
    }
}

#[test]
fn invalid_documents_are_refused_with_the_go_reasons() {
    assert!(refused(r#"{"max_members":0}"#).contains(">= 1"));
    assert!(
        refused(r#"{"max_members":2,"members":["a"],"member_mappings":[{"member":"a","partitions":[0,1]}]}"#)
            .contains("not both")
    );
    assert!(
        refused(r#"{"max_members":2,"member_mappings":[{"member":"a","partitions":[0,0]}]}"#).contains("only once")
    );
    assert!(
        refused(r#"{"max_members":2,"member_mappings":[{"member":"a","partitions":[0,2]}]}"#).contains("between 0")
    );
    assert!(refused(r#"{"max_members":3,"member_mappings":[{"member":"a","partitions":[0,1]}]}"#).contains("equal"));
    assert!(
        refused(
            r#"{"max_members":2,"member_mappings":[{"member":"a","partitions":[0]},{"member":"a","partitions":[1]}]}"#
        )
        .contains("unique")
    );
    assert!(refused(r#"{"max_members":2,"partitioning_filters":[{"filter":"a.b"}]}"#).contains("at least one *"));
    assert!(
        refused(r#"{"max_members":2,"partitioning_filters":[{"filter":"a.*","partitioning_wildcards":[2]}]}"#)
            .contains("between 1")
    );
    assert!(
        refused(r#"{"max_members":2,"partitioning_filters":[{"filter":"a.*","partitioning_wildcards":[1,1]}]}"#)
            .contains("not be larger")
    );
    assert!(refused(r#"{"max_members":2,"partitioning_filters":[{"filter":""}]}"#).contains("non-empty"));
    assert!(refused("not json").contains("not a valid elastic"));
    assert!(refused(r#"{"max_members":-1}"#).contains("not a valid elastic"));
}

#[test]
fn mappings_replace_members_and_members_need_no_mappings() {
    let config = ElasticConfig { max_members: 2, members: vec!["a".into()], ..ElasticConfig::default() };
    let mapped = config.with_mappings(vec![MemberMapping { member: "x".into(), partitions: vec![0, 1] }]).unwrap();
    assert!(mapped.members.is_empty() && mapped.is_member("x") && !mapped.is_member("a"));
    assert!(mapped.with_members_added(&["b".into()]).is_err());
    assert!(config.with_mappings(vec![MemberMapping { member: "x".into(), partitions: vec![0] }]).is_err());
    assert!(!mapped.without_mappings().is_member("x"));
}

#[test]
fn member_consumers_are_pinned_with_ttls_from_ack_wait() {
    let template = ConsumerConfig { max_ack_pending: 1, ..ConsumerConfig::default() };
    let c = member::static_consumer_config(&template, "cg", "m1", vec!["0.>".into()]);
    assert_eq!(c.durable_name.as_deref(), Some("cg-m1"));
    assert_eq!((c.ack_wait, c.priority_timeout), (Duration::from_secs(5), Duration::from_secs(5)));
    assert_eq!(c.priority_groups, ["PCG"]);
    assert_eq!(c.priority_policy, PriorityPolicy::PinnedClient);
    assert_eq!(c.max_ack_pending, 1);
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["priority_policy"], "pinned_client");
    assert_eq!(json["priority_timeout"], 5_000_000_000u64);

    let short = ConsumerConfig { ack_wait: Duration::from_millis(400), ..ConsumerConfig::default() };
    let e = member::elastic_consumer_config(&short, "m1", vec!["1.>".into()]).unwrap();
    assert_eq!((e.name.as_deref(), e.durable_name.as_deref()), (Some("m1"), None));
    assert_eq!(e.priority_timeout, Duration::from_secs(1), "at least 1 s");
    assert_eq!(e.inactive_threshold, Duration::from_millis(400));
    assert_eq!(member::pull_expiry(Duration::from_secs(6)), Duration::from_secs(3));
    assert_eq!(member::pull_expiry(Duration::from_secs(1)), Duration::from_secs(1));

    let none = ConsumerConfig { ack_policy: AckPolicy::None, ..ConsumerConfig::default() };
    assert!(member::elastic_consumer_config(&none, "m1", vec![]).is_err());
}
