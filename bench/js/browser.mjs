// Browser benchmark: the same workloads as node.mjs (bench/js/workloads.mjs)
// inside headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core, no browser download): natsjet's web build (pkg/web.js,
// loaded as a native ES module with its wasm) against nats.js v3 bundled with
// esbuild, both over the websocket port of one nats-server started here.
// Pages come from a small static server on 127.0.0.1; streams and consumers
// are set up from Node.
//
//   npm run bench:browser                       # from the repository root
//   BENCH_SCALE=0.1 node bench/js/browser.mjs     # a quick pass; BENCH_RUNS=3 for best of 3 (BENCH_PICK=median: the median)
//   BENCH_WORKLOADS=kv,watch node bench/js/browser.mjs  # some workloads only (core, jspub, batch100, batch1000, fast, counters, drain, drain_defaults, drain_defaults_4, drain_4, kv, watch, obj)
//   BENCH_BROWSER=cdp node bench/js/browser.mjs   # driven over plain DevTools protocol (bench/js/cdp.mjs)
//   BENCH_PROFILE=natsjet,bare node bench/js/browser.mjs  # each run of these clients profiled (self time by function)
//   BENCH_BASE_PKG=target/pkg-base node bench/js/browser.mjs  # also that build of the package ("natsjet base"),
//                                                 # its runs alternating with the others', natsjet against it in a
//                                                 # table of its own (not for kv and obj)
//
// Playwright (the default) enables DevTools' Network domain on its pages, so
// every WebSocket frame also costs a DevTools event in the page and in the
// browser process; BENCH_BROWSER=cdp drives the page without it, as a page
// runs for its users.
//
// The drain rows end with every process's CPU per message: the page's
// renderer, Chromium's network service, the rest of Chromium, nats-server
// (from /proc): on 2 cores their sum, not the page alone, bounds the rate.
//
// "main thread/op" is the page's main-thread busy time (Chromium's
// TaskDuration metric) per message or operation, connect and close
// included (KV puts and gets are a page call each). The page is served
// cross-origin isolated, so `performance.now()` has Chromium's fine
// resolution (5 µs, not 100 µs) for the KV latencies.
//
// The Object Store workload puts 16 MiB then gets it (MiB/s, the median of
// the runs; a get that hands out nothing for 5 s is "stalled", nats.js#430),
// with a bare WebSocket moving the same bytes beside (bench/js/bare_ws.mjs:
// what any client can reach in this page), then each client
// puts and gets 1 GiB in a fresh page of its own, reporting its memory: the
// page's JS heap at its highest (DevTools' Runtime.getHeapUsage, sampled
// every 100 ms; ArrayBuffers' backing stores counted where Chromium says)
// and, for natsjet, its wasm memory's size at the end (it never shrinks).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import { availableParallelism } from "node:os";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { bundle } from "./bundle.mjs";
import { launchChromium } from "../../bindings/test/chromium.mjs";
import { openPage } from "./cdp.mjs";
import { BATCHES, DRAINS, WATCH_BUCKET, WORKLOADS } from "./workloads.mjs";
import { PICK, benchServer, header, median, pick, procStat, row, scale, selectedWorkloads, serverTable } from "./common.mjs";

const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 1));
const here = new URL("./", import.meta.url);
const pkg = new URL("../../pkg/", import.meta.url);
/** Another build of the package (a directory like pkg/), served as /base/. */
const basePkg = process.env.BENCH_BASE_PKG && pathToFileURL(`${resolve(process.env.BENCH_BASE_PKG)}/`);
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

if (!existsSync(executablePath)) {
  console.log(`no Chromium at ${executablePath} (set CHROMIUM): browser benchmark skipped`);
  process.exit(0);
}

/** nats.js as a browser app would ship it: one minified ES module. */
function natsJsBundle() {
  return bundle(
    `export { headers, wsconnect } from "@nats-io/nats-core"; export { jetstream } from "@nats-io/jetstream"; export { Kvm } from "@nats-io/kv"; export { Objm } from "@nats-io/obj";`,
  );
}

