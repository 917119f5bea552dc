// nats.js helpers and connection/subscription controls: wsconnect, Empty,
// nanos/millis, createInbox, Subscription.drain and counts, rtt, getServer,
// isDraining, reconnect and Symbol.asyncDispose, against a real server.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as nats from "@nats-io/nats-core";
import { Empty, NatsError, TimeoutError, connect, createInbox, headers, millis, nanos, wsconnect } from "natsjet";
import { nextMsg, rejectsWith, startServer, waitFor } from "./harness.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test("helpers: wsconnect, Empty, nanos and millis as nats.js's", async () => {
  assert.equal(wsconnect, connect);
  assert.ok(Empty instanceof Uint8Array && Empty.length === 0);
  for (const ms of [0, 1, 1.5, 30_000, 2 ** 40]) assert.equal(nanos(ms), nats.nanos(ms));
  for (const ns of [0, 999_999, 1_000_000, 1_500_000, 2 ** 52]) assert.equal(millis(ns), nats.millis(ns));
  assert.equal(millis(nanos(250)), 250);
  const nc = await wsconnect({ servers: server.wsUrl });
  nc.publish("empty", Empty);
  await nc.close();
});

test("createInbox: unique subjects under _INBOX or a prefix; wildcards refused", async () => {
  const a = createInbox();
  assert.match(a, /^_INBOX\.[0-9A-Za-z]{22}$/);
  assert.notEqual(createInbox(""), a);
  assert.match(createInbox("app.replies"), /^app\.replies\.[0-9A-Za-z]{22}$/);
  assert.throws(() => createInbox("app.*"), (e) => e instanceof NatsError && e.kind === "INVALID_SUBJECT");
  const nc = await connect({ servers: server.wsUrl });
  const sub = nc.subscribe(a);
  await nc.flush();
  nc.publish(a, "hi");
  assert.equal((await nextMsg(sub)).string(), "hi");
  await nc.close();
});

for (const transport of ["ws", "nats"]) {
  test(`SubOpts.timeout ends a subscription with no first message in time, as nats.js (${transport}://)`, async () => {
    const nc = await connect({ servers: transport === "ws" ? server.wsUrl : server.url });
    const silent = nc.subscribe("subto.silent", { timeout: 200 });
    let callbackErr;
    nc.subscribe("subto.callback", { timeout: 200, callback: (err) => (callbackErr ??= err) });
    const busy = nc.subscribe("subto.busy", { timeout: 200 });
    nc.publish("subto.busy", "first");
    assert.equal((await nextMsg(busy)).string(), "first");
    await assert.rejects(
      (async () => {
        for await (const _ of silent) assert.fail("no message was sent");
      })(),
      (e) => e instanceof TimeoutError && e.kind === "TIMEOUT",
    );
    assert.equal((await silent.closed).kind, "TIMEOUT");
    assert.equal(silent.isClosed(), true);
    await waitFor(() => callbackErr);
    assert.ok(callbackErr instanceof TimeoutError);
    nc.publish("subto.busy", "second");
    assert.equal((await nextMsg(busy)).string(), "second", "the first message disarmed the timeout");
    await nc.close();
  });
}

for (const transport of ["ws", "nats"]) {
  test(`request({ noMux, reply }) is answered on a subscription of its own, as nats.js (${transport}://)`, async () => {
    const nc = await connect({ servers: transport === "ws" ? server.wsUrl : server.url });
    nc.subscribe("nomux.echo", { callback: (_err, msg) => msg.respond(msg.reply) });
    nc.subscribe("nomux.silent");
    await nc.flush();
    const muxed = (await nc.request("nomux.echo")).string();
    const own = (await nc.request("nomux.echo", "", { noMux: true })).string();
    const shared = muxed.slice(0, muxed.lastIndexOf("."));
    assert.ok(own.startsWith("_INBOX.") && !own.startsWith(`${shared}.`), `${own} is not under ${shared}`);
    assert.equal((await nc.request("nomux.echo", "", { noMux: true, reply: "my.reply" })).string(), "my.reply");
    await rejectsWith(nc.request("nobody.home", "", { noMux: true }), "NO_RESPONDERS", { message: "no responders: 'nobody.home'" });
    await rejectsWith(nc.request("nomux.silent", "", { noMux: true, timeout: 200 }), "TIMEOUT");
    await rejectsWith(nc.request("nomux.echo", "", { reply: "my.reply" }), "INVALID_ARGUMENT");
    await nc.close();
  });
}

test("Subscription.drain delivers what the server sent before it, then ends", async () => {
  const nc = await connect({ servers: server.url });
  const pub = await connect({ servers: server.url });
  const sub = nc.subscribe("sdrain");
  const other = nc.subscribe("sdrain.other");
  await nc.flush();
  for (let i = 0; i < 2000; i++) pub.publish("sdrain", `${i}`);
  await pub.flush();
  assert.equal(sub.isDraining(), false);
  const drained = sub.drain();
  assert.equal(sub.isDraining(), true);
  assert.equal(sub.drain(), drained, "one drain");
  await drained;
  pub.publish("sdrain", "late");
  pub.publish("sdrain.other", "still");
  await pub.flush();
  assert.equal(sub.getReceived(), 2000);
  assert.equal(sub.getPending(), 2000);
  const got = [];
  for await (const m of sub) got.push(m.string());
  assert.equal(got.length, 2000);
  assert.equal(got[1999], "1999");
  assert.equal(sub.getPending(), 0);
  assert.equal(sub.getReceived(), 2000, "kept once the subscription is gone");
  assert.equal(sub.isClosed(), true);
  await sub.drain();
  assert.equal((await nextMsg(other)).string(), "still", "the connection stays up");
  await nc.close();
  await pub.close();
});

