#!/usr/bin/env bash
# The Rust API reference, as docs.rs would build it, without a warning:
# cargo doc --no-deps with RUSTDOCFLAGS="-D warnings", so a broken or
# redundant intra-doc link, a bad code block or any other rustdoc warning
# fails.
#
# Every public item is documented (issue 38: 804 undocumented at first,
# none since): src/lib.rs denies missing_docs for the whole crate, so an
# undocumented public item already fails cargo check, clippy and test on
# every target and feature set (the wasm build's items included), and this
# build too.
#
#   scripts/api-docs.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUSTDOCFLAGS="${RUSTDOCFLAGS:-} -D warnings" cargo doc --no-deps
