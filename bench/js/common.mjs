// Node-side pieces shared by node.mjs and browser.mjs: the server, stream
// and consumer set-up (done with nats.js's JetStream manager over TCP, the
// same for both clients), scaling and the printed table (the format of
// benches/support/mod.rs).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tcpConnect } from "@nats-io/transport-node";
import { AckPolicy, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { startServer } from "../../bindings/test/harness.mjs";
import { CHUNK, KV_BUCKET, OBJ_BUCKET, PAYLOAD, VALUE, WORKLOADS } from "./workloads.mjs";

/** `n` times `BENCH_SCALE` (default 1), at least 1. */
export function scale(n) {
  const s = Number(process.env.BENCH_SCALE ?? 1);
  return Math.max(1, Math.floor(n * (Number.isFinite(s) ? s : 1)));
}

/** The workloads to run: all, or those named in `BENCH_WORKLOADS` (e.g. `drain` or `core,jspub`). */
export function selectedWorkloads() {
  const only = process.env.BENCH_WORKLOADS?.split(",").map((id) => id.trim()).filter(Boolean);
  if (!only?.length) return WORKLOADS;
  const unknown = only.filter((id) => !WORKLOADS.some((w) => w.id === id));
  if (unknown.length) throw new Error(`BENCH_WORKLOADS: unknown ${unknown.join(", ")} (known: ${WORKLOADS.map((w) => w.id)})`);
  return WORKLOADS.filter((w) => only.includes(w.id));
}

/** Wall and process CPU milliseconds. */
export function nodeClock() {
  const { user, system } = process.cpuUsage();
  return [performance.now(), (user + system) / 1000];
}

/**
 * One nats-server with JetStream and a websocket listener on random ports
 * (bindings/test/harness.mjs), its store in a temp dir, plus a nats.js
 * connection over TCP for the set-up. `close()` stops and removes it all.
 */
export async function benchServer() {
  const store = mkdtempSync(join(tmpdir(), "natsjet-bench-js-"));
  const server = await startServer(`jetstream { store_dir: "${store}", max_memory_store: 1GB }\nmax_payload: 1MB`);
  const setup = await tcpConnect({ servers: server.url });
  const jsm = await jetstreamManager(setup);
  /** Publishes `n` messages (`subject(i)`, `payload`) and waits until stream `name` holds them. */
  async function fill(name, subject, payload, n) {
    for (let sent = 0; sent < n; ) {
      const chunk = Math.min(CHUNK, n - sent);
      for (let i = 0; i < chunk; i++) setup.publish(subject(sent + i), payload);
      sent += chunk;
      await setup.flush();
      // Let the stream take what was sent before sending more.
      while ((await jsm.streams.info(name)).state.messages < sent) await new Promise((r) => setTimeout(r, 5));
    }
  }
  return {
    url: server.url,
    wsUrl: server.wsUrl,
    setup,
    jsm,
    /** The server's process id. */
    pid: server.child.pid,
    /**
     * The server process's CPU time so far in milliseconds (Linux: from
     * /proc, 10 ms resolution; NaN elsewhere): whether the server is the
     * bottleneck shows as it nearing one core.
     */
    cpuMs() {
      return procStat(server.child.pid)?.cpuMs ?? NaN;
    },
    /**
     * The server's CPU so far and its read and write syscalls (Linux:
     * /proc/PID/io; NaN elsewhere: how many messages each read or write
     * carries), for `usageSince`.
     */
    usage() {
      const cpuMs = this.cpuMs();
      try {
        const io = readFileSync(`/proc/${server.child.pid}/io`, "utf8");
        const count = (name) => Number(io.match(new RegExp(`^${name}: (\\d+)$`, "m"))[1]);
        return { cpuMs, reads: count("syscr"), writes: count("syscw") };
      } catch {
        return { cpuMs, reads: NaN, writes: NaN };
      }
    },
    /** What the server spent since `usage()` gave `before`: a run's `serverMs`, `serverReads`, `serverWrites`. */
    usageSince(before) {
      const now = this.usage();
      return { serverMs: now.cpuMs - before.cpuMs, serverReads: now.reads - before.reads, serverWrites: now.writes - before.writes };
    },
    /** A new, empty file-storage stream `name` on `subjects`. */
    async freshStream(name, subjects, more = {}) {
      await jsm.streams.delete(name).catch(() => {});
      await jsm.streams.add({ name, subjects, storage: "file", ...more });
    },
    /** A fresh stream holding `n` x 128 B on `subject`, all stored before this returns. */
    async filledStream(name, subject, n) {
      await this.freshStream(name, [subject]);
      await fill(name, () => subject, PAYLOAD, n);
    },
    /** No bucket KV_BUCKET: each put run makes it with its client's defaults. */
    async noKvBucket() {
      await jsm.streams.delete(`KV_${KV_BUCKET}`).catch(() => {});
    },
    /** No object bucket OBJ_BUCKET: each put run makes it with its client's defaults. */
    async noObjBucket() {
      await jsm.streams.delete(`OBJ_${OBJ_BUCKET}`).catch(() => {});
    },
    /**
     * A fresh bucket `bucket` (nats.js's defaults) holding `keys` keys of
     * 100 B, written straight to its subjects (`$KV.<bucket>.w.<i>`).
     */
    async filledBucket(bucket, keys) {
      await jsm.streams.delete(`KV_${bucket}`).catch(() => {});
      await new Kvm(setup).create(bucket);
      await fill(`KV_${bucket}`, (i) => `$KV.${bucket}.w.${i}`, VALUE, keys);
    },
    /** A durable pull consumer with explicit acks (as in benches/consume.rs). */
    async durable(stream, name) {
      await jsm.consumers.delete(stream, name).catch(() => {});
      await jsm.consumers.add(stream, { durable_name: name, ack_policy: AckPolicy.Explicit, max_ack_pending: 100_000 });
    },
    /**
     * Throws unless durable `name` handed out the first `n` messages of
     * `stream` (made by `durable`, on a stream filled in order): a drain
     * that counted copies of fewer messages (a reply subject shared by
     * several sockets) measured nothing. It shows only where the stream is
     * long against what the workers request ahead (the benches' scale, not
     * the smoke tests'): a short one is handed out whole either way.
     */
    async drained(stream, name, n) {
      const { delivered } = await jsm.consumers.info(stream, name);
      if (delivered.stream_seq < n) throw new Error(`${name}: ${n} counted, ${delivered.stream_seq} delivered`);
    },
    async close() {
      await setup.close().catch(() => {});
      await server.close();
      rmSync(store, { recursive: true, force: true });
    },
  };
}

const WIDTH = 58;
/** Column widths of the last header printed. */
let widths = [WIDTH, 13, 13, 6, 15, 15];

/**
 * Prints the table head: the two clients, the name of the CPU columns (none
 * when `cpu` is false) and the unit of the rate columns.
 */
export function header(ours = "natsjet", theirs = "nats.js", cpu = true, cpuName = "CPU/op", unit = "/s") {
  const cells = [
    "workload".padEnd(WIDTH),
    `${ours} ${unit}`.padStart(13),
    `${theirs} ${unit}`.padStart(13),
    "ratio".padStart(6),
  ];
  if (cpu) cells.push(`${ours} ${cpuName}`.padStart(15), `${theirs} ${cpuName}`.padStart(15));
  widths = cells.map((c) => c.length);
  console.log(`| ${cells.join(" | ")} |`);
  console.log(`|${cells.map((c) => "-".repeat(c.length + 2)).join("|")}|`);
}

/** CPU milliseconds per unit of a run, as a cell in `unit` ("µs" or "ms"). */
function cpuCell(ms, n, unit) {
  if (!Number.isFinite(ms)) return "-";
  return unit === "ms" ? `${(ms / n).toFixed(2)} ms` : `${((ms * 1000) / n).toFixed(2)} µs`;
}

/**
 * One row; a run is `{ n, wallMs, cpuMs }`, or a string shown instead of
 * figures. A run with latency percentiles (`p50Ms`, `p99Ms`) adds a row for
 * each, whose ratio is theirs over ours (above 1: natsjet is faster). CPU
 * per unit is shown in `cpuUnit` ("µs", or "ms" for the MiB of object rows).
 */
export function row(name, ours, theirs, cpu = true, cpuUnit = "µs") {
  const rate = (r) => {
    if (typeof r === "string") return r;
    const perSecond = r.n / (r.wallMs / 1000);
    return perSecond.toFixed(perSecond < 100 ? 1 : 0);
  };
  const perOp = (r) => (typeof r === "string" ? "-" : cpuCell(r.cpuMs, r.n, cpuUnit));
  const ratio =
    typeof ours === "string" || typeof theirs === "string"
      ? "-"
      : `${((ours.n / ours.wallMs) / (theirs.n / theirs.wallMs)).toFixed(2)}x`;
  const cells = [name.padEnd(widths[0]), rate(ours), rate(theirs), ratio];
  if (cpu) cells.push(perOp(ours), perOp(theirs));
  for (let i = 1; i < cells.length; i++) cells[i] = cells[i].padStart(widths[i]);
  console.log(`| ${cells.join(" | ")} |`);
  for (const p of ["p50", "p99"]) {
    const ms = (r) => (typeof r === "string" ? undefined : r[`${p}Ms`]);
    if (ms(ours) === undefined && ms(theirs) === undefined) continue;
    const us = (r) => (ms(r) === undefined ? "-" : `${(ms(r) * 1000).toFixed(1)} µs`);
    const lat = [`  ${p} latency`.padEnd(widths[0]), us(ours), us(theirs)];
    lat.push(ms(ours) && ms(theirs) ? `${(ms(theirs) / ms(ours)).toFixed(2)}x` : "-");
    if (cpu) lat.push("", "");
    for (let i = 1; i < lat.length; i++) lat[i] = lat[i].padStart(widths[i]);
    console.log(`| ${lat.join(" | ")} |`);
  }
}

/**
 * Runs `part(clock)` with the server's CPU and syscalls counted from the
 * first reading of the clock to the end (`server.usageSince`).
 */
export async function withServerUsage(server, clock, part) {
  let before;
  const result = await part(() => {
    before ??= server.usage();
    return clock();
  });
  return { ...result, ...server.usageSince(before) };
}

/**
 * A process's parent and CPU time so far (user + system, in milliseconds)
 * from /proc/PID/stat; undefined where there is none (gone, or not Linux).
 */
export function procStat(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return { ppid: fields[1], cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
  } catch {
    return undefined;
  }
}

/**
 * The server's side of the rows: its CPU per message and its share of one
 * core over each run (`serverMs`), and its read and write syscalls per
 * message (`serverReads`, `serverWrites`: acks packed into fewer writes cost
 * it fewer reads), natsjet then nats.js.
 */
export function serverTable(results, unit = "op", cpuUnit = "µs") {
  const perOp = (count, r) => (count / r.n).toPrecision(2);
  const cell = (r) => {
    if (typeof r === "string" || !Number.isFinite(r.serverMs)) return "-";
    const cpu = `${cpuCell(r.serverMs, r.n, cpuUnit)}, ${((100 * r.serverMs) / r.wallMs).toFixed(0)}%`;
    return Number.isFinite(r.serverReads) ? `${cpu}, r ${perOp(r.serverReads, r)} w ${perOp(r.serverWrites, r)}` : cpu;
  };
  const cells = [`workload (nats-server CPU/${unit}, % of a core, syscalls/${unit})`.padEnd(WIDTH), "natsjet".padStart(32), "nats.js".padStart(32)];
  console.log();
  console.log(`| ${cells.join(" | ")} |`);
  console.log(`|${cells.map((c) => "-".repeat(c.length + 2)).join("|")}|`);
  for (const [name, ours, theirs] of results) {
    console.log(`| ${name.padEnd(WIDTH)} | ${cell(ours).padStart(32)} | ${cell(theirs).padStart(32)} |`);
  }
}

/** How rows pick one of their runs: `BENCH_PICK=median`, or the best (the default). */
export const PICK = process.env.BENCH_PICK === "median" ? "median" : "best";

/** The run a row shows: the median or the best of `runs`, as `PICK` says. */
export function pick(runs) {
  return PICK === "median" ? median(runs) : best(runs);
}

/** The best (fastest) of runs. */
export function best(runs) {
  const done = runs.filter((r) => typeof r !== "string");
  if (done.length === 0) return runs[0];
  return done.reduce((a, b) => (b.n / b.wallMs > a.n / a.wallMs ? b : a));
}

/** The median run by rate (the slower middle one of an even count). */
export function median(runs) {
  const done = runs.filter((r) => typeof r !== "string");
  if (done.length === 0) return runs[0];
  const sorted = done.sort((a, b) => a.n / a.wallMs - b.n / b.wallMs);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}
