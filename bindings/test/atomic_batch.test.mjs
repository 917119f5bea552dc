// Atomic batch publish (ADR-50) through the built package against a real
// nats-server, side by side with nats.js 3.4: a batch is stored whole with
// the same headers whichever client wrote it, each reads the other's, and a
// batch that fails (the stream's flag off, over the limit, abandoned, an
// expectation that does not hold) stores nothing.
import assert from "node:assert/strict";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { jetstreamManager as natsJsManager } from "@nats-io/jetstream";
import { InvalidArgumentError, InvalidOperationError, JetStreamApiError } from "natsjet";
import { bothClients, startServer } from "./harness.mjs";

/** A JetStream server whose batches are abandoned after 1 s idle, at most 2 open per stream. */
const strict = (dir) =>
  `jetstream { store_dir: "${join(dir, "js")}", limits { batch { timeout: "1s", max_inflight_per_stream: 2 } } }`;

let server, js, jsm, theirs, theirJs, close;
before(async () => {
  server = await startServer(strict);
  ({ js, jsm, theirs, theirJs, close } = await bothClients(server));
});
after(async () => {
  await close?.();
  await server?.close();
});

async function stream(name, allowAtomic = true) {
  await jsm.streams.add({ name, subjects: [`${name.toLowerCase()}.>`], allow_atomic: allowAtomic, allow_msg_ttl: true });
}

const stored = async (name) => (await jsm.streams.info(name)).state.messages;

/** A stored message as comparable JSON, its batch id replaced by `<id>`. */
function storedJson(m, id) {
  const headers = {};
  for (const k of m.header?.keys() ?? []) headers[k] = m.header.values(k).map((v) => (v === id ? "<id>" : v));
  return { subject: m.subject, seq: m.seq, data: m.string(), headers };
}

/** The same batch from either client: 2 messages, one acked message, a commit with headers. */
async function sameBatch(client, prefix, hdrs) {
  const batch = await client.startBatch(`${prefix}.1`, "one");
  batch.add(`${prefix}.2`, "two");
  await batch.add(`${prefix}.3`, "three", { ack: true });
  const h = hdrs();
  h.set("X-Last", "yes");
  const ack = await batch.commit(`${prefix}.4`, "four", { headers: h });
  return { id: batch.id, count: batch.count, ack };
}

