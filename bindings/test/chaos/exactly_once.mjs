// Exactly-once under crashes, in Node: a stream of keyed values is
// aggregated (count and sum per key) by exactly_once_worker.mjs, a child
// process of 4, then 6, 3, 4… workers sharing one durable, that this script
// SIGKILLs at random moments (some inside the pause between its state
// file's rename and its ledger commits) and starts again; the worker
// restores the ledger states saved with the aggregate. The nats-server is
// stopped and restarted on its store once. At the end the state file must
// hold exactly the aggregate of what was published. Prints one line:
//
//   exactly-once: published N, applied N, duplicates D, lost L, kills K, restores R, skipped S, aborted A
//
// and exits non-zero on duplicates or loss; with NATSJET_NO_RESTORE=1 (the
// worker restores nothing) the duplicates must show, and it exits non-zero
// when they do not. NATSJET_EO_MESSAGES (100000) and NATSJET_EO_KILLS (12)
// size the run; NATSJET_EO_VERBOSE=1 says on stderr where each kill landed;
// NATSJET_SEED (printed on stderr) repeats a run's values and kill delays.
// NATSJET_EO_FREEZE=1 also stops one worker process (SIGSTOP) for longer
// than ack_wait: its ledgers must then abort what they hold. Off by
// default: messages that reached the process before the freeze but that
// its workers read after it are tracked as if just delivered, so the ledger
// misses that the server has redelivered them meanwhile (duplicates).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { connect, jetstream, jetstreamManager } from "natsjet";
import { restartJetStream, startJetStreamServer } from "../harness.mjs";

const MESSAGES = Number(process.env.NATSJET_EO_MESSAGES ?? 100_000);
const KILLS = Number(process.env.NATSJET_EO_KILLS ?? 12);
const noRestore = process.env.NATSJET_NO_RESTORE === "1";
const verbose = process.env.NATSJET_EO_VERBOSE === "1";
const freeze = process.env.NATSJET_EO_FREEZE === "1";
const seed = Number(process.env.NATSJET_SEED ?? Date.now() % 2 ** 32);
const random = xorshift(seed);
const KEYS = 1000;
const STREAM = "EO";
const DURABLE = "work";
const WORKER_COUNTS = [4, 6, 3, 4];
/** Twice the server's up-to-1 s error on a restart (below), so the ledger's +WPI every half ack_wait still comes in time. */
const ACK_WAIT_MS = 4000;
const workerFile = fileURLToPath(new URL("exactly_once_worker.mjs", import.meta.url));

const server = await startJetStreamServer();
const stateFile = join(server.dir, "state.json");
let exitCode = 1;
try {
  exitCode = await run();
} finally {
  await server.close();
}
process.exit(exitCode);

async function run() {
  console.error(`seed ${seed} (NATSJET_SEED=${seed} repeats it)`);
  const nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const jsm = await jetstreamManager(nc);
  // A duplicate window longer than the run: a publish retried after a lost ack is stored once.
  await jsm.streams.add({ name: STREAM, subjects: [`${STREAM}.>`], duplicate_window: 600e9 });
  await jsm.consumers.add(STREAM, { durable_name: DURABLE, ack_policy: "explicit", ack_wait: ACK_WAIT_MS * 1e6, max_ack_pending: 20_000 });

  const expected = new Map();
  const publishing = publish(jetstream(nc), expected);
  const stats = { kills: 0, restores: 0, skipped: 0, aborted: 0 };
  let published = false;
  publishing.then(() => (published = true));

  for (let run = 0; run < KILLS; run++) {
    const inPause = run % 3 === 1;
    const workers = WORKER_COUNTS[run % WORKER_COUNTS.length];
    const worker = startWorker(workers, stats, inPause);
    await worker.ready;
    const restart = run === Math.floor(KILLS / 2);
    if (restart) await restartServer(jsm);
    const stall = freeze && run === Math.floor(KILLS / 2) + 2;
    if (stall) {
      await sleep(500); // at work
      await worker.freeze(ACK_WAIT_MS + 1000); // its held messages go at risk: the worker must abort them
      await worker.checkpointed();
    }
    const where = inPause ? await Promise.race([worker.paused.then((e) => `in the pause of checkpoint ${e}`), sleep(5000)]) : undefined;
    if (!inPause) await sleep(300 + random() * 1200);
    await worker.kill();
    stats.kills++;
    if (verbose) {
      const at = `${where ?? "at random"}, after checkpoint ${worker.last.epoch} (applied ${worker.last.applied})`;
      const what = restart ? ", server restarted" : stall ? ", frozen for longer than ack_wait" : "";
      console.error(`run ${run}: ${workers} workers${what}, killed ${at}`);
    }
  }

  await publishing;
  // The last run, left alone until every message is acked: then the file holds everything applied.
  const last = startWorker(WORKER_COUNTS[KILLS % WORKER_COUNTS.length], stats, false);
  await last.ready;
  for (let settled = 0, deadline = Date.now() + 60_000; settled < 3 && Date.now() < deadline; ) {
    await sleep(500);
    const info = await jsm.consumers.info(STREAM, DURABLE);
    settled = published && info.num_pending === 0 && info.num_ack_pending === 0 ? settled + 1 : 0;
  }
  await last.kill();
  await nc.close();

  const { agg } = JSON.parse(readFileSync(stateFile, "utf8"));
  let applied = 0;
  let duplicates = 0;
  let lost = 0;
  let wrongSums = 0;
  for (const key of new Set([...expected.keys(), ...Object.keys(agg)])) {
    const [want, wantSum] = expected.get(key) ?? [0, 0];
    const [got, gotSum] = agg[key] ?? [0, 0];
    applied += got;
    duplicates += Math.max(0, got - want);
    lost += Math.max(0, want - got);
    if (got === want && gotSum !== wantSum) wrongSums++;
  }
  const sums = wrongSums ? `, wrong sums ${wrongSums}` : "";
  console.log(
    `exactly-once: published ${MESSAGES}, applied ${applied}, duplicates ${duplicates}, lost ${lost}, ` +
      `kills ${stats.kills}, restores ${stats.restores}, skipped ${stats.skipped}, aborted ${stats.aborted}${sums}`,
  );
  if (noRestore) return duplicates > 0 ? 0 : 1;
  return duplicates === 0 && lost === 0 && wrongSums === 0 ? 0 : 1;
}

