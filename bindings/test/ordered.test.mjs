// Ordered consumers (js.consumers.get(stream, opts?)) through the built
// package against a real nats-server, over ws:// and nats://: every message
// once and in order, the options, and recovery without gap or duplicate when
// the server deletes the consumer or restarts (the latter for ordered push
// consumers too).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AckPolicy, DeliverPolicy, connect, isPullConsumer, jetstream, jetstreamManager } from "natsjet";
import { rejectsWith, restartJetStream, startJetStreamServer } from "./harness.mjs";

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

/** Publishes messages `from..to-1` (data: the number) to `name.<n % 5>`, in order. */
async function publish(js, name, from, to) {
  for (let i = from; i < to; i++) await js.publish(`${name}.${i % 5}`, String(i));
}

/** The next `n` messages of an iterator as [stream sequence, data]. */
async function read(iterator, n) {
  const got = [];
  while (got.length < n) {
    const { done, value } = await iterator.next();
    assert.ok(!done, `ended after ${got.length}`);
    got.push([value.seq, value.string()]);
  }
  return got;
}

const expected = (from, to) => Array.from({ length: to - from }, (_, k) => [from + k + 1, String(from + k)]);

for (const transport of ["ws", "nats"]) {
  describe(`over ${transport}://`, () => {
    const S = (name) => `O${transport.toUpperCase()}_${name}`;
    async function setup(name, count) {
      const nc = await connect({ servers: transport === "ws" ? server.wsUrl : server.url });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name, subjects: [`${name}.>`] });
      const js = jetstream(nc);
      await publish(js, name, 0, count);
      return { nc, jsm, js };
    }

    test("every message once, in order, from an unacked memory consumer", async () => {
      const name = S("ALL");
      const { nc, js } = await setup(name, 120);
      const oc = await js.consumers.get(name);
      assert.ok(oc.isPullConsumer() && !oc.isPushConsumer() && isPullConsumer(oc));
      const info = await oc.info();
      assert.equal(info.config.ack_policy, AckPolicy.None);
      assert.equal(info.config.mem_storage, true);
      assert.equal(info.config.durable_name, undefined);
      assert.equal((await oc.info(true)).name, info.name);

      const messages = await oc.consume({ max_messages: 30 });
      const it = messages[Symbol.asyncIterator]();
      const first = await it.next();
      first.value.ack(); // no ack policy: nothing to do, and no error
      assert.deepEqual([first.value.seq, first.value.info.deliverySequence], [1, 1]);
      assert.deepEqual(await read(it, 119), expected(1, 120));
      await assert.rejects(oc.consume(), "one reader at a time");
      await publish(js, name, 120, 125);
      assert.deepEqual(await read(it, 5), expected(120, 125));
      messages.stop();
      await nc.close();
    });

    test("filters, start options, headers only and a name prefix; fetch and next", async () => {
      const name = S("OPTS");
      const { nc, js } = await setup(name, 30);
      const filtered = await js.consumers.get(name, { filter_subjects: [`${name}.1`, `${name}.3`] });
      const batch = await filtered.fetch({ max_messages: 6, expires: 2000 });
      const seqs = [];
      for await (const m of batch) seqs.push(m.seq);
      assert.deepEqual(seqs, [2, 4, 7, 9, 12, 14]);
      assert.equal((await filtered.next({ expires: 2000 })).seq, 17, "reads go on where the last ended");

      const from = await js.consumers.get(name, { opt_start_seq: 21, headers_only: true, name_prefix: "audit_" });
      assert.match((await from.info()).name, /^audit_/);
      const m = await from.next({ expires: 2000 });
      assert.equal(m.seq, 21);
      assert.equal(m.data.length, 0, "headers only");

      const last = await js.consumers.get(name, { deliver_policy: DeliverPolicy.Last, filter_subjects: `${name}.0` });
      assert.equal((await last.next({ expires: 2000 })).seq, 26);
      assert.equal(await last.next({ expires: 300 }), null, "nothing newer");

      await rejectsWith(js.consumers.get("NO_SUCH_STREAM"), "JETSTREAM", { code: 10059 });
      await assert.rejects(js.consumers.get(name, { deliver_policy: "sometimes" }), /deliver_policy/);
      await assert.rejects(js.consumers.get(name, { name_prefix: "a.b" }), /name prefix/);
      await nc.close();
    });

    test("a consumer deleted through the API is replaced without gap or duplicate", async () => {
      const name = S("DEL");
      const { nc, jsm, js } = await setup(name, 80);
      const oc = await js.consumers.get(name);
      const messages = await oc.consume({ max_messages: 20 });
      const recreated = [];
      const watching = (async () => {
        for await (const s of messages.status()) if (s.type === "ordered_consumer_recreated") recreated.push(s.name);
      })();
      const it = messages[Symbol.asyncIterator]();
      assert.deepEqual(await read(it, 25), expected(0, 25));
      const before = (await oc.info(true)).name;
      assert.equal(await jsm.consumers.delete(name, before), true);
      await publish(js, name, 80, 100);
      assert.deepEqual(await read(it, 75), expected(25, 100));
      const now = (await oc.info()).name;
      assert.notEqual(now, before);
      assert.deepEqual(recreated, [now]);
      messages.stop();
      await watching;
      await nc.close();
    });
  });
}

/** How each kind of ordered consumer is made and read: [consumer, messages]. */
const kinds = {
  pull: async (js) => {
    const oc = await js.consumers.get("R");
    return [oc, await oc.consume({ max_messages: 10, expires: 4000 })];
  },
  push: async (js) => {
    const pc = await js.consumers.getPushConsumer("R");
    return [pc, await pc.consume()];
  },
};

for (const [kind, open] of Object.entries(kinds)) {
  test(`an ordered ${kind} consumer bridges a server restart without gap or duplicate`, async () => {
    const own = await startJetStreamServer();
    try {
      const nc = await connect({ servers: own.url, reconnectTimeWait: 100, reconnectJitter: 0 });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: "R", subjects: ["R.>"] });
      const js = jetstream(nc);
      await publish(js, "R", 0, 40);
      const [oc, messages] = await open(js);
      const events = [];
      void (async () => {
        for await (const s of messages.status()) events.push(s);
      })();
      const it = messages[Symbol.asyncIterator]();
      assert.deepEqual(await read(it, 15), expected(0, 15));
      const before = (await oc.info(true)).name;
      await restartJetStream(own, jsm);
      await publish(js, "R", 40, 50);
      assert.deepEqual(await read(it, 35), expected(15, 50));
      assert.notEqual((await oc.info()).name, before);
      assert.ok(events.some((s) => s.type === "reset" && s.reason === "reconnected"), JSON.stringify(events));
      messages.stop();
      await nc.close();
    } finally {
      await own.close();
    }
  });
}
