// The Key-Value API (nats.js 3.4's @nats-io/kv shapes) through the built
// package's Node entry against a real nats-server, over ws:// and nats://:
// every call and option, CAS conflicts, create over deletes and purges,
// history limits, TTLs and markers, watches that say when they caught up
// (also over nothing), a watch across a server restart, and bad names,
// keys and options refused with an error that names them.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  InvalidArgumentError,
  JetStreamApiError,
  Kvm,
  KvWatchInclude,
  NatsError,
  connect,
  jetstream,
  jetstreamManager,
} from "natsjet";
import { rejectsWith, restartJetStream, startJetStreamServer } from "./harness.mjs";

/** Bounds every wait on the server: a hang fails the test instead of stalling it. */
const WAIT = 15_000;

function within(promise, what, ms = WAIT) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} in ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The next `n` items of an iterator. */
async function take(iterator, n) {
  const got = [];
  while (got.length < n) {
    const { done, value } = await within(iterator.next(), `item ${got.length + 1} of ${n}`);
    assert.ok(!done, `ended after ${got.length} of ${n}`);
    got.push(value);
  }
  return got;
}

/** Everything an iterator yields until it ends. */
async function all(iterable) {
  const got = [];
  const iterator = iterable[Symbol.asyncIterator]();
  for (;;) {
    const { done, value } = await within(iterator.next(), "end");
    if (done) return got;
    got.push(value);
  }
}

