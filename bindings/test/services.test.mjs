// The services API (natsjet/services, ADR-32) against a real server:
// endpoints, groups, queue groups, metadata, stats, reset, stop, the
// discovery subjects; then interop with nats.js's @nats-io/services 3.0.0-25
// both ways (each client discovers, calls and reads the other's services,
// whose PING, INFO and STATS replies must be the same field by field), the
// same refusals of bad names; and a service in Chromium.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Svcm as NatsJsSvcm } from "@nats-io/services";
import { connect as natsJsConnect } from "@nats-io/transport-node";
import { connect, headers, InvalidOperationError, NatsError } from "natsjet";
import {
  ServiceError,
  ServiceErrorCodeHeader,
  ServiceErrorHeader,
  ServiceResponseType,
  ServiceVerb,
  Svcm,
} from "natsjet/services";
import { pageWithNatsjet, skipBrowser } from "./chromium.mjs";
import { startServer } from "./harness.mjs";

const WAIT = 10_000;
function within(promise, what) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} in ${WAIT} ms`)), WAIT)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Every item of an iterator (a discovery call's replies). */
async function all(iter) {
  const got = [];
  for await (const item of await iter) got.push(item);
  return got;
}

/** Resolves to "ended" once an endpoint's iteration ends (its requests unanswered). */
async function ended(requests) {
  for await (const _ of requests);
  return "ended";
}

/** Spins for `ms`: time a handler visibly spends. */
function spin(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

let server;
const conns = [];
before(async () => {
  server = await startServer();
});
after(async () => {
  for (const nc of conns) if (!nc.isClosed()) await nc.close();
  await server.close();
});
const natsjet = async () => {
  const nc = await connect({ servers: server.url });
  conns.push(nc);
  return nc;
};
const natsJs = async () => {
  const nc = await natsJsConnect({ servers: server.url });
  conns.push(nc);
  return nc;
};

describe("natsjet services", () => {
  test("endpoints: a handler, an iterator, a subject of its own, added after the start", async () => {
    const nc = await natsjet();
    const srv = await new Svcm(nc).add({ name: "endpoints", version: "1.2.3" });
    srv.addEndpoint("sum", (err, m) => {
      assert.equal(err, null);
      m.respond(JSON.stringify(m.json().reduce((a, b) => a + b, 0)));
    });
    const echoes = srv.addEndpoint("echo", { subject: "echo.it", metadata: { kind: "iterator" } });
    const seen = [];
    const loop = (async () => {
      for await (const m of echoes) {
        seen.push({ subject: m.subject, reply: m.reply !== "", sid: typeof m.sid, h: m.headers?.get("X"), s: m.string() });
        m.respond(m.data, { headers: m.headers });
      }
      return "ended";
    })();
    await nc.flush();
    assert.equal((await nc.request("sum", "[1,2,3]")).json(), 6);
    const h = headers();
    h.set("X", "y");
    const echoed = await nc.request("echo.it", "hi", { headers: h });
    assert.deepEqual([echoed.string(), echoed.headers?.get("X")], ["hi", "y"]);
    assert.deepEqual(seen, [{ subject: "echo.it", reply: true, sid: "number", h: "y", s: "hi" }]);
    // A handler's endpoint is no iterator.
    const handled = srv.addEndpoint("late", (_err, m) => m.respond("late"));
    await assert.rejects(async () => {
      for await (const _ of handled);
    }, InvalidOperationError);
    await nc.flush();
    assert.equal((await nc.request("late")).string(), "late");
    assert.deepEqual(
      srv.info().endpoints.map((e) => [e.name, e.subject, e.queue_group, e.metadata]),
      [
        ["sum", "sum", "q", undefined],
        ["echo", "echo.it", "q", { kind: "iterator" }],
        ["late", "late", "q", undefined],
      ],
    );
    assert.equal(await srv.stop(), null);
    assert.equal(await within(loop, "end of the iterator"), "ended");
  });

  test("groups prefix subjects; queue groups inherit as in nats.js", async () => {
    const nc = await natsjet();
    const queues = async (config) => {
      const srv = await new Svcm(nc).add({ name: "groups", version: "0.0.1", ...config });
      srv.addEndpoint("a");
      srv.addGroup("G").addEndpoint("a");
      const g = srv.addGroup("g", "qq");
      g.addEndpoint("a");
      g.addEndpoint("b", { queue: "bb" });
      const g2 = g.addGroup("g");
      g2.addEndpoint("a");
      g2.addEndpoint("b", { queue: "bb" });
      srv.addGroup("").addGroup("x.y").addEndpoint("c", { subject: "d.>" });
      const got = srv.info().endpoints.map((e) => `${e.subject}:${e.queue_group}`);
      await srv.stop();
      return got;
    };
    assert.deepEqual(await queues({}), ["a:q", "G.a:q", "g.a:qq", "g.b:bb", "g.g.a:qq", "g.g.b:bb", "x.y.d.>:q"]);
    assert.deepEqual(await queues({ queue: "" }), ["a:", "G.a:", "g.a:qq", "g.b:bb", "g.g.a:qq", "g.g.b:bb", "x.y.d.>:"]);
    assert.deepEqual(await queues({ queue: "other" }), ["a:other", "G.a:other", "g.a:qq", "g.b:bb", "g.g.a:qq", "g.g.b:bb", "x.y.d.>:other"]);
  });

  test("two instances share a queue group; without one both answer", async () => {
    const instances = [];
    for (let i = 0; i < 2; i++) {
      const [a, b] = [await natsjet(), await natsjet()];
      const srv = await new Svcm(a).add({ name: "shared", version: "1.0.0" });
      srv.addEndpoint("work", (_err, m) => m.respond(srv.info().id));
      const solo = await new Svcm(b).add({ name: "solo", version: "1.0.0", queue: "" });
      solo.addEndpoint("all", (_err, m) => m.respond(solo.info().id));
      instances.push(srv, solo);
      await Promise.all([a.flush(), b.flush()]);
    }
    const nc = await natsjet();
    const answered = new Map();
    for (let i = 0; i < 40; i++) {
      const id = (await nc.request("work")).string();
      answered.set(id, (answered.get(id) ?? 0) + 1);
    }
    const shared = instances.filter((_, i) => i % 2 === 0);
    assert.deepEqual([...answered.keys()].sort(), shared.map((s) => s.info().id).sort());
    const counts = await Promise.all(shared.map(async (s) => (await s.stats()).endpoints[0].num_requests));
    assert.equal(counts[0] + counts[1], 40);
    const both = await all(nc.requestMany("all", "", { strategy: "count", maxMessages: 2, maxWait: 2000 }));
    assert.equal(new Set(both.map((m) => m.string())).size, 2);
    for (const srv of instances) await srv.stop();
  });

  test("metadata is frozen and in every reply; endpoint metadata in INFO", async () => {
    const nc = await natsjet();
    const metadata = { region: "eu", tier: "1" };
    const srv = await new Svcm(nc).add({ name: "meta", version: "1.0.0", description: "has metadata", metadata });
    srv.addEndpoint("e", { handler: (_e, m) => m.respond(), metadata: { schema: "none" } });
    assert.throws(() => {
      metadata.region = "us";
    }, TypeError);
    assert.deepEqual(srv.ping().metadata, { region: "eu", tier: "1" });
    const info = srv.info();
    assert.deepEqual([info.description, info.metadata, info.endpoints[0].metadata], ["has metadata", metadata, { schema: "none" }]);
    assert.deepEqual((await srv.stats()).metadata, metadata);
    // None given: left out of the replies, as nats.js.
    const bare = await new Svcm(nc).add({ name: "bare", version: "1.0.0" });
    assert.equal("metadata" in JSON.parse(JSON.stringify(bare.ping())), false);
    await srv.stop();
    await bare.stop();
  });

  test("stats count requests, errors and time; statsHandler gives data; reset zeroes them", async () => {
    const nc = await natsjet();
    let calls = 0;
    const srv = await new Svcm(nc).add({
      name: "counted",
      version: "1.0.0",
      statsHandler: async (ep) => {
        calls++;
        if (ep.name === "broken") throw new Error("no stats for broken");
        return { endpoint: ep.name, subject: ep.subject, queue: ep.queue };
      },
    });
    srv.addEndpoint("slow", (_e, m) => {
      spin(3);
      m.respond();
    });
    srv.addEndpoint("fails", (_e, m) => {
      if (m.string() === "bad") throw new ServiceError(422, "bad input");
      if (m.string() === "worse") throw new Error("it broke");
      m.respond("ok");
    });
    const loop = srv.addEndpoint("loop");
    (async () => {
      for await (const m of loop) {
        await sleep(20);
        m.respond();
      }
    })();
    srv.addEndpoint("broken", (_e, m) => m.respond());
    await nc.flush();
    const started = (await srv.stats()).started;
    for (let i = 0; i < 3; i++) await nc.request("slow");
    await nc.request("fails", "fine");
    const bad = await nc.request("fails", "bad");
    const worse = await nc.request("fails", "worse");
    for (let i = 0; i < 2; i++) await nc.request("loop");
    const errors = [bad, worse].map((m) => [m.headers?.get(ServiceErrorCodeHeader), m.headers?.get(ServiceErrorHeader), m.data.length]);
    assert.deepEqual(errors, [
      ["422", "bad input", 0],
      ["500", "it broke", 0],
    ]);
    const stats = await srv.stats();
    assert.equal(stats.type, ServiceResponseType.STATS);
    assert.equal(stats.started, started);
    const [slow, fails, looped, broken] = stats.endpoints;
    assert.deepEqual([slow.num_requests, slow.num_errors, slow.last_error], [3, 0, undefined]);
    assert.ok(slow.processing_time >= 9e6, `${slow.processing_time}`);
    assert.equal(slow.average_processing_time, Math.round(slow.processing_time / 3));
    assert.deepEqual(slow.data, { endpoint: "slow", subject: "slow", queue: "q" });
    assert.deepEqual([fails.num_requests, fails.num_errors, fails.last_error], [3, 2, "it broke"]);
    assert.deepEqual([looped.num_requests, looped.num_errors], [2, 0]);
    assert.ok(looped.processing_time >= 30e6, `the loop's body is timed: ${looped.processing_time}`);
    // Each STATS asks statsHandler again; each failure counts (two STATS so far).
    assert.deepEqual([broken.num_errors, broken.last_error, broken.data], [2, "no stats for broken", undefined]);
    assert.equal(calls, 8);
    await sleep(5);
    srv.reset();
    const zeroed = await srv.stats();
    assert.notEqual(zeroed.started, started);
    for (const e of zeroed.endpoints.slice(0, 3)) {
      assert.deepEqual([e.num_requests, e.num_errors, e.processing_time, e.average_processing_time, e.last_error], [0, 0, 0, 0, undefined]);
    }
    await srv.stop();
  });

  test("respondError sets the error headers (on the caller's headers too)", async () => {
    const nc = await natsjet();
    const srv = await new Svcm(nc).add({ name: "errs", version: "1.0.0" });
    srv.addEndpoint("e", (_e, m) => {
      const h = headers();
      h.set("Extra", "1");
      assert.equal(m.respondError(409, "conflict", "details", { headers: h }), true);
      assert.equal(h.get(ServiceErrorCodeHeader), "409");
    });
    srv.addEndpoint("plain", (_e, m) => m.respondError(503, "down"));
    await nc.flush();
    const r = await nc.request("e");
    assert.deepEqual(
      [r.headers?.get("Extra"), r.headers?.get("Nats-Service-Error-Code"), r.headers?.get("Nats-Service-Error"), r.string()],
      ["1", "409", "conflict", "details"],
    );
    assert.equal(ServiceError.isServiceError(r), true);
    const e = ServiceError.toServiceError(await nc.request("plain"));
    assert.ok(e instanceof ServiceError && e instanceof Error);
    assert.deepEqual([e.code, e.message], [503, "down"]);
    assert.equal(ServiceError.toServiceError(await nc.request("$SRV.PING.errs")), null);
    // Like nats.js, respondError is the handler's answer, not an error counted.
    assert.equal((await srv.stats()).endpoints[0].num_errors, 0);
    await srv.stop();
  });

  test("discovery answers at all three levels: every service, a name, an instance", async () => {
    const nc = await natsjet();
    const svcm = new Svcm(nc);
    const a1 = await svcm.add({ name: "alpha", version: "1.0.0" });
    const a2 = await svcm.add({ name: "alpha", version: "1.0.1" });
    const b = await svcm.add({ name: "beta", version: "2.0.0" });
    await nc.flush();
    const ids = (replies) => replies.map((r) => r.id).sort();
    const c = svcm.client();
    for (const verb of ["ping", "info", "stats"]) {
      const everyone = await all(c[verb]());
      const mine = [a1, a2, b].map((s) => s.info().id).sort();
      assert.deepEqual(ids(everyone.filter((r) => mine.includes(r.id))), mine, verb);
      assert.deepEqual(ids(await all(c[verb]("alpha"))), [a1, a2].map((s) => s.info().id).sort(), verb);
      const one = await all(c[verb]("beta", b.info().id));
      assert.deepEqual(ids(one), [b.info().id], verb);
      assert.equal(one[0].type, ServiceResponseType[verb.toUpperCase()], verb);
    }
    // The subjects themselves, as raw requests.
    for (const verb of Object.values(ServiceVerb)) {
      for (const subject of [`$SRV.${verb}.beta`, `$SRV.${verb}.beta.${b.info().id}`]) {
        assert.equal((await nc.request(subject)).json().id, b.info().id, subject);
      }
    }
    assert.deepEqual(await all(c.ping("gamma")).catch((e) => e.name), "NoResponders");
    assert.deepEqual(await all(svcm.client(undefined, "$ELSEWHERE").ping()).catch((e) => e.name), "NoResponders");
    await Promise.all([a1, a2, b].map((s) => s.stop()));
  });

  test("stop drains: a request already sent is answered, later ones find nobody", async () => {
    const nc = await natsjet();
    const srv = await new Svcm(nc).add({ name: "stopping", version: "1.0.0" });
    srv.addEndpoint("slow", { subject: "stopping.slow", handler: async (_e, m) => {
      await sleep(100);
      m.respond("done");
    } });
    await nc.flush();
    const pending = nc.request("stopping.slow", "", { timeout: 5000 });
    assert.equal(srv.isStopped, false);
    const stopping = srv.stop();
    assert.equal(srv.isStopped, true);
    assert.equal(await stopping, null);
    assert.equal(await srv.stopped, null);
    assert.equal((await pending).string(), "done");
    await assert.rejects(nc.request("stopping.slow"), (e) => e instanceof NatsError && e.kind === "NO_RESPONDERS");
    await assert.rejects(nc.request("$SRV.PING.stopping"), (e) => e instanceof NatsError && e.kind === "NO_RESPONDERS");
    // Stopping again is the same result; an error given is what stopped resolves with.
    assert.equal(await srv.stop(new Error("late")), null);
    const failed = await new Svcm(nc).add({ name: "failing", version: "1.0.0" });
    const why = new Error("gave up");
    assert.equal(await failed.stop(why), why);
  });

  test("leaving an endpoint's loop stops the service; so does closing the connection", async () => {
    const nc = await natsjet();
    const srv = await new Svcm(nc).add({ name: "looping", version: "1.0.0" });
    const it = srv.addEndpoint("once");
    (async () => {
      for await (const m of it) {
        m.respond();
        break;
      }
    })();
    await nc.flush();
    await nc.request("once");
    assert.equal(await within(srv.stopped, "stop after break"), null);
    const other = await natsjet();
    const closing = await new Svcm(other).add({ name: "closing", version: "1.0.0" });
    const loop = ended(closing.addEndpoint("x"));
    await other.close();
    assert.equal(await within(closing.stopped, "stop on close"), null);
    assert.equal(closing.isStopped, true);
    assert.equal(await within(loop, "end of the loop on close"), "ended");
  });

  test("a connection lost for good stops its services with its error", async () => {
    const own = await startServer();
    const nc = await connect({ servers: own.url, maxReconnectAttempts: 0 });
    try {
      const srv = await new Svcm(nc).add({ name: "lost", version: "1.0.0" });
      const loop = ended(srv.addEndpoint("x"));
      await nc.flush();
      await own.stop();
      const err = await within(srv.stopped, "stop when the connection is lost");
      assert.ok(err instanceof NatsError, `${err}`);
      assert.deepEqual(await nc.closed(), err);
      assert.equal(await within(loop, "end of the loop"), "ended");
    } finally {
      await own.close();
    }
  });
});

