// JetStream calls that mirror the Rust API, through the built package against
// a real nats-server, over ws:// and nats://: consumer unpin, reset,
// addOrUpdate and names; get-or-create from many connections; stream info
// with details; direct gets; publish retries and the window of acks in
// flight; consume that keeps waiting; AckBatch policies; the checkpoint
// ledger; advisories beside nats.js's.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { jetstreamManager as natsJsManager } from "@nats-io/jetstream";
import { connect as natsJsConnect } from "@nats-io/transport-node";
import { AdvisoryKind, CheckpointLedger, NatsError, connect, headers, jetstream, jetstreamManager } from "natsjet";
import { rejectsWith, startJetStreamServer } from "./harness.mjs";

let server;
/** Every connection made, closed at the end even when a test failed before closing its own. */
const opened = [];
before(async () => {
  server = await startJetStreamServer();
});
after(async () => {
  await Promise.all(opened.map((nc) => nc.close()));
  await server.close();
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The stream sequences of one `no_wait` fetch of up to `n` messages, acked (`ackAck`) or not. */
async function fetchSeqs(consumer, n, ack, opts = {}) {
  const seqs = [];
  for await (const m of await consumer.fetch({ max_messages: n, no_wait: true, ...opts })) {
    seqs.push(m.seq);
    if (ack) await m.ackAck();
  }
  return seqs;
}

for (const transport of ["ws", "nats"]) {
  describe(`over ${transport}://`, () => {
    async function conn() {
      const nc = await connect({ servers: transport === "ws" ? server.wsUrl : server.url });
      opened.push(nc);
      return nc;
    }
    /** A fresh stream `name` capturing `name.>`, with a manager and a client on one connection. */
    async function setup(name, cfg = {}) {
      const nc = await conn();
      const jsm = await jetstreamManager(nc, { timeout: 1500 });
      await jsm.streams.add({ name, subjects: [`${name}.>`], ...cfg });
      return { nc, jsm, js: jetstream(nc), name };
    }
    const S = (name) => `${transport.toUpperCase()}_API_${name}`;

    test("consumers: reset to the ack floor and to a sequence; Stream.resetConsumer", async () => {
      const { nc, jsm, js, name } = await setup(S("RESET"));
      for (let i = 1; i <= 5; i++) await js.publish(`${name}.x`, `${i}`);
      await jsm.consumers.add(name, { durable_name: "d" });
      const consumer = await js.consumers.get(name, "d");
      assert.deepEqual(await fetchSeqs(consumer, 2, true), [1, 2]);
      assert.deepEqual(await fetchSeqs(consumer, 2, false), [3, 4]);

      const reset = await jsm.consumers.reset(name, "d");
      assert.equal(reset.reset_seq, 3);
      assert.equal(reset.name, "d");
      assert.equal(reset.num_ack_pending, 0);
      assert.equal(reset.type, undefined, "the reply's type tag is dropped");
      assert.deepEqual(await fetchSeqs(consumer, 1, true), [3]);

      const stream = await jsm.streams.get(name);
      assert.equal((await stream.resetConsumer("d", 5)).reset_seq, 5);
      assert.deepEqual(await fetchSeqs(consumer, 10, true), [5]);

      await jsm.consumers.add(name, { durable_name: "new", deliver_policy: "new" });
      await rejectsWith(jsm.consumers.reset(name, "new", 1), "JETSTREAM");
      // The server leaves a missing consumer unanswered; the Rust API tells why.
      await rejectsWith(jsm.consumers.reset(name, "nope"), "JETSTREAM", { code: 10014 });
      await rejectsWith(jsm.consumers.reset(name, "a.b"), "INVALID_ARGUMENT");
      await nc.close();
    });

    test("consumers: unpin a pinned priority group, addOrUpdate, names", async () => {
      const { nc, jsm, js, name } = await setup(S("PIN"));
      await js.publish(`${name}.x`, "1");
      await jsm.consumers.add(name, {
        durable_name: "d",
        priority_groups: ["g"],
        priority_policy: "pinned_client",
      });
      const consumer = await js.consumers.get(name, "d");
      assert.deepEqual(await fetchSeqs(consumer, 1, true, { group: "g" }), [1]);
      const pinned = async () => (await jsm.consumers.info(name, "d")).priority_groups?.[0]?.pinned_client_id;
      assert.ok(await pinned(), "the fetch pinned the group");
      assert.equal(await jsm.consumers.unpin(name, "d", "g"), undefined);
      assert.equal(await pinned(), undefined);
      await rejectsWith(jsm.consumers.unpin(name, "d", "other"), "JETSTREAM");
      await rejectsWith(jsm.consumers.unpin(name, "nope", "g"), "JETSTREAM", { code: 10014 });

      const created = await jsm.consumers.addOrUpdate(name, { durable_name: "u", description: "one" });
      assert.equal(created.config.ack_policy, "explicit");
      const updated = await jsm.consumers.addOrUpdate(name, { durable_name: "u", description: "two" });
      assert.equal(updated.config.description, "two");
      const names = [];
      for await (const n of jsm.consumers.names(name)) names.push(n);
      assert.deepEqual(names.sort(), ["d", "u"]);
      await nc.close();
    });

    test("getOrCreate: five connections at once get one stream and one consumer", async () => {
      const conns = await Promise.all(Array.from({ length: 5 }, () => conn()));
      const managers = await Promise.all(conns.map((nc) => jetstreamManager(nc)));
      const name = S("GOC");
      const streams = await Promise.all(
        managers.map((jsm, i) => jsm.streams.getOrCreate({ name, subjects: [`${name}.>`], description: `s${i}` })),
      );
      assert.equal(new Set(streams.map((si) => si.config.description)).size, 1, "one stream for all");
      const consumers = await Promise.all(
        managers.map((jsm, i) => jsm.consumers.getOrCreate(name, "workers", { description: `w${i}` })),
      );
      assert.equal(new Set(consumers.map((ci) => ci.config.description)).size, 1, "one consumer for all");
      assert.equal(consumers[0].config.durable_name, "workers");
      assert.equal(consumers[0].config.ack_policy, "explicit");
      const again = await managers[0].consumers.getOrCreate(name, "workers", { description: "other" });
      assert.equal(again.config.description, consumers[0].config.description, "never updated");
      await rejectsWith(managers[0].consumers.getOrCreate(name, "a", { durable_name: "b" }), "INVALID_ARGUMENT");
      await rejectsWith(managers[0].streams.getOrCreate({ name: "bad.name" }), "INVALID_ARGUMENT");
      await Promise.all(conns.map((nc) => nc.close()));
    });

    test("streams.info with subject counts and deleted sequences; Stream.info(false, opts)", async () => {
      const { nc, jsm, js, name } = await setup(S("DETAIL"));
      for (const s of ["a.1", "a.2", "a.1", "b.1", "a.3"]) await js.publish(`${name}.${s}`, "x");
      await jsm.streams.deleteMessage(name, 2);
      const plain = await jsm.streams.info(name);
      assert.equal(plain.state.subjects, undefined);
      assert.equal(plain.state.deleted, undefined);

      const info = await jsm.streams.info(name, { subjects_filter: `${name}.a.*`, deleted_details: true });
      assert.deepEqual(info.state.subjects, { [`${name}.a.1`]: 2, [`${name}.a.3`]: 1 });
      assert.deepEqual(info.state.deleted, [2]);
      assert.equal(info.type, undefined);
      const stream = await jsm.streams.get(name);
      const all = await stream.info(false, { subjects_filter: ">" });
      assert.equal(Object.keys(all.state.subjects).length, 3);
      assert.equal((await stream.info(true)).state.subjects[`${name}.b.1`], 1, "cached: the last info");
      assert.equal((await jsm.streams.info(name, { subjects_filter: "none.>" })).state.subjects, undefined);
      await rejectsWith(jsm.streams.info(name, { subjects_filter: "a..b" }), "INVALID_SUBJECT");
      await rejectsWith(jsm.streams.info("NO_SUCH_STREAM", { deleted_details: true }), "JETSTREAM", {
        code: 10059,
      });
      await nc.close();
    });

    test("direct.getMessage: by sequence, last and next on a subject; null when missing", async () => {
      const { nc, jsm, js, name } = await setup(S("DIRECT"), { allow_direct: true });
      const h = headers();
      h.set("Trace", "t1");
      await js.publish(`${name}.a`, "one", { headers: h });
      await js.publish(`${name}.b`, "two");
      await js.publish(`${name}.a`, "three");

      const first = await jsm.direct.getMessage(name, { seq: 1 });
      assert.equal(first.subject, `${name}.a`);
      assert.equal(first.seq, 1);
      assert.equal(first.string(), "one");
      assert.equal(first.header.get("Trace"), "t1");
      assert.equal(first.header.get("Nats-Stream"), "", "metadata headers become fields");
      assert.ok(first.time instanceof Date && first.time.getTime() > 0);
      const stored = await jsm.streams.getMessage(name, { seq: 1 });
      assert.deepEqual([first.subject, first.seq, first.timestamp], [stored.subject, stored.seq, stored.timestamp]);

      const second = await jsm.direct.getMessage(name, { seq: 2 });
      assert.equal(second.header.get("Trace"), "");
      assert.equal((await jsm.direct.getMessage(name, { last_by_subj: `${name}.a` })).string(), "three");
      assert.equal((await jsm.direct.getMessage(name, { next_by_subj: `${name}.a`, seq: 2 })).seq, 3);
      assert.equal((await jsm.direct.getMessage(name, { start_time: new Date(0) })).seq, 1);
      assert.equal(await jsm.direct.getMessage(name, { seq: 99 }), null);
      assert.equal(await jsm.direct.getMessage(name, { last_by_subj: `${name}.none` }), null);
      await rejectsWith(jsm.direct.getMessage(name, { last_by_subj: "a..b" }), "INVALID_SUBJECT");

      const plain = S("NODIRECT");
      await jsm.streams.add({ name: plain, subjects: [`${plain}.>`] });
      await rejectsWith(jsm.direct.getMessage(plain, { seq: 1 }), "NO_RESPONDERS");
      await nc.close();
    });

    test("direct.getBatch and getLastMessagesFor: many messages in one request", async () => {
      const { nc, jsm, js, name } = await setup(S("DBATCH"), { allow_direct: true });
      for (let i = 1; i <= 10; i++) await js.publish(`${name}.${i % 3}`, `m${i}`);
      const seqs = async (msgs) => {
        const got = [];
        for await (const m of msgs) got.push(m.seq);
        return got;
      };
      const batch = await jsm.direct.getBatch(name, { seq: 3, batch: 4 });
      assert.deepEqual(await seqs(batch), [3, 4, 5, 6]);
      assert.equal(batch.getProcessed(), 4);
      const first = [];
      for await (const m of await jsm.direct.getBatch(name, { seq: 1, batch: 1 })) first.push([m.subject, m.string()]);
      assert.deepEqual(first, [[`${name}.1`, "m1"]]);
      assert.deepEqual(await seqs(await jsm.direct.getBatch(name, { start_time: new Date(0), next_by_subj: `${name}.1` })), [1, 4, 7, 10]);
      const subjects = [0, 1, 2].map((i) => `${name}.${i}`);
      assert.deepEqual(await seqs(await jsm.direct.getLastMessagesFor(name, { multi_last: subjects })), [8, 9, 10]);
      assert.deepEqual(await seqs(await jsm.direct.getLastMessagesFor(name, { multi_last: subjects, up_to_seq: 5 })), [3, 4, 5]);
      assert.deepEqual(await seqs(await jsm.direct.getBatch(name, { seq: 50 })), [], "past the end: nothing");
      // Leaving early stops the request.
      for await (const m of await jsm.direct.getBatch(name, { seq: 1 })) if (m.seq === 2) break;
      // With a callback, as nats.js: (null, m) for each, then ({ err? }, {}) once.
      const viaCallback = (get) =>
        new Promise((resolve) => {
          const got = [];
          const msgs = get((done, m) => (done ? resolve([got, done.err]) : got.push(m.seq)));
          void msgs.then((it) => assert.throws(() => it[Symbol.asyncIterator](), (e) => e.kind === "INVALID_ARGUMENT"));
        });
      assert.deepEqual(await viaCallback((callback) => jsm.direct.getBatch(name, { seq: 8, callback })), [[8, 9, 10], undefined]);
      const subjectsCb = (callback) => jsm.direct.getLastMessagesFor(name, { multi_last: subjects, callback });
      assert.deepEqual(await viaCallback(subjectsCb), [[8, 9, 10], undefined]);
      const plain = S("NODBATCH");
      await jsm.streams.add({ name: plain, subjects: [`${plain}.>`] });
      await rejectsWith(seqs(await jsm.direct.getBatch(plain, { seq: 1 })), "NO_RESPONDERS");
      const [none, err] = await viaCallback((callback) => jsm.direct.getBatch(plain, { seq: 1, callback }));
      assert.deepEqual([none, err?.kind], [[], "NO_RESPONDERS"]);
      await nc.close();
    });

    test("publish retries and the window of acks in flight", async () => {
      const { nc, name } = await setup(S("WINDOW"));
      const js = jetstream(nc, { maxAckInflight: 1 });
      const acks = await Promise.all(Array.from({ length: 20 }, (_, i) => js.publish(`${name}.x`, `${i}`)));
      assert.deepEqual(
        acks.map((a) => a.seq),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const started = Date.now();
      await rejectsWith(js.publish("nobody.stores.this", "x", { retries: 0 }), "NO_RESPONDERS");
      assert.ok(Date.now() - started < 1000, "no retry");
      await rejectsWith(js.publish(`${name}.x`, "x", { retries: -1 }), "INVALID_ARGUMENT");
      assert.throws(() => jetstream(nc, { maxAckInflight: 1.5 }), (e) => e instanceof NatsError);
      await nc.close();
    });

    const keepWaiting = [{}, { keep_waiting: true }, { abort_on_missing_resource: false }];
    for (const [i, opts] of keepWaiting.entries()) {
      test(`consume(${JSON.stringify(opts)}) outlives a deleted consumer and reads from its successor, as nats.js`, async () => {
        const { nc, jsm, js, name } = await setup(S(`KEEP_${i}`));
        await jsm.consumers.add(name, { durable_name: "d" });
        const consumer = await js.consumers.get(name, "d");
        await assert.rejects(
          consumer.consume({ keep_waiting: true, abort_on_missing_resource: true }),
          (e) => e.kind === "INVALID_ARGUMENT",
        );
        const messages = await consumer.consume({ ...opts, expires: 1000 });
        const statuses = [];
        void (async () => {
          for await (const s of messages.status()) statuses.push(s.type);
        })();
        await jsm.consumers.delete(name, "d");
        await sleep(300);
        await jsm.consumers.add(name, { durable_name: "d" });
        await js.publish(`${name}.x`, "back");
        for await (const m of messages) {
          assert.equal(m.string(), "back");
          m.ack();
          break;
        }
        // A 409 if the server told the waiting pull, else missed heartbeats: either way, no end.
        const noticed = statuses.some((type) => type === "terminal" || type === "heartbeats_missed");
        assert.ok(noticed, `the deletion was reported: ${statuses}`);
        await nc.close();
      });
    }

    test("JsMsg.next acks and has the next messages delivered to the given subject", async () => {
      const { nc, jsm, js, name } = await setup(S("NEXT"));
      for (let i = 1; i <= 4; i++) await js.publish(`${name}.x`, `m${i}`);
      await jsm.consumers.add(name, { durable_name: "d" });
      const first = await (await js.consumers.get(name, "d")).next({ expires: 2000 });
      assert.equal(first.string(), "m1");
      const inbox = nc.newInbox();
      const sub = nc.subscribe(inbox);
      await nc.flush();
      first.next(inbox, { batch: 2, expires: 2000 });
      const got = [];
      for await (const m of sub) {
        assert.match(m.reply, /^\$JS\.ACK\./, "a consumer delivery");
        got.push([m.subject, m.string()]);
        if (got.length === 2) break;
      }
      assert.deepEqual(got, [[`${name}.x`, "m2"], [`${name}.x`, "m3"]], "delivered to the inbox");
      assert.equal((await jsm.consumers.info(name, "d")).ack_floor.stream_seq, 1, "+NXT acked m1");
      assert.throws(() => first.ack(), (e) => e.kind === "ALREADY_ACKNOWLEDGED");
      await nc.close();
    });

    test("AckBatch({ policy: 'all' }) acks a consumer's messages with its highest +ACK", async () => {
      const { nc, jsm, js, name } = await setup(S("ACKALL"));
      for (let i = 0; i < 5; i++) await js.publish(`${name}.x`, `${i}`);
      await jsm.consumers.add(name, { durable_name: "d", ack_policy: "all" });
      const consumer = await js.consumers.get(name, "d");
      const batch = js.ackBatch({ policy: "all" });
      for await (const m of await consumer.fetch({ max_messages: 5, expires: 2000 })) batch.add(m);
      const report = await batch.commit({ confirm: true });
      assert.equal(report.confirmed.length, 5, "one +ACK settles all five");
      assert.equal((await jsm.consumers.info(name, "d")).ack_floor.stream_seq, 5);
      assert.throws(() => js.ackBatch({ policy: "some" }), (e) => e.kind === "INVALID_ARGUMENT");
      await nc.close();
    });

    test("CheckpointLedger: holds messages past ack_wait with +WPI, commits them confirmed", async () => {
      const { nc, jsm, js, name } = await setup(S("LEDGER"));
      for (let i = 0; i < 10; i++) await js.publish(`${name}.x`, `${i}`);
      await jsm.consumers.add(name, { durable_name: "d", ack_wait: 2e9, max_ack_pending: 5 });
      const consumer = await js.consumers.get(name, "d");
      const ledger = new CheckpointLedger(consumer, { workers: 2, batch: 5, checkpointInterval: 3000 });
      assert.deepEqual(
        ledger.warnings().map((w) => w.code),
        ["MAX_ACK_PENDING_TOO_SMALL", "ACK_WAIT_SHORTER_THAN_CHECKPOINT"],
      );
      assert.match(ledger.warnings()[1].message, /ack_wait 2000ms/);

      const msgs = [];
      for await (const m of await consumer.fetch({ max_messages: 5, expires: 2000 })) msgs.push(m);
      assert.equal(msgs.length, 5);
      msgs.forEach((m, i) => ledger.track(m, i < 3 ? 1 : 2));
      assert.equal(ledger.length, 5);
      assert.throws(() => msgs[0].ack(), (e) => e.kind === "ALREADY_ACKNOWLEDGED", "the ledger owns the ack");
      assert.throws(() => ledger.track(msgs[0], 3), (e) => e.kind === "ALREADY_ACKNOWLEDGED");

      // Two and a half ack_waits later nothing was redelivered: the driver
      // sent +WPI meanwhile (every 1 s, which leaves a loaded machine 1 s of slack).
      await sleep(5000);
      const held = await jsm.consumers.info(name, "d");
      assert.equal(held.num_redelivered, 0);
      assert.equal(held.num_ack_pending, 5);
      assert.equal(ledger.tryNextEvent(), null);

      const report = await ledger.commit(1);
      assert.equal(report.confirmed.length, 3);
      assert.deepEqual([report.unconfirmed, report.refused], [[], []]);
      assert.equal(ledger.length, 2);
      assert.ok(!ledger.isEmpty());
      const late = (await consumer.next({ expires: 2000 })) ?? assert.fail("a sixth message");
      assert.throws(() => ledger.track(late, 1), (e) => e.kind === "INVALID_ARGUMENT", "epoch 1 is committed");
      late.ack();
      assert.equal((await ledger.commit(2)).confirmed.length, 2);
      assert.ok(ledger.isEmpty());
      assert.equal((await jsm.consumers.info(name, "d")).num_ack_pending, 0);
      ledger.close();

      await jsm.consumers.add(name, { durable_name: "all", ack_policy: "all" });
      const all = await js.consumers.get(name, "all");
      assert.throws(
        () => new CheckpointLedger(all, { workers: 2, batch: 10, checkpointInterval: 1000 }),
        (e) => e.kind === "INVALID_ARGUMENT" && /AckAll/.test(e.message),
      );
      const single = new CheckpointLedger(all, { workers: 1, batch: 10, checkpointInterval: 1000 });
      assert.deepEqual(single.warnings(), []);
      single.close();
      await nc.close();
    });
  });
}

test("jsm.advisories() yields the server's advisories with their kind, as nats.js's", async () => {
  const nc = await connect({ servers: server.url });
  opened.push(nc);
  const theirs = await natsJsConnect({ servers: server.url });
  const [jsm, theirJsm] = [await jetstreamManager(nc), await natsJsManager(theirs)];
  const [mine, their] = [jsm.advisories(), theirJsm.advisories()].map((a) => a[Symbol.asyncIterator]());
  await Promise.all([nc.flush(), theirs.flush()]);
  await jsm.streams.add({ name: "ADVISED", subjects: ["advised.>"] });
  await jsm.consumers.add("ADVISED", { durable_name: "watcher" });
  await jsm.streams.delete("ADVISED");
  /** The kind, action and stream of the next three advisories but API audits. */
  const three = async (it) => {
    const got = [];
    while (got.length < 3) {
      const { value } = await it.next();
      if (value.kind !== AdvisoryKind.API) got.push([value.kind, value.data.action, value.data.stream]);
    }
    return got;
  };
  const expected = [
    [AdvisoryKind.StreamAction, "create", "ADVISED"],
    [AdvisoryKind.ConsumerAction, "create", "ADVISED"],
    // Deleting the stream deletes its consumer first.
    [AdvisoryKind.ConsumerAction, "delete", "ADVISED"],
  ];
  assert.deepEqual(await three(mine), expected);
  assert.deepEqual(await three(their), expected);
  await mine.return();
  await theirs.close();
});