/** Whether `promise` has settled by the time the event loop has turned. */
async function settled(promise) {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const short = (e) => [e.key, e.operation, e.string()];

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

for (const transport of ["ws", "nats"]) {
  describe(`Key-Value over ${transport}://`, () => {
    let nc, kvm;
    const B = (name) => `${transport}_${name}`;
    before(async () => {
      nc = await connect({ servers: transport === "ws" ? server.wsUrl : server.url });
      kvm = new Kvm(nc);
    });
    after(() => nc.close());

    test("put, get, entries' fields, revisions, get at a revision", async () => {
      const kv = await kvm.create(B("basic"), { history: 5 });
      const r1 = await kv.put("a/b=c.d-e_f", "one");
      const r2 = await kv.put("a/b=c.d-e_f", new Uint8Array([1, 2, 3]));
      const r3 = await kv.put("empty", "");
      assert.deepEqual([r2 - r1, r3 - r2], [1, 1]);
      const before = Date.now();
      const e = await kv.get("a/b=c.d-e_f");
      assert.equal(e.bucket, B("basic"));
      assert.equal(e.key, "a/b=c.d-e_f");
      assert.equal(e.rawKey, "a/b=c.d-e_f");
      assert.deepEqual([...e.value], [1, 2, 3]);
      assert.equal(e.length, 3);
      assert.equal(e.revision, r2);
      assert.equal(e.delta, 0);
      assert.equal(e.operation, "PUT");
      assert.ok(e.created instanceof Date && e.created.getTime() <= before + 1000 && e.created.getTime() > before - 60_000);
      assert.equal("isUpdate" in e, false);
      const first = await kv.get("a/b=c.d-e_f", { revision: r1 });
      assert.deepEqual([first.string(), first.revision], ["one", r1]);
      assert.equal(await kv.get("a/b=c.d-e_f", { revision: r3 }), null, "that revision is another key's");
      assert.equal(await kv.get("never"), null);
      const empty = await kv.get("empty");
      assert.deepEqual([empty.value.length, empty.length, empty.string()], [0, 0, ""]);
      await kv.put("j", JSON.stringify({ n: 1 }));
      assert.deepEqual((await kv.get("j")).json(), { n: 1 });
      assert.equal(kv.bucket, B("basic"));
      await kv.close();
    });

    test("CAS: update, put with previousSeq, create, delete and purge with previousSeq", async () => {
      const kv = await kvm.create(B("cas"));
      const r1 = await kv.create("k", "v1");
      await rejectsWith(kv.create("k", "again"), "JETSTREAM", { code: 10071 });
      const r2 = await kv.update("k", "v2", r1);
      const stale = kv.update("k", "v3", r1);
      await assert.rejects(stale, (e) => e instanceof JetStreamApiError && e.code === 10071);
      assert.throws(() => kv.update("k", "v", 0), InvalidArgumentError, "nats.js throws before any promise");
      await rejectsWith(kv.put("k", "v", { previousSeq: r1 }), "JETSTREAM", { code: 10071 });
      await rejectsWith(kv.put("new", "v", { previousSeq: r2 }), "JETSTREAM", { code: 10071 });
      const r3 = await kv.put("k", "v3", { previousSeq: r2, timeout: 2000 });
      await kv.put("absent", "v", { previousSeq: 0 }); // 0: the key must have no message
      await rejectsWith(kv.delete("k", { previousSeq: r2 }), "JETSTREAM", { code: 10071 });
      await kv.delete("k", { previousSeq: r3 });
      assert.equal((await kv.get("k")).operation, "DEL");
      const r5 = await kv.create("k", "over the delete");
      assert.ok(r5 > r3);
      await rejectsWith(kv.purge("k", { previousSeq: r3 }), "JETSTREAM", { code: 10071 });
      await kv.purge("k", { previousSeq: r5 });
      const purged = await kv.get("k");
      assert.deepEqual([purged.operation, purged.value.length], ["PURGE", 0]);
      assert.equal(await kv.get("k", { revision: r5 }), null, "a purge removes every earlier revision");
      await kv.create("k", "over the purge");
      assert.equal((await kv.get("k")).string(), "over the purge");
    });

    test("history limits, purge, history of several keys, headers only", async () => {
      const kv = await kvm.create(B("hist"), { history: 3 });
      for (let i = 0; i < 5; i++) await kv.put("h.a", `a${i}`);
      await kv.put("h.b", "b0");
      const history = await kv.history({ key: "h.a" });
      const got = await all(history);
      assert.deepEqual(got.map((e) => e.string()), ["a2", "a3", "a4"]);
      assert.deepEqual(got.map((e) => e.delta), [2, 1, 0]);
      assert.deepEqual(got.map((e) => e.isUpdate), [false, false, false], "nats.js: history entries are no updates");
      assert.equal(history.getProcessed(), 3);
      const both = await all(await kv.history({ key: ["h.a", "h.b"] }));
      assert.deepEqual(both.map((e) => e.key), ["h.a", "h.a", "h.a", "h.b"]);
      const meta = await all(await kv.history({ key: "h.b", headers_only: true }));
      assert.deepEqual(meta.map((e) => [e.value.length, e.length]), [[0, 2]]);
      await kv.purge("h.a");
      assert.deepEqual((await all(await kv.history({ key: "h.a" }))).map(short), [["h.a", "PURGE", ""]]);
      assert.deepEqual(await all(await kv.history({ key: "none" })), [], "no entries: the history ends at once");
      await rejectsWith(kvm.create(B("toolong"), { history: 65 }), "INVALID_ARGUMENT");
    });

    test("keys: filters, deleted and purged keys left out, an empty bucket ends at once", async () => {
      const kv = await kvm.create(B("keys"));
      assert.deepEqual(await all(await kv.keys()), []);
      for (const k of ["a.1", "a.2", "b.1", "c"]) await kv.put(k, "v");
      await kv.delete("a.2");
      await kv.purge("c");
      assert.deepEqual((await all(await kv.keys())).sort(), ["a.1", "b.1"]);
      assert.deepEqual(await all(await kv.keys("a.*")), ["a.1"]);
      assert.deepEqual((await all(await kv.keys(["a.>", "b.1"]))).sort(), ["a.1", "b.1"]);
      const keys = await kv.keys();
      for await (const k of keys) assert.equal(typeof k, "string");
      assert.equal(keys.getProcessed(), 2);
    });

    test("delete and purge with wildcards reach every matching key, as nats.js", async () => {
      const kv = await kvm.create(B("wild"));
      for (const k of ["w.1", "w.2", "x"]) await kv.put(k, "v");
      await kv.delete("w.*");
      assert.deepEqual(await all(await kv.keys()), ["x"]);
      assert.equal((await kv.get("w.2")).operation, "DEL");
      await kv.purge(">");
      assert.deepEqual(await all(await kv.keys()), []);
      assert.equal((await kv.get("x")).operation, "PURGE");
    });

    test("watch: last values, then changes; isUpdate and caughtUp", async () => {
      const kv = await kvm.create(B("watch"), { history: 5 });
      await kv.put("w.a", "a1");
      await kv.put("w.a", "a2");
      await kv.put("w.b", "b1");
      const watch = await kv.watch({ key: "w.>" });
      assert.equal(await settled(watch.caughtUp()), false, "two entries to hand out first");
      const it = watch[Symbol.asyncIterator]();
      const [a, b] = await take(it, 2);
      assert.deepEqual([short(a), a.isUpdate, a.delta], [["w.a", "PUT", "a2"], false, 1]);
      assert.deepEqual([short(b), b.isUpdate, b.delta], [["w.b", "PUT", "b1"], true, 0]);
      assert.equal(await settled(watch.caughtUp()), false, "the loop has not asked for more yet");
      const pending = it.next(); // done with w.b: caught up
      await within(watch.caughtUp(), "caughtUp");
      await kv.delete("w.a");
      await kv.put("w.c", "c1");
      const del = (await within(pending, "the delete")).value;
      const [c] = await take(it, 1);
      assert.deepEqual([short(del), del.isUpdate], [["w.a", "DEL", ""], true]);
      assert.deepEqual([short(c), c.isUpdate], [["w.c", "PUT", "c1"], true]);
      assert.equal(watch.getProcessed(), 4);
      watch.stop();
      assert.equal((await within(it.next(), "end")).done, true);
      assert.equal((await watch[Symbol.asyncIterator]().next()).done, true, "iterators share the position");
    });

    test("watch: AllHistory, UpdatesOnly, several keys, headers only, resumeFromRevision", async () => {
      const kv = await kvm.create(B("watch2"), { history: 5 });
      const r1 = await kv.put("k.1", "x1");
      await kv.put("k.1", "x2");
      await kv.put("k.2", "y1");
      await kv.put("other", "o");
      const history = await kv.watch({ key: "k.*", include: KvWatchInclude.AllHistory });
      assert.deepEqual((await take(history[Symbol.asyncIterator](), 3)).map((e) => [e.string(), e.isUpdate]), [
        ["x1", false],
        ["x2", false],
        ["y1", true],
      ]);
      history.stop();
      const several = await kv.watch({ key: ["k.2", "other"] });
      assert.deepEqual((await take(several[Symbol.asyncIterator](), 2)).map((e) => e.key), ["k.2", "other"]);
      several.stop();
      const meta = await kv.watch({ key: "k.2", headers_only: true });
      const [m] = await take(meta[Symbol.asyncIterator](), 1);
      assert.deepEqual([m.value.length, m.length, m.key], [0, 2, "k.2"]);
      meta.stop();
      const resumed = await kv.watch({ key: "k.1", resumeFromRevision: r1 + 1 });
      const [x2] = await take(resumed[Symbol.asyncIterator](), 1);
      assert.equal(x2.string(), "x2");
      resumed.stop();
      const updates = await kv.watch({ include: KvWatchInclude.UpdatesOnly });
      await within(updates.caughtUp(), "caughtUp of an updates-only watch");
      const uit = updates[Symbol.asyncIterator]();
      await kv.put("k.3", "z");
      const [z] = await take(uit, 1);
      assert.deepEqual([short(z), z.isUpdate], [["k.3", "PUT", "z"], true]);
      updates.stop();
      await rejectsWith(kv.watch({ include: "everything" }), "INVALID_ARGUMENT");
    });

    test("watch: caughtUp over an empty bucket, an empty key set, and ignored deletes (nats.js#270)", async () => {
      const kv = await kvm.create(B("caught"));
      const empty = await kv.watch();
      await within(empty.caughtUp(), "caughtUp over an empty bucket");
      await kv.put("a", "1");
      await kv.put("b", "2");
      const none = await kv.watch({ key: "nothing.here" });
      await within(none.caughtUp(), "caughtUp over no matching key");
      const [first] = await take(empty[Symbol.asyncIterator](), 1);
      assert.deepEqual([first.key, first.isUpdate], ["a", true], "the first entry after an empty start is an update");
      empty.stop();
      none.stop();

      await kv.delete("b");
      const ignoring = await kv.watch({ ignoreDeletes: true });
      const it = ignoring[Symbol.asyncIterator]();
      const [a] = await take(it, 1);
      // The last initial entry (b's DEL) is left out: the put before it,
      // held until then, is the last one handed out and says so.
      assert.deepEqual([a.key, a.isUpdate], ["a", true]);
      const next = it.next(); // the loop is done with a
      await within(ignoring.caughtUp(), "caughtUp after the ignored delete");
      await kv.purge("a");
      await kv.put("c", "3");
      const { value: c } = await within(next, "the put after the ignored purge");
      assert.deepEqual([c.key, c.isUpdate], ["c", true]);
      ignoring.stop();
    });

    test("status, list, open, create opens an existing bucket, destroy", async () => {
      const name = B("status");
      const kv = await kvm.create(name, {
        description: "d",
        history: 4,
        ttl: 60_000,
        max_bytes: 1 << 20,
        maxValueSize: 1024,
        storage: "memory",
        replicas: 1,
        compression: true,
        metadata: { owner: "tests" },
      });
      await kv.put("a", "1");
      const s = await kv.status();
      assert.equal(s.bucket, name);
      assert.deepEqual(
        [s.values, s.history, s.ttl, s.max_bytes, s.maxValueSize, s.storage, s.replicas, s.description, s.compression],
        [1, 4, 60_000, 1 << 20, 1024, "memory", 1, "d", true],
      );
      assert.equal(s.markerTTL, 0);
      assert.equal(s.metadata.owner, "tests");
      assert.ok(s.size > 0);
      assert.equal(s.streamInfo.config.name, `KV_${name}`);
      await rejectsWith(kv.put("big", "x".repeat(1025)), "JETSTREAM", { code: 10054 });

      // kvm.create of an existing bucket opens it whatever the options (nats.js).
      const again = await kvm.create(name, { history: 10 });
      assert.equal((await again.status()).history, 4);
      const opened = await kvm.open(name, { timeout: 3000 });
      assert.equal((await opened.get("a")).string(), "1");
      const leader = await kvm.open(name, { allow_direct: false });
      assert.equal((await leader.get("a")).string(), "1");
      const bound = await kvm.create(name, { bindOnly: true });
      assert.equal((await bound.get("a")).string(), "1");
      await rejectsWith(kvm.open(B("missing")), "JETSTREAM", { code: 10059 });

      const js = jetstream(nc, { timeout: 4000 });
      const viaJs = await new Kvm(js).open(name);
      assert.equal((await viaJs.get("a")).string(), "1");
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: B("NOT_A_BUCKET"), subjects: [`${B("nab")}.>`] });
      const listed = [];
      for await (const status of kvm.list()) listed.push(status.bucket);
      assert.ok(listed.includes(name), listed.join());
      assert.ok(!listed.some((b) => b.includes("NOT_A_BUCKET")));
      assert.equal(await kv.destroy(), true);
      await rejectsWith(kvm.open(name), "JETSTREAM", { code: 10059 });
    });

    test("bad bucket names, keys and options are refused, naming them", async () => {
      const refused = async (promise, text) =>
        assert.rejects(promise, (e) => {
          assert.ok(e instanceof NatsError && e.kind === "INVALID_ARGUMENT", String(e));
          assert.ok(e.message.includes(text), e.message);
          return true;
        });
      await refused(kvm.create("a.b"), '"a.b"');
      await refused(kvm.create("sp ace"), '"sp ace"');
      await refused(kvm.open("x*"), '"x*"');
      const kv = await kvm.create(B("bad"));
      for (const key of [".a", "a.", "a..b", "a b", "a*", ">", "ü", ""]) {
        await refused(kv.put(key, "v"), JSON.stringify(key));
      }
      await refused(kv.get("a..b"), '"a..b"');
      await refused(kv.create("bad key", "v"), '"bad key"');
      await refused(kv.delete("a b"), '"a b"');
      await refused(kv.watch({ key: "a.>.b" }), '"a.>.b"');
      await refused(kv.keys("a b"), '"a b"');
      await refused(kv.history({ key: "" }), '""');
      await refused(kvm.create(B("opts"), { history: 1.5 }), "history");
      await refused(kvm.create(B("opts"), { ttl: -1 }), "ttl");
      await refused(kvm.create(B("opts"), { storage: "disk" }), "disk");
      await refused(kvm.create(B("opts"), { description: 5 }), "description");
      await refused(kvm.create(B("opts"), { metadata: { n: 1 } }), "metadata");
      await refused(kvm.create(B("opts"), { streamName: "OTHER" }), "OTHER");
      await refused(kvm.create(B("opts"), { mirror: { name: 5 } }), "mirror");
      await refused(kvm.create(B("opts"), { sources: [{ name: "x" }], history: -2 }), "history");
      await refused(kv.put("k", "v", { previousSeq: -1 }), "previousSeq");
      await refused(kv.get("k", { revision: 1.5 }), "revision");
      const jsm = await jetstreamManager(nc);
      await assert.rejects(jsm.streams.info(`KV_${B("opts")}`), /not found/, "nothing was made");
    });
  });
}

