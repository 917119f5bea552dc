// The Object Store API (nats.js 3.4's @nats-io/obj shapes) through the built
// package's Node entry against a real nats-server, over ws:// and nats://:
// buckets made, opened, listed, sealed and destroyed; objects of 0 B, 1 B,
// exactly one chunk, one chunk + 1 byte and many chunks, with description,
// headers and metadata, put from blobs and streams, replaced, deleted,
// renamed, linked and watched; progress; a chunk altered behind the store's
// back ends the get in DIGEST_MISMATCH, a missing one in SIZE_MISMATCH,
// with node:crypto's SHA-256 (the Node entry's) and with the wasm's own;
// bad names and options refused before anything is written.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import {
  InvalidArgumentError,
  JetStreamApiError,
  NatsError,
  Objm,
  StorageType,
  StreamNotFoundError,
  connect,
  headers,
  isMessageNotFound,
  jetstream,
  jetstreamManager,
  nanos,
} from "natsjet";
import { rejectsWith, startJetStreamServer } from "./harness.mjs";

// The package's own module of object digests, to choose the SHA-256 they are made with.
const digests = await import(new URL("obj/digest.js", import.meta.resolve("natsjet/package.json")).href);

/** Bounds every wait on the server: a hang fails the test instead of stalling it. */
const WAIT = 15_000;

function within(promise, what, ms = WAIT) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} in ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** `n` bytes that differ from chunk to chunk. */
const bytes = (n, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) % 251);
const sha256 = (data) => `SHA-256=${createHash("sha256").update(data).digest("base64url")}=`;

/** A ReadableStream handing out `data` in pieces of the given sizes (the rest in one). */
function streamOf(data, ...sizes) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= data.length) return controller.close();
      const size = sizes.shift() ?? data.length - at;
      controller.enqueue(data.slice(at, at + size));
      at += size;
    },
  });
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

/** Progress calls, checked to be monotone and to end at `total`. */
function progressLog() {
  const calls = [];
  const progress = (done, total) => calls.push([done, total]);
  // `total` left out: the size; given as undefined: none.
  const check = (size, ...total) => {
    assert.ok(calls.length > 0, "progress was called");
    for (let i = 1; i < calls.length; i++) assert.ok(calls[i][0] >= calls[i - 1][0], `monotone: ${calls}`);
    assert.deepEqual(calls.at(-1), [size, total.length ? total[0] : size]);
  };
  return { progress, calls, check };
}

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

