#!/usr/bin/env bash
# The one test command: installs what is missing (scripts/setup.sh), then runs
#   1. cargo test --tests --examples   unit + integration tests, natively; the
#                                      integration tests start their own nats-servers
#      core-alone                      the sans-IO core built without a runtime, warning-free
#                                      (tests/core_imports.rs guards what it names)
#      wasm-core                       the core's unit tests on wasm32, in Node
#   2. cargo test --doc                doctests (natively only): the crate doc, README.md
#                                      and docs/*.md's Rust samples
#      release checks                  api-docs: cargo doc without a warning (broken
#                                      intra-doc links; src/lib.rs denies missing docs)
#                                      (scripts/api-docs.sh); crate-package: cargo package
#                                      builds the crate from its own tarball; docs-check:
#                                      every relative link and anchor in README.md,
#                                      pkg/README.md, ARCHITECTURE.md, CHANGELOG.md and
#                                      docs/ resolves, every JS sample parses
#                                      (scripts/check-docs.mjs)
#      cargo test --features fuzzing --test fuzz_corpora
#                                      replays the fuzz corpora (fuzz/corpus) on stable
#   3. cargo test --benches --no-run   benches must compile (they are run by hand)
#   4. compat/, twice                  programs written for async-nats 0.52, built and
#                                      run against natsjet, then against async-nats
#   5. scripts/wasm-smoke.sh           when it exists (wasm build + tests)
#   6. scripts/build-pkg.sh            builds the npm package in pkg/ that the JS tests use
#      scripts/js-api-docs.sh          the JS API reference (TypeDoc) without a warning, its
#                                      undocumented exports within their budget
#   7. npm test                        in every folder whose package.json has a test script
#                                      (bindings/: also the nats.js programs of test/compat/,
#                                      and test/pack.test.mjs: npm pack, the tarball installed
#                                      into a fresh project, type-checked, run from Node, an
#                                      esbuild bundle and a plain module page)
# Every stage runs even if an earlier one failed; exits non-zero if any failed.
#
#   scripts/test.sh
#
# The JS tests drive a real Chromium, so setup.sh always runs with --browser
# here (it installs chromium + chromedriver when missing). In CI (CI set) a
# missing Chromium fails the browser tests; elsewhere they are skipped.
#
# Environment: NATSJET_STAGE_TIMEOUT (seconds per stage, default 2400),
# plus what setup.sh reads (NATSJET_SKIP_WASM).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stage_timeout="${NATSJET_STAGE_TIMEOUT:-2400}"
log_file="$(mktemp -t natsjet-test.XXXXXX)"
trap 'rm -f "$log_file"' EXIT
failed=()

banner() { echo; echo "==== $* ===="; }

# run_stage NAME CMD...: runs CMD with a time limit, output also into $log_file.
run_stage() {
    local name="$1"; shift
    banner "$name: $*"
    local start=$SECONDS
    # timeout signals the whole process group, so servers started by tests go too.
    if timeout --kill-after=30 "$stage_timeout" "$@" 2>&1 | tee -a "$log_file"; then
        echo "==== $name: ok ($((SECONDS - start)) s) ===="
    else
        echo "==== $name: FAILED ($((SECONDS - start)) s) ===="
        failed+=("$name")
    fi
}

banner "setup"
bash scripts/setup.sh --browser "$@"
# setup.sh may have installed tools into folders not yet on PATH.
source scripts/env.sh
echo "nats-server: $(command -v "${NATS_SERVER_BIN:-nats-server}") ($("${NATS_SERVER_BIN:-nats-server}" --version))"

run_stage "cargo-test" cargo test --tests --examples
# The sans-IO core builds alone, without a runtime (build.rs's has_runtime
# off), and without a warning; tests/core_imports.rs checks what it names.
run_stage "core-alone" cargo clippy --lib --no-default-features -- -D warnings
# The core's unit tests again on wasm32, in Node (wasm-bindgen-test-runner,
# set as the runner in .cargo/config.toml); the lib's other tests need a
# runtime or I/O and stay native. The npm package's features: nkeys' tests
# make keys, which nkeys cannot do in wasm, and stay native too.
if [[ "${NATSJET_SKIP_WASM:-0}" != 1 ]]; then
    run_stage "wasm-core" cargo test --target wasm32-unknown-unknown --no-default-features --features wasm,service --lib
fi
run_stage "doctests" cargo test --doc
# Release checks: the API docs build without a warning (an undocumented
# public item fails every build already); the crate builds from its own packaged
# tarball (--allow-dirty only outside CI, for a developer's uncommitted
# edits); the Markdown guides' links resolve and their JS samples parse.
run_stage "api-docs" bash scripts/api-docs.sh
package_flags=()
[[ -n "${CI:-}" ]] || package_flags+=(--allow-dirty)
run_stage "crate-package" cargo package "${package_flags[@]}"
run_stage "docs-check" node scripts/check-docs.mjs
run_stage "fuzz-corpora" cargo test --features fuzzing --test fuzz_corpora
if [[ -d benches ]]; then
    run_stage "benches-build" cargo test --benches --no-run
fi
# A workspace member, so both builds share target/ with the stages above.
for library in natsjet async-nats; do
    run_stage "compat-$library" cargo test -p natsjet-compat --features "$library"
done

if [[ -f scripts/wasm-smoke.sh ]]; then
    run_stage "wasm-smoke" bash scripts/wasm-smoke.sh
else
    banner "wasm-smoke: scripts/wasm-smoke.sh not present, skipped"
fi

if [[ -f scripts/build-pkg.sh ]]; then
    run_stage "build-pkg" bash scripts/build-pkg.sh
    # The JS reference (TypeDoc) builds from the package's types without a
    # warning and its undocumented exports stay within their budget.
    run_stage "js-api-docs" bash scripts/js-api-docs.sh
fi

while IFS= read -r pkg; do
    d="$(dirname "$pkg")"
    if node -e 'const p = require(process.argv[1]); process.exit(p.scripts && p.scripts.test ? 0 : 1)' "$PWD/$pkg"; then
        run_stage "npm-test:$d" bash -c "cd '$d' && npm test"
    fi
done < <(find . -name package.json -not -path '*/node_modules/*' -not -path './target/*' | sort)

# One closing line with the totals of every runner (cargo's "test result:"
# lines and node:test's "# pass N" / "ℹ pass N" summaries).
totals="$(awk '
    /^test result: / {
        for (i = 1; i <= NF; i++) {
            if ($(i) ~ /^passed;?$/) p += $(i - 1)
            if ($(i) ~ /^failed;?$/) f += $(i - 1)
            if ($(i) ~ /^ignored;?$/) s += $(i - 1)
        }
    }
    /^(# |ℹ )pass [0-9]+$/ { p += $3 }
    /^(# |ℹ )fail [0-9]+$/ { f += $3 }
    /^(# |ℹ )(skipped|todo) [0-9]+$/ { s += $3 }
    END { printf "%d passed, %d failed, %d skipped", p, f, s }
' "$log_file")"

if ((${#failed[@]})); then
    echo "FAILED stages: ${failed[*]}"
    echo "total: $totals"
    exit 1
fi
echo "all stages ok"
echo "total: $totals"