test("Subscription.drain with a callback resolves once the callback had everything", async () => {
  const nc = await connect({ servers: server.wsUrl });
  const got = [];
  const sub = nc.subscribe("cbdrain", { callback: (_e, m) => got.push(m.string()) });
  await nc.flush();
  for (let i = 0; i < 500; i++) nc.publish("cbdrain", `${i}`);
  await sub.drain();
  assert.equal(got.length, 500);
  assert.equal(sub.getProcessed(), 500);
  assert.equal(sub.isClosed(), true);
  await nc.close();
  const closed = await connect({ servers: server.wsUrl });
  const late = closed.subscribe("late");
  await closed.close();
  await assert.rejects(late.drain(), { kind: "CLOSED" });
});

test("publishMessage sends a message as it is; respondMessage answers its reply with it (nats.js)", async () => {
  const nc = await connect({ servers: server.url });
  const copies = nc.subscribe("copy.>");
  const answers = nc.subscribe("answer.>");
  await nc.flush();
  const h = headers();
  h.set("X-Id", "7");
  nc.publish("copy.one", "payload", { headers: h, reply: "answer.one" });
  const received = await nextMsg(copies);
  nc.publishMessage(received);
  const again = await nextMsg(copies);
  assert.deepEqual([again.subject, again.string(), again.reply, again.headers?.get("X-Id")], ["copy.one", "payload", "answer.one", "7"]);
  assert.equal(nc.respondMessage(again), true);
  const answer = await nextMsg(answers);
  assert.deepEqual([answer.subject, answer.string(), answer.reply, answer.headers?.get("X-Id")], ["answer.one", "payload", "answer.one", "7"]);
  nc.publish("copy.two", "no reply");
  const plain = await nextMsg(copies);
  assert.equal(nc.respondMessage(plain), false);
  nc.publishMessage(plain);
  const copy = await nextMsg(copies);
  assert.deepEqual([copy.subject, copy.string(), copy.reply], ["copy.two", "no reply", ""]);
  await nc.close();
});

test("rtt, getServer and isDraining", async () => {
  const nc = await connect({ servers: server.url });
  const rtt = await nc.rtt();
  assert.ok(typeof rtt === "number" && rtt >= 0 && rtt < 5000, `${rtt}`);
  assert.equal(nc.getServer(), new URL(server.url).host);
  const ws = await connect({ servers: server.wsUrl });
  assert.equal(ws.getServer(), new URL(server.wsUrl).host);
  await ws.close();
  assert.equal(nc.isDraining(), false);
  const draining = nc.drain();
  assert.equal(nc.isDraining(), true);
  await assert.rejects(nc.reconnect(), { kind: "INVALID_ARGUMENT", message: /draining/ });
  await draining;
  assert.equal(nc.isDraining(), true);
  await assert.rejects(nc.rtt(), { kind: "CLOSED" });
});

test("reconnect() drops the connection and comes back with the subscriptions", async () => {
  const nc = await connect({ servers: server.wsUrl, reconnectTimeWait: 50, reconnectJitter: 0 });
  const types = [];
  const watching = (async () => {
    for await (const s of nc.status()) types.push(s.type);
  })();
  const sub = nc.subscribe("forced");
  await nc.flush();
  await nc.reconnect();
  await waitFor(() => types.includes("reconnect"), 10_000);
  assert.deepEqual(types.slice(0, 4), ["forceReconnect", "disconnect", "reconnecting", "reconnect"]);
  assert.equal(nc.stats().reconnects, 1);
  nc.publish("forced", "after");
  assert.equal((await nextMsg(sub)).string(), "after");
  await nc.close();
  await watching;
  await assert.rejects(nc.reconnect(), { kind: "CLOSED" });
});

test("setServers replaces the pool: reconnect() moves to it, and the old server is not tried again", async () => {
  const other = await startServer();
  try {
    const nc = await connect({ servers: server.url, reconnectTimeWait: 50, reconnectJitter: 0 });
    const reconnects = [];
    (async () => {
      for await (const s of nc.status()) if (s.type === "reconnect") reconnects.push(nc.getServer());
    })();
    assert.throws(() => nc.setServers([]), { kind: "INVALID_ARGUMENT" });
    assert.throws(() => nc.setServers(["nats://bad host"]), { kind: "INVALID_ARGUMENT" });
    nc.setServers([new URL(other.url).host]);
    assert.equal(nc.getServer(), new URL(server.url).host, "the connection stays");
    const sub = nc.subscribe("moved");
    await nc.reconnect();
    await waitFor(() => reconnects.length === 1, 10_000);
    await nc.reconnect();
    await waitFor(() => reconnects.length === 2, 10_000);
    assert.deepEqual(reconnects, [new URL(other.url).host, new URL(other.url).host]);
    nc.publish("moved", "here");
    assert.equal((await nextMsg(sub)).string(), "here");
    await nc.close();
  } finally {
    await other.close();
  }
});

test("Symbol.asyncDispose drains, as nats.js; nothing once closed", async () => {
  const nc = await connect({ servers: server.wsUrl });
  const got = [];
  const sub = nc.subscribe("dispose", { callback: (_e, m) => got.push(m.string()) });
  await nc.flush();
  nc.publish("dispose", "a");
  await sub[Symbol.asyncDispose]();
  assert.deepEqual(got, ["a"]);
  assert.equal(sub.isClosed(), true);
  await sub[Symbol.asyncDispose]();
  const iterated = nc.subscribe("dispose.iter");
  await nc[Symbol.asyncDispose]();
  assert.equal(nc.isClosed(), true);
  assert.equal(nc.isDraining(), true);
  await nc[Symbol.asyncDispose]();
  await iterated[Symbol.asyncDispose]();
});