for (const transport of ["ws", "nats"]) {
  describe(`Object Store over ${transport}://`, () => {
    let nc, objm, jsm;
    const B = (name) => `${transport}_${name}`;
    /** The messages in bucket `bucket`'s stream. */
    const messages = async (bucket) => (await jsm.streams.info(`OBJ_${bucket}`)).state.messages;
    before(async () => {
      nc = await connect({ servers: transport === "ws" ? server.wsUrl : server.url });
      objm = new Objm(nc);
      jsm = await jetstreamManager(nc);
    });
    after(() => nc.close());

    test("objects of 0 B, 1 B, one chunk, one chunk + 1 B and many chunks: infos and bytes", async () => {
      const os = await objm.create(B("sizes"));
      const chunk = 1000;
      for (const [name, size, chunks] of [
        ["zero", 0, 0],
        ["one", 1, 1],
        ["chunk", chunk, 1],
        ["chunk+1", chunk + 1, 2],
        ["many", 25 * chunk + 17, 26],
      ]) {
        const data = bytes(size, name.length);
        const before = Date.now();
        const info = await os.putBlob({ name, options: { max_chunk_size: chunk } }, data);
        assert.equal(info.name, name);
        assert.equal(info.bucket, B("sizes"));
        assert.deepEqual([info.size, info.chunks, info.deleted], [size, chunks, false], name);
        assert.equal(info.digest, sha256(data), name);
        assert.deepEqual(info.options, { max_chunk_size: chunk });
        assert.match(info.nuid, /^[A-Za-z0-9]{22}$/);
        assert.ok(info.revision > 0);
        assert.ok(Math.abs(Date.parse(info.mtime) - before) < 60_000, info.mtime);
        const found = await os.info(name);
        assert.deepEqual(
          [found.name, found.size, found.chunks, found.digest, found.nuid, found.revision],
          [name, size, chunks, info.digest, info.nuid, info.revision],
        );
        assert.deepEqual(await os.getBlob(name), data, name);
        const result = await os.get(name);
        assert.equal(result.info.revision, info.revision);
        const read = new Uint8Array(await new Response(result.data).arrayBuffer());
        assert.deepEqual(read, data);
        assert.equal(await result.error, null);
      }
      assert.deepEqual((await os.list()).map((i) => i.name).sort(), ["chunk", "chunk+1", "many", "one", "zero"]);
      assert.equal(await os.info("never"), null);
      assert.equal(await os.get("never"), null);
      assert.equal(await os.getBlob("never"), null);
    });

    test("description, headers and metadata are kept; putBlob(null) is an empty object", async () => {
      const os = await objm.create(B("meta"));
      const h = headers();
      h.append("X-Kind", "report");
      h.append("X-Kind", "pdf");
      h.append("Content-Type", "application/pdf");
      const meta = { name: "report.pdf", description: "Q3", headers: h, metadata: { team: "a", year: "2026" } };
      const put = await os.putBlob(meta, bytes(5000));
      for (const info of [put, await os.info("report.pdf"), (await os.get("report.pdf")).info, (await os.list())[0]]) {
        assert.equal(info.description, "Q3");
        assert.deepEqual(info.metadata, { team: "a", year: "2026" });
        assert.deepEqual(info.headers.values("X-Kind"), ["report", "pdf"]);
        assert.equal(info.headers.get("Content-Type"), "application/pdf");
      }
      const empty = await os.putBlob({ name: "nothing" }, null);
      assert.deepEqual([empty.size, empty.chunks, empty.description, empty.digest], [0, 0, "", sha256(new Uint8Array(0))]);
      assert.deepEqual(empty.metadata, {});
      assert.deepEqual(empty.headers.keys(), []);
      assert.deepEqual(await os.getBlob("nothing"), new Uint8Array(0));
    });

    test("put from a ReadableStream of uneven pieces, with progress of bytes stored and received", async () => {
      const os = await objm.create(B("stream"));
      const data = bytes(700_000);
      const put = progressLog();
      const info = await os.put({ name: "s" }, streamOf(data, 1, 99_999, 300_000, 7), { progress: put.progress, size: data.length });
      assert.deepEqual([info.size, info.chunks, info.digest], [data.length, 6, sha256(data)]);
      put.check(data.length);
      const unsized = progressLog();
      await os.put({ name: "u" }, streamOf(data), { progress: unsized.progress });
      unsized.check(data.length, undefined);
      const blob = progressLog();
      await os.putBlob({ name: "b" }, data, { progress: blob.progress, timeout: 5000 });
      blob.check(data.length);
      const got = progressLog();
      assert.deepEqual(await os.getBlob("s", { progress: got.progress }), data);
      got.check(data.length);
      assert.ok(got.calls.length >= 6, "once per chunk");
      const streamed = progressLog();
      const result = await os.get("s", { progress: streamed.progress });
      await new Response(result.data).arrayBuffer();
      streamed.check(data.length);
    });

    test("a stream that fails mid-put rejects with its error and leaves no chunks", async () => {
      const os = await objm.create(B("failed"));
      await os.putBlob({ name: "kept" }, bytes(10));
      const before = await messages(B("failed"));
      let sent = 0;
      const failing = new ReadableStream({
        pull(controller) {
          if (sent++ < 3) controller.enqueue(bytes(200_000));
          else controller.error(new Error("disk gone"));
        },
      });
      await assert.rejects(os.put({ name: "broken" }, failing), /disk gone/);
      assert.equal(await messages(B("failed")), before, "the partial chunks were purged");
      assert.equal(await os.info("broken"), null);
      assert.deepEqual(await os.getBlob("kept"), bytes(10));
    });

    test("replace: the old chunks go once the new meta is stored; previousRevision", async () => {
      const os = await objm.create(B("replace"));
      const first = await os.putBlob({ name: "r", options: { max_chunk_size: 100 } }, bytes(1000));
      assert.equal(await messages(B("replace")), 11);
      const second = await os.putBlob({ name: "r", options: { max_chunk_size: 100 } }, bytes(250, 3));
      assert.notEqual(second.nuid, first.nuid);
      assert.ok(second.revision > first.revision);
      assert.equal(await messages(B("replace")), 4, "3 new chunks and the meta");
      assert.deepEqual(await os.getBlob("r"), bytes(250, 3));
      await rejectsWith(os.putBlob({ name: "r" }, bytes(1), { previousRevision: first.revision }), "JETSTREAM", { code: 10071 });
      await rejectsWith(os.putBlob({ name: "fresh" }, bytes(1), { previousRevision: second.revision }), "JETSTREAM", { code: 10071 });
      assert.equal(await messages(B("replace")), 4, "refused puts leave nothing behind");
      const third = await os.putBlob({ name: "r" }, bytes(2), { previousRevision: second.revision });
      await os.putBlob({ name: "fresh" }, bytes(1), { previousRevision: 0 });
      assert.deepEqual(await os.getBlob("r"), bytes(2));
      assert.equal((await os.info("r")).revision, third.revision);
    });

    test("delete: the meta says deleted, the chunks are purged, gets are null", async () => {
      const os = await objm.create(B("delete"));
      await os.putBlob({ name: "d", options: { max_chunk_size: 100 } }, bytes(350));
      await os.putBlob({ name: "stays" }, bytes(3));
      assert.deepEqual(await os.delete("d"), { success: true, purged: 4 });
      const info = await os.info("d");
      assert.deepEqual([info.deleted, info.size, info.chunks, info.digest], [true, 0, 0, ""]);
      assert.equal(await os.get("d"), null);
      assert.equal(await os.getBlob("d"), null);
      assert.deepEqual((await os.list()).map((i) => i.name), ["stays"]);
      assert.deepEqual(await os.delete("never"), { success: false, purged: 0 });
      assert.equal(await messages(B("delete")), 3, "the deleted meta, stays's chunk and meta");
      // A deleted name can be put again.
      await os.putBlob({ name: "d" }, bytes(5));
      assert.deepEqual(await os.getBlob("d"), bytes(5));
    });

    test("update: rename, new description and metadata, headers kept unless given", async () => {
      const os = await objm.create(B("update"));
      const h = headers();
      h.set("X-A", "1");
      await os.putBlob({ name: "old", description: "first", headers: h, metadata: { a: "1" } }, bytes(300));
      const ack = await os.update("old", { name: "new", description: "second", metadata: { b: "2" } });
      assert.equal(ack.stream, `OBJ_${B("update")}`);
      assert.equal(ack.duplicate, false);
      assert.equal(await os.info("old"), null);
      const renamed = await os.info("new");
      assert.equal(renamed.revision, ack.seq);
      assert.deepEqual([renamed.description, renamed.metadata, renamed.headers.get("X-A")], ["second", { b: "2" }, "1"]);
      assert.deepEqual(await os.getBlob("new"), bytes(300), "the chunks follow the name");
      const h2 = headers();
      h2.set("X-B", "2");
      await os.update("new", { headers: h2 });
      const changed = await os.info("new");
      assert.deepEqual([changed.description, changed.headers.get("X-A"), changed.headers.get("X-B")], ["", "", "2"]);
      await os.putBlob({ name: "taken" }, bytes(1));
      await rejectsWith(os.update("new", { name: "taken" }), "INVALID_ARGUMENT");
      await assert.rejects(os.update("never", {}), (e) => isMessageNotFound(e));
      await os.delete("taken");
      await assert.rejects(os.update("taken", { description: "x" }), (e) => isMessageNotFound(e), "deleted: not found");
      await os.update("new", { name: "taken" });
      assert.deepEqual(await os.getBlob("taken"), bytes(300), "a deleted object's name is free");
    });

    test("links to objects in this and another bucket, and to a bucket", async () => {
      const os = await objm.create(B("links"));
      const other = await objm.create(B("links_other"));
      const target = await os.putBlob({ name: "target", description: "t" }, bytes(2500));
      const far = await other.putBlob({ name: "far" }, bytes(40));
      const link = await os.link("here", target);
      assert.deepEqual([link.name, link.bucket, link.options.link], ["here", B("links"), { name: "target", bucket: B("links") }]);
      assert.ok(link.revision > 0);
      const viaLink = await os.get("here");
      assert.equal(viaLink.info.name, "target", "a get follows the link");
      assert.deepEqual(await os.getBlob("here"), bytes(2500));
      await os.link("away", far);
      assert.deepEqual(await os.getBlob("away"), bytes(40));
      assert.deepEqual((await os.info("away")).options.link, { name: "far", bucket: B("links_other") });
      const storeLink = await os.linkStore("all", other);
      assert.deepEqual(storeLink.options.link, { bucket: B("links_other") });
      await rejectsWith(os.get("all"), "INVALID_ARGUMENT");
      // A link to a link, a name an object has, a deleted object: refused.
      await rejectsWith(os.link("again", link), "INVALID_ARGUMENT");
      await rejectsWith(os.link("target", far), "INVALID_ARGUMENT");
      await os.delete("target");
      await rejectsWith(os.link("late", await os.info("target")), "INVALID_ARGUMENT");
      assert.equal(await os.get("here"), null, "a link to a deleted object finds nothing");
      await assert.rejects(os.linkStore("x", { bucket: "nope" }), InvalidArgumentError);
    });

    test("watch: changes, history first with isUpdate, deletes left out on request", async () => {
      const os = await objm.create(B("watch"));
      await os.putBlob({ name: "a" }, bytes(1));
      await os.putBlob({ name: "b" }, bytes(2));
      await os.delete("b");
      const updates = await os.watch();
      const history = await os.watch({ includeHistory: true });
      const noDeletes = await os.watch({ includeHistory: true, ignoreDeletes: true });
      const u = updates[Symbol.asyncIterator]();
      const h = history[Symbol.asyncIterator]();
      const n = noDeletes[Symbol.asyncIterator]();
      assert.deepEqual((await take(h, 2)).map((i) => [i.name, i.deleted, i.isUpdate]), [["a", false, false], ["b", true, true]]);
      assert.deepEqual((await take(n, 1)).map((i) => [i.name, i.isUpdate]), [["a", false]]);
      await os.putBlob({ name: "c" }, bytes(3));
      await os.delete("a");
      assert.deepEqual((await take(u, 2)).map((i) => [i.name, i.deleted, i.isUpdate]), [["c", false, true], ["a", true, true]]);
      assert.deepEqual((await take(h, 2)).map((i) => [i.name, i.deleted]), [["c", false], ["a", true]]);
      assert.deepEqual((await take(n, 1)).map((i) => [i.name, i.isUpdate, i.size]), [["c", true, 3]]);
      assert.equal(updates.getProcessed(), 2);
      for (const w of [updates, history, noDeletes]) w.stop();
      assert.deepEqual(await u.next(), { done: true, value: undefined });
    });

    test("seal: writes are refused with the server's code, reads go on", async () => {
      const os = await objm.create(B("seal"));
      const info = await os.putBlob({ name: "o" }, bytes(250));
      const status = await os.seal();
      assert.equal(status.sealed, true);
      assert.equal((await os.status()).sealed, true);
      const sealed = { code: 10109 };
      await rejectsWith(os.putBlob({ name: "p" }, bytes(250)), "JETSTREAM", sealed);
      await rejectsWith(os.putBlob({ name: "empty" }, null), "JETSTREAM", sealed);
      await rejectsWith(os.delete("o"), "JETSTREAM", sealed);
      await rejectsWith(os.update("o", { description: "d" }), "JETSTREAM", sealed);
      await rejectsWith(os.link("l", info), "JETSTREAM", sealed);
      assert.deepEqual(await os.getBlob("o"), bytes(250));
      assert.deepEqual((await os.list()).map((i) => i.name), ["o"]);
      assert.equal(await messages(B("seal")), 2);
    });

    test("a chunk altered behind the store's back is a digest mismatch; a missing one a size mismatch", async () => {
      const os = await objm.create(B("corrupt"));
      const js = jetstream(nc);
      const info = await os.putBlob({ name: "x", options: { max_chunk_size: 1000 } }, bytes(3000));
      const subject = `$O.${B("corrupt")}.C.${info.nuid}`;
      const last = await jsm.streams.getMessage(`OBJ_${B("corrupt")}`, { last_by_subj: subject });
      await jsm.streams.deleteMessage(`OBJ_${B("corrupt")}`, last.seq);
      await js.publish(subject, new Uint8Array(1000));
      const result = await os.get("x");
      const reader = result.data.getReader();
      const handedOut = [];
      const end = await (async () => {
        for (;;) {
          try {
            const { done, value } = await within(reader.read(), "a chunk");
            if (done) return "a clean end";
            handedOut.push(...value);
          } catch (e) {
            return e;
          }
        }
      })();
      assert.ok(end instanceof NatsError, `the stream errored: ${end}`);
      assert.equal(end.kind, "DIGEST_MISMATCH");
      assert.match(end.message, new RegExp(info.digest.replace(/[+=]/g, ".")));
      assert.deepEqual(handedOut, [...bytes(2000)], "the chunks before the altered last one");
      await rejectsWith(result.error, "DIGEST_MISMATCH");
      await rejectsWith(os.getBlob("x"), "DIGEST_MISMATCH");

      const short = await os.putBlob({ name: "y", options: { max_chunk_size: 1000 } }, bytes(3500));
      const first = await jsm.streams.getMessage(`OBJ_${B("corrupt")}`, { last_by_subj: `$O.${B("corrupt")}.C.${short.nuid}` });
      await jsm.streams.deleteMessage(`OBJ_${B("corrupt")}`, first.seq);
      await rejectsWith(os.getBlob("y"), "SIZE_MISMATCH");
    });

    test("a get can be cancelled, and its error then resolves to null", async () => {
      const os = await objm.create(B("cancel"));
      await os.putBlob({ name: "big", options: { max_chunk_size: 1000 } }, bytes(100_000));
      const result = await os.get("big");
      const reader = result.data.getReader();
      assert.ok((await reader.read()).value.length > 0);
      await reader.cancel();
      assert.equal(await result.error, null);
    });

    test("names outside ASCII, long names and names with every kind of character", async () => {
      const os = await objm.create(B("names"));
      for (const name of ["café-ü.txt", "snow ☃/🎉", "a?b>c*d e.f", "x".repeat(2048)]) {
        await os.putBlob({ name }, bytes(10));
        assert.equal((await os.info(name)).name, name);
        assert.deepEqual(await os.getBlob(name), bytes(10));
      }
      assert.equal((await os.list()).length, 4);
    });

    test("bad names and options are refused before anything is written", async () => {
      const os = await objm.create(B("bad"));
      await os.putBlob({ name: "o" }, bytes(1));
      const before = await messages(B("bad"));
      for (const call of [
        () => os.putBlob({ name: "" }, bytes(1)),
        () => os.put({ name: "x".repeat(2049) }, streamOf(bytes(1))),
        () => os.putBlob({ name: "l", options: { link: { bucket: B("bad"), name: "o" } } }, bytes(1)),
        () => os.putBlob({ name: "n" }, bytes(1), { previousRevision: -1 }),
        () => os.putBlob({ name: "n", options: { max_chunk_size: -1 } }, bytes(1)),
        () => os.putBlob({ name: "n", metadata: { a: 1 } }, bytes(1)),
        () => os.putBlob({ name: "n", description: 5 }, bytes(1)),
        () => os.update("o", { metadata: "a" }),
        () => os.info(""),
        () => os.get(""),
        () => os.delete(""),
        () => os.update("o", { name: "" }),
        () => os.link("", { name: "o", bucket: B("bad") }),
        () => os.linkStore("", os),
      ]) {
        await rejectsWith(call(), "INVALID_ARGUMENT");
      }
      assert.equal(await messages(B("bad")), before);
      for (const name of ["", "a.b", "a b", "a*", "OBJ>"]) {
        await assert.rejects(objm.create(name), InvalidArgumentError, name);
        await assert.rejects(objm.open(name), InvalidArgumentError, name);
      }
      await assert.rejects(objm.create(B("opts"), { ttl: "1h" }), InvalidArgumentError);
      await assert.rejects(objm.create(B("opts"), { storage: "disk" }), InvalidArgumentError);
      await assert.rejects(objm.create(B("opts"), { replicas: 1.5 }), InvalidArgumentError);
      await assert.rejects(jsm.streams.info(`OBJ_${B("opts")}`), StreamNotFoundError, "nothing was made");
    });

    test("buckets: create with options, create again, open, list, status, destroy", async () => {
      const name = B("bucket");
      const os = await objm.create(name, {
        description: "files",
        ttl: nanos(3_600_000),
        storage: StorageType.Memory,
        replicas: 1,
        max_bytes: 1 << 20,
        metadata: { owner: "me" },
        compression: true,
      });
      const status = await os.status();
      assert.deepEqual(
        [status.bucket, status.description, status.ttl, status.storage, status.replicas, status.sealed, status.compression],
        [name, "files", nanos(3_600_000), "memory", 1, false, true],
      );
      assert.equal(status.backingStore, "JetStream");
      assert.equal(status.metadata.owner, "me");
      assert.equal(status.streamInfo.config.max_bytes, 1 << 20);
      assert.deepEqual(status.streamInfo.config.subjects, [`$O.${name}.C.>`, `$O.${name}.M.>`]);
      assert.deepEqual(
        [status.streamInfo.config.discard, status.streamInfo.config.allow_rollup_hdrs, status.streamInfo.config.allow_direct],
        ["new", true, true],
      );
      await os.putBlob({ name: "f" }, bytes(100));
      assert.equal((await os.status()).size > 100, true);
      // An existing bucket is opened whatever the options say (as nats.js).
      const again = await objm.create(name, { description: "other", storage: StorageType.File });
      assert.equal((await again.status()).storage, "memory");
      assert.deepEqual(await (await objm.open(name)).getBlob("f"), bytes(100));
      assert.deepEqual(await (await objm.open(name, false)).getBlob("f"), bytes(100));
      assert.deepEqual(await (await objm.open(name, { check: true })).getBlob("f"), bytes(100));
      await assert.rejects(objm.open(B("missing")), (e) => e instanceof StreamNotFoundError && e.code === 10059);
      const listed = [];
      for await (const s of objm.list()) listed.push(s.bucket);
      assert.ok(listed.includes(name) && listed.includes(B("sizes")), `${listed}`);
      assert.ok(!listed.some((b) => b.startsWith("KV_")));
      const detailed = await os.status({ subjects_filter: `$O.${name}.M.>` });
      assert.equal(Object.keys(detailed.streamInfo.state.subjects).length, 1);
      assert.equal(await os.destroy(), true);
      await assert.rejects(os.status(), JetStreamApiError);
      const through = new Objm(jetstream(nc, { timeout: 3000 }));
      const made = await through.create(B("through"));
      assert.equal((await made.status()).bucket, B("through"));
    });
  });
}

