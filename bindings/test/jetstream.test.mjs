// JetStream through the built package (Node entry) against a real
// nats-server with JetStream, once over ws:// and once over nats:// (the
// Node socket shim).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import {
  AckBatch,
  AckPolicy,
  NatsError,
  PubHeaders,
  connect,
  headers,
  isPullConsumer,
  isPushConsumer,
  jetstream,
  jetstreamManager,
} from "natsjet";
import { consumerInfoSoon, rejectsWith, startJetStreamServer, startServer } from "./harness.mjs";

// The package's raw wasm module and Node socket factory, to watch writes.
const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve("natsjet/package.json"));
const wasm = require(join(packageDir, "node/natsjet.js"));
const { nodeSocketFactory } = await import(pathToFileURL(join(packageDir, "node/socket.mjs")).href);

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

/** Publishes `count` messages `{ i }` to `subject`, pipelined; their acks in order. */
function publishMany(js, subject, count) {
  return Promise.all(Array.from({ length: count }, (_, i) => js.publish(subject, JSON.stringify({ i }))));
}

/**
 * Counts the pull requests natsjet hands to the connections it opens until
 * `restore()`, as written to the WebSocket (`ws`) or the Node socket (`nats`).
 */
function spyOnWrites(transport) {
  let text = "";
  const record = (data) => (text += Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("latin1"));
  let restore;
  if (transport === "ws") {
    const Original = globalThis.WebSocket;
    globalThis.WebSocket = class extends Original {
      send(data) {
        record(data);
        return super.send(data);
      }
    };
    restore = () => (globalThis.WebSocket = Original);
  } else {
    wasm.setSocketFactory({
      connect(host, port, events) {
        const socket = nodeSocketFactory.connect(host, port, events);
        const write = socket.write.bind(socket);
        socket.write = (data) => (record(data), write(data));
        return socket;
      },
    });
    restore = () => wasm.setSocketFactory(nodeSocketFactory);
  }
  return { pulls: () => text.split("CONSUMER.MSG.NEXT").length - 1, restore };
}

