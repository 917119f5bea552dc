// requestMany (scatter-gather) through the built package against a real
// server with several responders, over ws:// and nats://: every strategy,
// maxWait, no responders, close, break and bad arguments.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { wsconnect } from "@nats-io/nats-core";
import { NoRespondersError, connect, headers } from "natsjet";
import WebSocket from "ws";
import { rejectsWith, startServer } from "./harness.mjs";

globalThis.WebSocket ??= WebSocket; // nats.js's wsconnect; Node 20 has no global one

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** `n` responders on `subject`, each answering with `replies` messages "<i>.<k>", then an empty one if `sentinel`. */
async function responders(nc, subject, n, replies, sentinel = false) {
  for (let i = 0; i < n; i++) {
    nc.subscribe(subject, {
      callback: (_err, msg) => {
        for (let k = 0; k < replies; k++) msg.respond(`${i}.${k}`);
        if (sentinel) msg.respond();
      },
    });
  }
  await nc.flush();
}

/** Every reply, and how long the request took. */
async function gather(iter) {
  const start = Date.now();
  const msgs = [];
  for await (const m of iter) msgs.push(m);
  return { msgs, strings: msgs.map((m) => m.string()), elapsed: Date.now() - start };
}

for (const transport of ["ws", "nats"]) {
  describe(`over ${transport}://`, () => {
    const conn = () => connect({ servers: transport === "ws" ? server.wsUrl : server.url });
    const S = (name) => `${transport}.${name}`;

    test("timer: every responder's replies until maxWait", async () => {
      const nc = await conn();
      await responders(nc, S("timer"), 3, 2);
      const iter = await nc.requestMany(S("timer"), "hi", { strategy: "timer", maxWait: 500 });
      const { strings, elapsed } = await gather(iter);
      assert.ok(elapsed >= 450, `${elapsed}`);
      assert.deepEqual(strings.sort(), ["0.0", "0.1", "1.0", "1.1", "2.0", "2.1"]);
      assert.equal(iter.getProcessed(), 6);
      await nc.close();
    });

    test("the default is the timer strategy with maxWait 1000", async () => {
      const nc = await conn();
      await responders(nc, S("default"), 2, 1);
      const { strings, elapsed } = await gather(await nc.requestMany(S("default")));
      assert.equal(strings.length, 2);
      assert.ok(elapsed >= 950 && elapsed < 3000, `${elapsed}`);
      await nc.close();
    });

    test("count: ends at maxMessages", async () => {
      const nc = await conn();
      await responders(nc, S("count"), 4, 3);
      const iter = await nc.requestMany(S("count"), "", { strategy: "count", maxMessages: 5, maxWait: 5000 });
      const { msgs, elapsed } = await gather(iter);
      assert.equal(msgs.length, 5);
      assert.ok(elapsed < 2000, `${elapsed}`);
      await nc.close();
    });

    test("stall: ends once replies stop coming", async () => {
      const nc = await conn();
      await responders(nc, S("stall"), 3, 4);
      const iter = await nc.requestMany(S("stall"), "", { strategy: "stall", stall: 200, maxWait: 5000 });
      const { msgs, elapsed } = await gather(iter);
      assert.equal(msgs.length, 12);
      assert.ok(elapsed < 2000, `${elapsed}`);
      await nc.close();
    });

    test("sentinel: ends at the empty reply, which is yielded last (as nats.js)", async () => {
      const nc = await conn();
      await responders(nc, S("sentinel"), 1, 10, true);
      const { strings, elapsed } = await gather(
        await nc.requestMany(S("sentinel"), "", { strategy: "sentinel", maxWait: 5000 }),
      );
      assert.equal(strings.length, 11);
      assert.equal(strings.at(-1), "");
      assert.ok(elapsed < 2000, `${elapsed}`);
      await nc.close();
    });

    test("maxWait caps a sentinel that never comes, a short count and a silent service", async () => {
      const nc = await conn();
      await responders(nc, S("partial"), 1, 3);
      nc.subscribe(S("silent"));
      await nc.flush();
      for (const [subject, opts, expected] of [
        [S("partial"), { strategy: "sentinel" }, 3],
        [S("partial"), { strategy: "count", maxMessages: 10 }, 3],
        [S("silent"), { strategy: "stall" }, 0],
        [S("silent"), { strategy: "timer" }, 0],
      ]) {
        const { msgs, elapsed } = await gather(await nc.requestMany(subject, "", { ...opts, maxWait: 300 }));
        assert.equal(msgs.length, expected, opts.strategy);
        assert.ok(elapsed >= 280 && elapsed < 2000, `${opts.strategy}: ${elapsed}`);
      }
      await nc.close();
    });

    test("no responders: iterating throws NO_RESPONDERS", async () => {
      const nc = await conn();
      const iter = await nc.requestMany(S("nobody"), "", { strategy: "count", maxMessages: 3 });
      await rejectsWith(gather(iter), "NO_RESPONDERS", { subject: S("nobody"), name: "NoResponders" });
      const again = await nc.requestMany(S("nobody"), "");
      await assert.rejects(gather(again), (e) => e instanceof NoRespondersError, "nats.js's class");
      await nc.close();
    });

    test("close: iterating throws CLOSED after the replies before it", async () => {
      const nc = await conn();
      await responders(nc, S("close"), 1, 1);
      const iter = await nc.requestMany(S("close"), "", { maxWait: 30_000 });
      const seen = [];
      await rejectsWith(
        (async () => {
          for await (const m of iter) {
            seen.push(m.string());
            await nc.close();
          }
        })(),
        "CLOSED",
      );
      assert.deepEqual(seen, ["0.0"]);
      await rejectsWith(nc.requestMany(S("close")), "CLOSED");
    });

    test("break ends the request; the connection goes on", async () => {
      const nc = await conn();
      await responders(nc, S("break"), 2, 50);
      const iter = await nc.requestMany(S("break"), "", { maxWait: 30_000 });
      for await (const _ of iter) break;
      await rejectsWith(gather(iter), "INVALID_ARGUMENT");
      const { msgs } = await gather(await nc.requestMany(S("break"), "", { strategy: "count", maxMessages: 100 }));
      assert.equal(msgs.length, 100);
      await nc.close();
    });

    test("stop ends the request, also while a read waits", async () => {
      const nc = await conn();
      nc.subscribe(S("slow"), {
        callback: (_err, msg) => {
          msg.respond("first");
          // After the test closed the connection: the respond is refused.
          setTimeout(() => assert.throws(() => msg.respond("late"), { kind: "CLOSED" }), 500);
        },
      });
      await nc.flush();
      const iter = await nc.requestMany(S("slow"), "", { maxWait: 30_000 });
      const start = Date.now();
      const seen = [];
      for await (const m of iter) {
        seen.push(m.string());
        setTimeout(() => iter.stop(), 50);
      }
      assert.deepEqual(seen, ["first"]);
      assert.ok(Date.now() - start < 400, `${Date.now() - start}`);
      iter.stop();
      await nc.close();
      await new Promise((resolve) => setTimeout(resolve, 500));
    });

    test("headers reach the responders; replies carry theirs", async () => {
      const nc = await conn();
      nc.subscribe(S("headers"), {
        callback: (_err, msg) => {
          const h = headers();
          h.set("Echo", msg.headers?.get("Who") ?? "none");
          msg.respond("", { headers: h });
          msg.respond("", { headers: h });
        },
      });
      await nc.flush();
      const h = headers();
      h.set("Who", "me");
      const { msgs } = await gather(
        await nc.requestMany(S("headers"), "", { headers: h, strategy: "count", maxMessages: 2 }),
      );
      assert.deepEqual(
        msgs.map((m) => m.headers.get("Echo")),
        ["me", "me"],
      );
      await nc.close();
    });

    test("bad arguments reject before anything is sent", async () => {
      const nc = await conn();
      await rejectsWith(nc.requestMany(S("bad"), "", { maxWait: -1 }), "INVALID_ARGUMENT");
      await rejectsWith(nc.requestMany(S("bad"), "", { strategy: "nope" }), "INVALID_ARGUMENT");
      await rejectsWith(nc.requestMany("", ""), "INVALID_SUBJECT");
      await nc.close();
    });
  });
}