// ---- interop with nats.js's @nats-io/services --------------------------------

/** The same service, made with either library's `Svcm`. */
async function sameService(SvcmClass, nc, name) {
  const srv = await new SvcmClass(nc).add({
    name,
    version: "3.1.4",
    description: "the same service",
    metadata: { built: "same" },
    queue: "workers",
    statsHandler: async (ep) => ({ seen: ep.subject }),
  });
  srv.addEndpoint("echo", (_e, m) => m.respond(m.data));
  const math = srv.addGroup("math", "mathq");
  math.addEndpoint("double", { handler: (_e, m) => m.respond(`${2 * Number(m.string())}`), metadata: { unit: "x2" } });
  math.addEndpoint("fail", (_e, m) => {
    if (m.string() === "throw") throw new Error("thrown");
    m.respondError(400, "refused", "body");
  });
  math.addGroup("deep").addEndpoint("leaf", { subject: "leaf.>", handler: (_e, m) => m.respond(m.subject) });
  const listed = srv.addEndpoint("iter");
  (async () => {
    for await (const m of listed) m.respond("iterated");
  })();
  return srv;
}

/** The same requests to the service's endpoints (`math.deep.leaf.<tail>` for the wildcard one), the answers as text. */
async function callService(nc, tail) {
  const got = [];
  const text = (m) => `${m.string()}|${m.headers?.get("Nats-Service-Error-Code") ?? ""}|${m.headers?.get("Nats-Service-Error") ?? ""}`;
  got.push(text(await nc.request(`echo`, "hi")));
  got.push(text(await nc.request(`math.double`, "21")));
  got.push(text(await nc.request(`math.fail`, "no")));
  got.push(text(await nc.request(`math.fail`, "throw")));
  got.push(text(await nc.request(`math.deep.leaf.${tail}`, "")));
  got.push(text(await nc.request(`iter`, "")));
  return got;
}

