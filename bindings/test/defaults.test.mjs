// nats.js v3's defaults where natsjet's Rust API has others (async-nats's):
// the JS API takes nats.js's, checked here where they show without long waits.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connect, jetstream } from "natsjet";
import { rejectsWith, startJetStreamServer, startServer, waitFor } from "./harness.mjs";

test("maxReconnectAttempts: 10 by default, then the connection closes", async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.wsUrl, reconnectTimeWait: 20, reconnectJitter: 0 });
  await nc.flush();
  await server.stop();
  // -1 (forever) would never close; ten attempts 20 ms apart take well under a second.
  await waitFor(() => nc.isClosed(), 10_000);
  assert.equal(nc.isClosed(), true);
});

test("JetStream publish: one attempt by default, `retries` attempts when given", async (t) => {
  const server = await startJetStreamServer();
  t.after(() => server.close());
  const nc = await connect({ servers: server.url });
  const js = jetstream(nc);
  const attempts = async (opts) => {
    const before = nc.stats().outMsgs;
    await rejectsWith(js.publish("nobody.stores.this", "x", opts), "NO_RESPONDERS");
    return nc.stats().outMsgs - before;
  };
  assert.equal(await attempts(), 1, "nats.js's default: no re-send");
  assert.equal(await attempts({ retries: 0 }), 1, "0 is 1, as nats.js");
  assert.equal(await attempts({ retries: 3 }), 3);

  // As nats.js, a publish whose ack does not come in time is sent again too.
  let copies = 0;
  nc.subscribe("slow.listener", { callback: () => copies++ });
  await nc.flush();
  await rejectsWith(js.publish("slow.listener", "x", { retries: 3, timeout: 100 }), "TIMEOUT");
  await nc.flush();
  assert.equal(copies, 3);
  await nc.close();
});
