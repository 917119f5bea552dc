// Status events and recovery across server restarts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connect } from "natsjet";
import { nextMsg, startServer, waitFor } from "./harness.mjs";

/** Collects status types until the connection closes. */
function watch(nc) {
  const types = [];
  const done = (async () => {
    for await (const s of nc.status()) types.push(s.type);
  })();
  return { types, done };
}

test("a restart brings disconnect then reconnect; subscriptions survive", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl, reconnectTimeWait: 100, reconnectJitter: 0 });
  const status = watch(nc);
  const sub = nc.subscribe("after.restart");
  await nc.flush();
  await server.restart();
  await waitFor(() => status.types.includes("reconnect"), 10_000);
  assert.deepEqual(status.types.slice(0, 2), ["disconnect", "reconnect"]);
  nc.publish("after.restart", "still here");
  assert.equal((await nextMsg(sub)).string(), "still here");
  assert.equal(nc.stats().reconnects, 1);
  await nc.close();
  await status.done;
  assert.equal(status.types.at(-1), "close");
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

test("waitOnFirstConnect resolves at once and connects when the server comes up", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  await server.stop();
  const nc = await connect({ servers: server.wsUrl, waitOnFirstConnect: true, reconnectTimeWait: 100 });
  const status = watch(nc);
  await server.start();
  await waitFor(() => status.types.includes("connected"), 10_000);
  await nc.flush();
  await nc.close();
});

test("lame duck mode brings an ldm status", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl });
  const status = watch(nc);
  await nc.flush();
  server.child.kill("SIGUSR2");
  await waitFor(() => status.types.includes("ldm"), 10_000);
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
  assert.throws(() => nc.publish("kept", new Uint8Array(2048)), { code: "RECONNECT_BUFFER_FULL" });
  await server.start();
  assert.equal((await nextMsg(sub)).string(), "fits", "what fit is sent on reconnect");
  await nc.close();
  await assert.rejects(connect({ servers: server.wsUrl, reconnectBufferSize: -1 }), { code: "INVALID_ARGUMENT" });
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
