// The JS samples of README.md, pkg/README.md and docs/*.md, run: each ```js
// block runs in its own Node process against its own nats-server (with
// JetStream), importing the built package, so a sample that names a call the
// package lacks or calls it wrongly fails here. The sample's `servers: "…"`
// is pointed at the test server (ws:// and wss:// at its websocket port). A
// sample passes when it exits with 0, or when it is still running without an
// error after a few seconds (a consume loop never ends). A sample that
// continues an earlier one has an HTML comment right above it,
// `<!-- sample prelude: NAME -->`: one of `preludes` below runs first and
// defines what it uses (a connection, a stream and a consumer, a File).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "../../scripts/markdown.mjs";
import { startJetStreamServer } from "./harness.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const files = ["README.md", "pkg/README.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith(".md"),
);
const entries = { natsjet: import.meta.resolve("natsjet"), "natsjet/services": import.meta.resolve("natsjet/services") };
const settle = 4000;

const orders = `import { AckPolicy, DeliverPolicy, connect, jetstream, jetstreamManager } from "natsjet";
const nc = await connect({ servers: "nats://127.0.0.1:4222" });
const jsm = await jetstreamManager(nc);
await jsm.streams.add({ name: "ORDERS", subjects: ["orders.>"] });
await jsm.consumers.add("ORDERS", { durable_name: "workers", ack_policy: AckPolicy.Explicit, max_ack_pending: 4000 });
const js = jetstream(nc);
await js.publish("orders.eu.1", "data");`;
const consumer = `${orders}\nconst consumer = await js.consumers.get("ORDERS", "workers");`;
/** What a sample that continues another has already: by the name in its `<!-- sample prelude: NAME -->`. */
const preludes = {
  // A connection, and a service that answers svc.ping.
  nc: `import { connect } from "natsjet";
const nc = await connect({ servers: "nats://127.0.0.1:4222" });
nc.subscribe("svc.ping", { callback: (_err, m) => m.respond("pong") });`,
  orders,
  consumer,
  ledger: `${consumer}
import { CheckpointLedger } from "natsjet";
const ledger = new CheckpointLedger(consumer, { workers: 1, batch: 100, checkpointInterval: 5000 });
const savedStates = [];
let epoch = 1;`,
  // A stream that takes atomic batches and schedules, 41 messages in (the sample expects the 41st last).
  batches: `import { connect, jetstream, jetstreamManager } from "natsjet";
const nc = await connect({ servers: "nats://127.0.0.1:4222" });
await (await jetstreamManager(nc)).streams.add({
  name: "ORDERS", subjects: ["orders.>", "schedules.>", "reports.>"], allow_atomic: true, allow_msg_schedules: true, allow_msg_ttl: true,
});
const js = jetstream(nc);
for (let i = 1; i <= 41; i++) await js.publish("orders.0", \`\${i}\`);`,
  // The ORDERS stream, made on a connection of its own (the sample makes its own).
  ordersStream: `import * as natsjet$ from "natsjet";
{
  const nc$ = await natsjet$.connect({ servers: "nats://127.0.0.1:4222" });
  await (await natsjet$.jetstreamManager(nc$)).streams.add({ name: "ORDERS", subjects: ["orders.>"] });
  await nc$.close();
}`,
  // ORDERS, and a stream that takes fast batches (allow_batched) for events.>.
  events: `${orders}
await jsm.streams.add({ name: "EVENTS", subjects: ["events.>"], allow_batched: true });`,
  file: `const file = new File(["not really a jpeg"], "photo.jpg");\nconst show = () => {};`,
};

const scratch = mkdtempSync(join(tmpdir(), "natsjet-samples-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The sample as a module of its own: the package's entries by URL, the server's address. */
function program(block, server) {
  const name = /<!--\s*sample prelude:\s*(\w+)\s*-->/.exec(block.before)?.[1];
  if (name !== undefined && !(name in preludes)) throw new Error(`no sample prelude named ${name}`);
  return `${name ? preludes[name] : ""}\n${block.lines.join("\n")}`
    .replace(/from "(natsjet(?:\/services)?)"/g, (_, name) => `from "${entries[name]}"`)
    .replace(/servers: "(\w+):\/\/[^"]*"/g, (_, scheme) => `servers: "${/^wss?$/.test(scheme) ? server.wsUrl : server.url}"`);
}

/** Runs `file` in Node: { code } once it exits, or { code: null } while still running after `settle` ms; its stderr. */
function run(file) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [file], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done({ code: null, stderr });
    }, settle);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}

for (const name of files) {
  const blocks = parse(readFileSync(join(root, name), "utf8")).blocks.filter((b) => /^(js|javascript|mjs)$/.test(b.lang));
  if (blocks.length === 0) continue;
  describe(name, () => {
    for (const block of blocks) {
      test(`the sample at line ${block.line} runs`, async () => {
        const server = await startJetStreamServer();
        try {
          const file = join(scratch, `${name.replace(/[/.]/g, "_")}_${block.line}.mjs`);
          writeFileSync(file, program(block, server));
          const { code, stderr } = await run(file);
          assert.ok(code === 0 || (code === null && stderr === ""), `exit ${code}:\n${stderr}`);
        } finally {
          await server.close();
        }
      });
    }
  });
}
