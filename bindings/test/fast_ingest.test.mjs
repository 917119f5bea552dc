// Fast ingest (ADR-50 fast batches, server 2.14, allow_batched) through the
// built package against a real nats-server: a batch streams with progress
// from the flow acks and ends with the batch's ack (a last message, or an
// end of batch that stores none); a stream without allow_batched, a closed
// batch and a batch the server abandoned are typed errors; a message the
// server drops on the way (a publish permission) is a gap that ends the
// batch or, asked to, is gone over.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { connect, headers, InvalidOperationError, JetStreamApiError, JetStreamNotEnabled, jetstream, jetstreamManager, NewFastPublisher } from "natsjet";
import { bothClients, startAccountsServer, startJetStreamServer } from "./harness.mjs";

let server, js, jsm, close;
before(async () => {
  server = await startJetStreamServer();
  ({ js, jsm, close } = await bothClients(server));
});
after(async () => {
  await close?.();
  await server?.close();
});

describe("fast ingest", () => {
  test("a batch streams with progress and ends with its ack", async () => {
    await jsm.streams.add({ name: "FAST", subjects: ["fast.>"], allow_batched: true });
    const fast = NewFastPublisher(js, { flow: 50, maxOutstandingAcks: 2 });
    assert.deepEqual(await fast.add("fast.a", "0"), { batchSeq: 1, ackSeq: 0 });
    let highest = 0;
    for (let i = 1; i < 999; i++) {
      const h = headers();
      h.set("N", String(i));
      const { batchSeq, ackSeq } = await fast.add("fast.b", String(i), { headers: h });
      assert.equal(batchSeq, i + 1);
      assert.ok(ackSeq >= highest && batchSeq - ackSeq <= 100, `${batchSeq} ${ackSeq}`);
      highest = ackSeq;
    }
    assert.ok(highest >= 900, `flow acks came along the way: ${highest}`);
    const ack = await fast.commit("fast.c", "last");
    assert.deepEqual([ack.stream, ack.seq, ack.count, ack.batch.length > 0], ["FAST", 1000, 1000, true]);
    const m = await jsm.streams.getMessage("FAST", { seq: 500 });
    assert.deepEqual([m.subject, m.string(), m.header.get("N")], ["fast.b", "499", "499"]);
    await assert.rejects(fast.add("fast.a", "late"), InvalidOperationError);
  });

  test("close ends a batch without storing a message", async () => {
    await jsm.streams.add({ name: "EOB", subjects: ["eob.>"], allow_batched: true });
    const fast = NewFastPublisher(js);
    for (let i = 0; i < 25; i++) await fast.add("eob.x", `m${i}`);
    const ack = await fast.close();
    assert.deepEqual([ack.seq, ack.count], [25, 25]);
    assert.equal((await jsm.streams.info("EOB")).state.messages, 25);
    await assert.rejects(NewFastPublisher(js).close(), InvalidOperationError, "an empty batch has nothing to close");
  });

  test("a stream without allow_batched, no stream and an abandoned batch are typed errors", async () => {
    await jsm.streams.add({ name: "PLAIN", subjects: ["plain.>"] });
    const refused = await NewFastPublisher(js).add("plain.a", "x").catch((e) => e);
    assert.ok(refused instanceof JetStreamApiError, String(refused));
    assert.equal(refused.code, 10205);
    assert.equal((await jsm.streams.info("PLAIN")).state.messages, 0);
    // No stream captures the subject: nats.js's JetStreamNotEnabled, as for a publish.
    await assert.rejects(NewFastPublisher(js).add("nowhere.a", "x"), JetStreamNotEnabled);

    await jsm.streams.add({ name: "IDLE", subjects: ["idle.>"], allow_batched: true });
    const idle = NewFastPublisher(js);
    await idle.add("idle.a", "1");
    await sleep(11_000); // the server abandons a batch idle for 10 s
    const abandoned = await idle.commit("idle.a", "2").catch((e) => e);
    assert.ok(abandoned instanceof JetStreamApiError, String(abandoned));
    assert.equal(abandoned.code, 10208);
  });
});

test("fast ingest: a message the server drops is a gap that ends the batch, or is gone over", async () => {
  // User `limited` may not publish to secret.>: the server drops that message of the batch.
  const accounts = await startAccountsServer();
  const nc = await connect({ servers: accounts.url, user: "limited", pass: "pw" });
  try {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    await jsm.streams.add({ name: "GAPS", subjects: ["gaps.>", "secret.>"], allow_batched: true });
    const fast = NewFastPublisher(js, { flow: 1 });
    await fast.add("gaps.a", "1");
    await fast.add("secret.x", "lost");
    const ended = await fast.add("gaps.b", "3").then(() => fast.commit("gaps.c", "4")).catch((e) => e);
    assert.equal(ended.name, "ProtocolError", String(ended));
    assert.match(ended.message, /lost messages 2 to 2 of fast batch/);
    assert.equal((await jsm.streams.info("GAPS")).state.messages, 1, "only what came before the gap");

    const over = NewFastPublisher(js, { flow: 1, continueOnGap: true });
    await over.add("gaps.a", "1");
    await over.add("secret.x", "lost");
    await over.add("gaps.b", "3");
    const ack = await over.commit("gaps.c", "4");
    // The batch's size counts its sequence numbers, the lost one's too.
    assert.deepEqual([ack.seq, ack.count], [4, 4]);
    const subjects = [];
    for (const seq of [2, 3, 4]) subjects.push((await jsm.streams.getMessage("GAPS", { seq })).subject);
    assert.deepEqual(subjects, ["gaps.a", "gaps.b", "gaps.c"]);
  } finally {
    await nc.close();
    await accounts.close();
  }
});
