//! The `object_meta` fuzz target: the check lives in `src/object_meta.rs`, which the stable
//! corpus replay (`tests/fuzz_corpora.rs`) runs too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| natsjet_fuzz::object_meta::check(data));
