// Exactly-once with the checkpoint ledger, through the built package against
// a real nats-server: what a snapshot saves, a restore that turns
// redeliveries of applied work into acks, abort's naks, AT_RISK when the
// ack deadline passes while disconnected, and output message ids that the
// output stream's duplicate window drops on a republish.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { CheckpointLedger, connect, jetstream, jetstreamManager, outputMsgId } from "natsjet";
import { consumerInfoSoon, startJetStreamServer } from "./harness.mjs";

let server;
const opened = [];
before(async () => {
  server = await startJetStreamServer();
});
after(async () => {
  await Promise.all(opened.map((nc) => nc.close()));
  await server.close();
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function conn() {
  const nc = await connect({ servers: server.url, reconnectTimeWait: 100 });
  opened.push(nc);
  return nc;
}

/** Stream `name` with `count` messages and durable `d` (`consumer` config added); a client on a connection of its own. */
async function setup(name, count, consumer = {}) {
  const nc = await conn();
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name, subjects: [`${name}.>`] });
  const js = jetstream(nc);
  for (let i = 1; i <= count; i++) await js.publish(`${name}.x`, `${i}`);
  await jsm.consumers.add(name, { durable_name: "d", ack_policy: "explicit", ...consumer });
  return { nc, jsm, js };
}

/** A worker: its own connection, the durable `d` of `stream`, and a ledger on it. */
async function worker(stream, opts = { workers: 2, batch: 10, checkpointInterval: 500 }) {
  const nc = await conn();
  const consumer = await jetstream(nc).consumers.get(stream, "d");
  return { nc, consumer, ledger: new CheckpointLedger(consumer, opts) };
}

/** Up to `n` messages, waiting at most `expires` ms for them. */
async function fetch(consumer, n, expires = 3000) {
  const msgs = [];
  for await (const m of await consumer.fetch({ max_messages: n, expires })) msgs.push(m);
  return msgs;
}

test("snapshot: the ranges a checkpoint saves; restore: redeliveries of saved work are skipped and acked", async () => {
  const { jsm } = await setup("EO_RESTORE", 10, { ack_wait: 1e9 });
  const a = await worker("EO_RESTORE");
  const msgs = await fetch(a.consumer, 10);
  msgs.forEach((m) => a.ledger.track(m, m.seq <= 5 ? 1 : 2));
  const runs = (state) => state.consumers.map((c) => [c.stream, c.consumer, c.runs]);
  assert.deepEqual(runs(a.ledger.snapshot(1)), [["EO_RESTORE", "d", [1, 4]]], "1 and the 4 after it");
  const saved = a.ledger.snapshot(2);
  assert.deepEqual(saved, { version: 2, consumers: [{ stream: "EO_RESTORE", consumer: "d", runs: [1, 9] }] });
  // The worker dies after its checkpoint saved epoch 2, before it commits.
  a.ledger.close();
  await a.nc.close();

  const b = await worker("EO_RESTORE");
  // The last release's form of the same state reads as well.
  await b.ledger.restore([{ version: 1, consumers: [{ stream: "EO_RESTORE", consumer: "d", ranges: [[1, 3]] }] }]);
  await b.ledger.restore([JSON.parse(JSON.stringify(saved))]);
  await assert.rejects(b.ledger.restore([{ version: 9, consumers: [] }]), (e) => e.kind === "INVALID_ARGUMENT");
  const again = await fetch(b.consumer, 10); // redelivered once ack_wait (1 s) passed
  assert.deepEqual(
    again.map((m) => [m.seq, m.redelivered, b.ledger.admit(m)]),
    Array.from({ length: 10 }, (_, i) => [i + 1, true, false]),
  );
  await jetstream(b.nc).publish("EO_RESTORE.x", "11");
  const fresh = [];
  for await (const m of b.ledger.filter(await b.consumer.fetch({ max_messages: 1, expires: 2000 }))) fresh.push(m);
  assert.deepEqual(fresh.map((m) => m.seq), [11]);
  b.ledger.track(fresh[0], 1);
  assert.deepEqual(b.ledger.counts(), { skipped: 10, aborted: 0, atRisk: 0, redelivered: 0 });
  assert.throws(() => again[0].ack(), (e) => e.kind === "ALREADY_ACKNOWLEDGED", "a skipped message's ack is the ledger's");

  const report = await b.ledger.commit(1);
  assert.equal(report.confirmed.length, 11, "the new message and the ten skipped redeliveries");
  const info = await consumerInfoSoon(() => jsm.consumers.info("EO_RESTORE", "d"), (i) => i.num_ack_pending === 0);
  assert.equal(info.num_ack_pending, 0);
  assert.equal(info.ack_floor.stream_seq, 11);
  assert.deepEqual(b.ledger.snapshot(2).consumers[0].runs, [1, 10], "until the ack floor has settled past them");
  await sleep(1100); // FLOOR_SETTLED: the floor read with that commit is trusted a second later
  await b.ledger.commit(2);
  assert.deepEqual(b.ledger.snapshot(3).consumers[0].runs, [], "the ack floor passed them");
  b.ledger.close();
});

