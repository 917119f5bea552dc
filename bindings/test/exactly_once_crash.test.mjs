// Runs the exactly-once crash test (chaos/exactly_once.mjs) so CI does: with
// the ledger's restore, 100,000 messages and 12 kills of the worker process
// must end with no duplicates and no loss; without it (NATSJET_NO_RESTORE=1,
// a smaller run), the duplicates that restore prevents must show.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("chaos/exactly_once.mjs", import.meta.url));
const LINE = /^exactly-once: published (\d+), applied (\d+), duplicates (\d+), lost (\d+), kills (\d+), restores (\d+), skipped (\d+), aborted (\d+)$/m;

/** Runs the script with `env`: its exit code and the numbers of its result line. */
async function crashTest(env) {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const [code] = await once(child, "exit");
  const line = out.match(LINE) ?? assert.fail(`no result line in:\n${out}`);
  const [published, applied, duplicates, lost, kills, restores, skipped] = line.slice(1).map(Number);
  return { code, line: line[0], published, applied, duplicates, lost, kills, restores, skipped };
}

test("exactly-once: 100,000 messages through 12 worker kills and a server restart, restored from the saved ledger states", { timeout: 150_000 }, async (t) => {
  const run = await crashTest({ NATSJET_EO_MESSAGES: "100000", NATSJET_EO_KILLS: "12" });
  t.diagnostic(run.line);
  assert.equal(run.code, 0, run.line);
  assert.equal(run.published, 100_000);
  assert.deepEqual([run.applied, run.duplicates, run.lost], [100_000, 0, 0], run.line);
  assert.ok(run.kills >= 10 && run.restores >= 10, run.line);
  assert.ok(run.skipped > 0, `redeliveries of saved work were skipped: ${run.line}`);
});

test("exactly-once: without the restore, the same kills apply messages twice", { timeout: 60_000 }, async (t) => {
  const run = await crashTest({ NATSJET_NO_RESTORE: "1", NATSJET_EO_MESSAGES: "20000", NATSJET_EO_KILLS: "4" });
  t.diagnostic(run.line);
  assert.equal(run.code, 0, run.line);
  assert.ok(run.duplicates > 0, run.line);
  assert.equal(run.restores, 0);
});
