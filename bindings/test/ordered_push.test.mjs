// Ordered push consumers (js.consumers.getPushConsumer(stream, opts?)
// without a name) through the built package against a real nats-server,
// over ws:// and nats://: every message once and in order past the
// flow-control window, the options, and recovery without gap or duplicate
// when the consumer is deleted (a server restart: ordered.test.mjs).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AckPolicy, DeliverPolicy, connect, isPushConsumer, jetstream, jetstreamManager } from "natsjet";
import { rejectsWith, startJetStreamServer } from "./harness.mjs";

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

/** Publishes messages `from..to-1` (data: the number, padded to `size` bytes) to `name.<n % 5>`. */
async function publish(js, name, from, to, size = 0) {
  const acks = [];
  for (let i = from; i < to; i++) acks.push(js.publish(`${name}.${i % 5}`, String(i).padEnd(size, ".")));
  await Promise.all(acks);
}

/** The next `n` messages of an iterator as [stream sequence, number]. */
async function read(iterator, n) {
  const got = [];
  while (got.length < n) {
    const { done, value } = await iterator.next();
    assert.ok(!done, `ended after ${got.length}`);
    got.push([value.seq, parseInt(value.string(), 10)]);
  }
  return got;
}

const expected = (from, to) => Array.from({ length: to - from }, (_, k) => [from + k + 1, from + k]);

/** Collects a reader's status events. */
function watch(messages) {
  const events = [];
  void (async () => {
    for await (const s of messages.status()) events.push(s);
  })();
  return events;
}

for (const transport of ["ws", "nats"]) {
  describe(`over ${transport}://`, () => {
    const S = (name) => `OP${transport.toUpperCase()}_${name}`;
    async function setup(name, count, size = 0) {
      const nc = await connect({ servers: transport === "ws" ? server.wsUrl : server.url });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name, subjects: [`${name}.>`] });
      const js = jetstream(nc);
      await publish(js, name, 0, count, size);
      return { nc, jsm, js };
    }

    test("every message once, in order, past the flow-control window", async () => {
      const name = S("ALL");
      // 3 MiB: the server stops at 2 MiB until its flow-control request is answered.
      const { nc, js } = await setup(name, 3000, 1024);
      const pc = await js.consumers.getPushConsumer(name);
      assert.ok(pc.isPushConsumer() && !pc.isPullConsumer() && isPushConsumer(pc));
      const { config, name: first } = await pc.info();
      assert.equal(config.ack_policy, AckPolicy.None);
      assert.equal(config.mem_storage, true);
      assert.equal(config.flow_control, true);
      assert.equal(config.idle_heartbeat, 5e9);
      assert.match(config.deliver_subject, /^_INBOX\..+\.1$/);
      assert.equal((await pc.info(true)).name, first);

      const messages = await pc.consume();
      const events = watch(messages);
      const it = messages[Symbol.asyncIterator]();
      const one = await it.next();
      one.value.ack(); // no ack policy: nothing to do, and no error
      assert.deepEqual([one.value.seq, one.value.info.deliverySequence], [1, 1]);
      assert.deepEqual(await read(it, 2999), expected(1, 3000));
      await assert.rejects(pc.consume(), /already started/);
      await publish(js, name, 3000, 3005);
      assert.deepEqual(await read(it, 5), expected(3000, 3005));
      assert.deepEqual(
        events.filter((s) => s.type === "ordered_consumer_recreated"),
        [],
      );
      messages.stop();
      await nc.close();
    });

    test("filters, a start sequence, a deliver policy, a name prefix and a deliver prefix", async () => {
      const name = S("OPTS");
      const { nc, jsm, js } = await setup(name, 30);
      const stream = await jsm.streams.get(name);
      const pc = await stream.getPushConsumer({
        filter_subjects: [`${name}.1`, `${name}.3`],
        opt_start_seq: 10,
        name_prefix: "audit_",
        deliver_prefix: `audit.${name}`,
      });
      const { name: consumer, config } = await pc.info();
      assert.match(consumer, /^audit_/);
      assert.equal(config.deliver_subject, `audit.${name}.1`);
      const messages = await pc.consume();
      assert.deepEqual(
        (await read(messages[Symbol.asyncIterator](), 4)).map(([seq]) => seq),
        [12, 14, 17, 19],
      );
      messages.stop();

      const fresh = await (await js.consumers.getPushConsumer(name, { deliver_policy: DeliverPolicy.New })).consume();
      await nc.flush();
      await publish(js, name, 30, 31);
      assert.deepEqual(await read(fresh[Symbol.asyncIterator](), 1), [[31, 30]], "only what came after");
      fresh.stop();

      await rejectsWith(js.consumers.getPushConsumer("NO_SUCH_STREAM"), "JETSTREAM", { code: 10059 });
      await rejectsWith(js.consumers.getPushConsumer(name, { deliver_prefix: "in.>" }), "INVALID_ARGUMENT");
      await assert.rejects(js.consumers.getPushConsumer(name, { deliver_policy: "sometimes" }), /deliver_policy/);
      await nc.close();
    });

    test("a deleted consumer is replaced without gap or duplicate", async () => {
      const name = S("DEL");
      const { nc, js } = await setup(name, 80);
      const pc = await js.consumers.getPushConsumer(name, { idle_heartbeat: 500 });
      const messages = await pc.consume();
      const events = watch(messages);
      const it = messages[Symbol.asyncIterator]();
      assert.deepEqual(await read(it, 25), expected(0, 25));
      const before = (await pc.info(true)).name;
      assert.equal(await pc.delete(), true);
      await publish(js, name, 80, 100);
      // What the first consumer pushed is read; two missed heartbeats later
      // its successor starts after the last message read.
      assert.deepEqual(await read(it, 75), expected(25, 100));
      const now = await pc.info();
      assert.notEqual(now.name, before);
      assert.match(now.config.deliver_subject, /\.2$/);
      const types = events.map((s) => s.type);
      assert.deepEqual(types.slice(0, 1), ["heartbeats_missed"]);
      assert.deepEqual(
        events.filter((s) => s.type === "ordered_consumer_recreated").map((s) => s.name),
        [now.name],
      );
      messages.stop();
      await nc.close();
    });
  });
}