test("filter: a batch's applied messages are left out wherever they are in it, the rest tracked in any order", async () => {
  const { jsm } = await setup("EO_FILTER", 8, { ack_wait: 30e9 });
  const { consumer, ledger } = await worker("EO_FILTER");
  // Applied before: 1, 3 to 4 and 8 (first and last of the batch too).
  await ledger.restore([{ version: 2, consumers: [{ stream: "EO_FILTER", consumer: "d", runs: [1, 0, 2, 1, 4, 0] }] }]);
  const passed = [];
  for await (const m of ledger.filter(await consumer.fetch({ max_messages: 8, expires: 3000 }))) passed.push(m);
  assert.deepEqual(passed.map((m) => m.seq), [2, 5, 6, 7]);
  assert.deepEqual(ledger.counts(), { skipped: 4, aborted: 0, atRisk: 0, redelivered: 0 });
  // Out of order, and one acked directly instead.
  for (const m of [passed[2], passed[0], passed[1]]) ledger.track(m, 1);
  assert.throws(() => ledger.track(passed[2], 1), (e) => e.kind === "ALREADY_ACKNOWLEDGED", "tracked twice: its ack is the ledger's");
  passed[3].ack();
  assert.throws(() => ledger.track(passed[3], 1), (e) => e.kind === "ALREADY_ACKNOWLEDGED");
  assert.equal(ledger.length, 3);
  const report = await ledger.commit(1);
  assert.equal(report.confirmed.length, 7, "the three tracked and the four skipped");
  assert.deepEqual(report.unconfirmed, []);
  assert.ok(report.confirmed.every((token) => token.startsWith("$JS.ACK.EO_FILTER.d.")));
  const info = await consumerInfoSoon(() => jsm.consumers.info("EO_FILTER", "d"), (i) => i.num_ack_pending === 0);
  assert.equal(info.ack_floor.stream_seq, 8);
  ledger.close();
});

test("abort naks: the server redelivers at once, not after ack_wait; an unexplained redelivery is reported", async () => {
  await setup("EO_ABORT", 4, { ack_wait: 30e9 });
  const { consumer, ledger } = await worker("EO_ABORT");
  const msgs = await fetch(consumer, 3);
  msgs.forEach((m) => ledger.track(m, 1));
  const started = Date.now();
  assert.equal(await ledger.abort(1), 3);
  assert.equal(ledger.length, 0);
  const back = await fetch(consumer, 3, 5000);
  assert.ok(Date.now() - started < 5000, "long before the 30 s ack_wait");
  assert.deepEqual(back.map((m) => [m.seq, m.redelivered, ledger.admit(m)]), [[1, true, true], [2, true, true], [3, true, true]]);
  assert.equal(ledger.tryNextEvent(), null, "a redelivery of what this ledger nak'd is expected");

  // Another worker naks message 4 itself: this ledger cannot explain its redelivery.
  const other = await worker("EO_ABORT");
  const [four] = await fetch(other.consumer, 1);
  four.nak();
  const [again] = await fetch(consumer, 1);
  assert.equal(again.seq, 4);
  assert.ok(ledger.admit(again));
  assert.deepEqual(ledger.tryNextEvent(), { type: "redelivered", token: again.ackToken() });
  assert.deepEqual(ledger.counts(), { skipped: 0, aborted: 3, atRisk: 0, redelivered: 1 });
  back.forEach((m) => ledger.track(m, 2));
  ledger.track(again, 2);
  assert.equal((await ledger.commit(2)).confirmed.length, 4);
  ledger.close();
  other.ledger.close();
});