const pageHtml = `<!doctype html>
<title>natsjet vs nats.js</title>
<script>
  // Every wasm memory instantiated (natsjet's): its size is its peak.
  window.wasmMemories = [];
  for (const name of ["instantiate", "instantiateStreaming"]) {
    const original = WebAssembly[name];
    WebAssembly[name] = async (...args) => {
      const made = await original.apply(WebAssembly, args);
      const memory = (made.instance ?? made).exports?.memory;
      if (memory instanceof WebAssembly.Memory) window.wasmMemories.push(memory);
      return made;
    };
  }
</script>
<script type="module">
  import * as natsjet from "/pkg/web.js";
  import * as natsjs from "/natsjs.js";
  import { bareDrain, barePut, bareGet } from "/bare_ws.mjs";
  import { BATCHES, DRAINS, OBJ_BUCKET, atomicBatches, counterIncrements, fastIngest, burstPublish, corePublish, jetStreamPublish, durableDrain, kvGet, kvPut, kvWatch, objectGet, objectPut } from "/workloads.mjs";
  const base = ${basePkg ? 'await import("/base/web.js")' : "null"};
  const clients = {
    natsjet: {
      connect: (url) => natsjet.connect({ servers: url }),
      jetstream: typeof natsjet.jetstream === "function" ? natsjet.jetstream : undefined,
      headers: natsjet.headers,
      fast: typeof natsjet.NewFastPublisher === "function" ? (js) => natsjet.NewFastPublisher(js, { flow: 100 }) : undefined,
      kvm: typeof natsjet.Kvm === "function" ? (nc) => new natsjet.Kvm(nc) : undefined,
      objm: typeof natsjet.Objm === "function" ? (nc) => new natsjet.Objm(nc) : undefined,
    },
    "natsjet base": base && { connect: (url) => base.connect({ servers: url }), jetstream: base.jetstream },
    "nats.js": {
      connect: (url) => natsjs.wsconnect({ servers: url }),
      jetstream: natsjs.jetstream,
      headers: natsjs.headers,
      kvm: (nc) => new natsjs.Kvm(nc),
      objm: (nc) => new natsjs.Objm(nc),
    },
  };
  const clock = () => [performance.now(), NaN];
  window.hasJetStream = (client) => clients[client].jetstream !== undefined;
  window.hasKv = (client) => clients[client].kvm !== undefined;
  window.hasObj = (client) => clients[client].objm !== undefined;
  /** The largest wasm memory of the page, in bytes (0: none). */
  window.wasmBytes = () => Math.max(0, ...window.wasmMemories.map((m) => m.buffer.byteLength));
  window.isolated = () => crossOriginIsolated;
  window.bench = async ({ client, workload, n, url, durable }) => {
    if (client === "bare" && DRAINS[workload]) return await bareDrain(url, "DRAIN", durable, n, DRAINS[workload].workers, clock);
    if (client === "bare") {
      // The bucket made by nats.js (not measured), its chunks moved by a bare WebSocket.
      if (workload === "objput") {
        const nc = await natsjs.wsconnect({ servers: url });
        await new natsjs.Objm(nc).create(OBJ_BUCKET);
        await nc.close();
        return await barePut(url, n, clock);
      }
      return await bareGet(url, n, clock);
    }
    const c = clients[client];
    const nc = await c.connect(url);
    const ncs = [nc];
    try {
      if (workload === "core") return await corePublish(nc, n, clock);
      if (workload === "burst") return await burstPublish(nc, n, clock);
      if (workload === "kvput") return await kvPut(c.kvm(nc), n, clock);
      if (workload === "kvget") return await kvGet(c.kvm(nc), n, clock);
      if (workload === "watch") return await kvWatch(c.kvm(nc), clock);
      if (workload === "objput") return await objectPut(c.objm(nc), n, clock);
      if (workload === "objget") return await objectGet(c.objm(nc), n, clock);
      const js = await c.jetstream(nc);
      if (workload === "jspub") return await jetStreamPublish(js, n, clock);
      if (BATCHES[workload]) return await atomicBatches(js, n, BATCHES[workload], clock);
      if (workload === "fast") return await fastIngest(c.fast(js), n, clock);
      if (workload === "counters") return await counterIncrements(js, c.headers, n, clock);
      const drain = DRAINS[workload];
      // The other workers, each on a connection of its own.
      while (ncs.length < drain.workers) ncs.push(await c.connect(url));
      const jss = await Promise.all(ncs.map((conn) => c.jetstream(conn)));
      return await durableDrain(ncs, jss, "DRAIN", durable, n, clock, drain.options);
    } finally {
      await Promise.all(ncs.map((conn) => conn.close()));
    }
  };
  window.benchReady = true;
</script>`;