/** A reply with what differs between any two instances made the same (ids, times). */
function normalised(reply) {
  const r = structuredClone(reply);
  if (r.id) r.id = "<id>";
  if (r.started) r.started = Number.isNaN(Date.parse(r.started)) ? "<bad date>" : "<started>";
  for (const e of r.endpoints ?? []) {
    for (const key of ["processing_time", "average_processing_time"]) if (key in e) e[key] = typeof e[key];
  }
  return r;
}

describe("interop with nats.js's @nats-io/services", () => {
  let jetNc, jsNc, jetSrv, jsSrv;
  before(async () => {
    jetNc = await natsjet();
    jsNc = await natsJs();
    jetSrv = await sameService(Svcm, jetNc, "twin_jet");
    await jetNc.flush();
  });

  test("nats.js's client finds, calls and reads a natsjet service", async () => {
    const client = new NatsJsSvcm(jsNc).client();
    const pings = await all(client.ping("twin_jet"));
    assert.deepEqual(pings.map((p) => p.id), [jetSrv.info().id]);
    assert.deepEqual(await callService(jsNc, "a"), ["hi||", "42||", "body|400|refused", "|500|thrown", "math.deep.leaf.a||", "iterated||"]);
    const [stats] = await all(client.stats("twin_jet", jetSrv.info().id));
    assert.deepEqual(
      stats.endpoints.map((e) => [e.name, e.num_requests, e.num_errors, e.last_error]),
      [
        ["echo", 1, 0, undefined],
        ["double", 1, 0, undefined],
        ["fail", 2, 1, "thrown"],
        ["leaf", 1, 0, undefined],
        ["iter", 1, 0, undefined],
      ],
    );
    const [info] = await all(client.info("twin_jet"));
    assert.deepEqual(info, JSON.parse(JSON.stringify(jetSrv.info())));
  });

  test("natsjet's client finds, calls and reads a nats.js service", async () => {
    // The nats.js twin takes over the endpoints' subjects: stop natsjet's first.
    await jetSrv.stop();
    jsSrv = await sameService(NatsJsSvcm, jsNc, "twin_js");
    await jsNc.flush();
    const client = new Svcm(jetNc).client();
    const pings = await all(client.ping("twin_js"));
    assert.deepEqual(pings.map((p) => p.id), [jsSrv.info().id]);
    assert.deepEqual(await callService(jetNc, "b"), ["hi||", "42||", "body|400|refused", "|500|thrown", "math.deep.leaf.b||", "iterated||"]);
    const [info] = await all(client.info("twin_js", jsSrv.info().id));
    assert.deepEqual(info, JSON.parse(JSON.stringify(jsSrv.info())));
  });

  test("PING, INFO and STATS replies of both are the same, field by field", async () => {
    await jsSrv.stop();
    const jet = await sameService(Svcm, jetNc, "twin");
    await jetNc.flush();
    await callService(jsNc, "c");
    const replies = async (nc, id) => {
      const out = {};
      for (const verb of ["PING", "INFO", "STATS"]) out[verb] = normalised((await nc.request(`$SRV.${verb}.twin.${id}`)).json());
      return out;
    };
    const fromJet = await replies(jsNc, jet.info().id);
    await jet.stop();
    const js = await sameService(NatsJsSvcm, jsNc, "twin");
    await jsNc.flush();
    await callService(jetNc, "c");
    const fromJs = await replies(jetNc, js.info().id);
    await js.stop();
    assert.deepEqual(fromJet, fromJs);
    assert.equal(fromJet.STATS.endpoints.length, 5);
  });

  test("both refuse the same bad names, subjects and versions, in the same words", async () => {
    const refusals = async (SvcmClass, nc) => {
      const out = [];
      const note = async (f) => {
        try {
          await f();
          out.push("accepted");
        } catch (e) {
          out.push(`${e instanceof Error}: ${e.message}`);
        }
      };
      const svcm = new SvcmClass(nc);
      for (const config of [
        { name: "", version: "1.0.0" },
        { name: "a.b", version: "1.0.0" },
        { name: "a b", version: "1.0.0" },
        { name: "ok", version: "1" },
        { name: "ok", version: "" },
        { name: "ok", version: "1.0.0", queue: "a b" },
        { name: "ok", version: "1.0.0", queue: "a.b" },
      ]) {
        await note(async () => (await svcm.add(config)).stop());
      }
      const srv = await svcm.add({ name: "refuser", version: "1.0.0", queue: "" });
      for (const [name, opts] of [
        ["a.b", undefined],
        ["", undefined],
        ["x", { subject: "a b" }],
        ["x", { subject: "a.>.b" }],
      ]) {
        await note(() => srv.addEndpoint(name, opts));
      }
      for (const group of ["a b", "a.>", "a.>.b"]) await note(() => srv.addGroup(group));
      const client = svcm.client();
      for (const [name, id] of [
        ["", "id"],
        ["a.b", ""],
        ["ok", "a b"],
      ]) {
        await note(() => client.ping(name, id));
      }
      await srv.stop();
      return out;
    };
    const jet = await refusals(Svcm, jetNc);
    assert.deepEqual(jet, await refusals(NatsJsSvcm, jsNc));
    assert.ok(jet.filter((r) => r !== "accepted").length >= 14, jet.join("\n"));
  });

  test("no services: both clients fail the same way", async () => {
    const outcome = (iter) => all(iter).then((r) => `${r.length} replies`, (e) => e.name);
    const jet = await outcome(new Svcm(jetNc).client().ping("nobody"));
    assert.equal(jet, await outcome(new NatsJsSvcm(jsNc).client().ping("nobody")));
  });
});

