// The benchmark workloads, written once against the API natsjet and nats.js
// share (nats.js v3 shapes), so both clients run the very same loop. Plain
// ES module without imports: Node imports it, and the browser page loads it
// as it is. Each workload gets an open connection (`nc`) or JetStream
// context (`js`) and a `clock()` returning `[wallMs, cpuMs]` (cpuMs is NaN
// where the process CPU cannot be read, i.e. in the browser), and returns
// `{ n, wallMs, cpuMs }` for the measured part only (no connect, no set-up).

export const PAYLOAD = new Uint8Array(128).fill(0x78);

/** Publishes taken between two flushes; at most two such chunks are in flight. */
export const CHUNK = 8192;
/** JetStream publish acks outstanding, at most (as in the Rust benchmarks). */
export const IN_FLIGHT = 256;
/** Messages per pull request when consuming (as in the Rust benchmarks). */
export const PULL_BATCH = 500;

function elapsed(start, end, n) {
  return { n, wallMs: end[0] - start[0], cpuMs: end[1] - start[1] };
}

/**
 * Core publish of `n` x 128 B, ending when the server has processed all of
 * them. A flush is started after every CHUNK publishes and the previous one
 * is awaited, so the loop yields to the event loop (both clients write from
 * it) and neither client buffers the whole run in memory.
 */
export async function corePublish(nc, n, clock, subject = "bench.core") {
  const start = clock();
  let previous = Promise.resolve();
  for (let i = 1; i <= n; i++) {
    nc.publish(subject, PAYLOAD);
    if (i % CHUNK === 0) {
      await previous;
      previous = nc.flush();
    }
  }
  await previous;
  await nc.flush();
  return elapsed(start, clock(), n);
}

/**
 * nats.js's own core-publish benchmark (its `Bench` with `pub`): `n` x 128 B
 * published in one loop that never yields, then one flush. The client holds
 * what the loop makes faster than the socket takes it.
 */
export async function burstPublish(nc, n, clock, subject = "bench.burst") {
  const start = clock();
  for (let i = 0; i < n; i++) nc.publish(subject, PAYLOAD);
  await nc.flush();
  return elapsed(start, clock(), n);
}

/**
 * JetStream publish of `n` x 128 B with at most IN_FLIGHT acks outstanding:
 * a ring of ack promises, the oldest awaited before the next publish once
 * the ring is full. Ends when every ack is in.
 */
export async function jetStreamPublish(js, n, clock, subject = "bench.pub") {
  const ring = new Array(IN_FLIGHT);
  const ignore = () => {};
  const start = clock();
  for (let i = 0; i < n; i++) {
    const slot = i % IN_FLIGHT;
    if (i >= IN_FLIGHT) await ring[slot];
    const ack = js.publish(subject, PAYLOAD);
    ack.catch(ignore); // rejections surface when awaited, not as unhandled ones
    ring[slot] = ack;
  }
  for (let i = Math.max(0, n - IN_FLIGHT); i < n; i++) await ring[i % IN_FLIGHT];
  return elapsed(start, clock(), n);
}

/**
 * `n` counter increments (ADR-49; the stream has `allow_msg_counter`) as
 * publishes with a `Nats-Incr: 1` header, IN_FLIGHT acks outstanding as
 * `jetStreamPublish`; `headers` makes the client's own header set. Ends
 * when every ack (each with the new total) is in; the last total is `n`
 * (a counter of its own per run).
 */
export async function counterIncrements(js, headers, n, clock, subject = `bench.count.${Math.random().toString(36).slice(2)}`) {
  const ring = new Array(IN_FLIGHT);
  const ignore = () => {};
  const incr = headers();
  incr.set("Nats-Incr", "1");
  const start = clock();
  for (let i = 0; i < n; i++) {
    const slot = i % IN_FLIGHT;
    if (i >= IN_FLIGHT) await ring[slot];
    const ack = js.publish(subject, undefined, { headers: incr });
    ack.catch(ignore);
    ring[slot] = ack;
  }
  let last;
  for (let i = Math.max(0, n - IN_FLIGHT); i < n; i++) last = await ring[i % IN_FLIGHT];
  const result = elapsed(start, clock(), n);
  if (last.val !== String(n)) throw new Error(`counter total ${last.val}, expected ${n}`);
  return result;
}

