// What the JetStream, Key-Value, Object Store and consumer-group parts add to an app's bundle:
// the wasm built without a part's exports next to the package's
// (scripts/feature-size.sh builds them into DIR), and size.mjs's app bundled
// with and without `Kvm` / `Objm` (JetStream: natsjet/jetstream's app against
// natsjet/core's core app); and the services (natsjet/services), counters
// (`NewCounter`) and fast ingest (`NewFastPublisher`), whose wasm is in every
// build of the full tier: size.mjs's app with and without them. gzip level 9,
// as size.mjs.
//
//   node bench/js/feature_size.mjs DIR   # DIR/{all,no-groups,no-kv,no-obj,none,core}.wasm, after scripts/build-pkg.sh
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { coreApp, natsjetApp } from "./apps.mjs";
import { bundle } from "./bundle.mjs";

const dir = process.argv[2];
if (!dir) throw new Error("usage: node feature_size.mjs DIR (with all.wasm, no-groups.wasm, no-kv.wasm, no-obj.wasm, none.wasm, core.wasm)");
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const wasm = {};
for (const name of ["all", "no-groups", "no-kv", "no-obj", "none", "core"]) wasm[name] = gz(readFileSync(`${dir}/${name}.wasm`));
const js = {};
for (const parts of [[], ["kv"], ["obj"], ["kv", "obj"], ["svc"], ["counters"], ["fast"], ["groups"]]) js[parts.join("+")] = gz(await bundle(natsjetApp(parts)));
js.jetstream = gz(await bundle(natsjetApp([], "natsjet/jetstream")));
js.core = gz(await bundle(coreApp("natsjet/core")));

const kb = (n) => `${(n / 1024).toFixed(2)} KB`.padStart(10);
const line = (cells) => console.log(`| ${cells.join(" | ")} |`);
console.log("what a part adds to the package's app (gzip -9; wasm: with / without its exports, the other part in both;");
console.log("JS: size.mjs's app bundled with / without the part, esbuild --minify)");
console.log();
line(["part".padEnd(18), "wasm with".padStart(10), "wasm w/o".padStart(10), "wasm adds".padStart(10), "JS adds".padStart(10), "adds".padStart(10)]);
line(["-".repeat(18), ...Array(5).fill("-".repeat(10))]);
const rows = [
  ["JetStream", wasm.none, wasm.core, js.jetstream - js.core],
  ["Key-Value", wasm["no-groups"], wasm["no-kv"], js["kv+obj"] - js.obj],
  ["Object Store", wasm["no-groups"], wasm["no-obj"], js["kv+obj"] - js.kv],
  ["Key-Value alone", wasm["no-obj"], wasm.none, js.kv - js[""]],
  ["Object Store alone", wasm["no-kv"], wasm.none, js.obj - js[""]],
  ["both", wasm["no-groups"], wasm.none, js["kv+obj"] - js[""]],
  ["Consumer groups", wasm.all, wasm["no-groups"], js.groups - js[""]],
  ["Services", wasm.all, wasm.all, js.svc - js[""]],
  ["Counters", wasm.all, wasm.all, js.counters - js[""]],
  ["Fast ingest", wasm.all, wasm.all, js.fast - js[""]],
];
for (const [name, withIt, without, jsAdds] of rows) {
  line([name.padEnd(18), kb(withIt), kb(without), kb(withIt - without), kb(jsAdds), kb(withIt - without + jsAdds)]);
}
