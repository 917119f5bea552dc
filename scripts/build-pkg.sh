#!/usr/bin/env bash
# Builds the npm package in pkg/ from a clean checkout, offline once
# scripts/setup.sh has run (wasm32 target, wasm-bindgen CLI, npm ci), in its
# three tiers, each entry with its own wasm build made from cargo features:
#   natsjet/core       wasm-runtime     pkg/tiers/core/{web,node}/
#   natsjet/jetstream  wasm-jetstream   pkg/tiers/jetstream/{web,node}/
#   natsjet            wasm (all)       pkg/{web,node}/
# For each tier:
#   1. cargo build   the wasm (scripts/wasm-lib.sh; release-wasm profile: opt-level z, inline threshold 30,
#                    lto, panic abort; nkey and .creds signing happen in JS,
#                    through @nats-io/nkeys, loaded only by apps that sign); one cargo invocation per
#                    tier, the dependencies built once for all three;
#                    fails if serde_json's deserializer got linked into it
#   2. wasm-bindgen  web (ES module, fetches the wasm via import.meta.url)
#                    node (CommonJS glue, marked so by its package.json)
#      wasm-opt      -Oz on what wasm-bindgen wrote (binaryen's npm build, scripts/wasm-lib.sh);
#                    fails if the wasm imports anything but its glue (`env`)
# Then:
#   3. tsc           bindings/*.ts, bindings/jetstream/*.ts, bindings/kv/*.ts, bindings/obj/*.ts,
#                    bindings/services/*.ts (the `natsjet/services` export), bindings/tiers/*/*.ts
#                    (the tiers' entries) -> pkg/ (.js without comments, .d.ts with the TSDoc;
#                    web.js and node.js entries), plus the Node socket shim; docs/ and LICENSE
#                    copied in (pkg/README.md links to them)
# and prints each tier's gzip sizes. Environment: CARGO_TARGET_DIR (default target/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

. scripts/wasm-lib.sh

# serde_json's deserializer must stay out of the wasm: the wasm reads the
# server's JSON with serde-json-core (src/core/plain_json.rs), and serde_json's
# deserializing links its float printer and Debug escaping (~24 KB gzip).
# The name section (removed only by wasm-bindgen below) names every function,
# mangled: serde_json::de::x is `10serde_json2de`, <serde_json::de::X as ..> is
# `serde_json..de..`.
check_no_serde_json_de() {
    LC_ALL=C grep -aq '_ZN7natsjet' "$wasm" || { echo "build-pkg: $wasm has no name section to check" >&2; exit 1; }
    local serde_json_de
    if serde_json_de=$(LC_ALL=C grep -aoE '[0-9A-Za-z_$.]*serde_json(2de|\.\.de\.\.)[0-9A-Za-z_$.]*' "$wasm"); then
        echo "build-pkg: serde_json's deserializer is linked into the wasm; read server JSON with" >&2
        echo "plain_json::from_slice (serde-json-core in wasm), not serde_json::from_*. Linked:" >&2
        echo "$serde_json_de" | head -5 >&2
        exit 1
    fi
}

# Every import of the wasm must come from its wasm-bindgen glue: one from
# "env" (or any other module) is a symbol nothing defines — a C dependency,
# a std function wasm32 lacks — and the module would fail to instantiate.
check_imports() {
    node -e '
const fs = require("node:fs");
for (const file of process.argv.slice(1)) {
    const imports = WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(file)));
    const foreign = imports.filter((i) => i.module !== "./natsjet_bg.js").map((i) => `${i.module}.${i.name}`);
    if (imports.length === 0 || foreign.length > 0) {
        console.error(`build-pkg: ${file} imports from outside its glue: ${foreign.join(", ") || "(no imports at all)"}`);
        process.exit(1);
    }
}' "$@"
}

# wasm_tier FEATURES DIR: the wasm of cargo features FEATURES, bound for the
# web in DIR/web and for Node in DIR/node, optimized and checked.
wasm_tier() {
    local dir=$2 target out
    wasm_build "$1"
    check_no_serde_json_de
    for target in web nodejs; do
        out="$dir/${target%js}"
        wasm-bindgen --target "$target" --out-dir "$out" --remove-name-section --remove-producers-section "$wasm"
        rm -f "$out/natsjet_bg.wasm.d.ts"
    done
    if cmp -s "$dir/web/natsjet_bg.wasm" "$dir/node/natsjet_bg.wasm"; then
        wasm_optimize "$dir/web/natsjet_bg.wasm"
        cp "$dir/web/natsjet_bg.wasm" "$dir/node/natsjet_bg.wasm"
    else
        wasm_optimize "$dir/web/natsjet_bg.wasm"
        wasm_optimize "$dir/node/natsjet_bg.wasm"
    fi
    check_imports "$dir/web/natsjet_bg.wasm" "$dir/node/natsjet_bg.wasm"
    echo '{ "type": "commonjs" }' > "$dir/node/package.json"
}

rm -rf pkg/web pkg/node pkg/tiers pkg/jetstream pkg/kv pkg/obj pkg/services pkg/docs pkg/*.js pkg/*.d.ts
# The guides and the license travel in the package: its README links to them.
cp -r docs pkg/docs
cp LICENSE pkg/LICENSE
[[ -x node_modules/.bin/tsc && -x node_modules/.bin/wasm-opt ]] || npm ci --no-audit --no-fund
wasm_tier wasm-runtime pkg/tiers/core
wasm_tier wasm-jetstream pkg/tiers/jetstream
wasm_tier wasm pkg
cp bindings/node/socket.mjs pkg/node/socket.mjs

# The .js without comments (the TSDoc is for the .d.ts, which editors and the
# reference read; in the .js it would only be shipped: ~20 KB gzip of the
# web JS), then the .d.ts with them.
node_modules/.bin/tsc -p bindings/tsconfig.json --removeComments --declaration false
node_modules/.bin/tsc -p bindings/tsconfig.json --emitDeclarationOnly

gz() { gzip -9 -c "$@" | wc -c; }
# tier_sizes NAME DIR JS...: the tier's wasm and the web JS an app of it can reach.
tier_sizes() {
    local name=$1 dir=$2
    shift 2
    echo "$name: natsjet_bg.wasm $(wc -c < "$dir/web/natsjet_bg.wasm") bytes, $(gz "$dir/web/natsjet_bg.wasm") gzip;" \
        "web glue + wrapper (js) $(cat "$dir/web/natsjet.js" "$@" | wc -c) bytes, $(cat "$dir/web/natsjet.js" "$@" | gz) gzip"
}
core_js=(pkg/entry_web.js pkg/core.js pkg/auth.js pkg/connection.js pkg/errors.js pkg/headers.js pkg/msg.js pkg/names.js
    pkg/reconnect.js pkg/responses.js pkg/status.js pkg/subscription.js pkg/util.js)
tier_sizes "natsjet/core" pkg/tiers/core pkg/tiers/core/web.js "${core_js[@]}"
tier_sizes "natsjet/jetstream" pkg/tiers/jetstream pkg/tiers/jetstream/web.js "${core_js[@]}" pkg/jetstream/*.js
tier_sizes "natsjet" pkg pkg/*.js pkg/jetstream/*.js pkg/kv/*.js pkg/obj/*.js
echo "services (js): $(cat pkg/services/*.js | wc -c) bytes, $(cat pkg/services/*.js | gz) gzip"
