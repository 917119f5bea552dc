// Node.js benchmark: natsjet's npm package (pkg/, built by
// scripts/build-pkg.sh) side by side with nats.js v3 in one process, against
// one nats-server started here, over its websocket port (both clients on the
// same `ws` WebSocket) and over nats:// (natsjet through its Node socket
// shim, nats.js through @nats-io/transport-node).
//
//   npm run bench:node                    # from the repository root
//   BENCH_SCALE=0.1 node bench/js/node.mjs  # a quick pass; BENCH_RUNS=3 for best of 3 (BENCH_PICK=median: the median)
//   BENCH_WORKLOADS=kv,watch node bench/js/node.mjs  # some workloads only (core, jspub, batch100, batch1000, fast, counters, drain, drain_defaults, drain_defaults_4, drain_4, kv, watch, obj)
//
// Workloads (bench/js/workloads.mjs, the same loop for both clients): core
// publish 1M x 128 B then flush; JetStream publish 100k x 128 B with <= 256
// acks in flight, and the same messages as atomic batches of 100 and of 1000
// (one batch at a time); durable pull drain of 200k x 128 B with an ack per message
// (500 per pull, 1 worker; and each client's defaults, `consume()` with no
// options, 1 and 4 workers on one durable);
// Key-Value 10k sequential puts then 10k sequential gets of 100 B (ops/s and
// the p50 and p99 latencies); a KV watch of a bucket of 100k keys from
// `watch()` to the caught-up entry (entries/s: the inverse of the time);
// an Object Store put of 64 MiB from a ReadableStream of 1 MiB pieces made
// as they are pulled, then a get of it read to the end (MiB/s; a get that
// hands out nothing for 5 s is reported "stalled", nats.js#430), each
// client's bucket made with its defaults (nats.js: its pure-JS SHA-256,
// one chunk acknowledged at a time). CPU/op is this process's CPU (user +
// system) per message, operation or MiB: the client's cost, the server runs
// in its own process (its CPU and its read and write syscalls per message
// in a table of their own). With the obj workload, each client then puts and gets
// 1 GiB in a Node process of its own (bench/js/obj_peak.mjs) that reports
// its peak memory.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as natsjet from "natsjet"; // first: its Node entry installs a WebSocket for Node 20
import WebSocket from "ws";
import { headers as natsJsHeaders, wsconnect } from "@nats-io/nats-core";
import { connect as natsJsTcpConnect } from "@nats-io/transport-node";
import { jetstream as natsJsJetstream } from "@nats-io/jetstream";
import { Kvm as NatsJsKvm } from "@nats-io/kv";
import { Objm as NatsJsObjm } from "@nats-io/obj";
import {
  WATCH_BUCKET,
  BATCHES,
  DRAINS,
  WORKLOADS,
  atomicBatches,
  counterIncrements,
  fastIngest,
  burstPublish,
  corePublish,
  durableDrain,
  jetStreamPublish,
  kvGet,
  kvPut,
  kvWatch,
  objectGet,
  objectPut,
} from "./workloads.mjs";
import { PICK, benchServer, header, nodeClock, pick, row, scale, selectedWorkloads, serverTable, withServerUsage } from "./common.mjs";
import { peakTable } from "./obj_peak.mjs";

globalThis.WebSocket ??= WebSocket;

const require = createRequire(import.meta.url);
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 1));
const versions = {
  natsjet: require("natsjet/package.json").version,
  natsJs: require(join(dirname(require.resolve("@nats-io/nats-core")), "../package.json")).version,
};

/** natsjet's JetStream API, when this build of the package has it. */
const natsjetJetstream = typeof natsjet.jetstream === "function" ? natsjet.jetstream : undefined;

const clients = {
  natsjet: {
    connect: (url) => natsjet.connect({ servers: url }),
    jetstream: natsjetJetstream,
    headers: natsjet.headers,
    fast: typeof natsjet.NewFastPublisher === "function" ? (js) => natsjet.NewFastPublisher(js, { flow: 100 }) : undefined,
    kvm: typeof natsjet.Kvm === "function" ? (nc) => new natsjet.Kvm(nc) : undefined,
    objm: typeof natsjet.Objm === "function" ? (nc) => new natsjet.Objm(nc) : undefined,
  },
  "nats.js": {
    connect: (url) => (url.startsWith("ws") ? wsconnect({ servers: url }) : natsJsTcpConnect({ servers: url })),
    jetstream: natsJsJetstream,
    headers: natsJsHeaders,
    fast: undefined, // nats.js keeps its fast publisher internal
    kvm: (nc) => new NatsJsKvm(nc),
    objm: (nc) => new NatsJsObjm(nc),
  },
};