for (const transport of ["ws", "nats"]) {
  describe(`over ${transport}://`, () => {
    const conn = () => connect({ servers: transport === "ws" ? server.wsUrl : server.url });
    /** A fresh stream `name` capturing `name.>`, with a manager and a client on one connection. */
    async function setup(name, cfg = {}) {
      const nc = await conn();
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name, subjects: [`${name}.>`], ...cfg });
      return { nc, jsm, js: jetstream(nc), name };
    }
    const S = (name) => `${transport.toUpperCase()}_${name}`;

    test("streams: add, info, update, list, names, purge, get and delete messages, delete", async () => {
      const { nc, jsm, js, name } = await setup(S("MANAGE"), { max_age: 3600e9 });
      const info = await jsm.streams.info(name);
      assert.deepEqual(info.config.subjects, [`${name}.>`]);
      assert.equal(info.config.max_age, 3600e9, "durations are nanoseconds");
      assert.equal(info.state.messages, 0);

      const updated = await jsm.streams.update(name, { ...info.config, max_msgs: 100, description: "updated" });
      assert.equal(updated.config.max_msgs, 100);
      assert.equal(updated.config.description, "updated");

      const listed = [];
      for await (const si of jsm.streams.list()) listed.push(si.config.name);
      assert.ok(listed.includes(name), listed.join());
      const names = [];
      for await (const n of jsm.streams.names(`${name}.x`)) names.push(n);
      assert.deepEqual(names, [name]);
      assert.deepEqual(await jsm.streams.names("nothing.here").next(), []);

      const h = headers();
      h.set("Trace", "t1");
      for (const s of ["a", "b", "a", "b"]) await js.publish(`${name}.${s}`, s, { headers: h });
      const first = await jsm.streams.getMessage(name, { seq: 1 });
      assert.equal(first.subject, `${name}.a`);
      assert.equal(first.string(), "a");
      assert.equal(first.seq, 1);
      assert.equal(first.header.get("Trace"), "t1");
      assert.ok(first.time instanceof Date && first.time.getTime() > 0);
      assert.equal((await jsm.streams.getMessage(name, { last_by_subj: `${name}.a` })).seq, 3);
      assert.equal((await jsm.streams.getMessage(name, { next_by_subj: `${name}.b`, seq: 3 })).seq, 4);
      assert.equal(await jsm.streams.deleteMessage(name, 2), true);
      assert.equal(await jsm.streams.getMessage(name, { seq: 2 }), null, "none there: null, as nats.js v3");
      await rejectsWith(jsm.streams.getMessage("NO_SUCH_STREAM", { seq: 1 }), "JETSTREAM", { code: 10059 });

      assert.deepEqual(await jsm.streams.purge(name, { filter: `${name}.a`, keep: 1 }), { success: true, purged: 1 });
      assert.equal((await jsm.streams.info(name)).state.messages, 2);
      assert.deepEqual(await jsm.streams.purge(name), { success: true, purged: 2 });
      assert.equal(await jsm.streams.delete(name), true);
      await nc.close();
    });

    test("API errors are NatsErrors with the server's status and err_code as nats.js's status and code", async () => {
      const nc = await conn();
      const jsm = await jetstreamManager(nc);
      await rejectsWith(jsm.streams.info("NO_SUCH_STREAM"), "JETSTREAM", {
        status: 404,
        code: 10059,
        message: "stream not found",
      });
      await rejectsWith(jsm.consumers.info("NO_SUCH_STREAM", "c"), "JETSTREAM", { code: 10059 });
      await rejectsWith(jsm.streams.add({ name: "bad.name" }), "INVALID_ARGUMENT");
      await rejectsWith(jsm.streams.purge("X", { seq: 1, keep: 1 }), "INVALID_ARGUMENT");
      await nc.close();
    });

    test("consumers: add, info, update, list, pause, resume, delete", async () => {
      const { nc, jsm, name } = await setup(S("CONSUMERS"));
      const ci = await jsm.consumers.add(name, { durable_name: "d1", ack_policy: AckPolicy.Explicit, ack_wait: 10e9 });
      assert.equal(ci.name, "d1");
      assert.equal(ci.config.deliver_policy, "all");
      assert.equal(ci.config.ack_wait, 10e9);
      await jsm.consumers.add(name, { name: "e1", filter_subject: `${name}.e`, inactive_threshold: 60e9 });
      await rejectsWith(jsm.consumers.add(name, { durable_name: "d1", ack_wait: 20e9 }), "JETSTREAM", {
        code: 10148,
      });

      const updated = await jsm.consumers.update(name, "d1", { ...ci.config, max_ack_pending: 50 });
      assert.equal(updated.config.max_ack_pending, 50);
      assert.equal((await jsm.consumers.info(name, "d1")).config.max_ack_pending, 50);
      // As nats.js, update reads the consumer's info first.
      await rejectsWith(jsm.consumers.update(name, "nope", { durable_name: "nope" }), "JETSTREAM", {
        code: 10014,
      });

      const listed = [];
      for await (const c of jsm.consumers.list(name)) listed.push(c.name);
      assert.deepEqual(listed.sort(), ["d1", "e1"]);

      const paused = await jsm.consumers.pause(name, "d1", new Date(Date.now() + 60_000));
      assert.equal(paused.paused, true);
      assert.equal((await jsm.consumers.info(name, "d1")).paused, true);
      assert.equal((await jsm.consumers.resume(name, "d1")).paused, false);

      assert.equal(await jsm.consumers.delete(name, "e1"), true);
      await rejectsWith(jsm.consumers.info(name, "e1"), "JETSTREAM", { status: 404, code: 10014 });
      await nc.close();
    });

    test("updates merge a partial config into the current one, as nats.js", async () => {
      const { nc, jsm, name } = await setup(S("MERGE"), { max_age: 3600e9, description: "kept" });
      const si = await jsm.streams.update(name, { max_msgs: 100 });
      assert.equal(si.config.max_msgs, 100);
      assert.equal(si.config.max_age, 3600e9);
      assert.equal(si.config.description, "kept");
      assert.deepEqual(si.config.subjects, [`${name}.>`]);
      await rejectsWith(jsm.streams.update("NO_SUCH_STREAM", { max_msgs: 1 }), "JETSTREAM", { code: 10059 });

      await jsm.consumers.add(name, { durable_name: "d", ack_wait: 10e9, filter_subject: `${name}.a` });
      const ci = await jsm.consumers.update(name, "d", { max_ack_pending: 50, description: "merged" });
      assert.equal(ci.config.max_ack_pending, 50);
      assert.equal(ci.config.description, "merged");
      assert.equal(ci.config.ack_wait, 10e9);
      assert.equal(ci.config.filter_subject, `${name}.a`);
      assert.equal(ci.config.ack_policy, "explicit");
      await nc.close();
    });

    test("streams: find, list by subject, get a Stream; js.streams.get", async () => {
      const { nc, jsm, js, name } = await setup(S("FIND"));
      assert.equal(await jsm.streams.find(`${name}.a.b`), name);
      await rejectsWith(jsm.streams.find("nobody.stores.this"), "JETSTREAM", { status: 404, code: 10059 });
      await rejectsWith(jsm.streams.find("bad subject"), "INVALID_SUBJECT");

      const listed = [];
      for await (const si of jsm.streams.list(`${name}.x`)) listed.push(si.config.name);
      assert.deepEqual(listed, [name]);
      assert.deepEqual(await jsm.streams.list("nobody.stores.this").next(), []);

      const stream = await jsm.streams.get(name);
      await js.publish(`${name}.a`, "one");
      await jsm.consumers.add(name, { durable_name: "c" });
      assert.equal(stream.name, name);
      assert.equal((await stream.info(true)).state.messages, 0, "cached: as of get");
      assert.equal((await stream.info()).state.messages, 1);
      assert.equal((await stream.info(true)).state.messages, 1);
      assert.deepEqual(await stream.alternates(), []);
      assert.equal(await stream.best(), stream);
      assert.equal((await stream.getMessage({ seq: 1 })).string(), "one");
      const consumer = await stream.getConsumer("c");
      assert.equal((await consumer.info(true)).name, "c");
      assert.equal((await consumer.next({ expires: 2000 })).string(), "one");
      assert.equal(await stream.deleteMessage(1, false), true);
      assert.equal((await (await js.streams.get(name)).info(true)).state.messages, 0);
      await rejectsWith(js.streams.get("NO_SUCH_STREAM"), "JETSTREAM", { code: 10059 });

      assert.equal(await consumer.delete(), true);
      await rejectsWith(consumer.info(), "JETSTREAM", { code: 10014 });
      await rejectsWith(js.consumers.get(name, "c"), "JETSTREAM", { code: 10014 });
      await nc.close();
    });

    test("publish: msgID de-duplicates, expectations refuse, TTL header goes out", async () => {
      const { nc, jsm, js, name } = await setup(S("PUBLISH"), { allow_msg_ttl: true });
      const first = await js.publish(`${name}.a`, "one", { msgID: "m1" });
      assert.deepEqual(first, { stream: name, seq: 1, duplicate: false });
      assert.deepEqual(await js.publish(`${name}.a`, "one again", { msgID: "m1" }), {
        stream: name,
        seq: 1,
        duplicate: true,
      });
      await rejectsWith(js.publish(`${name}.a`, "x", { expect: { lastSequence: 7 } }), "JETSTREAM", {
        code: 10071,
      });
      await rejectsWith(js.publish(`${name}.a`, "x", { expect: { lastMsgID: "other" } }), "JETSTREAM", {
        code: 10070,
      });
      const ok = await js.publish(`${name}.b`, "two", {
        expect: { lastSequence: 1, lastMsgID: "m1", streamName: name, lastSubjectSequence: 0 },
        ttl: "1h",
      });
      assert.equal(ok.seq, 2);
      assert.equal((await jsm.streams.getMessage(name, { seq: 2 })).header.get(PubHeaders.MessageTTL), "1h");
      // nats.js's header constants name what the server reads.
      const h = headers();
      h.set(PubHeaders.MsgIdHdr, "m1");
      h.set(PubHeaders.ExpectedStreamHdr, name);
      assert.equal((await js.publish(`${name}.a`, "by header", { headers: h })).duplicate, true);
      await rejectsWith(js.publish("nobody.captures.this", "x"), "NO_RESPONDERS");
      await rejectsWith(js.publish("bad subject", "x"), "INVALID_SUBJECT");
      await nc.close();
    });

    test("publish: expect.lastSubjectSequenceSubject checks another subject's last sequence, as nats.js 3.4", async () => {
      const { nc, jsm, js, name } = await setup(S("SUBJSEQ"));
      await js.publish(`${name}.a`, "one");
      await js.publish(`${name}.b`, "two");
      // The last on `a` is 1, but on the wildcard it is 2.
      const ok = await js.publish(`${name}.c`, "three", {
        expect: { lastSubjectSequence: 2, lastSubjectSequenceSubject: `${name}.*` },
      });
      assert.equal(ok.seq, 3);
      const sent = await jsm.streams.getMessage(name, { seq: 3 });
      assert.equal(sent.header.get(PubHeaders.ExpectedLastSubjectSequenceSubjectHdr), `${name}.*`);
      await rejectsWith(
        js.publish(`${name}.c`, "four", { expect: { lastSubjectSequence: 2, lastSubjectSequenceSubject: `${name}.a` } }),
        "JETSTREAM",
        { code: 10071 },
      );
      await rejectsWith(
        js.publish(`${name}.c`, "four", { expect: { lastSubjectSequenceSubject: 7 } }),
        "INVALID_ARGUMENT",
      );
      await nc.close();
    });

    test("5000 pipelined publishes are all acked, in order", async () => {
      const { nc, jsm, js, name } = await setup(S("PIPELINE"));
      const acks = await publishMany(js, `${name}.x`, 5000);
      assert.deepEqual(
        acks.map((a) => a.seq),
        Array.from({ length: 5000 }, (_, i) => i + 1),
      );
      assert.equal((await jsm.streams.info(name)).state.messages, 5000);
      const last = await jsm.streams.getMessage(name, { seq: 5000 });
      assert.deepEqual(last.json(), { i: 4999 });
      await nc.close();
    });

    test("fetch reads one batch; next reads one message or null", async () => {
      const { nc, jsm, js, name } = await setup(S("FETCH"));
      await jsm.consumers.add(name, { durable_name: "f" });
      await publishMany(js, `${name}.x`, 10);
      const c = await js.consumers.get(name, "f");
      // The server counts a consumer's pending messages apart from storing
      // them: a delivery's pending is exact only once all 10 are counted.
      const counted = await consumerInfoSoon(() => c.info(), (i) => i.num_pending === 10);
      assert.equal(counted.num_pending, 10);
      const batch = await c.fetch({ max_messages: 4, expires: 2000 });
      const got = [];
      for await (const m of batch) {
        got.push(m.json().i);
        assert.equal(m.info.stream, name);
        assert.equal(m.info.consumer, "f");
        assert.equal(m.info.pending, 10 - m.seq);
        assert.equal(typeof m.info.timestampNanos, "bigint");
        assert.equal(m.info.deliveryCount, 1);
        // nats.js's JsMsg names for the same metadata.
        assert.equal(m.timestampNanos, m.info.timestampNanos);
        assert.equal(m.time.getTime(), Number(m.timestampNanos / 1_000_000n));
        assert.equal(m.timestamp, m.time.toISOString());
        assert.match(m.reply, new RegExp(`^\\$JS\\.ACK\\.${name}\\.f\\.1\\.${m.seq}\\.`));
        assert.equal(m.reply, m.ackToken());
        assert.equal(m.json((key, value) => (key === "i" ? value * 10 : value)).i, m.json().i * 10);
        m.ack();
      }
      assert.deepEqual(got, [0, 1, 2, 3]);
      assert.equal(batch.getProcessed(), 4);
      assert.deepEqual([batch.getPending(), batch.getReceived()], [0, 4]);
      assert.equal(await batch.closed(), undefined);

      const m = await c.next({ expires: 2000 });
      assert.equal(m.seq, 5);
      assert.equal(m.redelivered, false);
      assert.equal(m.info.deliverySequence, 5);
      m.ack();
      const rest = [];
      for await (const msg of await c.fetch({ max_messages: 100, expires: 1000 })) {
        rest.push(msg.seq);
        msg.ack();
      }
      assert.deepEqual(rest, [6, 7, 8, 9, 10]);
      const empty = [];
      for await (const msg of await c.fetch({ max_messages: 10, no_wait: true })) empty.push(msg);
      assert.equal(empty.length, 0);
      assert.equal(await c.next({ expires: 500 }), null);
      const info = await c.info();
      assert.equal(info.delivered.stream_seq, 10);
      assert.equal((await c.info(true)).delivered.stream_seq, 10);
      await nc.close();
    });

    test("consume reads 5000 messages with acks", { timeout: 60_000 }, async () => {
      const { nc, jsm, js, name } = await setup(S("CONSUME"));
      await jsm.consumers.add(name, { durable_name: "c" });
      await publishMany(js, `${name}.x`, 5000);
      const c = await js.consumers.get(name, "c");
      const messages = await c.consume({ max_messages: 500 });
      let expected = 0;
      for await (const m of messages) {
        assert.equal(m.json().i, expected++);
        m.ack();
        if (expected === 5000) break;
      }
      assert.equal(messages.getProcessed(), 5000);
      await messages.close();
      const info = await consumerInfoSoon(() => c.info(), (i) => i.ack_floor.stream_seq === 5000);
      assert.equal(info.ack_floor.stream_seq, 5000);
      assert.equal(info.num_ack_pending, 0);
      await nc.close();
    });

    test("stop(err) hands out what was received, then throws err; closed() resolves with it", async () => {
      const { nc, jsm, js, name } = await setup(S("STOPERR"));
      await jsm.consumers.add(name, { durable_name: "s" });
      await publishMany(js, `${name}.x`, 5);
      const c = await js.consumers.get(name, "s");
      assert.deepEqual([isPullConsumer(c), isPushConsumer(c), c.isPullConsumer(), isPullConsumer({})], [true, false, true, false]);
      const messages = await c.fetch({ max_messages: 5, expires: 5000 });
      const enough = new Error("enough");
      let seen = 0;
      await assert.rejects(
        (async () => {
          for await (const m of messages) {
            if (++seen === 1) {
              // Wait until all five are in, then stop: they still come out.
              const deadline = Date.now() + 5000;
              while (messages.getReceived() < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
              messages.stop(enough);
            }
            m.ack();
          }
        })(),
        (e) => e === enough,
      );
      assert.equal(seen, 5);
      assert.equal(await messages.closed(), enough);
      await nc.close();
    });

    test("getPending counts messages received while the user works on one", async () => {
      const { nc, jsm, js, name } = await setup(S("PENDING"));
      await jsm.consumers.add(name, { durable_name: "p" });
      await js.publish(`${name}.x`, "first");
      const c = await js.consumers.get(name, "p");
      const messages = await c.fetch({ max_messages: 4, expires: 5000 });
      for await (const m of messages) {
        if (messages.getProcessed() === 1) {
          assert.deepEqual([messages.getPending(), messages.getReceived()], [0, 1]);
          // Published after the first was read: they wait in wasm, not in the batch at hand.
          await publishMany(js, `${name}.x`, 3);
          const deadline = Date.now() + 5000;
          while (messages.getReceived() < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
          assert.deepEqual([messages.getProcessed(), messages.getPending(), messages.getReceived()], [1, 3, 4]);
        }
        m.ack();
      }
      assert.deepEqual([messages.getProcessed(), messages.getPending(), messages.getReceived()], [4, 0, 4]);
      await nc.close();
    });

    test("a refill pull leaves before the user gets the messages that made room for it", async () => {
      const { nc, jsm, js, name } = await setup(S("REFILL"));
      await jsm.consumers.add(name, { durable_name: "r" });
      await publishMany(js, `${name}.x`, 30);
      const spy = spyOnWrites(transport);
      const watched = await conn().finally(spy.restore);
      const c = await jetstream(watched).consumers.get(name, "r");
      // Any message taken makes room for a pull: the second one must be on
      // the wire before the user holds the first message, not after the
      // user's turn (the server would idle meanwhile).
      const messages = await c.consume({ max_messages: 10, threshold_messages: 9 });
      let seen = 0;
      for await (const m of messages) {
        if (++seen === 1) assert.ok(spy.pulls() >= 2, `pulls written before the first message: ${spy.pulls()}`);
        m.ack();
        if (seen === 30) break;
      }
      await watched.close();
      await nc.close();
    });

    test("consume({ callback }) hands messages to the callback; a throw ends them with its error", async () => {
      const { nc, jsm, js, name } = await setup(S("CALLBACK"));
      await jsm.consumers.add(name, { durable_name: "cb" });
      await publishMany(js, `${name}.x`, 1000);
      const c = await js.consumers.get(name, "cb");
      let expected = 0;
      let resolveAll;
      const all = new Promise((resolve) => (resolveAll = resolve));
      const messages = await c.consume({
        max_messages: 100,
        callback: (m) => {
          assert.equal(m.subject, `${name}.x`);
          assert.equal(m.json().i, expected++);
          assert.equal(m.seq, expected);
          m.ack();
          if (expected === 1000) resolveAll();
        },
      });
      assert.throws(() => messages[Symbol.asyncIterator](), (e) => e.kind === "INVALID_ARGUMENT", "no iterator");
      // A failed assertion in the callback ends the messages with it.
      await Promise.race([all, messages.closed().then((e) => assert.fail(e ?? "ended early"))]);
      assert.equal(messages.getProcessed(), 1000);
      await messages.close();
      assert.equal(await messages.closed(), undefined, "stopped, not failed");
      const info = await consumerInfoSoon(() => c.info(), (i) => i.ack_floor.stream_seq === 1000);
      assert.equal(info.num_ack_pending, 0);

      // A throw stops the messages: closed() resolves with it, no message follows.
      await publishMany(js, `${name}.x`, 10);
      const boom = new Error("boom");
      const seen = [];
      const failing = await c.consume({
        callback: (m) => {
          seen.push(m.seq);
          if (seen.length === 3) throw boom;
          m.ack();
        },
      });
      assert.equal(await failing.closed(), boom);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(seen, [1001, 1002, 1003]);
      assert.equal(failing.getProcessed(), 3);
      await nc.close();
    });

    test("nak redelivers, term does not, working and ackAck are accepted", async () => {
      const { nc, jsm, js, name } = await setup(S("ACKS"));
      await jsm.consumers.add(name, { durable_name: "a", ack_wait: 30e9 });
      await publishMany(js, `${name}.x`, 3);
      const c = await js.consumers.get(name, "a");
      const [one, two, three] = await collect(await c.fetch({ max_messages: 3, expires: 2000 }));
      one.nak();
      two.working();
      two.working();
      two.term("poison");
      assert.equal(await three.ackAck(), true);
      const again = await c.next({ expires: 2000 });
      assert.equal(again.seq, 1);
      assert.equal(again.redelivered, true);
      assert.equal(again.info.deliveryCount, 2);
      again.nak(200);
      const later = await c.next({ expires: 3000 });
      assert.equal(later.seq, 1);
      assert.equal(later.info.deliveryCount, 3);
      later.ack();
      assert.equal(await c.next({ expires: 500 }), null, "term and ack end redelivery");
      await nc.close();
    });

    test("ackAck({ timeout }) bounds the wait for the server's answer", async () => {
      const own = await startJetStreamServer();
      try {
        const nc = await connect({ servers: transport === "ws" ? own.wsUrl : own.url });
        const jsm = await jetstreamManager(nc);
        const js = jetstream(nc);
        await jsm.streams.add({ name: "ACKACK", subjects: ["ackack.>"] });
        await jsm.consumers.add("ACKACK", { durable_name: "d" });
        await publishMany(js, "ackack.x", 2);
        const c = await js.consumers.get("ACKACK", "d");
        const [m, n] = await collect(await c.fetch({ max_messages: 2, expires: 2000 }));
        assert.throws(() => m.ackAck({ timeout: -1 }), (e) => e.kind === "INVALID_ARGUMENT");
        assert.equal(await m.ackAck({ timeout: 2000 }), true);
        // No server, no answer: the wait ends at the timeout given, not the JetStream one (5 s).
        await own.stop();
        const started = Date.now();
        await rejectsWith(n.ackAck({ timeout: 200 }), "TIMEOUT");
        assert.ok(Date.now() - started < 2000, `waited ${Date.now() - started} ms`);
        await nc.close();
      } finally {
        await own.close();
      }
    });

    test("a second final ack throws ALREADY_ACKNOWLEDGED", async () => {
      const { nc, jsm, js, name } = await setup(S("DOUBLE"));
      await jsm.consumers.add(name, { durable_name: "d" });
      await publishMany(js, `${name}.x`, 2);
      const c = await js.consumers.get(name, "d");
      const [m, n] = await collect(await c.fetch({ max_messages: 2, expires: 2000 }));
      m.ack();
      assert.throws(() => m.ack(), (e) => e instanceof NatsError && e.kind === "ALREADY_ACKNOWLEDGED");
      assert.throws(() => m.nak(), (e) => e.kind === "ALREADY_ACKNOWLEDGED");
      assert.throws(() => m.working(), (e) => e.kind === "ALREADY_ACKNOWLEDGED");
      await rejectsWith(m.ackAck(), "ALREADY_ACKNOWLEDGED");
      n.term();
      assert.throws(() => n.ack(), (e) => e.kind === "ALREADY_ACKNOWLEDGED");
      await nc.close();
    });

    test("AckBatch commits acks of messages and tokens, with and without confirmation", async () => {
      const { nc, jsm, js, name } = await setup(S("BATCH"));
      await jsm.consumers.add(name, { durable_name: "b" });
      await publishMany(js, `${name}.x`, 10);
      const c = await js.consumers.get(name, "b");
      const msgs = await collect(await c.fetch({ max_messages: 10, expires: 2000 }));

      const batch = js.ackBatch();
      for (const m of msgs.slice(0, 5)) batch.add(m);
      assert.equal(batch.length, 5);
      assert.throws(() => batch.add(msgs[0]), (e) => e.kind === "ALREADY_ACKNOWLEDGED");
      assert.throws(() => msgs[1].ack(), (e) => e.kind === "ALREADY_ACKNOWLEDGED", "the batch owns the ack");
      assert.throws(() => batch.add(msgs[5], "bogus"), (e) => e.kind === "INVALID_ARGUMENT");
      assert.equal(await batch.commit(), undefined);
      assert.equal(batch.length, 0);
      const committed = await consumerInfoSoon(() => c.info(), (i) => i.ack_floor.stream_seq === 5);
      assert.equal(committed.ack_floor.stream_seq, 5);

      // Tokens are plain strings: they can be stored and acked from another connection.
      const tokens = msgs.slice(5).map((m) => m.ackToken());
      const other = await conn();
      const confirmed = new AckBatch(jetstream(other));
      for (const t of tokens.slice(0, 4)) confirmed.add(t);
      confirmed.add(tokens[4], "term", { reason: "done with it" });
      assert.throws(() => confirmed.add(tokens[0]), (e) => e.kind === "INVALID_ARGUMENT");
      const report = await confirmed.commit({ confirm: true, timeout: 5000 });
      assert.deepEqual(report, { confirmed: tokens, unconfirmed: [], refused: [] });
      const info = await c.info();
      assert.equal(info.ack_floor.stream_seq, 10);
      assert.equal(info.num_ack_pending, 0);
      await other.close();
      await nc.close();
    });

    test("shared durable: 3 connections, 3000 messages, each acked once, none lost", { timeout: 60_000 }, async () => {
      const { nc, jsm, js, name } = await setup(S("SHARED"));
      await jsm.consumers.add(name, { durable_name: "workers", ack_wait: 30e9, max_ack_pending: 10_000 });
      const total = 3000;
      await publishMany(js, `${name}.work`, total);
      const seen = new Map();
      const perWorker = [0, 0, 0];
      const workers = await Promise.all(
        perWorker.map(async () => {
          const wc = await conn();
          const messages = await (await jetstream(wc).consumers.get(name, "workers")).consume({ max_messages: 50 });
          return { wc, messages };
        }),
      );
      await Promise.all(
        workers.map(async ({ messages }, w) => {
          for await (const m of messages) {
            seen.set(m.seq, (seen.get(m.seq) ?? 0) + 1);
            perWorker[w]++;
            m.ack();
            if (seen.size === total) for (const other of workers) other.messages.stop();
          }
        }),
      );
      assert.equal(seen.size, total);
      assert.ok([...seen.values()].every((n) => n === 1), "no message delivered twice");
      assert.equal(Math.min(...seen.keys()), 1);
      assert.equal(Math.max(...seen.keys()), total);
      assert.ok(perWorker.every((n) => n > 0), `every worker got messages: ${perWorker}`);
      for (const { wc, messages } of workers) {
        await messages.close();
        await wc.close();
      }
      const info = await consumerInfoSoon(
        () => jsm.consumers.info(name, "workers"),
        (i) => i.ack_floor.stream_seq === total,
      );
      assert.equal(info.num_ack_pending, 0);
      assert.equal(info.num_pending, 0);
      assert.equal(info.ack_floor.stream_seq, total);
      await nc.close();
    });

    test("abort_on_missing_resource: deleting the consumer ends consume with CONSUMER_STATUS 409", async () => {
      const { nc, jsm, js, name } = await setup(S("DELETED"));
      await jsm.consumers.add(name, { durable_name: "gone" });
      await publishMany(js, `${name}.x`, 3);
      const consumer = await js.consumers.get(name, "gone");
      const messages = await consumer.consume({ expires: 2000, abort_on_missing_resource: true });
      const events = [];
      const watching = (async () => {
        for await (const s of messages.status()) events.push(s);
      })();
      let read = 0;
      await assert.rejects(
        (async () => {
          for await (const m of messages) {
            m.ack();
            if (++read === 3) await jsm.consumers.delete(name, "gone");
          }
        })(),
        (e) => e instanceof NatsError && e.kind === "CONSUMER_STATUS" && e.code === 409,
      );
      assert.equal(read, 3);
      const closedWith = await messages.closed();
      assert.equal(closedWith.kind, "CONSUMER_STATUS");
      await watching;
      assert.ok(
        events.some((s) => s.type === "terminal" && s.code === 409),
        JSON.stringify(events),
      );
      await nc.close();
    });

    test("a consumer deleted while no pull waits is reported, and ends consume under abort_on_missing_resource", async () => {
      const { nc, jsm, js, name } = await setup(S("GONE"));
      await jsm.consumers.add(name, { durable_name: "gone" });
      await publishMany(js, `${name}.x`, 10);
      const consumer = await js.consumers.get(name, "gone");
      const messages = await consumer.consume({ max_messages: 10, abort_on_missing_resource: true });
      const events = [];
      const watching = (async () => {
        for await (const s of messages.status()) events.push(s);
      })();
      // The one pull is served in full before anything is read: none waits
      // on the server when the consumer goes.
      await consumerInfoSoon(
        () => jsm.consumers.info(name, "gone"),
        (i) => i.num_ack_pending === 10,
      );
      await jsm.consumers.delete(name, "gone");
      let read = 0;
      await rejectsWith(
        (async () => {
          for await (const m of messages) {
            m.ack();
            read++;
          }
        })(),
        "JETSTREAM",
        { code: 10014 },
      );
      assert.equal(read, 10, "what was delivered is read first");
      await watching;
      assert.ok(
        events.some((s) => s.type === "consumer_deleted" && s.code === 10014),
        JSON.stringify(events),
      );
      await nc.close();
    });

    test("a default consume asks ahead at most 16 MiB of large messages; taken, all come in order", async () => {
      const SIZE = 512 * 1024;
      const { nc, jsm, js, name } = await setup(S("LARGE"));
      for (let i = 0; i < 48; i++) await js.publish(`${name}.big`, new Uint8Array(SIZE).fill(120));
      await jsm.consumers.add(name, { durable_name: "large", ack_policy: AckPolicy.Explicit });
      const consumer = await js.consumers.get(name, "large");
      // 300 messages ahead would have all 48 (24 MiB) sent at once; the
      // bytes bound stops at four pulls of 4 MiB while none is taken.
      const messages = await consumer.consume();
      const info = await consumerInfoSoon(
        () => consumer.info(),
        (i) => (i.num_waiting === 0 && i.delivered.consumer_seq >= 28) || i.delivered.consumer_seq >= 48,
      );
      const sent = info.delivered.consumer_seq;
      assert.ok(sent >= 28 && sent * SIZE <= 16 << 20, `${sent} x ${SIZE} B sent ahead`);
      const got = [];
      for await (const m of messages) {
        got.push([m.seq, m.data.length]);
        m.ack();
        if (got.length === 48) break;
      }
      assert.deepEqual(got, Array.from({ length: 48 }, (_, i) => [i + 1, SIZE]));
      await nc.close();
    });

    test("consume outlives expiring pulls and ends when the loop breaks", { timeout: 30_000 }, async () => {
      const { nc, jsm, js, name } = await setup(S("HEARTBEAT"));
      await jsm.consumers.add(name, { durable_name: "hb" });
      const c = await js.consumers.get(name, "hb");
      const messages = await c.consume({ expires: 2000, idle_heartbeat: 1000 });
      const events = [];
      const watching = (async () => {
        for await (const s of messages.status()) events.push(s);
      })();
      // Pulls expire and are renewed; the stream stays quiet but alive.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      await js.publish(`${name}.x`, "late");
      for await (const m of messages) {
        assert.equal(m.string(), "late");
        m.ack();
        break;
      }
      assert.equal(await messages.closed(), undefined);
      await watching;
      assert.ok(!events.some((s) => s.type === "terminal" || s.type === "heartbeats_missed"), JSON.stringify(events));
      await nc.close();
    });
  });
}

async function collect(messages) {
  const all = [];
  for await (const m of messages) all.push(m);
  return all;
}

test("a JetStream manager rejects when the server has no JetStream", async () => {
  const plain = await startServer();
  const nc = await connect({ servers: plain.wsUrl });
  await rejectsWith(jetstreamManager(nc), "NO_RESPONDERS");
  await jetstreamManager(nc, { checkAPI: false });
  await nc.close();
  await plain.close();
});

test("JetStream options: domain and prefix name the API subjects", async () => {
  const nc = await connect({ servers: server.wsUrl });
  assert.equal(jetstream(nc).apiPrefix, "$JS.API");
  assert.equal(jetstream(nc, { domain: "hub" }).apiPrefix, "$JS.hub.API");
  assert.equal(jetstream(nc, { apiPrefix: "imported.API." }).apiPrefix, "imported.API");
  const jsm = await jetstreamManager(nc, { timeout: 2000 });
  assert.deepEqual(jsm.getOptions(), { timeout: 2000 });
  assert.equal(jsm.jetstream().apiPrefix, "$JS.API");
  await nc.close();
});
