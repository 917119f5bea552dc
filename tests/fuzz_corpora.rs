//! Replays every committed fuzz corpus (`fuzz/corpus/<target>/`) through
//! its target's check on stable, so what the fuzzers once found stays
//! tested without nightly. Needs the `fuzzing` feature:
//! `cargo test --features fuzzing --test fuzz_corpora`.

#[path = "../fuzz/src/lib.rs"]
mod checks;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{target}: {} fails", path.display());
        files += 1;
    }
    assert!(files > 0, "{target}: empty corpus");
}

#[test]
fn parser() {
    replay("parser", checks::parser::check);
}

#[test]
fn headers() {
    replay("headers", checks::headers::check);
}

#[test]
fn ack_metadata() {
    replay("ack_metadata", checks::ack_metadata::check);
}

#[test]
fn api_json() {
    replay("api_json", checks::api_json::check);
}

#[test]
fn kv_entry() {
    replay("kv_entry", checks::kv_entry::check);
}

#[test]
fn object_meta() {
    replay("object_meta", checks::object_meta::check);
}
