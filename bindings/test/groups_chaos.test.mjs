// Runs the consumer-group chaos script (chaos/consumer_groups.mjs) so CI
// does: members of an elastic group as Node processes go 3 -> 5 -> 2 while
// 20,000 messages flow, one pinned instance is killed and another stalled;
// nothing may be lost and every key's order must hold.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("chaos/consumer_groups.mjs", import.meta.url));
const LINE = /^consumer-groups: published (\d+), processed (\d+), lost (\d+), out_of_order (\d+), redelivered \d+, failover_ms \d+, rebalance_ms \d+$/m;

test("consumer groups: members change, die and stall without loss or disorder", { timeout: 180_000 }, async (t) => {
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const [code] = await once(child, "exit");
  const line = out.match(LINE) ?? assert.fail(`no result line in:\n${out}`);
  t.diagnostic(line[0]);
  const [published, processed, lost, outOfOrder] = line.slice(1).map(Number);
  assert.deepEqual([published, processed, lost, outOfOrder], [20_000, 20_000, 0, 0], line[0]);
  assert.equal(code, 0, line[0]);
});
