// Key-Value interop with nats.js (@nats-io/kv 3.4), both ways, on one real
// server: what natsjet writes nats.js reads and the other way round, entry
// by entry (keys with '/', '=' and '.', empty values, revisions, history
// limits, DEL and PURGE markers, TTL markers), watch order and the
// caught-up signal; plus the stream config each makes for the same options
// and the raw headers each writes, where a difference must be on purpose.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { jetstreamManager as natsJsManager } from "@nats-io/jetstream";
import { Kvm as NatsJsKvm } from "@nats-io/kv";
import { wsconnect } from "@nats-io/nats-core";
import WebSocket from "ws";
import { Kvm, connect } from "natsjet";
import { startJetStreamServer } from "./harness.mjs";

globalThis.WebSocket ??= WebSocket; // nats.js's wsconnect; Node 20 has no global one

const WAIT = 15_000;
function within(promise, what) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} in ${WAIT} ms`)), WAIT)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** An entry as comparable JSON: every field nats.js's `KvEntry` (and `KvWatchEntry`) has. */
function entryJson(e) {
  const json = {
    bucket: e.bucket,
    key: e.key,
    rawKey: e.rawKey,
    value: [...e.value],
    string: e.string(),
    created: e.created.getTime(),
    revision: e.revision,
    delta: e.delta,
    operation: e.operation,
    length: e.length,
  };
  if ("isUpdate" in e) json.isUpdate = e.isUpdate;
  return json;
}

/**
 * Lets `created` differ by 1 ms between the clients, in place: nats.js reads
 * a watch entry's nanoseconds into a double, which can round up past a
 * millisecond boundary; natsjet truncates the exact integer.
 */
function alignInstants(theirs, mine) {
  if (typeof theirs !== "object" || theirs === null || typeof mine !== "object" || mine === null) return;
  for (const key of Object.keys(theirs)) {
    const [t, m] = [theirs[key], mine[key]];
    if (key === "created" && typeof t === "number" && typeof m === "number" && Math.abs(t - m) <= 1) theirs[key] = m;
    else alignInstants(t, m);
  }
}

/** The next `n` entries of a watch's iterator (nats.js's can be made once), as JSON. */
async function take(it, n) {
  const got = [];
  while (got.length < n) {
    const { done, value } = await within(it.next(), `watch entry ${got.length + 1}`);
    assert.ok(!done, `ended after ${got.length}`);
    got.push(entryJson(value));
  }
  return got;
}

const iterate = (watch) => watch[Symbol.asyncIterator]();

async function all(iterable) {
  const got = [];
  for await (const item of iterable) got.push(typeof item === "string" ? item : entryJson(item));
  return got;
}

/** A bucket of each client's own name in the other's entries: only `bucket` differs. */
const rebucket = (entries, bucket) => entries.map((e) => ({ ...e, bucket }));

const KEYS = ["a/b", "x=y", "p.q.r", "empty", "gone", "purged"];

/** The same writes through either client's `KV`; resolves to what each call returned. */
async function writeAll(kv) {
  const r = {};
  r.ab = await kv.put("a/b", "one");
  r.ab2 = await kv.update("a/b", "two", r.ab);
  r.ab3 = await kv.put("a/b", "three");
  r.xy = await kv.create("x=y", new Uint8Array([0, 1, 255]));
  r.pqr = await kv.put("p.q.r", "{\"n\":1}");
  r.empty = await kv.put("empty", "");
  await kv.put("gone", "soon deleted");
  await kv.delete("gone");
  await kv.put("purged", "1");
  await kv.put("purged", "2");
  await kv.purge("purged");
  return r;
}

/** What a reader sees of a bucket: latest entries, revisions, history, keys. */
async function readAll(kv, r) {
  const latest = [];
  for (const k of KEYS) latest.push(entryJson(await kv.get(k)));
  return {
    latest,
    atRevision: entryJson(await kv.get("a/b", { revision: r.ab2 })),
    beyondHistory: await kv.get("a/b", { revision: r.ab }),
    otherKeysRevision: await kv.get("x=y", { revision: r.ab2 }),
    history: await all(await kv.history({ key: "a/b" })),
    allHistory: await all(await kv.history()),
    keys: (await all(await kv.keys())).sort(),
    filtered: (await all(await kv.keys("p.>"))).sort(),
  };
}

describe("Key-Value interop with nats.js", { timeout: 60_000 }, () => {
  let server, nc, jsNc, kvm, jsKvm, jsm;
  before(async () => {
    server = await startJetStreamServer();
    nc = await connect({ servers: server.url });
    jsNc = await wsconnect({ servers: server.wsUrl });
    kvm = new Kvm(nc);
    jsKvm = new NatsJsKvm(jsNc);
    jsm = await natsJsManager(jsNc);
  });
  after(async () => {
    await nc?.close();
    await jsNc?.close();
    await server?.close();
  });

  /** A bucket made by `maker`, opened by both clients. */
  async function bucket(name, maker, opts) {
    await (maker === "natsjet" ? kvm : jsKvm).create(name, opts);
    return { natsjet: await kvm.open(name), natsjs: await jsKvm.open(name) };
  }

  for (const [writer, reader] of [
    ["natsjet", "natsjs"],
    ["natsjs", "natsjet"],
  ]) {
    test(`${writer} writes, ${reader} reads the same entries as ${writer}`, async () => {
      const name = `from_${writer}`;
      const kv = await bucket(name, writer, { history: 2 });
      const r = await writeAll(kv[writer]);
      const mine = await readAll(kv[writer], r);
      const theirs = await readAll(kv[reader], r);
      alignInstants(theirs, mine);
      assert.deepEqual(theirs, mine);
      // What both saw, spelled out: history limits, markers, empty values.
      assert.deepEqual(mine.history.map((e) => [e.string, e.revision, e.delta]), [
        ["two", r.ab2, 1],
        ["three", r.ab3, 0],
      ]);
      assert.deepEqual(mine.latest.map((e) => [e.key, e.operation, e.length]), [
        ["a/b", "PUT", 5],
        ["x=y", "PUT", 3],
        ["p.q.r", "PUT", 7],
        ["empty", "PUT", 0],
        ["gone", "DEL", 0],
        ["purged", "PURGE", 0],
      ]);
      assert.deepEqual([mine.beyondHistory, mine.otherKeysRevision], [null, null]);
      assert.deepEqual(mine.keys, ["a/b", "empty", "p.q.r", "x=y"]);
      assert.deepEqual(mine.filtered, ["p.q.r"]);
      // A create over a marker works in either client, on what the other wrote.
      await kv[reader].create("gone", "back");
      await kv[reader].create("purged", "back");
      assert.equal((await kv[writer].get("gone")).string(), "back");
    });
  }

  test("watch order, isUpdate and the caught-up signal agree", async () => {
    const kv = await bucket("watching", "natsjet", { history: 5 });
    const empty = { natsjet: await kv.natsjet.watch(), natsjs: await kv.natsjs.watch() };
    const emptyIt = { natsjet: iterate(empty.natsjet), natsjs: iterate(empty.natsjs) };
    // natsjet says an empty watch caught up; nats.js has no such signal
    // (nats.js#270): its only sign is the next entry's isUpdate.
    await within(empty.natsjet.caughtUp(), "caughtUp over an empty bucket");
    await kv.natsjs.put("k.1", "a");
    await kv.natsjet.put("k.2", "b");
    await kv.natsjs.put("k.1", "c");
    await kv.natsjet.delete("k.2");
    const [first, second] = [await take(emptyIt.natsjet, 4), await take(emptyIt.natsjs, 4)];
    assert.deepEqual(first, rebucket(second, "watching"));
    assert.deepEqual(first.map((e) => [e.key, e.operation, e.isUpdate]), [
      ["k.1", "PUT", true],
      ["k.2", "PUT", true],
      ["k.1", "PUT", true],
      ["k.2", "DEL", true],
    ]);
    empty.natsjet.stop();
    empty.natsjs.stop();

    for (const include of ["", "history"]) {
      const natsjet = await kv.natsjet.watch({ include });
      const natsjs = await kv.natsjs.watch({ include });
      const its = [iterate(natsjet), iterate(natsjs)];
      const n = include === "" ? 2 : 5; // the first round put k.3
      const [a, b] = [await take(its[0], n), await take(its[1], n)];
      assert.deepEqual(a, b, `include ${JSON.stringify(include)}`);
      assert.deepEqual(a.map((e) => e.isUpdate), [...Array(n - 1).fill(false), true], "the last initial entry is the first update");
      const next = [its[0].next(), its[1].next()]; // done with the initial entries: natsjet caught up
      await within(natsjet.caughtUp(), "caughtUp");
      await kv.natsjs.put("k.3", include);
      const [x, y] = (await within(Promise.all(next), "the update")).map(({ value }) => entryJson(value));
      assert.deepEqual(x, y);
      assert.equal(x.isUpdate, true);
      natsjet.stop();
      natsjs.stop();
    }

    // A difference on purpose: natsjet's ignoreDeletes leaves out purges
    // too (as nats.go and async-nats do); nats.js 3.4 leaves out DEL only.
    await kv.natsjet.purge("k.3");
    const natsjet = await kv.natsjet.watch({ ignoreDeletes: true, key: "k.*" });
    const natsjs = await kv.natsjs.watch({ ignoreDeletes: true, key: "k.*" });
    const mine = iterate(natsjet);
    assert.deepEqual((await take(mine, 1)).map((e) => [e.key, e.operation]), [["k.1", "PUT"]]);
    void mine.next(); // reads on, over the left-out purge
    assert.deepEqual((await take(iterate(natsjs), 2)).map((e) => [e.key, e.operation]), [
      ["k.1", "PUT"],
      ["k.3", "PURGE"],
    ]);
    await within(natsjet.caughtUp(), "caughtUp past the left-out delete and purge");
    natsjet.stop();
    natsjs.stop();
  });

  test("TTL markers: a key's TTL and its marker read the same in both", async () => {
    for (const maker of ["natsjet", "natsjs"]) {
      const name = `ttl_${maker}`;
      const kv = await bucket(name, maker, { markerTTL: 2000 });
      const watches = { natsjet: await kv.natsjet.watch(), natsjs: await kv.natsjs.watch() };
      await kv[maker].create("t", "v", "1s");
      const [a, b] = [await take(iterate(watches.natsjet), 2), await take(iterate(watches.natsjs), 2)];
      assert.deepEqual(a, b, maker);
      assert.deepEqual(a.map((e) => e.operation), ["PUT", "PURGE"], "the server's MaxAge marker reads as a purge");
      assert.deepEqual(entryJson(await kv.natsjet.get("t")), entryJson(await kv.natsjs.get("t")));
      watches.natsjet.stop();
      watches.natsjs.stop();
    }
  });

  test("the same options make the same stream, but for deny_delete", async () => {
    const opts = {
      history: 7,
      ttl: 90_000,
      max_bytes: 4096,
      maxValueSize: 512,
      storage: "memory",
      replicas: 1,
      description: "same",
      compression: true,
      markerTTL: 5000,
      metadata: { team: "interop" },
    };
    await kvm.create("cfg_natsjet", opts);
    await jsKvm.create("cfg_natsjs", opts);
    const config = async (bucket) => {
      const { config } = await jsm.streams.info(`KV_${bucket}`);
      const { name, subjects, ...rest } = config;
      assert.deepEqual([name, subjects], [`KV_${bucket}`, [`$KV.${bucket}.>`]]);
      return rest;
    };
    const [mine, theirs] = [await config("cfg_natsjet"), await config("cfg_natsjs")];
    // On purpose: natsjet's buckets deny deleting single messages, as
    // nats.go and async-nats make them (ADR-8); nats.js 3.4 leaves it off.
    assert.deepEqual([mine.deny_delete, theirs.deny_delete], [true, false]);
    assert.deepEqual({ ...mine, deny_delete: false }, theirs);
    // The KvStatus each reports of either bucket is the same but for its name.
    for (const bucket of ["cfg_natsjet", "cfg_natsjs"]) {
      const a = await (await kvm.open(bucket)).status();
      const b = await (await jsKvm.open(bucket)).status();
      for (const field of ["bucket", "values", "history", "ttl", "markerTTL", "storage", "replicas", "description", "max_bytes", "maxValueSize", "compression", "size", "metadata"]) {
        assert.deepEqual(a[field], b[field], `${bucket} ${field}`);
      }
      assert.deepEqual(a.streamInfo.config, b.streamInfo.config);
    }
    const listed = [];
    for await (const s of kvm.list()) listed.push(s.bucket);
    const theirList = [];
    for await (const s of jsKvm.list()) theirList.push(s.bucket);
    assert.deepEqual(listed.sort(), theirList.sort());
  });

  test("the raw headers of puts, deletes, purges and TTLs are the same", async () => {
    const stored = {};
    for (const maker of ["natsjet", "natsjs"]) {
      const name = `hdr_${maker}`;
      const kv = (await bucket(name, maker, { markerTTL: 60_000, history: 10 }))[maker];
      const seqs = [];
      seqs.push(await kv.put("k", "v"));
      seqs.push(await kv.update("k", "w", seqs[0]));
      seqs.push(await kv.create("t", "v", "30s"));
      await kv.delete("k");
      await kv.delete("t", { previousSeq: seqs[2] });
      await kv.purge("k");
      await kv.purge("t", { ttl: "20s" });
      const last = (await jsm.streams.info(`KV_${name}`)).state.last_seq;
      stored[maker] = [];
      for (let seq = 1; seq <= last; seq++) {
        const m = await jsm.direct.getMessage(`KV_${name}`, { seq });
        if (m === null) continue; // rolled up by a purge
        const h = {};
        for (const [k, v] of m.header) if (!k.startsWith("Nats-") || !/^Nats-(Stream|Sequence|Time-Stamp|Subject|Num-Pending|Last-Sequence)$/.test(k)) h[k] = v;
        stored[maker].push({ seq, subject: m.subject.replace(name, "B"), data: m.string(), headers: h });
      }
    }
    assert.deepEqual(stored.natsjet, stored.natsjs);
    // What both wrote, spelled out (the purges rolled up every earlier
    // message). The server stores a purge marker's TTL as the bucket's
    // marker TTL in seconds (nats-server 2.15), whichever client sent "20s".
    assert.deepEqual(
      stored.natsjet.map((m) => [m.subject, m.headers]),
      [
        ["$KV.B.k", { "KV-Operation": ["PURGE"], "Nats-Rollup": ["sub"] }],
        ["$KV.B.t", { "KV-Operation": ["PURGE"], "Nats-Rollup": ["sub"], "Nats-TTL": ["60"] }],
      ],
    );
  });
});
