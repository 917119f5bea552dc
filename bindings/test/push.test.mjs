// Push consumers (js.consumers.getPushConsumer(stream, name)) through the
// built package against a real nats-server, over ws:// and nats://: a
// durable one delivers and takes acks, a deliver group spreads without
// duplicates, flow control is answered past the server's window,
// heartbeats never reach the iterator, and a deleted consumer is reported
// or (abort_on_missing_resource) ends the messages.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AckPolicy, connect, isPullConsumer, isPushConsumer, jetstream, jetstreamManager } from "natsjet";
import { consumerInfoSoon, rejectsWith, startJetStreamServer } from "./harness.mjs";

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

/** Publishes `count` messages (data: the number, padded to `size` bytes) to `name.<n % 5>`. */
async function publish(js, name, count, size = 0) {
  const acks = [];
  for (let i = 0; i < count; i++) acks.push(js.publish(`${name}.${i % 5}`, String(i).padEnd(size, ".")));
  await Promise.all(acks);
}

/** Reads and acks the next `n` messages of an iterator; their numbers. */
async function readAcked(iterator, n) {
  const got = [];
  while (got.length < n) {
    const { done, value } = await iterator.next();
    assert.ok(!done, `ended after ${got.length}`);
    value.ack();
    got.push(parseInt(value.string(), 10));
  }
  return got;
}

const range = (n) => Array.from({ length: n }, (_, i) => i);

/** A durable push consumer delivering to `deliver.<name>`, heartbeats every second. */
const pushConfig = (name, extra = {}) => ({
  durable_name: name,
  deliver_subject: `deliver.${name}`,
  ack_policy: AckPolicy.Explicit,
  idle_heartbeat: 1e9,
  ...extra,
});

for (const transport of ["ws", "nats"]) {
  describe(`over ${transport}://`, () => {
    const S = (name) => `P${transport.toUpperCase()}_${name}`;
    const servers = () => (transport === "ws" ? server.wsUrl : server.url);
    async function setup(name) {
      const nc = await connect({ servers: servers() });
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name, subjects: [`${name}.>`] });
      return { nc, jsm, js: jetstream(nc) };
    }

    test("a durable push consumer delivers everything, takes acks and swallows heartbeats", async () => {
      const name = S("DURABLE");
      const { nc, jsm, js } = await setup(name);
      await publish(js, name, 200);
      await jsm.consumers.add(name, pushConfig(name));
      const pc = await js.consumers.getPushConsumer(name, name);
      assert.ok(pc.isPushConsumer() && !pc.isPullConsumer() && isPushConsumer(pc) && !isPullConsumer(pc));
      assert.equal((await pc.info(true)).config.deliver_subject, `deliver.${name}`);

      const messages = await pc.consume();
      const events = [];
      void (async () => {
        for await (const s of messages.status()) events.push(s);
      })();
      const it = messages[Symbol.asyncIterator]();
      assert.deepEqual(await readAcked(it, 200), range(200));
      const info = await consumerInfoSoon(() => pc.info(), (i) => i.ack_floor.stream_seq === 200);
      assert.equal(info.ack_floor.stream_seq, 200);
      assert.equal(info.push_bound, true);
      await assert.rejects(pc.consume(), /already started/);

      // Idle for 2.5 heartbeats: none reaches the iterator, none is missed.
      const idle = await Promise.race([it.next(), new Promise((r) => setTimeout(() => r("idle"), 2500))]);
      assert.equal(idle, "idle");
      assert.deepEqual(events, []);
      await publish(js, name, 1);
      messages.stop();
      await nc.close();
    });

    test("a deliver group spreads messages over two connections without duplicates", async () => {
      const name = S("GROUP");
      const { nc, jsm, js } = await setup(name);
      await jsm.consumers.add(name, pushConfig(name, { deliver_group: "workers" }));
      const other = await connect({ servers: servers() });
      const got = new Map();
      const take = (who) => (m) => {
        m.ack();
        assert.ok(!got.has(m.seq), `seq ${m.seq} twice`);
        got.set(m.seq, who);
      };
      const a = await (await js.consumers.getPushConsumer(name, name)).consume({ callback: take("a") });
      const jsOther = jetstream(other);
      const b = await (await jsOther.consumers.getPushConsumer(name, name)).consume({ callback: take("b") });
      await Promise.all([nc.flush(), other.flush()]);
      await publish(js, name, 300);
      const deadline = Date.now() + 10000;
      while (got.size < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(got.size, 300);
      const counts = [...got.values()].reduce((c, who) => ({ ...c, [who]: (c[who] ?? 0) + 1 }), {});
      assert.ok(counts.a > 0 && counts.b > 0, JSON.stringify(counts));
      a.stop();
      b.stop();
      await Promise.all([nc.close(), other.close()]);
    });

    test("flow control is answered, so a backlog larger than the window keeps flowing", async () => {
      const name = S("FC");
      const { nc, jsm, js } = await setup(name);
      // 4 MiB: the server stops at 2 MiB in flight until its flow-control request is answered.
      await publish(js, name, 4000, 1024);
      await jsm.consumers.add(name, pushConfig(name, { flow_control: true }));
      const messages = await (await js.consumers.getPushConsumer(name, name)).consume();
      assert.deepEqual(await readAcked(messages[Symbol.asyncIterator](), 4000), range(4000));
      messages.stop();
      await nc.close();
    });
  });
}

