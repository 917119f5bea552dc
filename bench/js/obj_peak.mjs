// The peak memory of an Object Store put then get in Node: node.mjs runs
// this file once per client, as a process of its own, so the figures are
// that client's alone:
//
//   node bench/js/obj_peak.mjs <natsjet|nats.js> <url> <MiB> [bindings]
//
// puts `MiB` MiB from a ReadableStream of 1 MiB pieces made as they are
// pulled, then gets it read to the end (bench/js/workloads.mjs), and prints
// one JSON line: the resident memory before the put, the peaks of the put
// and of the get (on Linux each a new peak from what was resident when it
// started, /proc/self/clear_refs; elsewhere the process's peak so far), the
// whole run's peak (process.resourceUsage().maxRSS and those), for natsjet
// its wasm memory's size at the end (it never shrinks: its peak), and the
// MiB/s. `bindings`: natsjet's nats:// sockets come from
// bindings/node/socket.mjs, the package's entry not registering them.
//
// Nothing is imported before the client (this file's imports are Node's and
// the plain workloads module), so a nats.js process never loads natsjet's
// wasm and natsjet's wasm memory is found as it is instantiated.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MIB, objectGet, objectPut } from "./workloads.mjs";

const SCRIPT = fileURLToPath(import.meta.url);
/** Longest a child may take (nats.js puts a chunk at a time). */
const CHILD_TIMEOUT_MS = 15 * 60_000;

/** A figure of /proc/self/status in MiB (NaN where there is none). */
export function statusMiB(field) {
  try {
    const line = readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith(field));
    return Number(line.split(/\s+/)[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** Starts a new peak (Linux: VmHWM falls back to what is resident now); whether it could. */
export function resetPeak() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** The peak resident memory since the last reset, in MiB. */
export function peakMiB() {
  const hwm = statusMiB("VmHWM:");
  return Number.isFinite(hwm) ? hwm : process.resourceUsage().maxRSS / 1024;
}

function clock() {
  const { user, system } = process.cpuUsage();
  return [performance.now(), (user + system) / 1000];
}

/** The wasm memories instantiated from now on (natsjet's): a list that fills as they are. */
export function watchWasmMemories() {
  const memories = [];
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = new Proxy(Instance, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget);
      if (instance.exports.memory instanceof WebAssembly.Memory) memories.push(instance.exports.memory);
      return instance;
    },
  });
  return memories;
}

async function child(client, url, mib, sockets) {
  const memories = watchWasmMemories();
  let connect, Objm;
  if (client === "natsjet") {
    const natsjet = await import("natsjet");
    if (sockets === "bindings") {
      const { createRequire } = await import("node:module");
      const { dirname, join } = await import("node:path");
      const require = createRequire(import.meta.url);
      const raw = require(join(dirname(require.resolve("natsjet/package.json")), "node/natsjet.js"));
      const { installNodeSockets } = await import("../../bindings/node/socket.mjs");
      installNodeSockets(raw);
    }
    connect = (servers) => natsjet.connect({ servers });
    Objm = natsjet.Objm;
  } else {
    globalThis.WebSocket ??= (await import("ws")).default;
    const { wsconnect } = await import("@nats-io/nats-core");
    const { connect: tcpConnect } = await import("@nats-io/transport-node");
    connect = (servers) => (servers.startsWith("ws") ? wsconnect({ servers }) : tcpConnect({ servers }));
    ({ Objm } = await import("@nats-io/obj"));
  }
  const nc = await connect(url);
  const objm = new Objm(nc);
  const before = statusMiB("VmRSS:");
  const resets = resetPeak();
  const put = await objectPut(objm, mib, clock);
  const putPeak = peakMiB();
  resetPeak();
  const get = await objectGet(objm, mib, clock);
  const getPeak = peakMiB();
  const maxRSS = process.resourceUsage().maxRSS / 1024;
  const rate = (r) => r.n / (r.wallMs / 1000);
  const result = {
    peak: Math.max(putPeak, getPeak, resets ? 0 : maxRSS),
    maxRSS,
    before,
    putPeak,
    getPeak,
    resets,
    wasm: memories.length ? Math.max(...memories.map((m) => m.buffer.byteLength)) / MIB : null,
    put: rate(put),
    get: get.stalledAt === undefined ? rate(get) : null,
    stalledAt: get.stalledAt ?? null,
  };
  console.log(JSON.stringify(result));
  await Promise.race([nc.close(), new Promise((resolve) => setTimeout(resolve, 2000))]).catch(() => {});
  process.exit(0);
}

/** One child: its result, or `{ error }`. */
function runChild(client, url, mib, sockets) {
  return new Promise((resolve) => {
    const args = [SCRIPT, client, url, String(mib), ...(sockets ? [sockets] : [])];
    execFile(process.execPath, args, { timeout: CHILD_TIMEOUT_MS, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const line = stdout.trim().split("\n").pop();
      try {
        resolve(JSON.parse(line));
      } catch {
        resolve({ error: (stderr || String(error ?? "no output")).trim().split("\n").slice(-1)[0] });
      }
    });
  });
}

/**
 * Runs a child per client against `server` over `transport` ("nats" or
 * "ws"), each in a fresh bucket, and prints their table. `natsjetSockets`
 * is node.mjs's answer to how natsjet reaches nats://.
 */
export async function peakTable(server, transport, mib, natsjetSockets) {
  const url = transport === "ws" ? server.wsUrl : server.url;
  const sockets = natsjetSockets === "bindings/node/socket.mjs" ? "bindings" : undefined;
  const cells = ["client", "peak RSS", "before put", "put's peak", "get's peak", "wasm memory", "put", "get"];
  const widths = [8, 10, 10, 10, 10, 11, 11, 13];
  const line = (values) => `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join(" | ")} |`;
  console.log(line(cells));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  const mibCell = (v) => (typeof v === "number" && Number.isFinite(v) ? `${v.toFixed(1)} MiB` : "-");
  const rateCell = (v) => (typeof v === "number" ? `${v.toFixed(v < 100 ? 1 : 0)} MiB/s` : "-");
  let resets = true;
  for (const client of ["natsjet", "nats.js"]) {
    await server.noObjBucket();
    const r = await runChild(client, url, mib, client === "natsjet" ? sockets : undefined);
    if (r.error) {
      console.log(line([client, `failed: ${r.error}`.slice(0, 10), "", "", "", "", "", ""]));
      console.log(`  ${client}: ${r.error}`);
      continue;
    }
    resets &&= r.resets;
    const get = r.get === null ? `stalled@${(r.stalledAt / MIB).toFixed(0)}MiB` : rateCell(r.get);
    console.log(line([client, mibCell(r.peak), mibCell(r.before), mibCell(r.putPeak), mibCell(r.getPeak), mibCell(r.wasm), rateCell(r.put), get]));
  }
  console.log(
    "Resident memory (RSS) of the whole Node process: V8's heap (the 1 MiB pieces made for the put are garbage until collected)," +
      " ArrayBuffers, natsjet's wasm memory (its size in its own column), sockets' buffers." +
      (resets ? " Each phase's peak is counted from what was resident when it started (/proc/self/clear_refs)." : " Phase peaks are the process's peak so far."),
  );
  await server.noObjBucket();
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [client, url, mib, sockets] = process.argv.slice(2);
  await child(client, url, Number(mib), sockets);
}
