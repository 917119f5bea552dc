// Bundle sizes: the same small app (connect, publish, subscribe, JetStream
// publish, consume; with a Key-Value put, get and watch; and with an Object
// Store put, info, get and list too; or with a service, its endpoints and
// the discovery client: natsjet/services, nats.js's @nats-io/services) bundled for
// browsers with esbuild (minified, ES module)
// against natsjet's package (pkg/, web build: JS + the wasm of the tier it
// imports) and against nats.js v3 (@nats-io/nats-core + @nats-io/jetstream:
// JS only). Each tier against the matching nats.js packages: natsjet/core's
// core NATS app against @nats-io/nats-core's, natsjet/jetstream's app against
// nats-core + jetstream, natsjet's with the stores against + kv + obj. Raw and
// gzip (level 9) bytes.
//
//   npm run bench:size        # from the repository root, after scripts/build-pkg.sh
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { existsSync } from "node:fs";
import { core, coreApp, js, kv, obj, svc, natsjetApp } from "./apps.mjs";
import { bundleApp } from "./bundle.mjs";
import * as natsjet from "natsjet";

const hasJetStream = typeof natsjet.jetstream === "function";
const hasKv = typeof natsjet.Kvm === "function";
const hasObj = typeof natsjet.Objm === "function";
const hasSvc = existsSync(new URL("../../pkg/services/index.js", import.meta.url));
const hasTiers = existsSync(new URL("../../pkg/tiers/core/web.js", import.meta.url));
const apps = {
  ...(hasTiers && {
    "natsjet/core (core NATS)": coreApp("natsjet/core"),
    "nats.js core only": coreApp("@nats-io/nats-core", "wsconnect"),
    "natsjet/jetstream": natsjetApp([], "natsjet/jetstream"),
    "nats.js (core + jetstream)": `import { wsconnect } from "@nats-io/nats-core";
      import { jetstream } from "@nats-io/jetstream";${core("wsconnect")}${js}await nc.drain();`,
  }),
  natsjet: hasJetStream
    ? natsjetApp([])
    : `import { connect } from "natsjet";${core("connect")}await nc.drain();`,
  "nats.js": `import { wsconnect } from "@nats-io/nats-core";
    import { jetstream } from "@nats-io/jetstream";${core("wsconnect")}${js}await nc.drain();`,
  ...(hasKv && {
    "natsjet + KV": natsjetApp(["kv"]),
    "nats.js + KV": `import { wsconnect } from "@nats-io/nats-core";
      import { jetstream } from "@nats-io/jetstream"; import { Kvm } from "@nats-io/kv";${core("wsconnect")}${js}${kv}await nc.drain();`,
  }),
  ...(hasObj && {
    "natsjet + KV + Obj": natsjetApp(["kv", "obj"]),
    "nats.js + KV + Obj": `import { wsconnect } from "@nats-io/nats-core";
      import { jetstream } from "@nats-io/jetstream"; import { Kvm } from "@nats-io/kv"; import { Objm } from "@nats-io/obj";
      ${core("wsconnect")}${js}${kv}${obj}await nc.drain();`,
  }),
  ...(hasSvc && {
    "natsjet + services": natsjetApp(["svc"]),
    // @nats-io/services 3.0.0-25 pins nats-core 3.0.0-50: its bundle holds that copy too, as its users' do.
    "nats.js + services": `import { wsconnect } from "@nats-io/nats-core";
      import { jetstream } from "@nats-io/jetstream"; import { Svcm } from "@nats-io/services";${core("wsconnect")}${js}${svc}await nc.drain();`,
  }),
  ...(!hasTiers && { "nats.js core only": coreApp("@nats-io/nats-core", "wsconnect") }),
};

const kb = (n) => `${(n / 1024).toFixed(1)} KB`.padStart(9);
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const line = (cells) => console.log(`| ${cells.join(" | ")} |`);

console.log(
  hasJetStream
    ? "app: connect, subscribe, publish, JetStream publish (msgID), consume + ack; esbuild --bundle --minify, browser ESM"
    : "app: connect, subscribe, publish; natsjet: JetStream API not in this build, so its app is core only (nats.js's has JetStream)",
);
console.log();
line(["bundle".padEnd(30), "JS min".padStart(9), "JS gzip".padStart(9), "wasm".padStart(9), "wasm gzip".padStart(9), "total gzip".padStart(10)]);
line(["-".repeat(30), ..."-".repeat(5).split("").map((_, i) => "-".repeat(i === 4 ? 10 : 9))].map((c) => c));
for (const [name, source] of Object.entries(apps)) {
  const bundled = await bundleApp(source);
  const code = bundled.code;
  const w = bundled.wasm && readFileSync(bundled.wasm);
  const total = gz(code) + (w ? gz(w) : 0);
  line([
    name.padEnd(30),
    kb(code.length),
    kb(gz(code)),
    w ? kb(w.length) : "-".padStart(9),
    w ? kb(gz(w)) : "-".padStart(9),
    kb(total).padStart(10),
  ]);
}
