// What a long-lived client must not keep: each answered request or publish
// ack had a timeout timer, and what it allocated in JS must go with it. The
// heap is measured after a forced GC, so the bound does not depend on timing.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { connect, jetstream, jetstreamManager } from "natsjet";
import { startJetStreamServer } from "./harness.mjs";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const COUNT = 20_000;
/** A leak of even 100 bytes per operation would pass this. */
const BOUND = 2_000_000;

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

async function heapAfter(work) {
  await work(); // warms up what is made once
  gc();
  const before = process.memoryUsage().heapUsed;
  await work();
  gc();
  return process.memoryUsage().heapUsed - before;
}

test(`${COUNT} answered requests leave nothing behind`, async () => {
  const nc = await connect({ servers: server.wsUrl });
  nc.subscribe("mem.echo", { callback: (_err, m) => m.respond(m.data) });
  const grew = await heapAfter(async () => {
    for (let i = 0; i < COUNT; i++) await nc.request("mem.echo", "x", { timeout: 10_000 });
  });
  await nc.close();
  assert.ok(grew < BOUND, `heap grew by ${grew} bytes`);
});

test(`${COUNT} acked JetStream publishes leave nothing behind`, async () => {
  const nc = await connect({ servers: server.wsUrl });
  await (await jetstreamManager(nc)).streams.add({ name: "MEM", subjects: ["mem.js"], max_msgs: 10 });
  const js = jetstream(nc);
  const grew = await heapAfter(async () => {
    for (let i = 0; i < COUNT; i += 256) {
      await Promise.all(Array.from({ length: 256 }, () => js.publish("mem.js", "x")));
    }
  });
  await nc.close();
  assert.ok(grew < BOUND, `heap grew by ${grew} bytes`);
});
