//! The cases of `tests/vectors/object_store.json`: names and the subjects
//! they make, bucket names, digests, direct batches. The npm package's TS
//! rules (`bindings/obj/rules.ts`) run its name and bucket checks too.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::Value;

use super::{digest, get, names};

fn vectors() -> Value {
    serde_json::from_str(include_str!("../../../tests/vectors/object_store.json")).unwrap()
}

/// A string case: a string, or `{ "repeat": s, "times": n }`.
fn text(case: &Value) -> String {
    match case {
        Value::String(s) => s.clone(),
        _ => case["repeat"].as_str().unwrap().repeat(case["times"].as_u64().unwrap() as usize),
    }
}

fn texts(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(text).collect()
}

#[test]
fn names_make_the_subjects_every_client_looks_under() {
    for case in vectors()["meta_subjects"].as_array().unwrap() {
        let (bucket, name) = (case["bucket"].as_str().unwrap(), case["name"].as_str().unwrap());
        let made: Vec<String> = [Some(names::meta_subject(bucket, name)), names::latin1_meta_subject(bucket, name)]
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(made, texts(&case["subjects"]), "{name}");
    }
}

#[test]
fn names_and_buckets_are_checked() {
    let v = vectors();
    for name in texts(&v["good_names"]) {
        assert!(names::check_name(&name).is_ok(), "{name}");
    }
    for name in texts(&v["bad_names"]) {
        assert!(names::check_name(&name).is_err(), "{name}");
    }
    for bucket in texts(&v["good_buckets"]) {
        assert!(names::check_bucket(&bucket).is_ok(), "{bucket}");
    }
    for bucket in texts(&v["bad_buckets"]) {
        assert!(names::check_bucket(&bucket).is_err(), "{bucket}");
    }
}

#[test]
fn digests_are_read_as_every_client_writes_them() {
    for case in vectors()["digests"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        let hex = digest::parse(text).map(|sum| sum.iter().map(|b| format!("{b:02x}")).collect::<String>());
        assert_eq!(hex.as_deref(), case["sha256"].as_str(), "{text}");
    }
}

#[test]
fn batches_ask_for_about_a_mib_of_chunks() {
    for case in vectors()["per_batch"].as_array().unwrap() {
        let [size, chunks, batch] = ["size", "chunks", "batch"].map(|k| case[k].as_u64().unwrap() as usize);
        assert_eq!(get::per_batch(size, chunks), batch, "{case}");
    }
}