describe("noMux", () => {
  const conn = () => connect({ servers: server.url });

  test("the same strategies over a subscription of its own", async () => {
    const nc = await conn();
    await responders(nc, "nomux.svc", 3, 2, true);
    for (const [opts, expected] of [
      [{ strategy: "count", maxMessages: 4 }, 4],
      [{ strategy: "sentinel" }, 3],
      [{ strategy: "stall", stall: 200 }, 9],
    ]) {
      const { msgs, elapsed } = await gather(await nc.requestMany("nomux.svc", "", { ...opts, noMux: true, maxWait: 5000 }));
      assert.equal(msgs.length, expected, opts.strategy);
      assert.ok(elapsed < 2000, `${opts.strategy}: ${elapsed}`);
    }
    await nc.close();
  });

  test("no responders throws NO_RESPONDERS; a close ends the replies quietly", async () => {
    const nc = await conn();
    await rejectsWith(gather(await nc.requestMany("nomux.nobody", "", { noMux: true })), "NO_RESPONDERS");
    await responders(nc, "nomux.close", 1, 1);
    const seen = [];
    for await (const m of await nc.requestMany("nomux.close", "", { noMux: true, maxWait: 30_000 })) {
      seen.push(m.string());
      await nc.close();
    }
    assert.deepEqual(seen, ["0.0"]);
  });
});