/** Gets given up as stalled: `{ client, transport, at }` (bytes read). */
const stalls = [];
/** Gets read to their end, per client. */
const finished = { natsjet: 0, "nats.js": 0 };

/**
 * Whether natsjet connects to nats:// here. The package's Node entry may not
 * register its Node socket shim yet; then it is registered from the sources
 * (bindings/node/socket.mjs) on the package's own wasm module, when present.
 */
async function natsjetTcp(url) {
  const attempt = async () => {
    const nc = await natsjet.connect({ servers: url });
    await nc.close();
  };
  try {
    await attempt();
    return "package";
  } catch (first) {
    try {
      const raw = require(join(dirname(require.resolve("natsjet/package.json")), "node/natsjet.js"));
      if (typeof raw.setSocketFactory !== "function") throw first;
      const { installNodeSockets } = await import("../../bindings/node/socket.mjs");
      installNodeSockets(raw);
      await attempt();
      return "bindings/node/socket.mjs";
    } catch (e) {
      return `unavailable (${e?.message ?? e})`;
    }
  }
}

/**
 * One run of `workload` by `client`: a run (`{ n, wallMs, cpuMs, serverMs, serverReads, serverWrites }`),
 * for "kv" and "obj" one for the puts and one for the gets (`{ put, get }`),
 * or "n/a"; a get given up is "stalled".
 */
async function measure(server, client, transport, workload, n) {
  const c = clients[client];
  const url = transport === "ws" ? server.wsUrl : server.url;
  const missing =
    workload === "obj" ? !c.objm : workload === "kv" || workload === "watch" ? !c.kvm : !["core", "burst"].includes(workload) && !c.jetstream;
  if (missing) return workload === "kv" || workload === "obj" ? { put: "n/a", get: "n/a" } : "n/a";
  if (workload === "jspub") await server.freshStream("PUB", ["bench.pub"]);
  if (BATCHES[workload]) await server.freshStream("BATCH", ["bench.batch"], { allow_atomic: true });
  if (workload === "fast" && !c.fast) return "n/a";
  if (workload === "fast") await server.freshStream("FAST", ["bench.fast"], { allow_batched: true });
  if (workload === "counters") await server.freshStream("COUNT", ["bench.count.>"], { allow_msg_counter: true, allow_direct: true });
  if (workload === "kv") await server.noKvBucket();
  if (workload === "obj") await server.noObjBucket();
  const durable = `d_${client.replace(/\W/g, "")}_${transport}_${++measure.count}`;
  const drain = DRAINS[workload];
  if (drain) await server.durable("DRAIN", durable);
  const nc = await c.connect(url);
  // A drain's other workers, each on a connection of its own.
  const others = [];
  for (let i = 1; i < (drain?.workers ?? 1); i++) others.push(await c.connect(url));
  /** `part(clock)`, with the server's CPU and syscalls over the same span as the client's. */
  const timed = (part) => withServerUsage(server, nodeClock, part);
  const run = async () => {
    if (workload === "core") return await timed((clock) => corePublish(nc, n, clock));
    if (workload === "burst") return await timed((clock) => burstPublish(nc, n, clock));
    if (workload === "kv") {
      const kvm = c.kvm(nc);
      const put = await timed((clock) => kvPut(kvm, n, clock));
      return { put, get: await timed((clock) => kvGet(kvm, n, clock)) };
    }
    if (workload === "watch") return await timed((clock) => kvWatch(c.kvm(nc), clock));
    if (workload === "obj") {
      const objm = c.objm(nc);
      const put = await timed((clock) => objectPut(objm, n, clock));
      const get = await timed((clock) => objectGet(objm, n, clock));
      if (get.stalledAt === undefined) {
        finished[client]++;
        return { put, get };
      }
      stalls.push({ client, transport, at: get.stalledAt });
      return { put, get: "stalled" };
    }
    const js = await c.jetstream(nc);
    if (workload === "jspub") return await timed((clock) => jetStreamPublish(js, n, clock));
    if (BATCHES[workload]) return await timed((clock) => atomicBatches(js, n, BATCHES[workload], clock));
    if (workload === "fast") return await timed((clock) => fastIngest(c.fast(js), n, clock));
    if (workload === "counters") return await timed((clock) => counterIncrements(js, c.headers, n, clock));
    const ncs = [nc, ...others];
    const jss = await Promise.all(ncs.map((conn) => c.jetstream(conn)));
    const result = await timed((clock) => durableDrain(ncs, jss, "DRAIN", durable, n, clock, drain.options));
    await server.drained("DRAIN", durable, n);
    return result;
  };
  try {
    return await run();
  } finally {
    await Promise.all([nc, ...others].map((conn) => conn.close()));
    if (drain) await server.jsm.consumers.delete("DRAIN", durable).catch(() => {});
  }
}
measure.count = 0;

