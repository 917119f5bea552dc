// Object Store interop with nats.js (@nats-io/obj 3.4), both ways, on one
// real server: objects of 0 B, 1 B, one chunk, one chunk + 1 B and many
// chunks with description, headers and metadata, put by one client and
// read by the other (infos field by field, bytes, listings, watches), then
// replaced, renamed, linked and deleted; the meta JSON and the subjects each
// writes; the stream each makes for the same options; names outside ASCII
// (nats.js keys them by their Latin-1 bytes, natsjet finds them by name);
// and a nats.js object of more chunks than nats.js 3.4 itself can read
// (nats.js#430) read by natsjet. Differences on purpose are asserted, each
// with its reason.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { jetstreamManager as natsJsManager } from "@nats-io/jetstream";
import { headers as natsJsHeaders, wsconnect } from "@nats-io/nats-core";
import { Objm as NatsJsObjm } from "@nats-io/obj";
import WebSocket from "ws";
import { Objm, connect, headers, nanos } from "natsjet";
import { startJetStreamServer } from "./harness.mjs";

globalThis.WebSocket ??= WebSocket; // nats.js's wsconnect; Node 20 has no global one

const WAIT = 15_000;
function within(promise, what) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} in ${WAIT} ms`)), WAIT)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const bytes = (n, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 13 + seed) % 251);
const sha256 = (data) => `SHA-256=${createHash("sha256").update(data).digest("base64url")}=`;
const b64 = (name) => Buffer.from(name, "utf8").toString("base64url") + "=".repeat((3 - (Buffer.byteLength(name) % 3)) % 3);

/** An info as comparable JSON: every field nats.js's `ObjectInfo` has, but `mtime` (see `sameTime`). */
function infoJson(i) {
  const h = {};
  for (const key of i.headers.keys()) h[key] = i.headers.values(key);
  return {
    name: i.name,
    description: i.description,
    headers: h,
    options: i.options ?? {},
    metadata: i.metadata,
    bucket: i.bucket,
    nuid: i.nuid,
    size: i.size,
    chunks: i.chunks,
    digest: i.digest,
    deleted: i.deleted,
    revision: i.revision,
  };
}

/**
 * A difference on purpose: natsjet's `mtime` is when the server stored the
 * meta (its message time, as async-nats reads it), nats.js's the writer's
 * clock as its JSON says (missing from its links). Both name the same moment
 * give or take the trip to the server.
 */
function sameTime(a, b) {
  assert.ok(Math.abs(Date.parse(a) - Date.parse(b)) < 5000, `${a} and ${b}`);
}

/** The objects each writer puts: sizes around the chunk size, with and without metadata. */
const CHUNK = 1000;
const OBJECTS = [
  ["zero", 0],
  ["one", 1],
  ["chunk", CHUNK],
  ["chunk+1", CHUNK + 1],
  ["many", 12 * CHUNK + 7],
];

/** A meta of `name` with description, headers (one repeated) and metadata, in `make`'s headers. */
function fullMeta(name, make) {
  const h = make();
  h.append("X-Kind", "a");
  h.append("X-Kind", "b");
  h.set("Content-Type", "application/octet-stream");
  return { name, description: `about ${name}`, headers: h, metadata: { owner: "me", n: name }, options: { max_chunk_size: CHUNK } };
}

describe("Object Store interop with nats.js", { timeout: 120_000 }, () => {
  let server, nc, jsNc, jsm;
  const objm = {};
  before(async () => {
    server = await startJetStreamServer();
    nc = await connect({ servers: server.url });
    jsNc = await wsconnect({ servers: server.wsUrl });
    objm.natsjet = new Objm(nc);
    objm.natsjs = new NatsJsObjm(jsNc);
    jsm = await natsJsManager(jsNc);
  });
  after(async () => {
    await nc?.close();
    await jsNc?.close();
    await server?.close();
  });

  /** Bucket `name`, made by `maker`, opened by both. */
  async function bucket(name, maker, opts) {
    await objm[maker].create(name, opts);
    return { natsjet: await objm.natsjet.open(name), natsjs: await objm.natsjs.open(name) };
  }

  const make = { natsjet: headers, natsjs: natsJsHeaders };
  /** The stored meta of `name` in `bucket`, as JSON, and its subject. */
  const storedMeta = async (b, name, subject = `$O.${b}.M.${b64(name)}`) =>
    JSON.parse((await jsm.streams.getMessage(`OBJ_${b}`, { last_by_subj: subject })).string());

  for (const [writer, reader] of [
    ["natsjet", "natsjs"],
    ["natsjs", "natsjet"],
  ]) {
    test(`${writer} puts, ${reader} reads the same objects: infos, bytes, list, watch`, async () => {
      const b = `from_${writer}`;
      const os = await bucket(b, writer);
      const watch = await os[reader].watch();
      const put = {};
      for (const [name, size] of OBJECTS) {
        put[name] = await os[writer].putBlob(fullMeta(name, make[writer]), bytes(size, size));
        put[`${name}.bare`] = await os[writer].putBlob({ name: `${name}.bare` }, bytes(size));
      }
      for (const [name, size] of OBJECTS) {
        for (const key of [name, `${name}.bare`]) {
          const mine = put[key];
          const theirs = await os[reader].info(key);
          assert.deepEqual(infoJson(theirs), infoJson(mine), key);
          sameTime(theirs.mtime, mine.mtime);
          assert.equal(mine.digest, sha256(bytes(size, key === name ? size : 0)));
          assert.deepEqual(await os[reader].getBlob(key), bytes(size, key === name ? size : 0), key);
        }
        assert.deepEqual([put[name].size, put[name].chunks], [size, Math.ceil(size / CHUNK)]);
      }
      assert.deepEqual(infoJson(put.many).headers, { "X-Kind": ["a", "b"], "Content-Type": ["application/octet-stream"] });
      const listed = (await os[reader].list()).map((i) => i.name).sort();
      assert.deepEqual(listed, Object.keys(put).sort());
      const seen = [];
      for await (const i of watch) {
        seen.push([i.name, i.isUpdate]);
        if (seen.length === 10) break;
      }
      assert.deepEqual(seen, OBJECTS.flatMap(([n]) => [[n, true], [`${n}.bare`, true]]));

      // Replace, rename, link and delete by the writer, seen by the reader.
      const replaced = await os[writer].putBlob({ name: "many", options: { max_chunk_size: CHUNK } }, bytes(3 * CHUNK, 9));
      assert.deepEqual(infoJson(await os[reader].info("many")), infoJson(replaced));
      assert.deepEqual(await os[reader].getBlob("many"), bytes(3 * CHUNK, 9));
      const subjects = Object.keys((await jsm.streams.info(`OBJ_${b}`, { subjects_filter: `$O.${b}.C.>` })).state.subjects);
      assert.ok(!subjects.includes(`$O.${b}.C.${put.many.nuid}`), "the replaced chunks are gone");
      await os[writer].update("one", { name: "uno", description: "renamed", metadata: {} });
      assert.equal(await os[reader].info("one"), null);
      assert.deepEqual([(await os[reader].info("uno")).description, await os[reader].getBlob("uno")], ["renamed", bytes(1, 1)]);
      const link = await os[writer].link("link", put.chunk);
      assert.deepEqual(link.options.link, { name: "chunk", bucket: b });
      assert.deepEqual(await os[reader].getBlob("link"), bytes(CHUNK, CHUNK), "the reader follows the writer's link");
      assert.equal((await os[reader].get("link")).info.name, "chunk");
      const other = await bucket(`${b}_other`, writer);
      await os[writer].linkStore("all", other[writer]);
      assert.deepEqual((await os[reader].info("all")).options.link, { bucket: `${b}_other` });
      await os[writer].delete("chunk+1");
      const deleted = await os[reader].info("chunk+1");
      assert.deepEqual([deleted.deleted, deleted.size, deleted.chunks], [true, 0, 0]);
      // A difference on purpose: natsjet leaves an empty digest out of a
      // deleted meta, as nats.go does (omitempty); nats.js's info then
      // hands out the missing field as it is, natsjet's reads it as "".
      assert.equal(deleted.digest, reader === "natsjs" ? undefined : "");
      assert.equal(await os[reader].get("chunk+1"), null);
      assert.ok(!(await os[reader].list()).some((i) => i.name === "chunk+1"));
    });

    test(`the reader writes over what ${writer} wrote, and ${writer} reads it`, async () => {
      const b = `over_${writer}`;
      const os = await bucket(b, writer);
      await os[writer].putBlob({ name: "x", options: { max_chunk_size: CHUNK } }, bytes(5 * CHUNK));
      const again = await os[reader].putBlob({ name: "x", options: { max_chunk_size: CHUNK } }, bytes(2 * CHUNK + 1, 5));
      assert.deepEqual(infoJson(await os[writer].info("x")), infoJson(again));
      assert.deepEqual(await os[writer].getBlob("x"), bytes(2 * CHUNK + 1, 5));
      assert.equal((await jsm.streams.info(`OBJ_${b}`)).state.messages, 4, "3 chunks and a meta: the first put's chunks purged");
      await os[reader].delete("x");
      assert.equal(await os[writer].get("x"), null);
    });
  }

  test("the meta JSON and the subjects each writes", async () => {
    const os = await bucket("layout", "natsjet");
    const mine = await os.natsjet.putBlob(fullMeta("m", headers), bytes(2500));
    const theirs = await os.natsjs.putBlob(fullMeta("j", natsJsHeaders), bytes(2500));
    const [a, b] = [await storedMeta("layout", "m"), await storedMeta("layout", "j")];
    // Differences on purpose: natsjet leaves out an empty description and
    // `deleted: false`, as nats.go and async-nats do; every client reads
    // both the same. mtime and nuid are each put's own.
    assert.deepEqual(Object.keys(a).sort(), ["bucket", "chunks", "description", "digest", "headers", "metadata", "mtime", "name", "nuid", "options", "size"]);
    assert.deepEqual(Object.keys(b).sort(), [...Object.keys(a), "deleted"].sort());
    assert.equal(b.deleted, false);
    const same = (m) => ({ ...m, name: undefined, description: undefined, metadata: { ...m.metadata, n: undefined }, nuid: undefined, mtime: undefined, deleted: undefined });
    assert.deepEqual(same(a), same(b));
    assert.equal(a.digest, b.digest);
    assert.match(a.mtime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const bare = { natsjet: await os.natsjet.putBlob({ name: "bm" }, null), natsjs: await os.natsjs.putBlob({ name: "bj" }, null) };
    const [c, d] = [await storedMeta("layout", "bm"), await storedMeta("layout", "bj")];
    assert.equal(c.description, undefined);
    assert.equal(d.description, "", "nats.js writes an empty description");
    assert.deepEqual([c.size, c.chunks, c.digest], [d.size, d.chunks, d.digest]);
    assert.deepEqual([bare.natsjet.digest, bare.natsjs.digest], [sha256(new Uint8Array(0)), sha256(new Uint8Array(0))]);
    // The subjects: chunks on $O.<bucket>.C.<nuid>, metas on $O.<bucket>.M.<padded base64url of the name>.
    const subjects = Object.keys((await jsm.streams.info("OBJ_layout", { subjects_filter: ">" })).state.subjects).sort();
    assert.deepEqual(
      subjects,
      [`$O.layout.C.${mine.nuid}`, `$O.layout.C.${theirs.nuid}`, ...["m", "j", "bm", "bj"].map((n) => `$O.layout.M.${b64(n)}`)].sort(),
    );
    // A link's meta: nats.js's has no nuid, size or mtime (WIRE.md); natsjet's has them, empty.
    await os.natsjet.link("lm", mine);
    await os.natsjs.link("lj", theirs);
    const [e, f] = [await storedMeta("layout", "lm"), await storedMeta("layout", "lj")];
    assert.deepEqual(e.options, { link: { name: "m", bucket: "layout" } });
    assert.deepEqual(f.options, { link: { bucket: "layout", name: "j" } });
    assert.deepEqual([f.nuid, f.size, f.mtime], [undefined, undefined, undefined]);
    assert.deepEqual([e.size, e.chunks, typeof e.nuid, typeof e.mtime], [0, 0, "string", "string"]);
    // A deleted object's meta: both say deleted, size 0, no digest.
    await os.natsjet.delete("m");
    await os.natsjs.delete("j");
    const [g, h] = [await storedMeta("layout", "m"), await storedMeta("layout", "j")];
    assert.deepEqual([g.deleted, g.size, g.chunks, g.digest], [true, 0, 0, undefined]);
    assert.deepEqual([h.deleted, h.size, h.chunks, h.digest], [true, 0, 0, ""]);
  });

  test("the stream each makes for the same options", async () => {
    const opts = { description: "files", ttl: nanos(60_000), storage: "memory", replicas: 1, max_bytes: 1 << 20, metadata: { a: "1" }, compression: true };
    await objm.natsjet.create("cfg_natsjet", opts);
    await objm.natsjs.create("cfg_natsjs", opts);
    const config = async (b) => {
      const { name, subjects, metadata, ...rest } = (await jsm.streams.info(`OBJ_${b}`)).config;
      return { name: name.slice(4), subjects: subjects.map((s) => s.replace(b, "B")), owner: metadata.a, ...rest };
    };
    const [a, b] = [await config("cfg_natsjet"), await config("cfg_natsjs")];
    assert.deepEqual({ ...a, name: "" }, { ...b, name: "" });
    assert.deepEqual(
      [a.subjects, a.discard, a.allow_rollup_hdrs, a.allow_direct, a.max_age, a.storage, a.compression, a.owner],
      [["$O.B.C.>", "$O.B.M.>"], "new", true, true, nanos(60_000), "memory", "s2", "1"],
    );
    const status = { natsjet: await (await objm.natsjet.open("cfg_natsjs")).status(), natsjs: await (await objm.natsjs.open("cfg_natsjet")).status() };
    for (const [who, s] of Object.entries(status)) {
      assert.deepEqual(
        [s.description, s.ttl, s.storage, s.replicas, s.sealed, s.compression, s.backingStore],
        ["files", nanos(60_000), "memory", 1, false, true, "JetStream"],
        who,
      );
    }
    const listed = { natsjet: [], natsjs: [] };
    for await (const s of objm.natsjet.list()) listed.natsjet.push(s.bucket);
    for await (const s of objm.natsjs.list()) listed.natsjs.push(s.bucket);
    assert.deepEqual(listed.natsjet.sort(), listed.natsjs.sort());
  });

  test("names outside ASCII: nats.js keys them by Latin-1, natsjet finds either by name", async () => {
    const os = await bucket("latin", "natsjs");
    const name = "café-ü.txt";
    const latin1 = "$O.latin.M.Y2Fm6S38LnR4dA==";
    const utf8 = "$O.latin.M.Y2Fmw6ktw7wudHh0";
    // nats.js writes it under the base64 of its Latin-1 bytes; natsjet finds it by name.
    const theirs = await os.natsjs.putBlob({ name }, bytes(1500));
    assert.equal((await storedMeta("latin", name, latin1)).name, name);
    assert.deepEqual(infoJson(await os.natsjet.info(name)), infoJson(theirs));
    assert.deepEqual(await os.natsjet.getBlob(name), bytes(1500));
    // natsjet's own put goes under the UTF-8 subject (as nats.go and
    // async-nats) and replaces nats.js's: one meta, one set of chunks left.
    const mine = await os.natsjet.putBlob({ name }, bytes(700, 1));
    assert.equal((await storedMeta("latin", name, utf8)).name, name);
    assert.equal(await jsm.streams.getMessage("OBJ_latin", { last_by_subj: latin1 }), null, "nats.js's meta was purged");
    assert.equal((await jsm.streams.info("OBJ_latin")).state.messages, 2);
    assert.deepEqual((await os.natsjet.list()).map((i) => i.name), [name]);
    assert.deepEqual(infoJson(await os.natsjet.info(name)), infoJson(mine));
    // A difference on purpose, nats.js's (WIRE.md): it looks under its
    // Latin-1 subject only, so it no longer finds the object by name; its
    // listing does show it.
    assert.equal(await os.natsjs.info(name), null);
    assert.deepEqual((await os.natsjs.list()).map((i) => i.name), [name]);
    // nats.js writes it again: the newer meta is the object for natsjet.
    await os.natsjs.putBlob({ name }, bytes(10, 2));
    assert.deepEqual(await os.natsjet.getBlob(name), bytes(10, 2));
    await os.natsjet.delete(name);
    assert.equal(await os.natsjet.get(name), null);
    assert.equal((await os.natsjs.info(name)).deleted, true, "natsjet's delete stays where the object was");
    // Above U+00FF nats.js cannot encode a name (btoa throws); natsjet can.
    await assert.rejects(os.natsjs.putBlob({ name: "snow ☃" }, bytes(1)));
    await os.natsjet.putBlob({ name: "snow ☃" }, bytes(1));
    assert.deepEqual(await os.natsjet.getBlob("snow ☃"), bytes(1));
  });

  test("natsjet reads a nats.js object of more chunks than nats.js 3.4 reads (nats.js#430)", async () => {
    const os = await bucket("large", "natsjs");
    const data = new Uint8Array(randomBytes(40 * 128 * 1024 + 99));
    const info = await os.natsjs.putBlob({ name: "big" }, data);
    assert.equal(info.chunks, 41);
    let done = 0;
    const got = await within(os.natsjet.getBlob("big", { progress: (n) => (done = n) }), "the large object");
    assert.equal(got.length, data.length);
    assert.ok(Buffer.from(got).equals(Buffer.from(data)));
    assert.equal(done, data.length);
    // And nats.js reads what natsjet puts in as many chunks, up to its 16.
    const mine = await os.natsjet.putBlob({ name: "sixteen" }, data.subarray(0, 16 * 128 * 1024));
    assert.equal(mine.chunks, 16);
    assert.ok(Buffer.from(await within(os.natsjs.getBlob("sixteen"), "16 chunks")).equals(Buffer.from(data.subarray(0, 16 * 128 * 1024))));
  });
});