function staticServer(natsJs) {
  const http = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    // Cross-origin isolated: performance.now() at its finest resolution.
    const isolation = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };
    const send = (type, body) =>
      res.writeHead(200, { "content-type": type, "cache-control": "no-store", ...isolation }).end(body);
    if (path === "/") return send(types[".html"], pageHtml);
    if (path === "/favicon.ico") return res.writeHead(204).end();
    if (path === "/natsjs.js") return send(types[".js"], natsJs);
    if (path === "/workloads.mjs" || path === "/bare_ws.mjs") return send(types[".js"], readFileSync(new URL(path.slice(1), here)));
    const dir = path.startsWith("/pkg/") ? pkg : path.startsWith("/base/") && basePkg;
    if (dir && !path.includes("..")) {
      const file = new URL(`.${path.slice(path.indexOf("/", 1))}`, dir);
      if (existsSync(file)) return send(types[extname(path)] ?? "application/octet-stream", readFileSync(file));
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve(http)));
}

/** Polls `ready` until it is true, for at most 30 s. */
async function waitFor(ready) {
  const deadline = Date.now() + 30_000;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error("page did not load");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The bench page in headless Chromium, through Playwright or (BENCH_BROWSER=cdp)
 * plain DevTools protocol: `call(name, args)` awaits `window[name](args)`,
 * `busy()` is the main thread's busy seconds so far, `heap()` its JS heap
 * (Runtime.getHeapUsage), `send(method, params)` any DevTools call to it,
 * `reload()` loads it afresh.
 */
async function benchPage(url) {
  if (process.env.BENCH_BROWSER === "cdp") {
    const page = await openPage(executablePath, url);
    try {
      await waitFor(() => page.evaluate("window.benchReady === true"));
      await page.send("Performance.enable");
    } catch (e) {
      await page.close();
      throw e;
    }
    return {
      driver: "plain DevTools protocol",
      version: page.version,
      errors: [],
      call: (name, args) => page.evaluate(`window.${name}(${JSON.stringify(args)})`),
      busy: async () => (await page.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value,
      heap: () => page.send("Runtime.getHeapUsage"),
      send: (method, params) => page.send(method, params),
      reload: async () => {
        await page.evaluate("window.benchReady = false, location.reload(), true");
        await waitFor(() => page.evaluate("window.benchReady === true"));
      },
      close: () => page.close(),
    };
  }
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    tab.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await tab.goto(url);
    await tab.waitForFunction(() => window.benchReady === true, null, { timeout: 30_000 }).catch((e) => {
      throw new Error(`page did not load: ${errors.join("; ") || e}`);
    });
    const cdp = await tab.context().newCDPSession(tab);
    await cdp.send("Performance.enable");
    return {
      driver: "playwright-core",
      version: browser.version(),
      errors,
      call: (name, args) => tab.evaluate(`window.${name}(${JSON.stringify(args)})`),
      busy: async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value,
      heap: () => cdp.send("Runtime.getHeapUsage"),
      send: (method, params) => cdp.send(method, params),
      reload: async () => {
        await tab.reload();
        await tab.waitForFunction(() => window.benchReady === true, null, { timeout: 30_000 });
      },
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** Chromium's processes by what they are, from their command lines. */
const PROCESS_KINDS = [
  ["renderer", /--type=renderer/],
  ["network", /--utility-sub-type=network\./],
  ["rest", /./],
];

/**
 * The CPU time so far of the Chromium processes this bench started (every
 * process under this one but the server), in milliseconds by kind:
 * `renderer` (the page: its main thread and the rest), `network` (the
 * network service, which carries every WebSocket frame) and `rest`
 * (browser, GPU, other utilities). Linux only: NaN elsewhere.
 */
function browserCpuMs() {
  const totals = Object.fromEntries(PROCESS_KINDS.map(([kind]) => [kind, 0]));
  let procs;
  try {
    procs = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return Object.fromEntries(PROCESS_KINDS.map(([kind]) => [kind, NaN]));
  }
  const stats = new Map();
  for (const pid of procs) {
    const stat = procStat(pid);
    if (stat) stats.set(pid, stat);
  }
  const mine = (pid) => {
    for (let p = stats.get(pid)?.ppid; p !== undefined; p = stats.get(p)?.ppid) if (p === String(process.pid)) return true;
    return false;
  };
  for (const [pid, { cpuMs }] of stats) {
    if (pid === String(server.pid) || !mine(pid)) continue;
    let command;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    totals[PROCESS_KINDS.find(([, pattern]) => pattern.test(command))[0]] += cpuMs;
  }
  return totals;
}

/**
 * Every process's CPU per message in the drain rows (median runs), beside
 * the wall time per message: on a machine of few cores their sum over the
 * cores bounds the rate, whichever client runs.
 */
function machineTable(drainCeilings) {
  const cores = availableParallelism();
  console.log();
  console.log(`The machine's CPU per message (${cores} cores; Chromium's processes and nats-server, from /proc):`);
  const cells = ["workload".padEnd(64), "client".padEnd(7), "wall", "renderer", "network", "rest", "server", "sum"];
  const widths = cells.map((c, i) => (i < 2 ? c.length : 8));
  console.log(`| ${cells.map((c, i) => c.padStart(widths[i])).join(" | ")} |`);
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const [name, ...runs] of drainCeilings) {
    ["natsjet", "nats.js", "bare"].forEach((client, i) => {
      const r = runs[i];
      if (typeof r === "string") return;
      const us = (ms) => ((1000 * ms) / r.n).toFixed(2);
      const { renderer, network, rest } = r.browserMs;
      const values = [r.wallMs, renderer, network, rest, r.serverMs, renderer + network + rest + r.serverMs].map(us);
      console.log(`| ${[name.slice(0, 64), client, ...values].map((c, j) => (j < 2 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join(" | ")} |`);
    });
  }
}

/** Starts DevTools' sampling profiler in the page (BENCH_PROFILE). */
async function startProfile(page) {
  await page.send("Profiler.enable");
  await page.send("Profiler.setSamplingInterval", { interval: 200 });
  await page.send("Profiler.start");
}

/** Stops the profiler and prints the main thread's time by function (self time, top 20). */
async function printProfile(page, title) {
  const { profile } = await page.send("Profiler.stop");
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const file = url.split("/").pop();
    const key = `${functionName || "(anonymous)"} ${file ? `${file}:${lineNumber + 1}` : ""}`.trim();
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    self.set(key, (self.get(key) ?? 0) + ms);
    total += ms;
  });
  console.log(`profile of ${title}: ${total.toFixed(0)} ms sampled, self time by function`);
  for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
    console.log(`  ${ms.toFixed(1).padStart(8)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}`);
  }
}