/** What the nats.js gets did: whether any stalled (nats.js#430), with this server. */
function stallNote(stalls, finished, serverVersion) {
  const theirs = stalls.filter((s) => s.client === "nats.js");
  const ours = stalls.filter((s) => s.client === "natsjet");
  const mib = (b) => (b / (1 << 20)).toFixed(1);
  const lines = [];
  if (theirs.length === 0) {
    lines.push(
      `nats.js#430 check: no nats.js get stalled here (nats-server ${serverVersion}): all ${finished["nats.js"]} read to their end, flow control answered.`,
    );
  } else {
    const where = theirs.map((s) => `${s.transport}:// after ${mib(s.at)} MiB`).join(", ");
    lines.push(`nats.js#430 check: ${theirs.length} nats.js get(s) stalled (nothing for 5 s) with nats-server ${serverVersion}: ${where}.`);
  }
  if (ours.length) lines.push(`natsjet: ${ours.length} get(s) stalled: ${ours.map((s) => `${s.transport}:// after ${mib(s.at)} MiB`).join(", ")}.`);
  return lines.join("\n");
}

const server = await benchServer();
try {
  const tcp = await natsjetTcp(server.url);
  const transports = tcp.startsWith("unavailable") ? ["ws"] : ["ws", "nats"];
  console.log(
    `natsjet ${versions.natsjet} (wasm, Node ${process.versions.node}) vs nats.js ${versions.natsJs}, ` +
      `nats-server ${server.setup.info?.version}; BENCH_SCALE=${process.env.BENCH_SCALE ?? 1}, ${PICK} of ${runs}`,
  );
  console.log(`natsjet over nats://: ${tcp}`);
  if (!natsjetJetstream) console.log("natsjet: JetStream API not in this build (JetStream rows show n/a)");

  const selected = selectedWorkloads();
  const count = (id) => scale(WORKLOADS.find((w) => w.id === id).count);
  const drains = selected.filter((w) => DRAINS[w.id]);
  if (drains.length) await server.filledStream("DRAIN", "bench.drain", Math.max(...drains.map((w) => count(w.id))));
  if (selected.some((w) => w.id === "watch")) await server.filledBucket(WATCH_BUCKET, count("watch"));

  const results = [];
  const objects = [];
  for (const w of selected) {
    const n = scale(w.count);
    // Warm-up: both clients once at a tenth of the count (JIT, server
    // caches); a watch reads the whole bucket.
    for (const client of Object.keys(clients)) await measure(server, client, "ws", w.id, Math.max(1, Math.floor(n / 10)));
    for (const transport of transports) {
      const scheme = transport === "ws" ? "ws://" : "nats://";
      const tries = { natsjet: [], "nats.js": [] };
      for (let i = 0; i < runs; i++) {
        for (const client of Object.keys(clients)) tries[client].push(await measure(server, client, transport, w.id, n));
      }
      if (w.id === "kv" || w.id === "obj") {
        for (const op of ["put", "get"]) {
          const choose = (client) => pick(tries[client].map((r) => r[op]));
          (w.id === "obj" ? objects : results).push([`${w.title(n, op)} (${scheme})`, choose("natsjet"), choose("nats.js")]);
        }
      } else {
        results.push([`${w.title(n)} (${scheme})`, pick(tries.natsjet), pick(tries["nats.js"])]);
      }
    }
  }
  if (results.length) {
    console.log();
    header();
    for (const r of results) row(...r);
    serverTable(results);
  }
  if (objects.length) {
    console.log();
    console.log("Object Store (MiB/s; client CPU per MiB; a get ratio only where both gets finished):");
    header("natsjet", "nats.js", true, "CPU/MiB", "MiB/s");
    for (const r of objects) row(...r, true, "ms");
    serverTable(objects, "MiB", "ms");
    console.log();
    console.log(stallNote(stalls, finished, server.setup.info?.version));
    const transport = transports.includes("nats") ? "nats" : "ws";
    const mib = scale(1024);
    console.log();
    console.log(`${mib} MiB put then get over ${transport}://, each client in a Node process of its own (bench/js/obj_peak.mjs):`);
    await peakTable(server, transport, mib, tcp);
  }
} finally {
  await server.close();
}