describe("the same replies as nats.js v3", () => {
  /** What a requestMany gave: the replies' strings in arrival order, and the error's kind. */
  async function outcome(nc, subject, opts) {
    const strings = [];
    try {
      for await (const m of await nc.requestMany(subject, "", { ...opts })) strings.push(m.string());
      return { strings };
    } catch (e) {
      return { strings, error: e.kind === "NO_RESPONDERS" || e.name === "NoResponders" ? "no responders" : `${e}` };
    }
  }

  test("for every strategy, with several responders", async () => {
    const [natsjet, natsjs] = [await connect({ servers: server.wsUrl }), await wsconnect({ servers: server.wsUrl })];
    await responders(natsjet, "same.many", 3, 4);
    await responders(natsjet, "same.sentinel", 1, 5, true);
    await responders(natsjet, "same.partial", 1, 5);
    for (const [subject, opts] of [
      ["same.many", { strategy: "timer", maxWait: 300 }],
      ["same.many", { maxWait: 300 }],
      ["same.many", { strategy: "count", maxMessages: 5, maxWait: 3000 }],
      ["same.many", { strategy: "count", maxWait: 300 }],
      ["same.many", { strategy: "stall", stall: 150, maxWait: 3000 }],
      ["same.sentinel", { strategy: "sentinel", maxWait: 3000 }],
      ["same.partial", { strategy: "sentinel", maxWait: 300 }],
      ["same.nobody", { strategy: "count", maxMessages: 3, maxWait: 3000 }],
      ["same.nobody", { strategy: "timer", maxWait: 3000, noMux: true }],
    ]) {
      const [ours, theirs] = await Promise.all([outcome(natsjet, subject, opts), outcome(natsjs, subject, opts)]);
      // Responders race each other: compare what came, not its order, except for the sentinel, last.
      assert.deepEqual(
        { ...ours, strings: ours.strings.slice().sort(), last: ours.strings.at(-1) },
        { ...theirs, strings: theirs.strings.slice().sort(), last: theirs.strings.at(-1) },
        `${subject} ${JSON.stringify(opts)}`,
      );
    }
    await Promise.all([natsjet.close(), natsjs.close()]);
  });
});
