// The JS samples of README.md, pkg/README.md and docs/*.md, run: each ```js
// block that is a whole program runs in its own Node process against its own
// nats-server (with JetStream), importing the built package, so a sample that
// names a call the package lacks or calls it wrongly fails here. The sample's
// `servers: "…"` is pointed at the test server (ws:// and wss:// at its
// websocket port). A sample passes when it exits with 0, or when it is still
// running without an error after a few seconds (a consume loop never ends).
// A block marked ```js fragment continues an earlier one and only has to parse
// (scripts/check-docs.mjs); an HTML comment right above a block,
// `<!-- sample prelude: … -->`, gives it what a page would (a File, say).
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

const scratch = mkdtempSync(join(tmpdir(), "natsjet-samples-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The sample as a module of its own: the package's entries by URL, the server's address. */
function program(block, server) {
  const prelude = /<!--\s*sample prelude:(.*?)-->/.exec(block.before)?.[1] ?? "";
  return `${prelude}\n${block.lines.join("\n")}`
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
  const blocks = parse(readFileSync(join(root, name), "utf8")).blocks.filter(
    (b) => /^(js|javascript|mjs)$/.test(b.lang) && !/\bfragment\b/.test(b.info),
  );
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
