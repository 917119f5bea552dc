// Exactly-once per partition from JS against a real server, as
// tests/consumer_groups.rs checks it in Rust: a member applies and
// checkpoints messages, dies before acking its last ones, and the member its
// partitions move to, joined with `resumeWith`, applies every message once;
// the same run without `resumeWith` applies the unacked ones twice (so the
// test can fail). The skipping is the Rust member's, reached through the wasm.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connect, consumerGroups, jetstream, jetstreamManager } from "natsjet";
import { startJetStreamServer } from "./harness.mjs";

const KEYS = 20;
const PER_KEY = 10;
const WAIT = 30_000;

/** The next message within `ms`, or a failure. */
async function next(iterator, ms) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("messages keep coming")), ms)));
  try {
    return await Promise.race([iterator.next(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Applies member `name`'s messages to `checkpoint` (counts per key, and per
 * partition the last stream sequence applied, saved together), acking the
 * first `ackFirst`. With `die`, it then applies one more per partition
 * without acking and leaves (closing its connection) once a partition's
 * next message could only be a redelivery; without, it stops once every
 * key has its messages. Returns the member's skipped count.
 */
async function apply(url, name, checkpoint, resume, ackFirst, die) {
  const nc = await connect({ servers: url });
  const opts = { config: { ack_wait: 1_000_000_000, max_ack_pending: 32 } };
  if (resume) opts.resumeWith = async (partition) => checkpoint.done.get(partition);
  const messages = await consumerGroups(jetstream(nc)).join("elastic", "ORDERS", "cg", name, opts);
  const iterator = messages[Symbol.asyncIterator]();
  const unacked = new Set();
  const deadline = Date.now() + WAIT;
  let applied = 0;
  try {
    for (;;) {
      const counts = [...checkpoint.counts.values()];
      if (!die && counts.length === KEYS && counts.every((c) => c >= PER_KEY)) return messages.getSkipped();
      const { value: m, done } = await next(iterator, deadline - Date.now());
      assert.ok(!done, "the member's messages ended early");
      assert.equal(typeof m.partition, "number");
      assert.ok(m.partition < 4, `partition ${m.partition}`);
      if (applied >= ackFirst && (unacked.has(m.partition) || m.info.redelivered)) return messages.getSkipped();
      const key = m.string().split(":")[0];
      checkpoint.counts.set(key, (checkpoint.counts.get(key) ?? 0) + 1);
      checkpoint.done.set(m.partition, m.seq);
      applied++;
      if (applied <= ackFirst) m.ack();
      else unacked.add(m.partition);
    }
  } finally {
    await iterator.return();
    await nc.close();
  }
}

/** Runs `scenario(server, js, groups)` on a fresh server with the ORDERS stream and its elastic group `cg` of member m1. */
async function withGroup(config, scenario) {
  const server = await startJetStreamServer();
  const nc = await connect({ servers: server.url });
  try {
    const js = jetstream(nc);
    await (await jetstreamManager(nc)).streams.add({ name: "ORDERS", subjects: ["orders.*"] });
    const groups = consumerGroups(js);
    await groups.createElastic("ORDERS", "cg", config);
    await groups.addMembers("ORDERS", "cg", ["m1"]);
    return await scenario(server, js, groups);
  } finally {
    await nc.close();
    await server.stop();
  }
}

/** m1 applies 100 and acks them, applies one more per partition and dies; m2 takes its partitions over. */
function movedPartitions(resume) {
  const config = { max_members: 4, partitioning_filters: [{ filter: "orders.*", partitioning_wildcards: [1] }] };
  return withGroup(config, async (server, js, groups) => {
    for (let i = 0; i < PER_KEY; i++) {
      for (let k = 0; k < KEYS; k++) await js.publish(`orders.k${k}`, `k${k}:${i}`);
    }
    const checkpoint = { counts: new Map(), done: new Map() };
    await apply(server.url, "m1", checkpoint, resume, 100, true);
    await groups.dropMembers("ORDERS", "cg", ["m1"]);
    await groups.addMembers("ORDERS", "cg", ["m2"]);
    const skipped = await apply(server.url, "m2", checkpoint, resume, Infinity, false);
    return { counts: checkpoint.counts, skipped };
  });
}

test("a partition resumes after the checkpoint, so nothing is applied twice", { timeout: 120_000 }, async () => {
  const { counts, skipped } = await movedPartitions(true);
  assert.equal(counts.size, KEYS);
  for (const [key, n] of counts) assert.equal(n, PER_KEY, `${key} applied ${PER_KEY} times`);
  assert.ok(skipped >= 1, `the unacked redeliveries were skipped: ${skipped}`);
  // Without the checkpoint the same run applies the unacked ones twice.
  const without = await movedPartitions(false);
  const total = [...without.counts.values()].reduce((a, b) => a + b, 0);
  console.log(`resume (node): ${KEYS * PER_KEY} applied once each, ${skipped} skipped; without: ${total} applied`);
  assert.equal(without.skipped, 0);
  assert.ok(total > KEYS * PER_KEY, `duplicates without resumeWith: ${total}`);
});

test("resumeWith: a rejection ends the messages with its error; a non-function is refused", () =>
  withGroup({ max_members: 2, partitioning_filters: null }, async (_server, js, groups) => {
    await assert.rejects(groups.join("elastic", "ORDERS", "cg", "m1", { resumeWith: 7 }), { name: "InvalidArgumentError" });
    const messages = await groups.join("elastic", "ORDERS", "cg", "m1", {
      resumeWith: async () => {
        throw new Error("checkpoint store unreachable");
      },
    });
    await js.publish("orders.a", "x");
    await assert.rejects(
      (async () => {
        for await (const m of messages) m.ack();
      })(),
      /checkpoint store unreachable/,
    );
  }));
