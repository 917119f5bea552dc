#!/usr/bin/env bash
# What the JetStream, Key-Value and Object Store parts of the npm package
# add to an app, in gzip bytes: builds the package's wasm (scripts/wasm-lib.sh,
# as scripts/build-pkg.sh does: cargo, wasm-bindgen --target web, wasm-opt)
# without the cargo features `wasm-kv`, `wasm-object-store`, without both
# (`wasm-jetstream`, natsjet/jetstream's) and without JetStream too
# (`wasm-runtime`, natsjet/core's), into target/feature-size/, then builds the
# package itself and runs bench/js/feature_size.mjs: wasm with minus without a
# part's exports, plus size.mjs's app bundled with minus without `Kvm` /
# `Objm` (JetStream: its app from natsjet/jetstream minus the core app from
# natsjet/core; and the services of natsjet/services, TypeScript only: a JS
# delta). The Rust
# that only a part's exports reach leaves the wasm with them (the linker
# drops it), so "wasm adds" is what that part costs the wasm.
#
#   bash scripts/feature-size.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh
. scripts/wasm-lib.sh

out="${CARGO_TARGET_DIR:-target}/feature-size"
mkdir -p "$out"
for build in no-groups:wasm-kv,wasm-object-store no-kv:wasm-object-store no-obj:wasm-kv none:wasm-jetstream core:wasm-runtime; do
    name="${build%%:*}"
    wasm_build "${build#*:}"
    rm -rf "$out/bindgen"
    wasm-bindgen --target web --out-dir "$out/bindgen" --remove-name-section --remove-producers-section "$wasm"
    wasm_optimize "$out/bindgen/natsjet_bg.wasm"
    mv "$out/bindgen/natsjet_bg.wasm" "$out/$name.wasm"
done
rm -rf "$out/bindgen"
bash scripts/build-pkg.sh
cp pkg/web/natsjet_bg.wasm "$out/all.wasm"
node bench/js/feature_size.mjs "$out"
