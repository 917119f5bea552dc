//! The checks of the fuzz targets, one module per target. The fuzz binaries
//! (`fuzz_targets/`, nightly cargo-fuzz) and the corpus replay on stable
//! (`tests/fuzz_corpora.rs` in the main crate, which includes this file by
//! `#[path]`) call the same `check`, so a corpus file that once found a bug
//! keeps testing the fix without nightly.

pub mod ack_metadata;
pub mod api_json;
pub mod headers;
pub mod kv_entry;
pub mod object_meta;
pub mod parser;

/// Splits `data` at `0xFF` bytes (never in UTF-8 text, so the fuzzer's
/// strings stay whole) into exactly `N` parts, the last holding the rest;
/// `None` when there are fewer.
fn parts<const N: usize>(data: &[u8]) -> Option<[&[u8]; N]> {
    let mut parts = [&data[..0]; N];
    let mut rest = data;
    for part in parts.iter_mut().take(N - 1) {
        let at = rest.iter().position(|&b| b == 0xFF)?;
        *part = &rest[..at];
        rest = &rest[at + 1..];
    }
    parts[N - 1] = rest;
    Some(parts)
}

/// The wasm's JSON reader (serde-json-core) against serde_json on the same
/// `json`: both read the same value or both refuse
/// it. On what is not JSON at all they may differ (serde-json-core lets raw
/// control characters through strings and skips ignored scalars without
/// checking them; serde_json skips ignored strings without checking their
/// UTF-8): the server writes JSON. Escaped surrogate pairs, which
/// serde-json-core refuses and Go never writes, are skipped too.
fn agree<T: PartialEq + std::fmt::Debug, E: std::fmt::Debug>(
    json: &[u8],
    native: Result<T, E>,
    wasm: Result<T, E>,
) -> Option<T> {
    let surrogate = json.windows(3).any(|w| w[0] == b'\\' && w[1] == b'u' && matches!(w[2], b'd' | b'D'));
    match (native, wasm) {
        (Ok(native), Ok(wasm)) => {
            assert_eq!(native, wasm, "for {}", String::from_utf8_lossy(json));
            Some(native)
        }
        (Err(_), Err(_)) => None,
        _ if std::str::from_utf8(json).is_err() || serde_json::from_slice::<serde::de::IgnoredAny>(json).is_err() => {
            None
        }
        (Ok(_), Err(_)) if surrogate => None,
        (native, wasm) => panic!("serde_json: {native:?}\nwasm: {wasm:?}\nfor {}", String::from_utf8_lossy(json)),
    }
}
