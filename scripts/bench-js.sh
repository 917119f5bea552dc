#!/usr/bin/env bash
# The JavaScript benchmarks (bench/js): natsjet's npm package next to nats.js
# against one local nats-server, printed as tables; never part of the tests.
#   node     Node.js, over ws:// and nats://         (bench/js/node.mjs)
#   browser  headless Chromium, over ws://           (bench/js/browser.mjs)
#   size     esbuild bundles of one app, raw + gzip  (bench/js/size.mjs)
#
#   scripts/bench-js.sh [node|browser|size]...   (default: all three)
#   BENCH_SCALE=0.1 scripts/bench-js.sh          a quick pass; BENCH_RUNS=3 for best of 3
#   BENCH_WORKLOADS=kv,watch scripts/bench-js.sh  some workloads only (core, jspub, batch100, batch1000, fast, counters, drain, drain_defaults, drain_defaults_4, kv, watch, obj)
#   BENCH_BROWSER=cdp scripts/bench-js.sh browser  Chromium without Playwright's DevTools Network domain
#
# Builds pkg/ first when it is missing (scripts/build-pkg.sh); rebuild it by
# hand after changing the Rust or TypeScript sources.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

[[ -d node_modules/@nats-io/nats-core && -d node_modules/esbuild ]] || npm ci --no-audit --no-fund
[[ -f pkg/web/natsjet_bg.wasm && -f pkg/node.js ]] || bash scripts/build-pkg.sh

(($#)) || set -- node browser size
for bench in "$@"; do
    echo
    echo "==== $bench ===="
    node "bench/js/$bench.mjs"
done