/** What the object gets did: which stalled (nats.js#430), where. */
function stallNote(stalls) {
  const mib = (b) => (b / (1 << 20)).toFixed(1);
  const of = (client) => stalls.filter((s) => s.client === client);
  const lines = [];
  if (!of("nats.js").length) lines.push("nats.js#430 check: no nats.js get stalled here: each read to its end.");
  for (const client of ["nats.js", "natsjet"]) {
    const theirs = of(client);
    if (theirs.length) lines.push(`${client}: ${theirs.length} get(s) stalled (nothing for 5 s), after ${theirs.map((s) => `${mib(s.at)} MiB`).join(", ")}.`);
  }
  return lines.join("\n");
}

/**
 * Each client puts and gets `mib` MiB in the page loaded afresh (what the
 * runs before left behind is gone), while its JS heap is sampled every
 * 100 ms; prints their table.
 */
async function peakTable(page, mib) {
  console.log();
  console.log(`${mib} MiB put then get, each client in the page loaded afresh:`);
  const cells = ["client", "JS heap before", "JS heap peak", "wasm memory", "put", "get"];
  const widths = [8, 14, 12, 11, 11, 13];
  const line = (values) => `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join(" | ")} |`;
  console.log(line(cells));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  const mibCell = (bytes) => `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  const rateCell = (r) => (typeof r === "string" ? r : `${(r.n / (r.wallMs / 1000)).toFixed(1)} MiB/s`);
  let stores = false;
  for (const client of ["natsjet", "nats.js"]) {
    await page.reload();
    await server.noObjBucket();
    /** The JS heap in use, ArrayBuffers' backing stores included where Chromium counts them. */
    const used = async () => {
      const h = await page.heap();
      stores ||= h.backingStorageSize !== undefined;
      return h.usedSize + (h.backingStorageSize ?? 0);
    };
    await page.send("HeapProfiler.collectGarbage");
    const before = await used();
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await used().catch(() => 0));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let put, get;
    try {
      put = await page.call("bench", { client, workload: "objput", n: mib, url: server.wsUrl });
      get = await page.call("bench", { client, workload: "objget", n: mib, url: server.wsUrl });
    } catch (e) {
      put = get = `failed: ${String(e).slice(0, 60)}`;
    } finally {
      sampling = false;
      await sampler;
    }
    peak = Math.max(peak, await used());
    const wasm = client === "natsjet" ? mibCell(await page.call("wasmBytes")) : "-";
    const getCell = typeof get !== "string" && get.stalledAt !== undefined ? `stalled@${(get.stalledAt / (1 << 20)).toFixed(0)}MiB` : rateCell(get);
    console.log(line([client, mibCell(before), mibCell(peak), wasm, rateCell(put), getCell]));
  }
  console.log(
    `JS heap: V8's (the 1 MiB pieces made for the put are garbage until collected)${stores ? ", ArrayBuffers' backing stores included" : ""};` +
      " wasm memory: natsjet's, outside the JS heap.",
  );
  await server.noObjBucket();
}