describe("a service in Chromium", { skip: skipBrowser, timeout: 60_000 }, () => {
  let page, close;
  before(async () => {
    ({ page, close } = await pageWithNatsjet("natsjet services"));
  });
  after(() => close?.());

  test("the page adds a service, calls it, pings and reads it", async () => {
    const got = await page.evaluate(async (servers) => {
      const { Svcm, ServiceError } = await import("/pkg/services/index.js");
      const nc = await natsjet.connect({ servers });
      const svcm = new Svcm(nc);
      const srv = await svcm.add({ name: "browser", version: "1.0.0", metadata: { where: "chromium" } });
      srv.addEndpoint("hello", (_e, m) => m.respond(`hello ${m.string()}`));
      srv.addEndpoint("nope", (_e, m) => m.respondError(404, "not here"));
      await nc.flush();
      const hello = (await nc.request("hello", "page")).string();
      const nope = ServiceError.toServiceError(await nc.request("nope"));
      const pings = [];
      for await (const p of await svcm.client().ping("browser")) pings.push(p);
      const stats = await srv.stats();
      const stopped = await srv.stop();
      await nc.close();
      return {
        hello,
        nope: [nope?.code, nope?.message],
        pings: pings.map((p) => [p.id === srv.info().id, p.type, p.metadata]),
        requests: stats.endpoints.map((e) => e.num_requests),
        stopped,
      };
    }, server.wsUrl);
    assert.deepEqual(got, {
      hello: "hello page",
      nope: [404, "not here"],
      pings: [[true, "io.nats.micro.v1.ping_response", { where: "chromium" }]],
      requests: [1, 1],
      stopped: null,
    });
  });
});