/**
 * Stops the server (SIGTERM) and starts it on its store and ports; the
 * clients reconnect. Two things nats-server 2.15 does on a restart would
 * make duplicates that no client can prevent, so the test steers clear:
 * - after a SIGKILL it has forgotten the acks it confirmed in the last
 *   ~20-100 ms (it writes them to its store a little later), and redelivers
 *   their messages, already applied;
 * - a redelivered message held by a live worker whose first +WPI has not yet
 *   reached the server is redelivered again at once to another worker (the
 *   store kept its first delivery's time), so the restart waits until the
 *   killed workers' messages are all redelivered and settled (the consumer
 *   has no redelivered message pending). The stored times are also up to a
 *   second early, hence ACK_WAIT_MS.
 */
async function restartServer(jsm) {
  await sleep(ACK_WAIT_MS + 500);
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50)) {
    if ((await jsm.consumers.info(STREAM, DURABLE)).num_redelivered === 0) break;
  }
  server.child.kill("SIGTERM");
  await server.exited;
  await restartJetStream(server, jsm);
}

/**
 * Publishes MESSAGES values on KEYS subjects, 256 in flight, each retried
 * with its msgID until the stream acks it; spread over the kill runs, so
 * that every kill lands while there is work.
 */
async function publish(js, expected) {
  let next = 0;
  const start = Date.now();
  const perMs = MESSAGES / (KILLS * 1200 + ACK_WAIT_MS); // the kill runs' length, with the restart's wait
  async function lane() {
    while (next < MESSAGES) {
      const i = next++;
      const due = start + i / perMs - Date.now();
      if (due > 0) await sleep(due);
      const key = `${STREAM}.k${i % KEYS}`;
      const value = 1 + Math.floor(xorshift(seed ^ Math.imul(i + 1, 2654435761))() * 1000); // from the seed, whatever the lanes' order
      for (;;) {
        try {
          await js.publish(key, String(value), { msgID: `m${i}`, timeout: 2000 });
          break;
        } catch {
          await sleep(100); // The server is restarting: the same msgID again is stored once.
        }
      }
      const cs = expected.get(key) ?? [0, 0];
      expected.set(key, [cs[0] + 1, cs[1] + value]);
    }
  }
  await Promise.all(Array.from({ length: 256 }, lane));
}

/** Starts the worker process: `ready` and `paused` resolve on its lines; its checkpoint lines update `stats`. */
function startWorker(workers, stats, pause) {
  const env = { ...process.env, NATSJET_EO_PAUSE_MS: pause ? "2000" : "0" };
  const child = spawn(process.execPath, [workerFile, server.url, STREAM, DURABLE, String(workers), stateFile], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  const last = { epoch: 0, applied: 0, skipped: 0, aborted: 0 };
  let onReady, onPaused, onCheckpoint;
  const ready = new Promise((resolve, reject) => {
    onReady = resolve;
    exited.then(([code, signal]) => reject(new Error(`worker exited (${code ?? signal}) before it was ready`)));
  });
  const paused = new Promise((resolve) => (onPaused = resolve));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const [what, ...n] = line.split(" ");
    if (what === "ready") {
      if (Number(n[1]) > 0) stats.restores++;
      onReady();
    } else if (what === "paused") onPaused(n[0]);
    else if (what === "checkpoint") {
      // Counts are per run: add what this run added since its last line.
      const [epoch, applied, skipped, aborted] = n.map(Number);
      stats.skipped += skipped - last.skipped;
      stats.aborted += aborted - last.aborted;
      Object.assign(last, { epoch, applied, skipped, aborted });
      onCheckpoint?.();
    }
  });
  return {
    ready,
    paused,
    last,
    /** Resolves on the next checkpoint line. */
    checkpointed: () => new Promise((resolve) => (onCheckpoint = resolve)),
    /** SIGSTOP for `ms`, then SIGCONT. */
    async freeze(ms) {
      child.kill("SIGSTOP");
      await sleep(ms);
      child.kill("SIGCONT");
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      const [code, signal] = await exited;
      if (signal !== "SIGKILL") throw new Error(`the worker exited by itself (${code ?? signal})`);
    },
  };
}

/** A small seeded generator (xorshift32) of numbers in [0, 1). */
function xorshift(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
