// Profiling aid (not a benchmark): natsjet alone draining the default
// consume() path, so a profile of it shows where
// the wasm client's time goes. PROFILE_WORKERS (1), PROFILE_TRANSPORT
// (nats | ws), BENCH_SCALE as for node.mjs; PROFILE_OUT=file.cpuprofile
// profiles the measured drain only (not the set-up); PROFILE_PKG=dir loads
// the package from `dir` instead (e.g. one whose wasm keeps its function
// names: wasm-bindgen --keep-debug); PROFILE_LEDGER=1 drains through a
// CheckpointLedger as ab_drain's AB_LEDGER does. Prints the client CPU per message.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import WebSocket from "ws";
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { benchServer, nodeClock, scale } from "./common.mjs";
import { durableDrain } from "./workloads.mjs";

globalThis.WebSocket ??= WebSocket;
const natsjet = await import(process.env.PROFILE_PKG ? pathToFileURL(resolve(process.env.PROFILE_PKG, "node.js")).href : "natsjet");
const workers = Number(process.env.PROFILE_WORKERS ?? 1);
const transport = process.env.PROFILE_TRANSPORT ?? "nats";
const n = scale(200_000);
const server = await benchServer();
try {
  await server.filledStream("DRAIN", "bench.drain", n);
  for (const pass of ["warm", "measured"]) {
    const durable = `p_${pass}`;
    await server.durable("DRAIN", durable);
    const url = transport === "ws" ? server.wsUrl : server.url;
    const ncs = await Promise.all(Array.from({ length: workers }, () => natsjet.connect({ servers: url })));
    const jss = ncs.map((nc) => natsjet.jetstream(nc));
    const profile = pass === "measured" && process.env.PROFILE_OUT ? new Session() : null;
    if (profile) {
      profile.connect();
      await profile.post("Profiler.enable");
      await profile.post("Profiler.start");
    }
    const Ledger = process.env.PROFILE_LEDGER === "1" ? natsjet.CheckpointLedger : undefined;
    const run = await durableDrain(ncs, jss, "DRAIN", durable, pass === "warm" ? n / 10 : n, nodeClock, undefined, Ledger);
    if (profile) writeFileSync(process.env.PROFILE_OUT, JSON.stringify((await profile.post("Profiler.stop")).profile));
    await Promise.all(ncs.map((nc) => nc.close()));
    if (pass === "measured")
      console.log(`${workers} worker(s) ${transport}://: ${Math.round(run.n / (run.wallMs / 1000))} msg/s, ${((run.cpuMs * 1000) / run.n).toFixed(2)} µs CPU/msg`);
  }
} finally {
  await server.close();
}
