//! The `ack_metadata` fuzz target: the check lives in `src/ack_metadata.rs`, which the stable
//! corpus replay (`tests/fuzz_corpora.rs`) runs too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| natsjet_fuzz::ack_metadata::check(data));
