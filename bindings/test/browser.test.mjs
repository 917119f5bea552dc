// The web build in real headless Chromium against a real server's websocket
// listener. One browser and one page for the file: the page imports web.js
// once, then each test runs its scenario in the page with page.evaluate.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { pageWithNatsjet, skipBrowser } from "./chromium.mjs";
import { startAccountsServer, startJetStreamServer, startServer } from "./harness.mjs";

describe("web build in Chromium", { skip: skipBrowser, timeout: 60_000 }, () => {
  let server, jsServer, page, blankPage, closeBrowser;
  before(async () => {
    server = await startServer();
    jsServer = await startJetStreamServer();
    ({ page, blankPage, close: closeBrowser } = await pageWithNatsjet("natsjet"));
  });
  after(async () => {
    await closeBrowser?.();
    await server?.close();
    await jsServer?.close();
  });

  test("connects and shows the server's info", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers, name: "browser" });
      const { server_id, headers, max_payload } = nc.info;
      await nc.close();
      return { server_id, headers, max_payload, closed: nc.isClosed() };
    }, server.wsUrl);
    assert.equal(typeof got.server_id, "string");
    assert.equal(got.headers, true);
    assert.ok(got.max_payload > 0);
    assert.equal(got.closed, true);
  });

  test("publishes and receives strings, bytes, replies and headers", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const sub = nc.subscribe("browser.>");
      await nc.flush();
      const h = natsjet.headers();
      h.append("Trace-Id", "42");
      h.append("Trace-Id", "43");
      nc.publish("browser.a", "hello", { headers: h });
      nc.publish("browser.b", new Uint8Array([1, 2, 3]), { reply: "answer.here" });
      const got = [];
      for await (const m of sub) {
        got.push({ subject: m.subject, data: [...m.data], reply: m.reply, trace: m.headers?.values("Trace-Id") });
        if (got.length === 2) break;
      }
      await nc.close();
      return got;
    }, server.wsUrl);
    assert.deepEqual(got, [
      { subject: "browser.a", data: [..."hello"].map((c) => c.charCodeAt(0)), reply: "", trace: ["42", "43"] },
      { subject: "browser.b", data: [1, 2, 3], reply: "answer.here", trace: undefined },
    ]);
  });

  test("request/reply, with headers both ways", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      nc.subscribe("browser.echo", {
        callback: (_err, m) => {
          const h = natsjet.headers();
          h.set("Echo-Of", m.headers?.get("Ask") ?? "none");
          m.respond(`echo: ${m.string()}`, { headers: h });
        },
      });
      const h = natsjet.headers();
      h.set("Ask", "why");
      const answer = await nc.request("browser.echo", "hi", { headers: h });
      await nc.close();
      return { text: answer.string(), echoOf: answer.headers?.get("Echo-Of") };
    }, server.wsUrl);
    assert.deepEqual(got, { text: "echo: hi", echoOf: "why" });
  });

  test("no responders and timeouts are NatsErrors of a kind", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      nc.subscribe("browser.silent");
      const code = (p) => p.then(() => "answered", (e) => e instanceof natsjet.NatsError && e.kind);
      const codes = [
        await code(nc.request("browser.nobody")),
        await code(nc.request("browser.silent", "", { timeout: 100 })),
      ];
      await nc.close();
      return codes;
    }, server.wsUrl);
    assert.deepEqual(got, ["NO_RESPONDERS", "TIMEOUT"]);
  });

  test("a request the permissions refuse rejects at once, caused by a PermissionViolationError", async () => {
    const accounts = await startAccountsServer();
    try {
      const got = await page.evaluate(async (servers) => {
        const nc = await natsjet.connect({ servers, user: "limited", pass: "pw" });
        const started = Date.now();
        const e = await nc.request("secret.page", "x", { timeout: 30000 }).catch((e) => e);
        const took = Date.now() - started;
        const { cause } = e;
        const fields = [e instanceof natsjet.RequestError, cause instanceof natsjet.PermissionViolationError, e.kind, cause.operation, cause.subject, took < 10000];
        const open = !nc.isClosed();
        await nc.close();
        return [...fields, open];
      }, accounts.wsUrl);
      assert.deepEqual(got, [true, true, "PERMISSIONS_VIOLATION", "publish", "secret.page", true, true]);
    } finally {
      await accounts.close();
    }
  });

  test("errors are instances of the web entry's nats.js-named classes", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      nc.subscribe("browser.silent2");
      const classes = (p) =>
        p.then(
          () => "answered",
          (e) => [
            e.name,
            e.message,
            ["NatsError", "RequestError", "NoRespondersError", "TimeoutError"].filter((name) => e instanceof natsjet[name]),
            e.cause?.name ?? null,
          ],
        );
      const got = [
        await classes(nc.request("browser.nobody")),
        await classes(nc.request("browser.silent2", "", { timeout: 100 })),
      ];
      await nc.close();
      return got;
    }, server.wsUrl);
    assert.deepEqual(got, [
      ["RequestError", "no responders: 'browser.nobody'", ["NatsError", "RequestError"], "NoResponders"],
      ["TimeoutError", "timeout", ["NatsError", "TimeoutError"], null],
    ]);
  });

  test("flush resolves after the server has processed what came before", async () => {
    const got = await page.evaluate(async (servers) => {
      const [sender, receiver] = await Promise.all([natsjet.connect({ servers }), natsjet.connect({ servers })]);
      let count = 0;
      receiver.subscribe("browser.flush", { callback: () => count++ });
      await receiver.flush();
      for (let i = 0; i < 5000; i++) sender.publish("browser.flush", `m${i}`);
      await sender.flush();
      // The server routed all 5000 before answering; the receiver's flush is answered after them.
      await receiver.flush();
      await Promise.all([sender.close(), receiver.close()]);
      const closedFlush = await sender.flush().then(() => "resolved", (e) => e.kind);
      return { count, closedFlush };
    }, server.wsUrl);
    assert.deepEqual(got, { count: 5000, closedFlush: "CLOSED" });
  });

  test("drain delivers what arrived, then closes; a closed connection refuses publishes", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      let count = 0;
      const sub = nc.subscribe("browser.drain", { callback: () => count++ });
      await nc.flush();
      for (let i = 0; i < 100; i++) nc.publish("browser.drain", `m${i}`);
      await nc.flush(); // the server's answer comes after the 100 messages
      await nc.drain();
      await sub.closed;
      const closedWith = await nc.closed();
      let publishCode;
      try {
        nc.publish("browser.drain", "late");
      } catch (e) {
        publishCode = e.kind;
      }
      return { count, closed: nc.isClosed(), closedWith: closedWith ?? null, publishCode };
    }, server.wsUrl);
    assert.deepEqual(got, { count: 100, closed: true, closedWith: null, publishCode: "CLOSED" });
  });

  test(
    "drain also delivers messages still on the way when it starts",
    async () => {
      const count = await page.evaluate(async (servers) => {
        const [sender, receiver] = await Promise.all([natsjet.connect({ servers }), natsjet.connect({ servers })]);
        let count = 0;
        const sub = receiver.subscribe("browser.drain.inflight", { callback: () => count++ });
        await receiver.flush();
        for (let i = 0; i < 5000; i++) sender.publish("browser.drain.inflight", `m${i}`);
        await sender.flush(); // routed to the receiver before its UNSUB is read
        await receiver.drain();
        await sub.closed;
        await sender.close();
        return count;
      }, server.wsUrl);
      assert.equal(count, 5000);
    },
  );

  test("invalid subjects are refused before anything is sent", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const code = (f) => {
        try {
          f();
          return "accepted";
        } catch (e) {
          return e instanceof natsjet.NatsError && e.kind;
        }
      };
      const codes = [
        code(() => nc.publish("bad subject", "x")),
        code(() => nc.publish("a..b", "x")),
        code(() => nc.subscribe("")),
        await nc.request("line\r\nbreak").then(() => "answered", (e) => e.kind),
      ];
      await nc.flush(); // still healthy
      await nc.close();
      return codes;
    }, server.wsUrl);
    assert.deepEqual(got, ["INVALID_SUBJECT", "INVALID_SUBJECT", "INVALID_SUBJECT", "INVALID_SUBJECT"]);
  });

  test("a server restart brings disconnect then reconnect; subscriptions survive", async (t) => {
    const restarting = await startServer();
    t.after(() => restarting.close());
    await page.evaluate(async (servers) => {
      window.nc = await natsjet.connect({ servers, reconnectTimeWait: 100, reconnectJitter: 0 });
      window.statuses = [];
      window.watching = (async () => {
        for await (const s of nc.status()) statuses.push(s.type);
      })();
      window.sub = nc.subscribe("browser.restart");
      await nc.flush();
    }, restarting.wsUrl);
    await restarting.restart();
    await page.waitForFunction(() => statuses.includes("reconnect"), null, { timeout: 10_000 });
    const got = await page.evaluate(async () => {
      nc.publish("browser.restart", "still here");
      let text;
      for await (const m of sub) {
        text = m.string();
        break;
      }
      const reconnects = nc.stats().reconnects;
      await nc.close();
      await watching;
      return { text, reconnects, statuses };
    });
    assert.deepEqual({ ...got, statuses: got.statuses.slice(0, 2) }, {
      text: "still here",
      reconnects: 1,
      statuses: ["disconnect", "reconnecting"],
    });
    assert.equal(got.statuses.find((type) => type !== "disconnect" && type !== "reconnecting"), "reconnect");
    assert.equal(got.statuses.at(-1), "close");
  });

  test("createInbox before and after the wasm loads; wsconnect, rtt, getServer, drain", async () => {
    // A page of its own: the wasm must not be loaded yet.
    const fresh = await blankPage();
    const got = await fresh.evaluate(async (servers) => {
      const natsjet = await import("/pkg/web.js");
      let before;
      try {
        natsjet.createInbox();
      } catch (e) {
        before = { kind: e.kind, isInvalidOperation: e instanceof natsjet.InvalidOperationError };
      }
      const nc = await natsjet.wsconnect({ servers });
      const inbox = natsjet.createInbox("web");
      const sub = nc.subscribe(inbox);
      await nc.flush();
      nc.publish(inbox, natsjet.Empty);
      nc.publish(inbox, "x");
      await sub.drain();
      const lengths = [];
      for await (const m of sub) lengths.push(m.data.length);
      const rtt = await nc.rtt();
      const server = nc.getServer();
      await nc[Symbol.asyncDispose]();
      return {
        before,
        inbox,
        lengths,
        received: sub.getReceived(),
        rtt,
        server,
        same: natsjet.wsconnect === natsjet.connect,
        closed: nc.isClosed(),
      };
    }, server.wsUrl);
    await fresh.close();
    assert.deepEqual(got.before, { kind: "INVALID_ARGUMENT", isInvalidOperation: true });
    assert.match(got.inbox, /^web\.[0-9A-Za-z]{22}$/);
    assert.deepEqual(got.lengths, [0, 1]);
    assert.equal(got.received, 2);
    assert.ok(got.rtt >= 0 && got.rtt < 5000, `${got.rtt}`);
    assert.equal(got.server, new URL(server.wsUrl).host);
    assert.equal(got.same, true);
    assert.equal(got.closed, true);
  });

  test("an atomic batch, stored whole or not at all, and a schedule that fires", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const jsm = await natsjet.jetstreamManager(nc);
      const js = natsjet.jetstream(nc);
      const config = { subjects: ["page.>"], allow_atomic: true, allow_msg_schedules: true, allow_msg_ttl: true };
      await jsm.streams.add({ name: "PAGE", ...config });
      const batch = await js.startBatch("page.batch.1", "one");
      batch.add("page.batch.2", "two");
      await batch.add("page.batch.3", "three", { ack: true });
      const ack = await batch.commit("page.batch.4", "four");
      const last = await jsm.streams.getMessage("PAGE", { seq: 4 });
      const stale = await js.startBatch("page.stale.1", "x", { expect: { lastSequence: 1 } });
      const refused = await stale.commit("page.stale.2", "y").then(() => 0, (e) => e.code);
      const at = new Date(Date.now() + 1000);
      await js.publish("page.sched", "later", { schedule: { specification: at, target: "page.out", ttl: "1m" } });
      let fired = null;
      for (let i = 0; i < 50 && !fired; i++) {
        fired = await jsm.streams.getMessage("PAGE", { last_by_subj: "page.out" });
        if (!fired) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const early = fired && fired.time.getTime() < at.getTime() - 1000;
      const info = await jsm.streams.info("PAGE");
      await nc.close();
      return {
        ack: [ack.seq, ack.count, ack.batch === batch.id, batch.count],
        commit: [last.header.get("Nats-Batch-Sequence"), last.header.get("Nats-Batch-Commit")],
        refused,
        fired: fired && [fired.string(), fired.header.get("Nats-Scheduler"), fired.header.get("Nats-TTL"), early],
        messages: info.state.messages,
      };
    }, jsServer.wsUrl);
    assert.deepEqual(got, {
      ack: [4, 4, true, 4],
      commit: ["4", "1"],
      refused: 10071,
      fired: ["later", "page.sched", "1m", false],
      messages: 5,
    });
  });

  test("counters: exact bigint totals, one and many, and typed refusals", async () => {
    const got = await page.evaluate(async (servers) => {
      const { NewCounter, InvalidArgumentError, JetStreamApiError } = natsjet;
      const nc = await natsjet.connect({ servers });
      const jsm = await natsjet.jetstreamManager(nc);
      await jsm.streams.add({ name: "PAGEC", subjects: ["pagec.>"], allow_msg_counter: true, allow_direct: true });
      await jsm.streams.add({ name: "PAGEP", subjects: ["pagep.>"] });
      const c = NewCounter(nc, "PAGEC");
      const totals = [await c.increment("pagec.a", 2n ** 70n), await c.increment("pagec.a", -1), await c.increment("pagec.b")];
      const entry = await c.getCounter("pagec.a");
      const many = [];
      for await (const v of await c.values("pagec.*")) many.push(v);
      const notNumber = await c.increment("pagec.a", "x").catch((e) => e instanceof InvalidArgumentError);
      const disabled = await NewCounter(nc, "PAGEP").increment("pagep.a").catch((e) => e instanceof JetStreamApiError && e.code);
      const none = await c.value("pagec.z");
      await nc.close();
      return { totals, value: entry.value, delta: entry.delta, many, notNumber, disabled, none };
    }, jsServer.wsUrl);
    const big = 2n ** 70n;
    assert.deepEqual(got, { totals: [big, big - 1n, 1n], value: big - 1n, delta: -1n, many: [big - 1n, 1n], notNumber: true, disabled: 10168, none: null });
  });

  test("fast ingest: a batch with progress and its ack; a stream without allow_batched refuses", async () => {
    const got = await page.evaluate(async (servers) => {
      const { NewFastPublisher, JetStreamApiError, InvalidOperationError } = natsjet;
      const nc = await natsjet.connect({ servers });
      const jsm = await natsjet.jetstreamManager(nc);
      const js = natsjet.jetstream(nc);
      await jsm.streams.add({ name: "PAGEF", subjects: ["pagef.>"], allow_batched: true });
      await jsm.streams.add({ name: "PAGEN", subjects: ["pagen.>"] });
      const fast = NewFastPublisher(js, { flow: 20 });
      let last;
      for (let i = 0; i < 199; i++) last = await fast.add("pagef.x", `m${i}`);
      const ack = await fast.commit("pagef.y", "end");
      const late = await fast.add("pagef.x", "late").catch((e) => e instanceof InvalidOperationError);
      const eob = NewFastPublisher(js);
      await eob.add("pagef.z", "one");
      const closed = await eob.close();
      const refused = await NewFastPublisher(js).add("pagen.a", "x").catch((e) => e instanceof JetStreamApiError && e.code);
      const info = await jsm.streams.info("PAGEF");
      await nc.close();
      return { last: [last.batchSeq, last.ackSeq >= 150], ack: [ack.seq, ack.count], late, closed: [closed.seq, closed.count], refused, messages: info.state.messages };
    }, jsServer.wsUrl);
    assert.deepEqual(got, { last: [199, true], ack: [200, 200], late: true, closed: [201, 1], refused: 10205, messages: 201 });
  });

  test("Key-Value: put, get, CAS, markers, keys, history, and a watch that says when it caught up", async () => {
    const got = await page.evaluate(async (servers) => {
      const { Kvm, KvWatchInclude, JetStreamApiError } = natsjet;
      const nc = await natsjet.connect({ servers });
      const kvm = new Kvm(nc);
      const kv = await kvm.create("browser", { history: 3 });
      const watch = await kv.watch({ key: "p.>" });
      await watch.caughtUp(); // an empty bucket: at once
      const it = watch[Symbol.asyncIterator]();
      const r1 = await kv.put("p.a/b=c", "one");
      const r2 = await kv.update("p.a/b=c", "two", r1);
      const conflict = await kv.update("p.a/b=c", "x", r1).then(() => "accepted", (e) => e instanceof JetStreamApiError && e.code);
      await kv.put("p.empty", "");
      await kv.delete("p.empty");
      const created = await kv.create("p.empty", "back"); // over the delete marker
      const watched = [];
      for (let i = 0; i < 5; i++) {
        const { value: e } = await it.next();
        watched.push([e.key, e.operation, e.string(), e.isUpdate]);
      }
      watch.stop();
      const entry = await kv.get("p.a/b=c");
      const history = [];
      for await (const e of await kv.history({ key: "p.a/b=c" })) history.push([e.string(), e.delta]);
      const keys = [];
      for await (const k of await kv.keys()) keys.push(k);
      const later = await kv.watch({ include: KvWatchInclude.LastValue });
      const seen = [];
      const caught = later.caughtUp().then(() => seen.length);
      for await (const e of later) {
        seen.push(e.key);
        if (e.isUpdate) break;
      }
      const bad = await kv.put("bad key", "v").then(() => "accepted", (e) => [e.kind, e.message.includes('"bad key"')]);
      const status = await kv.status();
      const destroyed = await kv.destroy();
      await nc.close();
      return {
        revisions: [r2 - r1, created > r2],
        conflict,
        watched,
        entry: [entry.key, entry.string(), entry.revision === r2, entry.created instanceof Date, entry.length],
        history,
        keys: keys.sort(),
        seen,
        caughtAfter: await caught,
        bad,
        status: [status.bucket, status.history, status.values],
        destroyed,
      };
    }, jsServer.wsUrl);
    assert.deepEqual(got, {
      revisions: [1, true],
      conflict: 10071,
      watched: [
        ["p.a/b=c", "PUT", "one", true],
        ["p.a/b=c", "PUT", "two", true],
        ["p.empty", "PUT", "", true],
        ["p.empty", "DEL", "", true],
        ["p.empty", "PUT", "back", true],
      ],
      entry: ["p.a/b=c", "two", true, true, 3],
      history: [["one", 1], ["two", 0]],
      keys: ["p.a/b=c", "p.empty"],
      seen: ["p.a/b=c", "p.empty"],
      caughtAfter: 2, // once the loop body is done with the last initial entry
      bad: ["INVALID_ARGUMENT", true],
      status: ["browser", 3, 5],
      destroyed: true,
    });
  });
  test("Object Store: sizes around the chunk size with metadata and progress, replace, update, links, watch, delete, seal", async () => {
    const got = await page.evaluate(async (servers) => {
      const { Objm, NatsError, headers } = natsjet;
      const bytes = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) % 251);
      const nc = await natsjet.connect({ servers });
      const objm = new Objm(nc);
      const os = await objm.create("browser_obj", { description: "files" });
      const watch = await os.watch();
      const it = watch[Symbol.asyncIterator]();
      const h = headers();
      h.append("X-Kind", "a");
      const puts = [];
      for (const size of [0, 1, 1000, 1001, 25_017]) {
        const progress = [];
        const meta = { name: `o${size}`, description: `d${size}`, headers: h, metadata: { n: `${size}` }, options: { max_chunk_size: 1000 } };
        const data = bytes(size, size);
        const info = await os.putBlob(meta, data, { progress: (done, total) => progress.push([done, total]) });
        const read = [];
        const back = await os.getBlob(info.name, { progress: (done) => read.push(done) });
        const same = back.length === size && back.every((b, i) => b === data[i]);
        const found = await os.info(info.name);
        puts.push([info.size, info.chunks, info.digest, same, found.revision === info.revision, found.description, found.headers.get("X-Kind"), found.metadata.n, progress.at(-1), read.at(-1) ?? 0]);
      }
      // A put from a ReadableStream of uneven pieces, read back as a stream.
      const data = bytes(300_000, 3);
      let at = 0;
      const sizes = [1, 100_000, 7];
      const rs = new ReadableStream({
        pull(c) {
          if (at >= data.length) return c.close();
          const n = sizes.shift() ?? data.length - at;
          c.enqueue(data.slice(at, at + n));
          at += n;
        },
      });
      const streamed = await os.put({ name: "streamed" }, rs, { size: data.length });
      const result = await os.get("streamed");
      const chunks = [];
      for (const reader = result.data.getReader(); ; ) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value.length);
      }
      const streamedBack = [chunks.reduce((a, b) => a + b, 0), await result.error];
      const replaced = await os.putBlob({ name: "o1" }, bytes(5, 9));
      const ack = await os.update("o1", { name: "renamed", description: "new" });
      const oldName = await os.info("o1");
      const link = await os.link("link", await os.info("renamed"));
      const viaLink = await os.getBlob("link");
      const other = await objm.create("browser_obj2");
      await os.linkStore("bucket", other);
      const bucketLink = await os.get("bucket").then(() => "read", (e) => e instanceof NatsError && e.kind);
      const deleted = await os.delete("o1000");
      const afterDelete = [await os.get("o1000"), (await os.info("o1000")).deleted];
      const listed = (await os.list()).map((i) => i.name).sort();
      const watched = [];
      for (let i = 0; i < 5; i++) {
        const { value } = await it.next();
        watched.push([value.name, value.isUpdate]);
      }
      watch.stop();
      const empty = await os.putBlob({ name: "" }, bytes(1, 0)).then(() => "accepted", (e) => e.kind);
      const sealed = (await os.seal()).sealed;
      const refused = await os.putBlob({ name: "late" }, bytes(1, 0)).then(() => "accepted", (e) => [e.kind, e.code]);
      const status = await os.status();
      const destroyed = await os.destroy();
      await other.destroy();
      await nc.close();
      return {
        puts,
        streamed: [streamed.size, streamed.chunks, streamedBack],
        update: [ack.stream, ack.seq > replaced.revision, oldName],
        link: [link.options.link.name, viaLink.length, bucketLink],
        deleted: [deleted, afterDelete],
        listed,
        watched,
        empty,
        sealed,
        refused,
        status: [status.bucket, status.description, status.sealed, status.backingStore],
        destroyed,
      };
    }, jsServer.wsUrl);
    const bytes = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) % 251);
    const sha256 = (data) => `SHA-256=${createHash("sha256").update(data).digest("base64url")}=`;
    assert.deepEqual(
      got.puts,
      [
        [0, 0],
        [1, 1],
        [1000, 1],
        [1001, 2],
        [25_017, 26],
      ].map(([size, chunks]) => [size, chunks, sha256(bytes(size, size)), true, true, `d${size}`, "a", `${size}`, [size, size], size]),
    );
    assert.deepEqual(got.streamed, [300_000, 3, [300_000, null]]);
    assert.deepEqual(got.update, ["OBJ_browser_obj", true, null], "the old name is gone");
    assert.deepEqual(got.link, ["renamed", 5, "INVALID_ARGUMENT"]);
    assert.deepEqual(got.deleted, [{ success: true, purged: 1 }, [null, true]]);
    assert.deepEqual(got.listed, ["bucket", "link", "o0", "o1001", "o25017", "renamed", "streamed"]);
    assert.deepEqual(got.watched, [["o0", true], ["o1", true], ["o1000", true], ["o1001", true], ["o25017", true]]);
    assert.equal(got.empty, "INVALID_ARGUMENT");
    assert.equal(got.sealed, true);
    assert.deepEqual(got.refused, ["JETSTREAM", 10109]);
    assert.deepEqual(got.status, ["browser_obj", "files", true, "JetStream"]);
    assert.equal(got.destroyed, true);
  });

  test("Object Store: a chunk altered behind the store's back errors the get's stream in DIGEST_MISMATCH", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const os = await new natsjet.Objm(nc).create("browser_corrupt");
      const info = await os.putBlob({ name: "x", options: { max_chunk_size: 1000 } }, new Uint8Array(3000).fill(1));
      const jsm = await natsjet.jetstreamManager(nc);
      const subject = `$O.browser_corrupt.C.${info.nuid}`;
      const last = await jsm.streams.getMessage("OBJ_browser_corrupt", { last_by_subj: subject });
      await jsm.streams.deleteMessage("OBJ_browser_corrupt", last.seq);
      await natsjet.jetstream(nc).publish(subject, new Uint8Array(1000).fill(2));
      const result = await os.get("x");
      let handedOut = 0;
      let end = "a clean end";
      try {
        for (const reader = result.data.getReader(); ; ) {
          const { done, value } = await reader.read();
          if (done) break;
          handedOut += value.length;
        }
      } catch (e) {
        end = [e instanceof natsjet.NatsError, e.kind];
      }
      const error = await result.error.then(() => "resolved", (e) => e.kind);
      const blob = await os.getBlob("x").then(() => "resolved", (e) => e.kind);
      await os.destroy();
      await nc.close();
      return { handedOut, end, error, blob };
    }, jsServer.wsUrl);
    assert.deepEqual(got, { handedOut: 2000, end: [true, "DIGEST_MISMATCH"], error: "DIGEST_MISMATCH", blob: "DIGEST_MISMATCH" });
  });

  test("a default consume asks ahead at most 16 MiB of large messages; taken, all come in order", async () => {
    const SIZE = 512 * 1024;
    const got = await page.evaluate(
      async ({ servers, SIZE }) => {
        const nc = await natsjet.connect({ servers });
        const jsm = await natsjet.jetstreamManager(nc);
        const js = natsjet.jetstream(nc);
        const name = "BROWSER_LARGE";
        await jsm.streams.add({ name, subjects: [`${name}.>`] });
        for (let i = 0; i < 48; i++) await js.publish(`${name}.big`, new Uint8Array(SIZE).fill(120));
        await jsm.consumers.add(name, { durable_name: "large", ack_policy: natsjet.AckPolicy.Explicit });
        const consumer = await js.consumers.get(name, "large");
        const messages = await consumer.consume();
        let info;
        for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
          info = await consumer.info();
          if ((info.num_waiting === 0 && info.delivered.consumer_seq >= 28) || info.delivered.consumer_seq >= 48) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const seqs = [];
        for await (const m of messages) {
          seqs.push([m.seq, m.data.length]);
          m.ack();
          if (seqs.length === 48) break;
        }
        await nc.close();
        return { sent: info.delivered.consumer_seq, seqs };
      },
      { servers: jsServer.wsUrl, SIZE },
    );
    assert.ok(got.sent >= 28 && got.sent * SIZE <= 16 << 20, `${got.sent} x ${SIZE} B sent ahead`);
    assert.deepEqual(got.seqs, Array.from({ length: 48 }, (_, i) => [i + 1, SIZE]));
  });

  test("a consume whose durable is deleted while no pull waits reports consumer_deleted and ends under abort_on_missing_resource", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const jsm = await natsjet.jetstreamManager(nc);
      const js = natsjet.jetstream(nc);
      await jsm.streams.add({ name: "BROWSER_GONE", subjects: ["browser_gone.>"] });
      await jsm.consumers.add("BROWSER_GONE", { durable_name: "gone" });
      await Promise.all(Array.from({ length: 10 }, (_, i) => js.publish("browser_gone.x", `${i}`)));
      const consumer = await js.consumers.get("BROWSER_GONE", "gone");
      const messages = await consumer.consume({ max_messages: 10, abort_on_missing_resource: true });
      const events = [];
      const watching = (async () => {
        for await (const s of messages.status()) events.push({ type: s.type, code: s.code });
      })();
      // The one pull is served in full before anything is read: none waits
      // on the server when the consumer goes.
      for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
        if ((await jsm.consumers.info("BROWSER_GONE", "gone")).num_ack_pending === 10) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await jsm.consumers.delete("BROWSER_GONE", "gone");
      let read = 0;
      let end = "a clean end";
      try {
        for await (const m of messages) {
          m.ack();
          read++;
        }
      } catch (e) {
        end = [e instanceof natsjet.ConsumerNotFoundError, e.kind, e.code];
      }
      await watching;
      await jsm.streams.delete("BROWSER_GONE");
      await nc.close();
      return { read, end, events };
    }, jsServer.wsUrl);
    assert.equal(got.read, 10, "what was delivered is read first");
    assert.deepEqual(got.end, [true, "JETSTREAM", 10014]);
    assert.ok(
      got.events.some((s) => s.type === "consumer_deleted" && s.code === 10014),
      JSON.stringify(got.events),
    );
  });

  test("checkpoint ledger: a worker's saved snapshot, restored by the next, turns the redeliveries into acks", async () => {
    const got = await page.evaluate(async (servers) => {
      const name = "BROWSER_EO";
      const nc = await natsjet.connect({ servers });
      const jsm = await natsjet.jetstreamManager(nc);
      const js = natsjet.jetstream(nc);
      await jsm.streams.add({ name, subjects: [`${name}.>`] });
      for (let i = 1; i <= 5; i++) await js.publish(`${name}.x`, `${i}`);
      await jsm.consumers.add(name, { durable_name: "d", ack_policy: natsjet.AckPolicy.Explicit, ack_wait: 1e9 });
      const opts = { workers: 2, batch: 5, checkpointInterval: 500 };
      const worker = async (options = opts) => {
        const conn = await natsjet.connect({ servers });
        const consumer = await natsjet.jetstream(conn).consumers.get(name, "d");
        return { conn, consumer, ledger: new natsjet.CheckpointLedger(consumer, options) };
      };
      const fetch = async (consumer, n) => {
        const msgs = [];
        for await (const m of await consumer.fetch({ max_messages: n, expires: 3000 })) msgs.push(m);
        return msgs;
      };
      // Worker a saves its checkpoint of five messages, then dies before it commits.
      const a = await worker();
      for (const m of await fetch(a.consumer, 5)) a.ledger.track(m, 1);
      const saved = JSON.stringify(a.ledger.snapshot(1));
      a.ledger.close();
      await a.conn.close();

      // Worker b's program asks for a longer ack_wait than the durable has.
      const b = await worker({ ...opts, expecting: { ack_wait: 2e9 } });
      await b.ledger.restore([JSON.parse(saved)]);
      const again = await fetch(b.consumer, 5); // after the 1 s ack_wait
      const admitted = again.map((m) => b.ledger.admit(m));
      await js.publish(`${name}.x`, "6");
      const fresh = [];
      for await (const m of b.ledger.filter(await b.consumer.fetch({ max_messages: 1, expires: 3000 }))) fresh.push(m);
      fresh.forEach((m) => b.ledger.track(m, 1));
      const confirmed = (await b.ledger.commit(1)).confirmed.length;
      let info;
      for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
        info = await jsm.consumers.info(name, "d");
        if (info.num_ack_pending === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const counts = b.ledger.counts();
      const warnings = b.ledger.warnings().map((w) => [w.code, w.message]);
      b.ledger.close();
      await Promise.all([b.conn.close(), nc.close()]);
      return {
        saved: JSON.parse(saved),
        again: again.map((m) => [m.seq, m.redelivered]),
        admitted,
        fresh: fresh.map((m) => [m.seq, natsjet.outputMsgId(m, 2)]),
        counts,
        confirmed,
        ackPending: info.num_ack_pending,
        warnings,
      };
    }, jsServer.wsUrl);
    assert.deepEqual(got.saved, { version: 2, consumers: [{ stream: "BROWSER_EO", consumer: "d", runs: [1, 4] }] });
    assert.deepEqual(got.again, [[1, true], [2, true], [3, true], [4, true], [5, true]]);
    assert.deepEqual(got.admitted, [false, false, false, false, false]);
    assert.deepEqual(got.fresh, [[6, "BROWSER_EO:6:2"]]);
    assert.deepEqual(got.counts, { skipped: 5, aborted: 0, atRisk: 0, redelivered: 0 });
    assert.equal(got.confirmed, 6, "the new message and the five skipped");
    assert.equal(got.ackPending, 0);
    assert.deepEqual(got.warnings, [
      ["CONFIG_DIFFERS", "the durable's ack_wait is 1000ms, the program asks for 2000ms: the durable's applies"],
    ]);
  });

  test("a burst past the old 64 MiB bound, without yielding, is taken by default and arrives in order", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const counter = await natsjet.connect({ servers, subscriptionCapacity: 100_000, subscriptionCapacityBytes: 256 << 20 });
      let received = 0;
      let outOfOrder = 0;
      counter.subscribe("burst", {
        callback: (_err, m) => {
          if (new DataView(m.data.buffer, m.data.byteOffset).getUint32(0) !== received) outOfOrder++;
          received++;
        },
      });
      await counter.flush();
      const payload = new Uint8Array(1024);
      const view = new DataView(payload.buffer);
      const count = Math.ceil((70 << 20) / (16 + 1024 + 2));
      let accepted = 0;
      let error;
      try {
        for (; accepted < count; accepted++) {
          view.setUint32(0, accepted);
          nc.publish("burst", payload);
        }
      } catch (e) {
        error = e.code;
      }
      await nc.flush();
      const deadline = Date.now() + 40_000;
      while (received < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await Promise.all([nc.close(), counter.close()]);
      return { error, accepted, count, received, outOfOrder };
    }, server.wsUrl);
    assert.equal(got.error, undefined);
    assert.equal(got.accepted, got.count);
    assert.equal(got.received, got.count);
    assert.equal(got.outOfOrder, 0);
  });

  test("nats.js's later calls: publishMessage, respondMessage, setServers and the reconnect handlers, advisories, Key-Value sources, mirror, codecs and purgeDeletes", async () => {
    const got = await page.evaluate(async (servers) => {
      const picks = [];
      const reconnectToServer = (pool, info) => (picks.push([pool.length, info !== null]), { server: pool[0], delay: 5 });
      const nc = await natsjet.connect({ servers, reconnectDelayHandler: () => 20, reconnectToServer });
      const echo = nc.subscribe("echo", { callback: (_err, m) => nc.respondMessage(m) });
      const copies = nc.subscribe("copies", { max: 2 });
      await nc.flush();
      const answer = (await nc.request("echo", "hi")).string();
      nc.publish("copies", "copy me", { reply: "back" });
      const copied = [];
      for await (const m of copies) {
        copied.push(`${m.string()} ${m.reply}`);
        if (copied.length === 1) nc.publishMessage(m);
      }
      echo.unsubscribe();
      const reconnected = (async () => {
        for await (const s of nc.status()) if (s.type === "reconnect") return nc.getServer();
      })();
      nc.setServers([servers]);
      await nc.reconnect();
      const server = await reconnected;

      const jsm = await natsjet.jetstreamManager(nc);
      const advisories = jsm.advisories()[Symbol.asyncIterator]();
      await nc.flush();
      const kvm = new natsjet.Kvm(nc);
      const east = await kvm.create("b_east");
      await east.put("e", "from east");
      const all = await kvm.create("b_all", { sources: [{ name: "b_east" }] });
      let sourced = null;
      for (let i = 0; i < 100 && !sourced; i++) {
        sourced = (await all.get("e"))?.string() ?? null;
        if (!sourced) await new Promise((r) => setTimeout(r, 50));
      }
      await kvm.create("b_copy", { mirror: { name: "b_east" } });
      const mirror = (await jsm.streams.info("KV_b_copy")).config.mirror.name;
      let advisory;
      do advisory = (await advisories.next()).value;
      while (advisory.kind === natsjet.AdvisoryKind.API);
      await advisories.return();
      const coded = await kvm.create("b_coded", { history: 5, codec: { key: natsjet.Base64KeyCodec(), value: natsjet.NoopKvCodecs().value } });
      await coded.put("a.b", "v");
      const entry = await coded.get("a.b");
      await coded.delete("a.b");
      const purged = await coded.purgeDeletes(0);
      await nc.close();
      return { answer, copied, server, picks, advisory: advisory.kind, sourced, mirror, entry: [entry.key, entry.rawKey, entry.string()], purged };
    }, jsServer.wsUrl);
    assert.deepEqual(got, {
      answer: "hi",
      copied: ["copy me back", "copy me back"],
      server: new URL(jsServer.wsUrl).host,
      picks: [
        [1, false],
        [1, true],
      ],
      advisory: "stream_action",
      sourced: "from east",
      mirror: "KV_b_east",
      entry: ["a.b", `${btoa("a")}.${btoa("b")}`, "v"],
      purged: { success: true, purged: 2 },
    });
  });

  test("a publish loop that never yields meets outgoingBufferSize; what it accepted arrives; a reader over its bound drops and says so", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers, outgoingBufferSize: 4 * 1024 * 1024 });
      const counter = await natsjet.connect({ servers });
      const reader = await natsjet.connect({ servers, subscriptionCapacityBytes: 64 * 1024 });
      const slow = [];
      (async () => {
        for await (const s of reader.status()) if (s.type === "slowConsumer") slow.push(s.dropped);
      })();
      let received = 0;
      let outOfOrder = 0;
      counter.subscribe("fast", {
        callback: (_err, m) => {
          if (new DataView(m.data.buffer, m.data.byteOffset).getUint32(0) !== received) outOfOrder++;
          received++;
        },
      });
      const idle = reader.subscribe("fast");
      await counter.flush();
      await reader.flush();
      const payload = new Uint8Array(1024);
      const view = new DataView(payload.buffer);
      let accepted = 0;
      let error;
      try {
        for (; accepted < 1_500_000; accepted++) {
          view.setUint32(0, accepted);
          nc.publish("fast", payload);
        }
      } catch (e) {
        error = [e instanceof natsjet.ConnectionError, e.kind];
      }
      await nc.flush();
      const deadline = Date.now() + 30_000;
      while (received < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await reader.flush();
      const dropped = idle.getDropped();
      const kept = idle.getReceived();
      await Promise.all([nc.close(), counter.close(), reader.close()]);
      return { error, accepted, received, outOfOrder, dropped, kept, slow: slow[0] };
    }, server.wsUrl);
    const frame = 15 + 1024 + 2;
    assert.deepEqual(got.error, [true, "OUTGOING_BUFFER_FULL"]);
    assert.ok(got.accepted * frame >= 4 * 1024 * 1024 && (got.accepted - 1) * frame < 4 * 1024 * 1024, `${got.accepted}`);
    assert.equal(got.received, got.accepted);
    assert.equal(got.outOfOrder, 0);
    assert.equal(got.kept, Math.floor((64 * 1024) / (4 + 1024)), "what fits in 64 KiB: subject and payload");
    assert.equal(got.dropped, got.accepted - got.kept);
    assert.equal(got.slow, 1, "the first drop is reported");
  });
  test("consumer groups: a member joins an elastic group, consumes in order with the partition off the subject, acks, and ends with the group", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const jsm = await natsjet.jetstreamManager(nc);
      const js = natsjet.jetstream(nc);
      await jsm.streams.add({ name: "GROUPED", subjects: ["grouped.*"] });
      const groups = natsjet.consumerGroups(js);
      await groups.createElastic("GROUPED", "cg", {
        max_members: 3,
        partitioning_filters: [{ filter: "grouped.*", partitioning_wildcards: [1] }],
      });
      await groups.addMembers("GROUPED", "cg", ["web"]);
      const messages = await groups.join("elastic", "GROUPED", "cg", "web", { config: { max_ack_pending: 1 } });
      for (let i = 0; i < 12; i++) await js.publish(`grouped.k${i % 3}`, `${i}`);
      const seen = [];
      for await (const m of messages) {
        seen.push([m.subject, Number(m.string())]);
        m.ack();
        if (seen.length === 12) break;
      }
      const states = await groups.members("elastic", "GROUPED", "cg");
      await groups.delete("elastic", "GROUPED", "cg");
      await nc.close();
      return { seen, member: states[0].member, active: states[0].active };
    }, jsServer.wsUrl);
    assert.deepEqual(got.member, "web");
    assert.equal(got.active, true);
    assert.equal(got.seen.length, 12);
    for (let k = 0; k < 3; k++) {
      const of = got.seen.filter(([s]) => s === `grouped.k${k}`).map(([, i]) => i);
      assert.deepEqual(of, [k, k + 3, k + 6, k + 9], `key ${k} in order`);
    }
  });
  test("consumer groups: a member restarted with resumeWith skips what its checkpoint holds and applies each message once", async () => {
    const got = await page.evaluate(async (servers) => {
      const nc = await natsjet.connect({ servers });
      const jsm = await natsjet.jetstreamManager(nc);
      const js = natsjet.jetstream(nc);
      await jsm.streams.add({ name: "RESUMED", subjects: ["resumed.*"] });
      const groups = natsjet.consumerGroups(js);
      await groups.createElastic("RESUMED", "cg", {
        max_members: 3,
        partitioning_filters: [{ filter: "resumed.*", partitioning_wildcards: [1] }],
      });
      await groups.addMembers("RESUMED", "cg", ["web"]);
      for (let i = 0; i < 12; i++) await js.publish(`resumed.k${i % 3}`, `${i}`);
      // The checkpoint: what was applied, and per partition the last sequence applied.
      const applied = [];
      const done = new Map();
      const partitionOf = {};
      // One in flight: order (and so the checkpoint's meaning) holds across the restart (see the guide).
      const config = { ack_wait: 1_000_000_000, max_ack_pending: 1 };
      const resumeWith = (partition) => Promise.resolve(done.get(partition));
      // The first instance applies 6, acks the first 5 and dies with the 6th unacked.
      const first = await natsjet.connect({ servers });
      const dying = await natsjet.consumerGroups(natsjet.jetstream(first)).join("elastic", "RESUMED", "cg", "web", { config, resumeWith });
      for await (const m of dying) {
        applied.push(Number(m.string()));
        done.set(m.partition, m.seq);
        partitionOf[m.subject] = m.partition;
        if (applied.length < 6) m.ack();
        else break;
      }
      await first.close();
      // Its restart resumes after the checkpoint: the unacked one comes again and is skipped.
      const restarted = await groups.join("elastic", "RESUMED", "cg", "web", { config, resumeWith });
      for await (const m of restarted) {
        applied.push(Number(m.string()));
        done.set(m.partition, m.seq);
        if (partitionOf[m.subject] !== m.partition) throw new Error(`${m.subject}: partition ${m.partition}`);
        m.ack();
        if (applied.length === 12) break;
      }
      const skipped = restarted.getSkipped();
      await groups.delete("elastic", "RESUMED", "cg");
      await nc.close();
      return { applied, skipped, partitions: Object.values(partitionOf) };
    }, jsServer.wsUrl);
    assert.deepEqual([...got.applied].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "each applied once");
    assert.ok(got.skipped >= 1, `the unacked redeliveries were skipped: ${got.skipped}`);
    assert.ok(got.partitions.every((p) => p >= 0 && p < 3), `partitions ${got.partitions}`);
  });
});