describe("Object Store digests: node:crypto's SHA-256 and the wasm's own", () => {
  let nc, objm, jsm;
  /** Hashers made by the registered factory. */
  let made = 0;
  const counted = () => {
    made++;
    return createHash("sha256");
  };
  before(async () => {
    nc = await connect({ servers: server.url });
    objm = new Objm(nc);
    jsm = await jetstreamManager(nc);
  });
  after(async () => {
    digests.setSha256Factory(() => createHash("sha256"));
    await nc.close();
  });

  for (const hasher of ["node:crypto", "wasm"]) {
    test(`with ${hasher === "wasm" ? "the wasm's own" : "node:crypto's"}: digests of puts and gets match, an altered chunk is a mismatch`, async () => {
      digests.setSha256Factory(hasher === "wasm" ? null : counted);
      made = 0;
      const bucket = `digest_${hasher.replace(/\W/g, "")}`;
      const os = await objm.create(bucket);
      // Pieces that straddle chunks, so the hasher is fed at odd offsets.
      for (const [name, size] of [["zero", 0], ["one", 1], ["chunk", 1000], ["many", 25_017]]) {
        const data = bytes(size, size % 13);
        const info = await os.put({ name, options: { max_chunk_size: 1000 } }, streamOf(data, 7, 993, 1500));
        assert.equal(info.digest, sha256(data), name);
        assert.deepEqual(await os.getBlob(name), data, name);
      }
      // A put and a get each make one hasher; the registration's check makes none here.
      assert.equal(made, hasher === "wasm" ? 0 : 8, "hashers made by the registered factory");

      const info = await os.putBlob({ name: "x", options: { max_chunk_size: 1000 } }, bytes(3000));
      const subject = `$O.${bucket}.C.${info.nuid}`;
      const last = await jsm.streams.getMessage(`OBJ_${bucket}`, { last_by_subj: subject });
      await jsm.streams.deleteMessage(`OBJ_${bucket}`, last.seq);
      await jetstream(nc).publish(subject, new Uint8Array(1000));
      await rejectsWith(os.getBlob("x"), "DIGEST_MISMATCH");
      await os.destroy();
    });
  }

  test("a factory whose hasher is not SHA-256 is refused, and the one before stays", async () => {
    digests.setSha256Factory(counted);
    const md5 = () => createHash("md5");
    assert.throws(() => digests.setSha256Factory(md5), (e) => e instanceof TypeError && /SHA-256/.test(e.message));
    assert.throws(() => digests.setSha256Factory(() => 1), TypeError);
    assert.throws(() => digests.setSha256Factory("sha256"), TypeError);
    made = 0;
    const os = await objm.create("digest_kept");
    const data = bytes(5000);
    assert.equal((await os.putBlob({ name: "k" }, data)).digest, sha256(data));
    assert.equal(made, 1);
    await os.destroy();
  });

  test("a hasher that fails under a put fails the put, and nothing is stored", async () => {
    // Passes the registration's check (two updates), then throws.
    digests.setSha256Factory(() => {
      const sha = createHash("sha256");
      let updates = 0;
      return {
        update(data) {
          if (++updates > 2) throw new Error("hasher broke");
          sha.update(data);
        },
        digest: () => sha.digest(),
      };
    });
    const os = await objm.create("digest_broken");
    await assert.rejects(os.putBlob({ name: "b", options: { max_chunk_size: 1000 } }, bytes(5000)), (e) => {
      assert.ok(e instanceof NatsError, `a NatsError: ${e}`);
      assert.match(e.message, /SHA-256 failed: hasher broke/);
      return true;
    });
    assert.equal(await os.info("b"), null);
    assert.equal((await jsm.streams.info("OBJ_digest_broken")).state.messages, 0, "the chunks written were purged");
    await os.destroy();
  });
});
