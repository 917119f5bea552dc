// The package's declarations, as a TypeScript user sees them: a strict
// type check (no DOM library) of types-check.ts against the built package.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

test("types-check.ts compiles with tsc --noEmit --strict", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const project = fileURLToPath(new URL("tsconfig.json", import.meta.url));
  const run = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
