// Keeps the benchmark code from rotting: each benchmark once at a tiny scale
// (BENCH_SCALE=0.001, a few seconds in all), checking only that it runs and
// prints its table. Figures are not checked: benchmarks are never timed tests.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { promisify } from "node:util";

const run = (script, env = {}) =>
  promisify(execFile)(process.execPath, [new URL(script, import.meta.url).pathname], {
    env: { ...process.env, BENCH_SCALE: "0.001", BENCH_RUNS: "1", ...env },
    timeout: 60_000,
  });

test("node.mjs runs every workload against both clients", async () => {
  const { stdout } = await run("node.mjs");
  const workloads = ["core publish 1000 x 128 B \\+", "core publish 1000 x 128 B in one loop", "JetStream publish 100", "atomic batches of 100, 100 x", "atomic batches of 1000, 100 x", "durable drain 200", "KV put 10", "KV get 10", "KV watch 100"];
  for (const workload of workloads) {
    assert.match(stdout, new RegExp(`\\| ${workload} .*\\(ws://\\) .*\\d+ \\|`), stdout);
  }
  for (const drain of ["1 worker, defaults", "4 workers, defaults", "4 workers, 500/pull"]) {
    assert.match(stdout, new RegExp(`\\| durable drain 200 x 128 B \\+ ack, ${drain} \\(nats://\\) .*\\d+ \\|`), stdout);
  }
  assert.match(stdout, /\|   p99 latency +\| +[\d.]+ µs \| +[\d.]+ µs \|/, stdout);
  for (const op of ["put", "get"]) {
    assert.match(stdout, new RegExp(`\\| object ${op} 1 MiB, 1 MiB pieces \\(nats://\\) +\\| +[\\d.]+ \\| +([\\d.]+|stalled) \\|`), stdout);
  }
  assert.match(stdout, /nats\.js#430 check: /, stdout);
  // The server's syscalls per message, where /proc has them.
  if (existsSync("/proc/self/io")) assert.match(stdout, /\| durable drain 200 .*\(nats:\/\/\) +\| +[\d.]+ µs, \d+%, r [\d.]+ w [\d.]+ \|/, stdout);
  for (const client of ["natsjet", "nats.js"]) {
    assert.match(stdout, new RegExp(`\\| ${client} +\\| +[\\d.]+ MiB \\| +[\\d.]+ MiB \\|`), stdout);
  }
});

test("browser.mjs runs in Chromium", { skip: !existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium") }, async () => {
  const { stdout } = await run("browser.mjs");
  assert.match(stdout, /\| core publish 1000 x 128 B \+ flush \(ws:\/\/\) +\| +\d+ \| +\d+ \|/, stdout);
  assert.match(stdout, /\| core publish 1000 x 128 B in one loop \+ flush \(ws:\/\/\) +\| +\d+ \| +\d+ \|/, stdout);
  assert.match(stdout, /\| durable drain 200 .*\| +\d+ \|/, stdout);
  assert.match(stdout, /\| durable drain 200 x 128 B \+ ack, 4 workers, defaults \(ws:\/\/\) +\| +\d+ \|/, stdout);
  assert.match(stdout, /\| KV get 10 x 100 B, sequential \(ws:\/\/\) +\| +\d+ \| +\d+ \|/, stdout);
  assert.match(stdout, /\| KV watch 100 keys .*\| +\d+ \|/, stdout);
  assert.match(stdout, /\| object put 1 MiB, 1 MiB pieces \(ws:\/\/\) +\| +[\d.]+ \| +[\d.]+ \|/, stdout);
  assert.match(stdout, /\| natsjet +\| +[\d.]+ MiB \| +[\d.]+ MiB \| +[\d.]+ MiB \|/, stdout);
});

test("browser.mjs runs over plain DevTools protocol", { skip: !existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium") }, async () => {
  const { stdout } = await run("browser.mjs", { BENCH_BROWSER: "cdp", BENCH_WORKLOADS: "drain,drain_4" });
  assert.match(stdout, /plain DevTools protocol/, stdout);
  assert.match(stdout, /\| durable drain 200 .*\| +\d+ \|/, stdout);
  // The bare WebSocket's drain, their ceiling: it read every message.
  assert.match(stdout, /\| workload +\| +natsjet \/s \| +bare ws \/s \|/, stdout);
  assert.match(stdout, /\| durable drain 200 x 128 B \+ ack, 1 worker, 500\/pull \(ws:\/\/\) +\| +\d+ \| +\d+ \| +[\d.]+x \|/, stdout);
  // And with 4 sockets, each pulling on its own reply subject.
  assert.match(stdout, /\| durable drain 200 x 128 B \+ ack, 4 workers, 500\/pull \(ws:\/\/\) +\| +\d+ \| +\d+ \| +[\d.]+x \|/, stdout);
  // Every process's CPU per message, each client's row.
  for (const client of ["natsjet", "nats.js", "bare"]) {
    assert.match(stdout, new RegExp(`\\| durable drain 200 x 128 B \\+ ack, 1 worker, 500/pull \\(ws://\\) +\\| ${client.replace(".", "\\.")} +(\\| +([\\d.]+|NaN) ){6}\\|`), stdout);
  }
  assert.doesNotMatch(stdout, /core publish/, stdout);
});

test("browser.mjs sets a base build of the package beside natsjet", { skip: !existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium") }, async () => {
  const base = new URL("../../pkg", import.meta.url).pathname;
  const { stdout } = await run("browser.mjs", { BENCH_BROWSER: "cdp", BENCH_WORKLOADS: "drain_defaults", BENCH_BASE_PKG: base });
  assert.match(stdout, /\| workload +\| +natsjet \/s \| +base \/s \|/, stdout);
  assert.match(stdout, /\| durable drain 200 x 128 B \+ ack, 1 worker, defaults \(ws:\/\/\) +\| +\d+ \| +\d+ \| +[\d.]+x \|/, stdout);
});

test("scripted_drain.mjs drains from its scripted server", async () => {
  const pkg = new URL("../../pkg", import.meta.url).pathname;
  const { stdout } = await run("scripted_drain.mjs", { SCRIPTED_PKGS: `a=${pkg},b=${pkg}`, SCRIPTED_WORKERS: "1,4", SCRIPTED_PASSES: "1" });
  for (const variant of ["1w a", "1w b", "4w a", "4w b"]) assert.match(stdout, new RegExp(`\\| ${variant} +\\| \\d+k msg/s \\| [\\d.]+ µs/msg`), stdout);
});

test("ab_drain.mjs drains through a checkpoint ledger beside acking each message", async () => {
  // 2,000 messages: the ledger's drain ends on confirmed commits of 50 ms epochs.
  const pkg = new URL("../../pkg", import.meta.url).pathname;
  const env = { BENCH_SCALE: "0.01", AB_PKGS: `pkg=${pkg}`, AB_LEDGER: "1", AB_WORKERS: "4", AB_TRANSPORTS: "nats", AB_PASSES: "1" };
  const { stdout } = await run("ab_drain.mjs", env);
  for (const variant of ["nats 4w defaults pkg ", "nats 4w defaults pkg ledger"]) {
    assert.match(stdout, new RegExp(`\\| ${variant} +\\| +\\d+k \\(`), stdout);
  }
});

test("size.mjs bundles both apps", async () => {
  const { stdout } = await run("size.mjs");
  assert.match(stdout, /\| natsjet +\| +[\d.]+ KB \|/, stdout);
  assert.match(stdout, /\| nats\.js +\| +[\d.]+ KB \|/, stdout);
  assert.match(stdout, /\| natsjet \+ services +\| +[\d.]+ KB \|/, stdout);
});
