#!/usr/bin/env bash
# Builds the npm package in pkg/ from a clean checkout, offline once
# scripts/setup.sh has run (wasm32 target, wasm-bindgen CLI, npm ci):
#   1. cargo build   the wasm (scripts/wasm-lib.sh; release-wasm profile: opt-level z, inline threshold 30,
#                    lto, panic abort; feature wasm only: nkey and .creds signing happen in JS,
#                    through @nats-io/nkeys, loaded only by apps that sign);
#                    fails if serde_json's deserializer got linked into it
#   2. wasm-bindgen  pkg/web (ES module, fetches the wasm via import.meta.url)
#                    pkg/node (CommonJS glue, marked so by pkg/node/package.json)
#      wasm-opt      -Oz on what wasm-bindgen wrote (binaryen's npm build, scripts/wasm-lib.sh);
#                    fails if the wasm imports anything but its glue (`env`)
#   3. tsc           bindings/*.ts, bindings/jetstream/*.ts, bindings/kv/*.ts, bindings/obj/*.ts,
#                    bindings/services/*.ts (the `natsjet/services` export) -> pkg/ (.js without
#                    comments, .d.ts with the TSDoc;
#                    web.js and node.js entries), plus the Node socket shim; docs/ and LICENSE
#                    copied in (pkg/README.md links to them)
# and prints the gzip sizes. Environment: CARGO_TARGET_DIR (default target/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

. scripts/wasm-lib.sh

wasm_build wasm

# serde_json's deserializer must stay out of the wasm: the wasm reads the
# server's JSON with serde-json-core (src/core/plain_json.rs), and serde_json's
# deserializing links its float printer and Debug escaping (~24 KB gzip).
# The name section (removed only by wasm-bindgen below) names every function,
# mangled: serde_json::de::x is `10serde_json2de`, <serde_json::de::X as ..> is
# `serde_json..de..`.
LC_ALL=C grep -aq '_ZN7natsjet' "$wasm" || { echo "build-pkg: $wasm has no name section to check" >&2; exit 1; }
if serde_json_de=$(LC_ALL=C grep -aoE '[0-9A-Za-z_$.]*serde_json(2de|\.\.de\.\.)[0-9A-Za-z_$.]*' "$wasm"); then
    echo "build-pkg: serde_json's deserializer is linked into the wasm; read server JSON with" >&2
    echo "plain_json::from_slice (serde-json-core in wasm), not serde_json::from_*. Linked:" >&2
    echo "$serde_json_de" | head -5 >&2
    exit 1
fi

rm -rf pkg/web pkg/node pkg/jetstream pkg/kv pkg/obj pkg/services pkg/docs pkg/*.js pkg/*.d.ts
# The guides and the license travel in the package: its README links to them.
cp -r docs pkg/docs
cp LICENSE pkg/LICENSE
for target in web nodejs; do
    out="pkg/${target%js}"
    wasm-bindgen --target "$target" --out-dir "$out" --remove-name-section --remove-producers-section "$wasm"
    rm -f "$out/natsjet_bg.wasm.d.ts"
done
[[ -x node_modules/.bin/tsc && -x node_modules/.bin/wasm-opt ]] || npm ci --no-audit --no-fund
if cmp -s pkg/web/natsjet_bg.wasm pkg/node/natsjet_bg.wasm; then
    wasm_optimize pkg/web/natsjet_bg.wasm
    cp pkg/web/natsjet_bg.wasm pkg/node/natsjet_bg.wasm
else
    wasm_optimize pkg/web/natsjet_bg.wasm
    wasm_optimize pkg/node/natsjet_bg.wasm
fi
# Every import of the wasm must come from its wasm-bindgen glue: one from
# "env" (or any other module) is a symbol nothing defines — a C dependency,
# a std function wasm32 lacks — and the module would fail to instantiate.
node -e '
const fs = require("node:fs");
for (const file of process.argv.slice(1)) {
    const imports = WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(file)));
    const foreign = imports.filter((i) => i.module !== "./natsjet_bg.js").map((i) => `${i.module}.${i.name}`);
    if (imports.length === 0 || foreign.length > 0) {
        console.error(`build-pkg: ${file} imports from outside its glue: ${foreign.join(", ") || "(no imports at all)"}`);
        process.exit(1);
    }
}' pkg/web/natsjet_bg.wasm pkg/node/natsjet_bg.wasm
echo '{ "type": "commonjs" }' > pkg/node/package.json
cp bindings/node/socket.mjs pkg/node/socket.mjs

# The .js without comments (the TSDoc is for the .d.ts, which editors and the
# reference read; in the .js it would only be shipped: ~20 KB gzip of the
# web JS), then the .d.ts with them.
node_modules/.bin/tsc -p bindings/tsconfig.json --removeComments --declaration false
node_modules/.bin/tsc -p bindings/tsconfig.json --emitDeclarationOnly

gz() { gzip -9 -c "$@" | wc -c; }
echo "natsjet_bg.wasm: $(wc -c < pkg/web/natsjet_bg.wasm) bytes, $(gz pkg/web/natsjet_bg.wasm) gzip"
echo "web glue + wrapper (js): $(cat pkg/web/natsjet.js pkg/*.js pkg/jetstream/*.js pkg/kv/*.js pkg/obj/*.js | wc -c) bytes, $(cat pkg/web/natsjet.js pkg/*.js pkg/jetstream/*.js pkg/kv/*.js pkg/obj/*.js | gz) gzip"
echo "services (js): $(cat pkg/services/*.js | wc -c) bytes, $(cat pkg/services/*.js | gz) gzip"