test("a deleted push consumer is reported, or ends the messages with abort_on_missing_resource", async () => {
  const nc = await connect({ servers: server.url });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const name = "PDEL";
  await jsm.streams.add({ name, subjects: [`${name}.>`] });
  await jsm.consumers.add(name, pushConfig("waits"));
  await jsm.consumers.add(name, pushConfig("aborts"));
  const waits = await (await js.consumers.getPushConsumer(name, "waits")).consume();
  const stream = await jsm.streams.get(name);
  const aborts = await (await stream.getPushConsumer("aborts")).consume({ abort_on_missing_resource: true });
  const deleted = (async () => {
    for await (const s of waits.status()) if (s.type === "consumer_deleted") return s;
  })();
  await jsm.consumers.delete(name, "waits");
  await jsm.consumers.delete(name, "aborts");

  // Two missed heartbeats (2 s), then the consumer info says it is gone.
  await rejectsWith(aborts[Symbol.asyncIterator]().next(), "JETSTREAM", { code: 10014 });
  assert.equal((await deleted).code, 10014);
  // The other listens on: once the consumer is back, its messages come.
  await jsm.consumers.add(name, pushConfig("waits"));
  await publish(js, name, 1);
  assert.deepEqual(await readAcked(waits[Symbol.asyncIterator](), 1), [0]);
  waits.stop();
  await nc.close();
});

test("getPushConsumer refuses a pull consumer and a missing one", async () => {
  const nc = await connect({ servers: server.url });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: "PPULL", subjects: ["PPULL.>"] });
  await jsm.consumers.add("PPULL", { durable_name: "pull", ack_policy: AckPolicy.Explicit });
  await rejectsWith(js.consumers.getPushConsumer("PPULL", "pull"), "INVALID_ARGUMENT");
  await rejectsWith(js.consumers.getPushConsumer("PPULL", "none"), "JETSTREAM", { code: 10014 });
  await nc.close();
});

test("a bound push consumer is read by a user the JetStream API refuses", async () => {
  const auth = await startJetStreamServer(`authorization { users = [
    { user: "admin", password: "pw" },
    { user: "reader", password: "pw", permissions: { publish: { deny: "$JS.API.>" } } }
  ] }`);
  try {
    const admin = await connect({ servers: auth.url, user: "admin", pass: "pw" });
    const jsm = await jetstreamManager(admin);
    const name = "PBOUND";
    await jsm.streams.add({ name, subjects: [`${name}.>`] });
    await jsm.consumers.add(name, pushConfig(name, { deliver_group: "readers" }));
    const reader = await connect({ servers: auth.url, user: "reader", pass: "pw" });
    const errors = [];
    void (async () => {
      for await (const s of reader.status()) if (s.type === "error") errors.push(s);
    })();
    const js = jetstream(reader);
    await rejectsWith(js.consumers.getBoundPushConsumer({ deliver_group: "readers" }), "INVALID_ARGUMENT");
    const pc = await js.consumers.getBoundPushConsumer({
      deliver_subject: `deliver.${name}`,
      deliver_group: "readers",
      idle_heartbeat: 1e9,
    });
    assert.ok(isPushConsumer(pc));
    await rejectsWith(pc.info(), "INVALID_ARGUMENT");
    await rejectsWith(pc.delete(), "INVALID_ARGUMENT");
    const messages = await pc.consume();
    const events = [];
    void (async () => {
      for await (const s of messages.status()) events.push(s);
    })();
    await reader.flush();
    await publish(jetstream(admin), name, 50);
    assert.deepEqual(await readAcked(messages[Symbol.asyncIterator](), 50), range(50));
    const info = await consumerInfoSoon(() => jsm.consumers.info(name, name), (i) => i.ack_floor.stream_seq === 50);
    assert.equal(info.ack_floor.stream_seq, 50);

    // Deleted: missed heartbeats are reported; nothing asks the API.
    await jsm.consumers.delete(name, name);
    const deadline = Date.now() + 10000;
    while (!events.some((s) => s.type === "heartbeats_missed") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(events.some((s) => s.type === "heartbeats_missed"), JSON.stringify(events));
    assert.ok(!events.some((s) => s.type === "consumer_deleted"));
    await reader.flush();
    assert.deepEqual(errors, []);
    messages.stop();
    await Promise.all([admin.close(), reader.close()]);
  } finally {
    await auth.close();
  }
});
