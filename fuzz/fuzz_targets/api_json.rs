//! The `api_json` fuzz target: the check lives in `src/api_json.rs`, which the stable
//! corpus replay (`tests/fuzz_corpora.rs`) runs too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| natsjet_fuzz::api_json::check(data));
