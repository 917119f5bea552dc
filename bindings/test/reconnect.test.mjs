// Status events and recovery across server restarts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connect } from "natsjet";
import { clusterNode, nextMsg, startServer, waitFor } from "./harness.mjs";

/** Collects statuses until the connection closes. */
function watch(nc) {
  const statuses = [];
  const done = (async () => {
    for await (const s of nc.status()) statuses.push(s);
  })();
  return {
    statuses,
    done,
    get types() {
      return statuses.map((s) => s.type);
    },
  };
}

test("a restart brings disconnect, reconnecting per attempt, then reconnect, all naming the server", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl, reconnectTimeWait: 100, reconnectJitter: 0 });
  const status = watch(nc);
  const sub = nc.subscribe("after.restart");
  await nc.flush();
  await server.restart();
  await waitFor(() => status.types.includes("reconnect"), 10_000);
  const types = status.types.join(" ");
  assert.match(types, /^disconnect (reconnecting )+reconnect$/);
  const hostPort = new URL(server.wsUrl).host;
  for (const s of status.statuses) assert.equal(s.server, hostPort, JSON.stringify(s));
  assert.equal(nc.getServer(), hostPort);
  nc.publish("after.restart", "still here");
  assert.equal((await nextMsg(sub)).string(), "still here");
  assert.equal(nc.stats().reconnects, 1);
  await nc.close();
  await status.done;
  assert.equal(status.types.at(-1), "close");
});

test("reconnectDelayHandler paces the attempts instead of reconnectTimeWait, as nats.js", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  let asked = 0;
  const reconnectDelayHandler = () => (asked++, 50);
  const nc = await connect({ servers: server.url, reconnectTimeWait: 60_000, reconnectDelayHandler });
  const status = watch(nc);
  await server.stop();
  await waitFor(() => status.types.filter((type) => type === "reconnecting").length >= 3, 10_000);
  await server.start();
  await waitFor(() => status.types.includes("reconnect"), 10_000);
  assert.ok(asked >= 2, `asked ${asked} times`);
  await nc.close();
  await assert.rejects(connect({ servers: server.url, reconnectDelayHandler: 50 }), { kind: "INVALID_ARGUMENT" });
});

test("reconnectToServer picks the server of every attempt from the pool, as nats.js", async (t) => {
  const [a, b] = [await startServer(), await startServer()];
  t.after(() => Promise.all([a.close(), b.close()]));
  const [hostA, hostB] = [new URL(a.url).host, new URL(b.url).host];
  const asked = [];
  const reconnectToServer = (pool, info) => {
    asked.push({ pool: pool.map((s) => `${s.listen} ${s.didConnect}`), info: info?.server_id ?? null });
    const server = pool.find((s) => s.listen === hostB);
    return asked.length === 1 ? server : { server, delay: 10 };
  };
  const nc = await connect({ servers: [a.url, b.url], noRandomize: true, reconnectTimeWait: 50, reconnectToServer });
  const status = watch(nc);
  assert.equal(nc.getServer(), hostB, "not the first of the list");
  await nc.reconnect();
  await waitFor(() => status.types.includes("reconnect"), 10_000);
  assert.equal(nc.getServer(), hostB);
  assert.deepEqual(asked, [
    { pool: [`${hostA} false`, `${hostB} false`], info: null },
    { pool: [`${hostA} false`, `${hostB} true`], info: nc.info.server_id },
  ]);
  await nc.close();
  const elsewhere = () => ({ listen: "127.0.0.1:1" });
  await assert.rejects(connect({ servers: a.url, reconnectToServer: elsewhere }), { kind: "INVALID_ARGUMENT", message: /not in the pool/ });
  const throwing = () => {
    throw new Error("no pick");
  };
  await assert.rejects(connect({ servers: a.url, reconnectToServer: throwing }), { kind: "INVALID_ARGUMENT", message: /no pick/ });
});

test("reconnect: false closes when the server goes away", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl, reconnect: false });
  const status = watch(nc);
  await nc.flush();
  await server.stop();
  await nc.closed();
  assert.equal(nc.isClosed(), true);
  await status.done;
  assert.deepEqual(status.types, ["disconnect", "close"]);
});

