// A/B aid (not a table against nats.js): natsjet's default drain in
// variants side by side in one Node process against one server, passes
// alternating in order, medians printed. For a change's cost or gain in
// client CPU per message, which a noisy machine moves less than rates.
//
//   AB_PKGS="base=target/pkg-base,new=pkg"   builds of the package (dirs holding node.js; default: pkg)
//   AB_OPTIONS='{"defaults":null,"200":{"max_messages":200}}'   consume options per variant (null: none)
//   AB_WORKERS=1,4  AB_TRANSPORTS=nats,ws  AB_PASSES=5  BENCH_SCALE as for node.mjs
//   AB_LEDGER=1                               each variant also through a CheckpointLedger (admit, track,
//                                             snapshot and a confirmed commit every 50 ms), beside acking each
//
// Every build x options x workers x transport is one variant; each pass
// runs all of them once, in reverse order every other pass.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import WebSocket from "ws";
import { benchServer, nodeClock, scale, withServerUsage } from "./common.mjs";
import { durableDrain } from "./workloads.mjs";

globalThis.WebSocket ??= WebSocket;
const list = (name, fallback) => (process.env[name] ?? fallback).split(",").map((s) => s.trim()).filter(Boolean);
const pkgs = list("AB_PKGS", "pkg=pkg").map((entry) => {
  const [name, dir = name] = entry.split("=");
  return { name, dir: resolve(process.cwd(), dir) };
});
const options = Object.entries(JSON.parse(process.env.AB_OPTIONS ?? '{"defaults":null}'));
const workers = list("AB_WORKERS", "1,4").map(Number);
const transports = list("AB_TRANSPORTS", "nats,ws");
const passes = Math.max(1, Number(process.env.AB_PASSES ?? 5));
const n = scale(200_000);

const builds = [];
for (const { name, dir } of pkgs) builds.push({ name, natsjet: await import(pathToFileURL(resolve(dir, "node.js")).href) });
const variants = [];
for (const t of transports)
  for (const w of workers)
    for (const [optName, opts] of options)
      for (const build of builds)
        for (const ledger of process.env.AB_LEDGER === "1" ? [false, true] : [false])
          variants.push({
            build,
            opts: opts ?? undefined,
            workers: w,
            transport: t,
            ledger,
            label: `${t} ${w}w ${optName} ${build.name}${ledger ? " ledger" : ""}`,
          });

const server = await benchServer();
let durables = 0;
/** One drain of `n` (or `count`) by `v`: `{ n, wallMs, cpuMs, serverMs, serverReads, serverWrites }`. */
async function drain(v, count = n) {
  const durable = `ab_${++durables}`;
  await server.durable("DRAIN", durable);
  const url = v.transport === "ws" ? server.wsUrl : server.url;
  const ncs = await Promise.all(Array.from({ length: v.workers }, () => v.build.natsjet.connect({ servers: url })));
  const jss = ncs.map((nc) => v.build.natsjet.jetstream(nc));
  try {
    const Ledger = v.ledger ? v.build.natsjet.CheckpointLedger : undefined;
    const result = await withServerUsage(server, nodeClock, (clock) =>
      durableDrain(ncs, jss, "DRAIN", durable, count, clock, v.opts, Ledger),
    );
    await server.drained("DRAIN", durable, count);
    return result;
  } finally {
    await Promise.all(ncs.map((nc) => nc.close()));
    await server.jsm.consumers.delete("DRAIN", durable).catch(() => {});
  }
}

try {
  await server.filledStream("DRAIN", "bench.drain", n);
  for (const v of variants) await drain(v, Math.max(1, Math.floor(n / 10))); // warm-up
  const runs = new Map(variants.map((v) => [v, []]));
  for (let pass = 0; pass < passes; pass++) {
    const order = pass % 2 ? [...variants].reverse() : variants;
    for (const v of order) runs.get(v).push(await drain(v));
  }
  const med = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  console.log(`natsjet drain of ${n} x 128 B, ack each: medians of ${passes} alternating passes (min-max)`);
  console.log(
    `| ${"variant".padEnd(34)} | ${"msg/s".padStart(18)} | ${"client µs/msg".padStart(18)} | ${"server µs/msg".padStart(18)} | ${"server reads/writes per msg".padStart(27)} |`,
  );
  console.log(`|${"-".repeat(36)}|${"-".repeat(20)}|${"-".repeat(20)}|${"-".repeat(20)}|${"-".repeat(29)}|`);
  for (const v of variants) {
    const rs = runs.get(v);
    const cell = (f, digits) => {
      const xs = rs.map(f);
      return `${med(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
    };
    const rate = cell((r) => r.n / (r.wallMs / 1000) / 1000, 0).replace(/\d+/g, (d) => `${d}k`);
    const syscalls = `${med(rs.map((r) => r.serverReads / r.n)).toFixed(3)} / ${med(rs.map((r) => r.serverWrites / r.n)).toFixed(3)}`;
    console.log(
      `| ${v.label.padEnd(34)} | ${rate.padStart(18)} | ${cell((r) => (1000 * r.cpuMs) / r.n, 2).padStart(18)} | ${cell((r) => (1000 * r.serverMs) / r.n, 2).padStart(18)} | ${syscalls.padStart(27)} |`,
    );
  }
} finally {
  await server.close();
}