test("snapshot throws AT_RISK once ack_wait passed while disconnected", async () => {
  // A server of its own: this test stops it.
  const own = await startJetStreamServer();
  try {
    const nc = await connect({ servers: own.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "EO_RISK", subjects: ["EO_RISK.>"] });
    await jetstream(nc).publish("EO_RISK.x", "1");
    await jsm.consumers.add("EO_RISK", { durable_name: "d", ack_policy: "explicit", ack_wait: 1e9 });
    const consumer = await jetstream(nc).consumers.get("EO_RISK", "d");
    const ledger = new CheckpointLedger(consumer, { workers: 2, batch: 1, checkpointInterval: 500 });
    const [m] = await fetch(consumer, 1);
    ledger.track(m, 1);
    assert.equal(ledger.snapshot(1).consumers[0].runs.length, 2);

    await own.stop();
    await sleep(1500); // past the 1 s ack_wait: no +WPI could go out
    assert.throws(() => ledger.snapshot(1), (e) => e.kind === "AT_RISK" && /redelivered to another worker/.test(e.message));
    assert.deepEqual(ledger.tryNextEvent(), { type: "redeliveryRisk", token: m.ackToken() });
    assert.equal(ledger.counts().atRisk, 1);

    await own.start();
    for (;;) {
      try {
        await jsm.getAccountInfo(); // reconnected, and JetStream answers
        break;
      } catch {
        await sleep(100);
      }
    }
    assert.equal(await ledger.abort(1), 0, "at risk: not nak'd, as another worker may hold it now");
    assert.equal(ledger.counts().aborted, 1);
    ledger.close();
    await nc.close();
  } finally {
    await own.close();
  }
});

test("outputMsgId: a republish of the same input's output is dropped by the duplicate window", async () => {
  const { nc, jsm, js } = await setup("EO_IN", 2);
  await jsm.streams.add({ name: "EO_OUT", subjects: ["EO_OUT.>"] });
  const { consumer } = await worker("EO_IN");
  const publishOutputs = async (m) =>
    Promise.all([0, 1].map((i) => js.publish("EO_OUT.r", `${m.string()}/${i}`, { msgID: outputMsgId(m, i) })));

  const first = await fetch(consumer, 2);
  assert.deepEqual(first.map((m) => [outputMsgId(m), outputMsgId(m, 1)]), [["EO_IN:1:0", "EO_IN:1:1"], ["EO_IN:2:0", "EO_IN:2:1"]]);
  for (const m of first) await publishOutputs(m);
  // The processor crashes before its acks: the inputs come back and are processed again.
  first.forEach((m) => m.nak());
  const again = await fetch(consumer, 2);
  assert.deepEqual(again.map((m) => [m.seq, m.redelivered]), [[1, true], [2, true]]);
  const acks = (await Promise.all(again.map(publishOutputs))).flat();
  assert.deepEqual(acks.map((a) => a.duplicate), [true, true, true, true]);
  assert.equal((await jsm.streams.info("EO_OUT")).state.messages, 4);
  again.forEach((m) => m.ack());
  await nc.flush();
});

test("expecting: the settings of an existing durable that differ from the program's config are warnings", async () => {
  await setup("EO_EXPECT", 0, { max_deliver: 3, max_waiting: 1 });
  // A later program asks for a longer ack_wait and a filter; the server's durable stays as it is.
  const expecting = { durable_name: "d", ack_policy: "explicit", ack_wait: 120e9, filter_subject: "EO_EXPECT.orders" };
  const { ledger } = await worker("EO_EXPECT", { workers: 2, batch: 10, checkpointInterval: 500, expecting });
  assert.deepEqual(
    ledger.warnings().map((w) => w.code),
    ["MAX_DELIVER_FINITE", "MAX_WAITING_BELOW_WORKERS", "CONFIG_DIFFERS", "CONFIG_DIFFERS"],
  );
  assert.match(ledger.warnings()[2].message, /ack_wait is 30000ms, the program asks for 120000ms/);
  assert.match(ledger.warnings()[3].message, /filter is \[\], the program asks for \["EO_EXPECT.orders"\]/);
  // The same config as the durable's: nothing differs.
  const same = await worker("EO_EXPECT", { workers: 1, batch: 1, checkpointInterval: 500, expecting: { ack_wait: 30e9, max_deliver: 3 } });
  assert.deepEqual(same.ledger.warnings().map((w) => w.code), ["MAX_DELIVER_FINITE"]);
  assert.throws(
    () => new CheckpointLedger(same.consumer, { workers: 1, batch: 1, checkpointInterval: 500, expecting: { ack_wait: "soon" } }),
    (e) => e.kind === "INVALID_ARGUMENT",
  );
  ledger.close();
  same.ledger.close();
});

test("a message that waited in the reader past ack_wait is AT_RISK: timed from its arrival, not from track", async () => {
  await setup("EO_WAITED", 1, { ack_wait: 1e9 });
  const { consumer, ledger } = await worker("EO_WAITED");
  const messages = await consumer.fetch({ max_messages: 1, expires: 3000 });
  await sleep(1500); // the message arrived and waited while the worker was busy
  for await (const m of messages) ledger.track(m, 1);
  assert.equal(ledger.length, 1);
  assert.throws(() => ledger.snapshot(1), (e) => e.kind === "AT_RISK");
  ledger.close();
});
