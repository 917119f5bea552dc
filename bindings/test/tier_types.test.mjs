// The tiers' TypeScript against their own wasm builds' types. The core
// modules take theirs from the core build (raw_core.ts), which the package's
// own build checks; JetStream's modules share `raw.ts` (the whole build's
// types) with Key-Value and the Object Store, so here the natsjet/jetstream
// entries are type-checked in a copy of bindings/ whose raw.ts is the
// JetStream build's: JetStream's TypeScript calls nothing that build lacks.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const bindings = fileURLToPath(new URL("../", import.meta.url));
const pkg = fileURLToPath(new URL("../../pkg/", import.meta.url));

/** tsc --noEmit over the natsjet/jetstream entries, raw.ts re-exporting the types of `build` (a folder of pkg/). */
function checkJetStreamTier(build) {
  const dir = mkdtempSync(join(tmpdir(), "natsjet-tier-types-"));
  try {
    const skip = (src) => !/\/(test|node_modules)(\/|$)/.test(src.slice(bindings.length - 1));
    cpSync(bindings, join(dir, "bindings"), { recursive: true, filter: skip });
    cpSync(pkg, join(dir, "pkg"), { recursive: true, filter: (src) => !src.endsWith(".wasm") && !src.includes("/docs") });
    writeFileSync(join(dir, "bindings/raw.ts"), `export type * from "./${build}/node/natsjet.js";\n`);
    const config = { extends: "./tsconfig.json", compilerOptions: { noEmit: true }, include: [], files: ["tiers/jetstream/web.ts", "tiers/jetstream/node.ts"] };
    writeFileSync(join(dir, "bindings/tsconfig.check.json"), JSON.stringify(config));
    // ws and @types come from the repository's node_modules.
    symlinkSync(join(bindings, "../node_modules"), join(dir, "node_modules"));
    return spawnSync(process.execPath, [tsc, "-p", join(dir, "bindings/tsconfig.check.json")], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("natsjet/jetstream's TypeScript type-checks against the JetStream build's wasm types", () => {
  const run = checkJetStreamTier("tiers/jetstream");
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test("and the check can fail: against the core build's types, JetStream's TypeScript does not compile", () => {
  const run = checkJetStreamTier("tiers/core");
  assert.notEqual(run.status, 0);
  assert.match(run.stdout, /has no exported member/);
});
