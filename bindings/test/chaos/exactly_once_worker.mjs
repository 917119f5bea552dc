// The processor of the exactly-once crash test (exactly_once.mjs starts it
// and SIGKILLs it): WORKERS workers, each with its own connection and
// CheckpointLedger on one shared durable, add each message's value to a
// count and sum per key. Every checkpoint writes the aggregate and every
// worker's ledger snapshot to STATE atomically, then commits the ledgers;
// a start restores the union of the saved snapshots, so redeliveries of
// work already in the file are acked, not added again.
//
//   node exactly_once_worker.mjs URL STREAM DURABLE WORKERS STATE
//
// Environment: NATSJET_NO_RESTORE=1 starts without restoring (to show the
// duplicates that makes); NATSJET_EO_PAUSE_MS=ms waits that long between
// the file's rename and the commits, saying `paused` first, so a kill can
// land there. Prints `ready WORKERS STATES_RESTORED`, `paused EPOCH` and
// `checkpoint EPOCH APPLIED SKIPPED ABORTED REDELIVERED AT_RISK` (counts
// of this process's ledgers) lines.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CheckpointLedger, connect, jetstream } from "natsjet";

const [url, stream, durable, workerArg, stateFile] = process.argv.slice(2);
const WORKERS = Number(workerArg);
const BATCH = 200;
const INTERVAL = 200;
const pauseMs = Number(process.env.NATSJET_EO_PAUSE_MS ?? 0);

/** The last checkpoint: `{ epoch, agg: { key: [count, sum] }, ledgers: LedgerState[] }`. */
function load() {
  try {
    return JSON.parse(readFileSync(stateFile, "utf8"));
  } catch (e) {
    if (e.code === "ENOENT") return { epoch: 0, agg: {}, ledgers: [] };
    throw e;
  }
}

/** Write a temporary file, fsync it, rename it over STATE, fsync the folder: the file is the old or the new state. */
function save(state) {
  const tmp = `${stateFile}.tmp`;
  const fd = openSync(tmp, "w");
  writeSync(fd, JSON.stringify(state));
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, stateFile);
  const dir = openSync(dirname(stateFile), "r");
  fsyncSync(dir);
  closeSync(dir);
}

const saved = load();
const agg = saved.agg;
/** What each epoch not yet in the file added: key -> [count, sum]. */
const deltas = new Map();
let epoch = saved.epoch + 1;
/** Set while an epoch is being aborted: workers wait, so nothing lands in an epoch the abort misses. */
let gate = null;

const workers = await Promise.all(
  Array.from({ length: WORKERS }, async () => {
    const nc = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const consumer = await jetstream(nc).consumers.get(stream, durable);
    const ledger = new CheckpointLedger(consumer, { workers: WORKERS, batch: BATCH, checkpointInterval: INTERVAL });
    if (process.env.NATSJET_NO_RESTORE !== "1") await ledger.restore(saved.ledgers);
    return { consumer, ledger };
  }),
);
const restored = process.env.NATSJET_NO_RESTORE === "1" ? 0 : saved.ledgers.length;
console.log(`ready ${WORKERS} ${restored}`);

async function work({ consumer, ledger }) {
  const messages = await consumer.consume({ max_messages: BATCH });
  for await (const m of ledger.filter(messages)) {
    if (gate) await gate;
    // Track, then apply, with no await between: the message and its value are in the same epoch.
    ledger.track(m, epoch);
    const key = m.subject;
    const delta = deltas.get(epoch) ?? deltas.set(epoch, new Map()).get(epoch);
    const cs = delta.get(key) ?? [0, 0];
    delta.set(key, [cs[0] + 1, cs[1] + Number(m.string())]);
  }
}

function fold(into, delta) {
  for (const [key, [count, sum]] of delta ?? []) {
    const cs = (into[key] ??= [0, 0]);
    cs[0] += count;
    cs[1] += sum;
  }
}

/** Every worker's snapshot of epoch `e`; or, when one is at risk, `null` once `e` and later epochs are aborted. */
async function snapshotOrAbort(e) {
  try {
    return workers.map((w) => w.ledger.snapshot(e));
  } catch (err) {
    if (err.code !== "AT_RISK") throw err;
  }
  // A message of epoch e may have reached another worker: give up e and everything after it.
  let open;
  gate = new Promise((resolve) => (open = resolve));
  await Promise.all(workers.map((w) => w.ledger.abort(e)));
  for (const k of [...deltas.keys()]) if (k >= e) deltas.delete(k);
  epoch += 1; // past the epochs the abort gave up
  gate = null;
  open();
  return null;
}

async function checkpoint() {
  const e = epoch;
  epoch = e + 1; // From here on, workers add to the next epoch.
  const ledgers = await snapshotOrAbort(e);
  if (ledgers) {
    const delta = deltas.get(e);
    deltas.delete(e);
    fold(agg, delta);
    save({ epoch: e, agg, ledgers });
    if (pauseMs > 0 && delta) {
      console.log(`paused ${e}`);
      await sleep(pauseMs);
    }
    await Promise.all(workers.map((w) => w.ledger.commit(e).catch(() => undefined))); // Unconfirmed stays applied in the ledger.
  }
  const counts = workers.map((w) => w.ledger.counts());
  const total = (name) => counts.reduce((n, c) => n + c[name], 0);
  const applied = Object.values(agg).reduce((n, [count]) => n + count, 0);
  console.log(`checkpoint ${e} ${applied} ${total("skipped")} ${total("aborted")} ${total("redelivered")} ${total("atRisk")}`);
}

for (const w of workers) work(w).catch((err) => fail(err));
function fail(err) {
  console.error(`worker: ${err.stack ?? err}`);
  process.exit(1);
}
for (;;) {
  await sleep(INTERVAL);
  await checkpoint().catch((err) => fail(err));
}