const server = await benchServer();
const http = await staticServer(await natsJsBundle());
let page;
try {
  page = await benchPage(`http://127.0.0.1:${http.address().port}/`);
  const { busy, errors } = page;
  const hasJetStream = await page.call("hasJetStream", "natsjet");
  const hasKv = await page.call("hasKv", "natsjet");
  const hasObj = await page.call("hasObj", "natsjet");
  /** Object gets given up as stalled: `{ client, at }` (bytes read). */
  const stalls = [];

  console.log(
    `natsjet web build vs nats.js (esbuild bundle) in ${page.version} (headless, ${page.driver}); ` +
      `BENCH_SCALE=${process.env.BENCH_SCALE ?? 1}, ${PICK} of ${runs}`,
  );
  if (!hasJetStream) console.log("natsjet: JetStream API not in this build (JetStream rows show n/a)");
  if (!(await page.call("isolated"))) console.log("page not cross-origin isolated: latencies in 100 µs steps");

  let durables = 0;
  /** One page call: a run, or "n/a"; "kv" is two calls, `{ put, get }`. */
  async function measure(client, workload, n) {
    if (workload === "kv") {
      await server.noKvBucket();
      return { put: await measure(client, "kvput", n), get: await measure(client, "kvget", n) };
    }
    if (workload === "obj") {
      if (client === "natsjet" && !hasObj) return { put: "n/a", get: "n/a" };
      await server.noObjBucket();
      const put = await measure(client, "objput", n);
      const get = await measure(client, "objget", n);
      if (get.stalledAt === undefined) return { put, get };
      stalls.push({ client, at: get.stalledAt });
      return { put, get: "stalled" };
    }
    const kv = workload === "kvput" || workload === "kvget" || workload === "watch";
    if (client === "natsjet" && (kv ? !hasKv : !["core", "burst"].includes(workload) && !hasJetStream)) return "n/a";
    if (workload === "jspub") await server.freshStream("PUB", ["bench.pub"]);
    if (BATCHES[workload]) await server.freshStream("BATCH", ["bench.batch"], { allow_atomic: true });
    // nats.js keeps its fast publisher internal.
    if (workload === "fast" && client !== "natsjet") return "n/a";
    if (workload === "fast") await server.freshStream("FAST", ["bench.fast"], { allow_batched: true });
    if (workload === "counters") await server.freshStream("COUNT", ["bench.count.>"], { allow_msg_counter: true, allow_direct: true });
    const durable = `d_${client.replace(/\W/g, "")}_${++durables}`;
    const drain = DRAINS[workload] !== undefined;
    if (drain) await server.durable("DRAIN", durable);
    const before = await busy();
    const serverBefore = server.usage();
    const browserBefore = browserCpuMs();
    const profiling = process.env.BENCH_PROFILE?.split(",").includes(client);
    if (profiling) await startProfile(page);
    const run = await page.call("bench", { client, workload, n, url: server.wsUrl, durable });
    if (profiling) await printProfile(page, `${client} ${workload} ${n}`);
    Object.assign(run, server.usageSince(serverBefore));
    const browserAfter = browserCpuMs();
    run.browserMs = Object.fromEntries(Object.entries(browserAfter).map(([kind, ms]) => [kind, ms - browserBefore[kind]]));
    run.cpuMs = ((await busy()) - before) * 1000;
    if (drain) {
      await server.drained("DRAIN", durable, n);
      await server.jsm.consumers.delete("DRAIN", durable).catch(() => {});
    }
    return run;
  }

  const selected = selectedWorkloads();
  const count = (id) => scale(WORKLOADS.find((w) => w.id === id).count);
  const drains = selected.filter((w) => DRAINS[w.id]);
  if (drains.length) await server.filledStream("DRAIN", "bench.drain", Math.max(...drains.map((w) => count(w.id))));
  if (selected.some((w) => w.id === "watch")) await server.filledBucket(WATCH_BUCKET, count("watch"));
  const results = [];
  /** Rows of natsjet against the base build (BENCH_BASE_PKG). */
  const againstBase = [];
  const objects = [];
  /** Drain rows with the bare WebSocket's run: [title, natsjet, nats.js, bare]. */
  const drainCeilings = [];
  for (const w of selected) {
    const n = scale(w.browserCount ?? w.count);
    // Object and drain rows also run the bare WebSocket (bench/js/bare_ws.mjs): their ceiling.
    const withBase = basePkg && w.id !== "kv" && w.id !== "obj";
    const withBare = w.id === "obj" || DRAINS[w.id] !== undefined;
    const clients = ["natsjet", ...(withBase ? ["natsjet base"] : []), "nats.js", ...(withBare ? ["bare"] : [])];
    for (const client of clients) await measure(client, w.id, Math.max(1, Math.floor(n / 10)));
    const tries = { natsjet: [], "natsjet base": [], "nats.js": [], bare: [] };
    for (let i = 0; i < runs; i++) {
      for (const client of i % 2 ? [...clients].reverse() : clients) tries[client].push(await measure(client, w.id, n));
    }
    if (w.id === "obj") {
      for (const op of ["put", "get"]) {
        const middle = (client) => median(tries[client].map((r) => r[op]));
        objects.push([`${w.title(n, op)} (ws://)`, middle("natsjet"), middle("nats.js"), middle("bare")]);
      }
    } else if (w.id === "kv") {
      for (const op of ["put", "get"]) {
        const choose = (client) => pick(tries[client].map((r) => r[op]));
        results.push([`${w.title(n, op)} (ws://)`, choose("natsjet"), choose("nats.js")]);
      }
    } else {
      results.push([`${w.title(n)} (ws://)`, pick(tries.natsjet), pick(tries["nats.js"])]);
      if (withBare) drainCeilings.push([`${w.title(n)} (ws://)`, pick(tries.natsjet), pick(tries["nats.js"]), pick(tries.bare)]);
      if (withBase) againstBase.push([`${w.title(n)} (ws://)`, pick(tries.natsjet), pick(tries["natsjet base"])]);
    }
  }
  if (errors.length) console.log(`page errors: ${errors.join("; ")}`);
  if (results.length) {
    console.log();
    header("natsjet", "nats.js", true, "main thread/op");
    for (const r of results) row(...r);
    serverTable(results);
  }
  if (drainCeilings.length) {
    console.log();
    console.log("Their ceiling: a bare WebSocket pulling 500 at a time and acking each message (bench/js/bare_ws.mjs), each client's share of it:");
    header("natsjet", "bare ws", true, "main thread/op");
    for (const [name, ours, , bare] of drainCeilings) row(name, ours, bare);
    header("nats.js", "bare ws", true, "main thread/op");
    for (const [name, , theirs, bare] of drainCeilings) row(name, theirs, bare);
    machineTable(drainCeilings);
  }
  if (againstBase.length) {
    console.log();
    header("natsjet", "base", true, "main thread/op");
    for (const r of againstBase) row(...r);
  }
  if (objects.length) {
    console.log();
    console.log(`Object Store (MiB/s, median of ${runs}; main-thread time per MiB; a get ratio only where both gets finished):`);
    header("natsjet", "nats.js", true, "thread/MiB", "MiB/s");
    for (const [name, ours, theirs] of objects) row(name, ours, theirs, true, "ms");
    console.log();
    console.log("Their ceiling: the same bytes through a bare WebSocket (bench/js/bare_ws.mjs), each client's share of it:");
    header("natsjet", "bare ws", true, "thread/MiB", "MiB/s");
    for (const [name, ours, , bare] of objects) row(name, ours, bare, true, "ms");
    header("nats.js", "bare ws", true, "thread/MiB", "MiB/s");
    for (const [name, , theirs, bare] of objects) row(name, theirs, bare, true, "ms");
    serverTable(objects, "MiB", "ms");
    console.log();
    console.log(stallNote(stalls));
    if (page.driver !== "plain DevTools protocol") {
      console.log("(Playwright's Network domain turns every WebSocket frame, payload and all, into a DevTools event:");
      console.log(" BENCH_BROWSER=cdp gives the figures of a page without DevTools attached.)");
    }
    await peakTable(page, scale(1024));
  }
} finally {
  await page?.close();
  http.close();
  await server.close();
}