describe("Key-Value TTLs and markers", () => {
  let nc, kvm;
  before(async () => {
    nc = await connect({ servers: server.url });
    kvm = new Kvm(nc);
  });
  after(() => nc.close());

  test("create with a markerTTL expires the key; watchers see the PURGE marker", async () => {
    const kv = await kvm.create("ttl_markers", { markerTTL: 2000 });
    assert.equal((await kv.status()).markerTTL, 2000);
    assert.equal((await kv.status()).streamInfo.config.allow_msg_ttl, true);
    const watch = await kv.watch();
    await within(watch.caughtUp(), "caughtUp");
    const it = watch[Symbol.asyncIterator]();
    await kv.create("short", "lived", "1s");
    const [put] = await take(it, 1);
    assert.deepEqual(short(put), ["short", "PUT", "lived"]);
    const [marker] = await take(it, 1); // the server's marker once the TTL is over
    assert.deepEqual([marker.key, marker.operation], ["short", "PURGE"]);
    assert.equal((await kv.get("short")).operation, "PURGE");
    await kv.create("short", "again"); // a marker is no value: create succeeds
    watch.stop();
  });

  test("purge with a ttl: the marker goes after the ttl", async () => {
    const kv = await kvm.create("ttl_purge", { markerTTL: 1000 });
    await kv.put("p", "v");
    await kv.purge("p", { ttl: "1s" });
    assert.equal((await kv.get("p")).operation, "PURGE");
    const deadline = Date.now() + WAIT;
    while ((await kv.get("p")) !== null) {
      assert.ok(Date.now() < deadline, "the purge marker outlived its ttl");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  test("per-key TTLs need a bucket with markerTTL", async () => {
    const kv = await kvm.create("ttl_none");
    await rejectsWith(kv.create("k", "v", "1s"), "JETSTREAM");
  });
});

test("a watch goes on across a server restart", async (t) => {
  const own = await startJetStreamServer();
  t.after(() => own.close());
  const nc = await connect({ servers: own.url, reconnectTimeWait: 100, reconnectJitter: 0, maxReconnectAttempts: -1 });
  t.after(() => nc.close());
  const kv = await new Kvm(nc).create("restart");
  await kv.put("before", "1");
  const watch = await kv.watch();
  const it = watch[Symbol.asyncIterator]();
  const [before] = await take(it, 1);
  assert.equal(before.key, "before");
  await restartJetStream(own, await jetstreamManager(nc));
  await kv.put("after", "2");
  const [after] = await take(it, 1);
  assert.deepEqual([short(after), after.isUpdate], [["after", "PUT", "2"], true], "nothing repeated, nothing missed");
  watch.stop();
});