test("waitOnFirstConnect keeps trying past maxReconnectAttempts and resolves once connected, as nats.js", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  await server.stop();
  const connecting = connect({ servers: server.wsUrl, waitOnFirstConnect: true, maxReconnectAttempts: 2, reconnectTimeWait: 100 });
  let settled = false;
  connecting.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000)); // ~10 attempts
  assert.equal(settled, false, "connect() waits for the first connection");
  await server.start();
  const nc = await connecting;
  assert.equal(nc.isClosed(), false);
  await nc.flush();
  await nc.close();
});

test("lame duck mode brings an ldm status naming the server", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl });
  const status = watch(nc);
  await nc.flush();
  server.child.kill("SIGUSR2");
  await waitFor(() => status.types.includes("ldm"), 10_000);
  assert.deepEqual(status.statuses[0], { type: "ldm", server: new URL(server.wsUrl).host });
  await nc.close();
  await status.done;
});

test("reconnectBufferSize bounds the publishes kept while disconnected", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl, reconnectBufferSize: 1024, reconnectTimeWait: 100 });
  const status = watch(nc);
  const sub = nc.subscribe("kept");
  await nc.flush();
  await server.stop();
  await waitFor(() => status.types.includes("disconnect"), 10_000);
  nc.publish("kept", "fits");
  assert.throws(() => nc.publish("kept", new Uint8Array(2048)), { kind: "RECONNECT_BUFFER_FULL" });
  await server.start();
  assert.equal((await nextMsg(sub)).string(), "fits", "what fit is sent on reconnect");
  await nc.close();
  await assert.rejects(connect({ servers: server.wsUrl, reconnectBufferSize: -1 }), { kind: "INVALID_ARGUMENT" });
});

test("subscriptionCapacity bounds the messages a subscription keeps waiting", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl, subscriptionCapacity: 10 });
  const events = [];
  const watching = (async () => {
    for await (const s of nc.status()) events.push(s);
  })();
  const sub = nc.subscribe("flood");
  await nc.flush();
  for (let i = 0; i < 100; i++) nc.publish("flood", `${i}`);
  await nc.flush();
  await waitFor(() => events.some((s) => s.type === "slowConsumer"), 10_000);
  assert.equal(events.find((s) => s.type === "slowConsumer").sid, sub.getID());
  await nc.close();
  await watching;
});

test("unanswered pings: ping statuses count them, then staleConnection, disconnect and a reconnect", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({
    servers: server.wsUrl,
    pingInterval: 200,
    maxPingOut: 2,
    timeout: 1000,
    reconnectTimeWait: 100,
    reconnectJitter: 0,
  });
  t.after(() => nc.close());
  const status = watch(nc);
  await nc.flush();
  await waitFor(() => status.types.includes("ping"), 5000);
  assert.deepEqual(status.statuses[0], { type: "ping", pendingPings: 1 }, "answered before the next one");
  await server.pause();
  await waitFor(() => status.types.includes("staleConnection"), 5000);
  await waitFor(() => status.types.includes("disconnect"), 5000);
  const at = status.types.indexOf("staleConnection");
  assert.deepEqual(status.statuses.slice(at - 2, at + 1), [
    { type: "ping", pendingPings: 1 },
    { type: "ping", pendingPings: 2 },
    { type: "staleConnection" },
  ]);
  const { type, server: lost, error } = status.statuses[at + 1];
  assert.deepEqual([type, lost, error?.kind], ["disconnect", new URL(server.wsUrl).host, "TIMEOUT"], "why it was lost");
  server.resume();
  await waitFor(() => status.types.includes("reconnect"), 10_000);
  await nc.flush();
});

test("a cluster peer that comes and goes brings update statuses", async (t) => {
  const first = await startServer(clusterNode("js-update"));
  t.after(() => first.close());
  const nc = await connect({ servers: first.wsUrl });
  t.after(() => nc.close());
  const status = watch(nc);
  await nc.flush();
  const peer = await startServer(clusterNode("js-update", first));
  t.after(() => peer.close());
  const peerHostPort = new URL(peer.wsUrl).host;
  await waitFor(() => status.types.includes("update"), 10_000);
  assert.deepEqual(status.statuses.at(-1), { type: "update", added: [peerHostPort], deleted: [] });
  await peer.stop();
  await waitFor(() => status.types.filter((type) => type === "update").length === 2, 10_000);
  assert.deepEqual(status.statuses.at(-1), { type: "update", added: [], deleted: [peerHostPort] });
});