/**
 * `n` x 128 B as one fast batch (ADR-50 fast ingest; the stream has
 * `allow_batched`) through `fast`, a client's fast publisher asking for a
 * flow ack every 100 messages: each `add` awaited (it waits only for room
 * in the window), ending when the commit is acknowledged. "n/a" where the
 * client has no public fast publisher (nats.js keeps its own internal).
 */
export async function fastIngest(fast, n, clock, subject = "bench.fast") {
  if (!fast) return "n/a";
  const start = clock();
  for (let i = 1; i < n; i++) await fast.add(subject, PAYLOAD);
  const ack = await fast.commit(subject, PAYLOAD);
  if (ack.count !== n) throw new Error(`fast batch of ${ack.count}, expected ${n}`);
  return elapsed(start, clock(), n);
}

/** The atomic batch workloads and their batch sizes. */
export const BATCHES = { batch100: 100, batch1000: 1000 };

/**
 * `n` x 128 B as atomic batches of `size` (ADR-50; the stream has
 * `allow_atomic`), one after the other: each started (its first message
 * acknowledged), filled without waiting for anything, and committed; ends
 * when the last commit is acknowledged. The same messages as
 * `jetStreamPublish`, with two answers per batch instead of one per message.
 * "n/a" where the client has no `startBatch`.
 */
export async function atomicBatches(js, n, size, clock, subject = "bench.batch") {
  if (typeof js.startBatch !== "function") return "n/a";
  const start = clock();
  for (let left = n; left > 0; ) {
    const count = Math.max(2, Math.min(size, left));
    const batch = await js.startBatch(subject, PAYLOAD);
    for (let i = 2; i < count; i++) batch.add(subject, PAYLOAD);
    await batch.commit(subject, PAYLOAD);
    left -= count;
  }
  return elapsed(start, clock(), n);
}

/**
 * Drains `n` messages from the durable pull consumer `durable` on `stream`
 * with `consume(options)` (no options: the client's defaults, what users
 * run), one worker per connection of `ncs` (their JetStream contexts `jss`)
 * on the same durable, acking each message; ends when the server has the
 * acks (a flush of every connection after the last one). Once `n` are in,
 * every worker's messages are stopped: one left waiting would never end.
 */
export async function durableDrain(ncs, jss, stream, durable, n, clock, options, Ledger) {
  const start = clock();
  let count = 0;
  const consumers = await Promise.all(jss.map((js) => js.consumers.get(stream, durable)));
  const readers = await Promise.all(
    consumers.map((consumer) => (options === undefined ? consumer.consume() : consumer.consume(options))),
  );
  if (Ledger) {
    count = await ledgerDrain(Ledger, consumers, readers, n);
  } else {
    const ignore = () => {};
    await Promise.all(
      readers.map(async (messages) => {
        for await (const m of messages) {
          const acked = m.ack();
          if (acked?.catch) acked.catch(ignore);
          if (++count >= n) break;
        }
        if (count >= n) for (const other of readers) other.stop();
      }),
    );
  }
  await Promise.all(ncs.map((nc) => nc.flush()));
  return elapsed(start, clock(), count);
}

/** The ledger drain's checkpoint interval (ms), as in benches/consume.rs. */
const EPOCH_MS = 50;

/**
 * natsjet's `CheckpointLedger` (`Ledger`) on each reader: every message
 * admitted and tracked, every 50 ms epoch snapshotted, then committed as one
 * confirmed batch while the next epoch reads. Returns the confirmed acks.
 */