describe("atomic batches", () => {
  test("a batch is stored whole, with the same headers as nats.js's, and each client reads the other's", async () => {
    await stream("BOTH");
    const { headers: natsjetHeaders } = await import("natsjet");
    const { headers: natsJsHeaders } = await import("@nats-io/transport-node");
    const mine = await sameBatch(js, "both.jet", natsjetHeaders);
    const other = await sameBatch(theirJs, "both.njs", natsJsHeaders);
    assert.equal(mine.id.length, 22);
    assert.deepEqual(mine.ack, { stream: "BOTH", seq: 4, duplicate: false, batch: mine.id, count: 4 });
    assert.deepEqual({ ...other.ack, duplicate: false }, { stream: "BOTH", seq: 8, duplicate: false, batch: other.id, count: 4 });
    assert.equal(mine.count, other.count);
    const theirJsm = await natsJsManager(theirs);
    const read = async (manager, seq) => storedJson(await manager.streams.getMessage("BOTH", { seq }), seq <= 4 ? mine.id : other.id);
    for (let seq = 1; seq <= 4; seq++) {
      const [byMe, byThem] = [await read(jsm, seq), await read(theirJsm, seq + 4)];
      assert.deepEqual(await read(theirJsm, seq), byMe, "nats.js reads natsjet's batch as natsjet does");
      assert.deepEqual(await read(jsm, seq + 4), byThem, "and the other way round");
      assert.deepEqual(
        { ...byMe, subject: byMe.subject.replace("jet", "njs"), seq: byMe.seq + 4 },
        byThem,
        "the same messages, headers and all",
      );
    }
    assert.deepEqual((await read(jsm, 4)).headers, {
      "X-Last": ["yes"],
      "Nats-Batch-Id": ["<id>"],
      "Nats-Batch-Sequence": ["4"],
      "Nats-Batch-Commit": ["1"],
    });
  });

  test("nothing is visible before the commit; a discarded batch stores nothing", async () => {
    await stream("STAGED");
    const batch = await js.startBatch("staged.a", "1");
    batch.add("staged.b", "2");
    await batch.add("staged.c", "3", { ack: true });
    assert.equal(await stored("STAGED"), 0);
    assert.equal((await batch.commit("staged.d", "4")).count, 4);
    assert.equal(await stored("STAGED"), 4);
    assert.throws(() => batch.add("staged.e", "5"), (e) => e instanceof InvalidOperationError && e.message === "batch publisher is done");
  });

  test("commitEob ends a batch without storing another message (server 2.14)", async () => {
    await stream("EOB");
    const batch = await js.startBatch("eob.a", "1");
    batch.add("eob.b", "2");
    await batch.add("eob.c", "3", { ack: true });
    assert.equal(await stored("EOB"), 0);
    const ack = await batch.commitEob();
    assert.deepEqual([ack.stream, ack.seq, ack.count, ack.batch], ["EOB", 3, 3, batch.id]);
    assert.equal(await stored("EOB"), 3);
    const last = await jsm.streams.getMessage("EOB", { seq: 3 });
    assert.deepEqual([last.subject, last.string(), last.header.get("Nats-Batch-Sequence")], ["eob.c", "3", "3"]);
    await assert.rejects(batch.commitEob(), InvalidOperationError);
  });

  test("a stream without allow_atomic refuses the batch at its first message, as for nats.js", async () => {
    await stream("NOATOMIC", false);
    for (const client of [js, theirJs]) {
      await assert.rejects(client.startBatch("noatomic.a", "x"), (e) => {
        assert.equal(e.constructor.name, "JetStreamApiError");
        assert.deepEqual([e.code, e.status, e.message], [10174, 400, "atomic publish is disabled"]);
        return true;
      });
    }
    assert.equal(await stored("NOATOMIC"), 0);
  });

  test("a batch over the server's limit stores nothing", async () => {
    await stream("OVER");
    const batch = await js.startBatch("over.a", "x");
    for (let i = 0; i < 999; i++) batch.add("over.a", "x");
    await assert.rejects(batch.commit("over.a", "x"), (e) => e instanceof JetStreamApiError && e.code === 10199);
    assert.throws(() => batch.add("over.a", "x"), InvalidOperationError);
    assert.equal(await stored("OVER"), 0);
  });

  test("an abandoned batch stores nothing", async () => {
    await stream("IDLE");
    const batch = await js.startBatch("idle.a", "x");
    batch.add("idle.b", "y");
    await sleep(2500);
    await assert.rejects(batch.commit("idle.c", "z"), (e) => e instanceof JetStreamApiError && e.code === 10176);
    assert.equal(await stored("IDLE"), 0);
  });

  test("too many open batches refuse the next one", async () => {
    await stream("OPEN");
    const open = [await js.startBatch("open.a", "1"), await theirJs.startBatch("open.a", "2")];
    await assert.rejects(js.startBatch("open.a", "3"), (e) => e instanceof JetStreamApiError && e.code === 10210);
    for (const batch of open) await batch.commit("open.b", "end");
    assert.equal(await stored("OPEN"), 4);
  });

  test("a batch whose expectation fails at the commit stores nothing; one that holds is stored", async () => {
    await stream("EXPECT");
    await js.publish("expect.a", "0");
    const stale = await js.startBatch("expect.a", "1", { expect: { lastSequence: 0 } });
    stale.add("expect.b", "2", { expect: { lastSubjectSequence: 0 } });
    await assert.rejects(stale.commit("expect.c", "3"), (e) => e instanceof JetStreamApiError && e.code === 10071);
    const perSubject = await js.startBatch("expect.a", "1", { expect: { lastSequence: 1 } });
    perSubject.add("expect.b", "2", { expect: { lastSubjectSequence: 5 } });
    await assert.rejects(perSubject.commit("expect.c", "3"), (e) => e instanceof JetStreamApiError && e.code === 10071);
    assert.equal(await stored("EXPECT"), 1);
    const good = await js.startBatch("expect.a", "1", { expect: { lastSequence: 1 } });
    good.add("expect.b", "2", { expect: { lastSubjectSequence: 0 }, ttl: "1h" });
    assert.equal((await good.commit("expect.c", "3", { msgID: "c-1" })).seq, 4);
  });

  test("what would fail the whole batch is refused before sending, and the batch goes on", async () => {
    await stream("REFUSE");
    const batch = await js.startBatch("refuse.a", "1");
    const refusals = [
      () => batch.add("refuse.b", "2", { expect: { lastSequence: 1 } }),
      () => batch.add("refuse.b", "2", { expect: { lastMsgID: "m" } }),
      () => batch.add("refuse.b", "2", { schedule: { specification: { cron: "@daily" }, target: "refuse.t" }, cancelSchedule: { scheduleSubject: "refuse.s" } }),
      () => batch.add("refuse.b", "2", { schedule: { specification: { every: "10ms" }, target: "refuse.t" } }),
    ];
    for (const refuse of refusals) assert.throws(refuse, InvalidArgumentError);
    assert.equal(batch.count, 1);
    assert.equal((await batch.commit("refuse.c", "3")).count, 2);
  });

  test("a schedule the server cannot take fails the whole batch with its code", async () => {
    await jsm.streams.add({ name: "SCHEDULED", subjects: ["scheduled.>"], allow_atomic: true, allow_msg_schedules: true });
    const batch = await js.startBatch("scheduled.a", "1");
    batch.add("scheduled.b", "2", { schedule: { specification: { cron: "0 0 5 * *" }, target: "scheduled.t" } });
    await assert.rejects(batch.commit("scheduled.c", "3"), (e) => e instanceof JetStreamApiError && e.code === 10189);
    assert.equal(await stored("SCHEDULED"), 0);
  });
});