async function ledgerDrain(Ledger, consumers, readers, n) {
  let confirmed = 0;
  const workers = readers.map(async (messages, i) => {
    const ledger = new Ledger(consumers[i], { workers: readers.length, batch: 300, checkpointInterval: EPOCH_MS });
    let epoch = 1;
    let committing = Promise.resolve();
    const checkpoint = setInterval(() => {
      const done = epoch++;
      ledger.snapshot(done);
      committing = committing
        .then(() => ledger.commit(done))
        .then((report) => {
          confirmed += report.confirmed.length;
          if (confirmed >= n) for (const reader of readers) reader.stop();
        });
    }, EPOCH_MS);
    try {
      for await (const m of ledger.filter(messages)) ledger.track(m, epoch);
      // No commit may start after close().
      clearInterval(checkpoint);
      await committing;
    } finally {
      clearInterval(checkpoint);
      ledger.close();
    }
  });
  await Promise.all(workers);
  return confirmed;
}

/** The drain workloads: consume options (`undefined`: the defaults) and workers. */
export const DRAINS = {
  drain: { options: { max_messages: PULL_BATCH }, workers: 1 },
  drain_defaults: { options: undefined, workers: 1 },
  drain_defaults_4: { options: undefined, workers: 4 },
  drain_4: { options: { max_messages: PULL_BATCH }, workers: 4 },
};

/** A Key-Value value (as in benches/kv.rs). */
export const VALUE = new Uint8Array(100).fill(0x76);
/** Bucket of the put and get workloads, made afresh for every put run. */
export const KV_BUCKET = "bench";
/** Bucket of the watch workload, filled once by the runner. */
export const WATCH_BUCKET = "watch";

/** The key of operation `i`: 1,000 keys, each written and read in turn (as in benches/kv.rs). */
const kvKey = (i) => `k.${i % 1000}`;

/**
 * `n` operations one after the other, each awaited before the next starts:
 * the run, and the 50th and 99th percentiles of the operations' latencies.
 */
async function sequential(n, clock, op) {
  const latencies = new Float64Array(n);
  const start = clock();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(i);
    latencies[i] = performance.now() - t;
  }
  const run = elapsed(start, clock(), n);
  latencies.sort();
  const at = (p) => latencies[Math.round((n - 1) * p)];
  return { ...run, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/**
 * Key-Value puts of `n` x 100 B, one after the other, into bucket KV_BUCKET
 * made with the client's defaults (`kvm.create`, not measured).
 */
export async function kvPut(kvm, n, clock) {
  const kv = await kvm.create(KV_BUCKET);
  return await sequential(n, clock, (i) => kv.put(kvKey(i), VALUE));
}

/** Key-Value gets of `n` keys one after the other, from the bucket `kvPut` filled (`kvm.open`, not measured). */
export async function kvGet(kvm, n, clock) {
  const kv = await kvm.open(KV_BUCKET);
  return await sequential(n, clock, async (i) => {
    const entry = await kv.get(kvKey(i));
    if (entry?.value.length !== VALUE.length) throw new Error(`get ${kvKey(i)}: ${entry ? `${entry.value.length} B` : "no entry"}`);
  });
}

/**
 * A watch of every key of WATCH_BUCKET (the latest value of each, the
 * default) from `watch()` to the caught-up signal: the first entry with
 * `isUpdate` true, the last of those the bucket held when the watch
 * started. Each entry's key and value are read, as a watcher would.
 * `n` is the entries handed out.
 */
export async function kvWatch(kvm, clock) {
  const kv = await kvm.open(WATCH_BUCKET);
  const start = clock();
  const watch = await kv.watch();
  let n = 0;
  let bytes = 0;
  for await (const entry of watch) {
    n++;
    bytes += entry.key.length + entry.value.length;
    if (entry.isUpdate) break;
  }
  const run = elapsed(start, clock(), n);
  if (bytes === 0) throw new Error("watch: no entries");
  return run;
}

/** An object store benchmark's unit: objects are streamed in pieces of 1 MiB and measured in MiB. */
export const MIB = 1 << 20;
/** Bucket of the object workloads, made afresh (with the client's defaults) for every put run. */
export const OBJ_BUCKET = "objbench";
/** The object the put stores and the get reads. */
export const OBJ_NAME = "blob";
/** A get that hands out nothing for this long has stalled (nats.js#430). */
export const STALL_MS = 5_000;

/**
 * `mib` MiB as a `ReadableStream` of 1 MiB pieces, each made when the put
 * pulls it (never one big buffer: the source holds a piece at a time).
 */
export function generatedObject(mib) {
  let made = 0;
  return new ReadableStream(
    {
      pull(controller) {
        if (made === mib) return controller.close();
        controller.enqueue(new Uint8Array(MIB).fill(made++ & 0xff));
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * An object store put of `mib` MiB (`generatedObject`) into bucket
 * OBJ_BUCKET, made with the client's defaults (`objm.create`, not measured).
 * `n` is the MiB stored.
 */
export async function objectPut(objm, mib, clock) {
  const os = await objm.create(OBJ_BUCKET);
  const start = clock();
  const info = await os.put({ name: OBJ_NAME }, generatedObject(mib));
  const run = elapsed(start, clock(), mib);
  if (info.size !== mib * MIB) throw new Error(`put: ${info.size} B stored of ${mib * MIB}`);
  return run;
}

/**
 * An object store get of what `objectPut` stored, its `data` read to the end
 * (bytes counted, not kept), then its `error` awaited (a corrupt object
 * fails there). A get that hands out nothing for `stallMs` is given up:
 * the run then has `stalledAt`, the bytes it got (nats.js 3.4.0 stalls
 * after 16 chunks when it does not answer flow control, nats.js#430).
 */
export async function objectGet(objm, mib, clock, stallMs = STALL_MS) {
  const os = await objm.open(OBJ_BUCKET);
  const start = clock();
  const result = await os.get(OBJ_NAME);
  if (!result) throw new Error(`get: no object ${OBJ_NAME}`);
  const reader = result.data.getReader();
  const stalled = Symbol("stalled");
  let bytes = 0;
  for (;;) {
    let timer;
    const waited = new Promise((resolve) => (timer = setTimeout(resolve, stallMs, stalled)));
    const next = await Promise.race([reader.read(), waited]);
    clearTimeout(timer);
    if (next === stalled) {
      reader.cancel().catch(() => {});
      return { ...elapsed(start, clock(), bytes / MIB), stalledAt: bytes };
    }
    if (next.done) break;
    bytes += next.value.length;
  }
  const error = await result.error;
  const run = elapsed(start, clock(), mib);
  if (error) throw error;
  if (bytes !== mib * MIB) throw new Error(`get: ${bytes} B read of ${mib * MIB}`);
  return run;
}

/** The workload table: name and default count, scaled by the runner. */
export const WORKLOADS = [
  { id: "core", count: 1_000_000, title: (n) => `core publish ${n} x 128 B + flush` },
  { id: "burst", count: 1_000_000, title: (n) => `core publish ${n} x 128 B in one loop + flush` },
  { id: "jspub", count: 100_000, title: (n) => `JetStream publish ${n} x 128 B, ${IN_FLIGHT} in flight` },
  { id: "batch100", count: 100_000, title: (n) => `atomic batches of 100, ${n} x 128 B` },
  { id: "batch1000", count: 100_000, title: (n) => `atomic batches of 1000, ${n} x 128 B` },
  { id: "fast", count: 100_000, title: (n) => `fast ingest, one batch of ${n} x 128 B, flow 100` },
  { id: "counters", count: 50_000, title: (n) => `counter increments ${n}, ${IN_FLIGHT} in flight` },
  { id: "drain", count: 200_000, title: (n) => `durable drain ${n} x 128 B + ack, 1 worker, ${PULL_BATCH}/pull` },
  { id: "drain_defaults", count: 200_000, title: (n) => `durable drain ${n} x 128 B + ack, 1 worker, defaults` },
  { id: "drain_defaults_4", count: 200_000, title: (n) => `durable drain ${n} x 128 B + ack, 4 workers, defaults` },
  { id: "drain_4", count: 200_000, title: (n) => `durable drain ${n} x 128 B + ack, 4 workers, ${PULL_BATCH}/pull` },
  { id: "kv", count: 10_000, title: (n, op) => `KV ${op} ${n} x 100 B, sequential` },
  { id: "watch", count: 100_000, title: (n) => `KV watch ${n} keys to caught-up` },
  {
    id: "obj",
    count: 64,
    browserCount: 16,
    unit: "MiB",
    title: (n, op) => `object ${op} ${n} MiB, 1 MiB pieces`,
  },
];
