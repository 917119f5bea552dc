// The package's tiers through their Node entries against a real server:
// natsjet/core (core NATS over the smallest wasm: no JetStream in it, and
// `jetstream()` of the bigger tiers refuses its connections with a typed
// error) and natsjet/jetstream (core NATS and JetStream, no stores).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as core from "natsjet/core";
import * as js from "natsjet/jetstream";
import * as all from "natsjet";
import { startJetStreamServer } from "./harness.mjs";

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

/** Connect, pub/sub and a request through `tier`'s entry, over TCP and WebSocket. */
async function coreRoundTrip(tier, servers) {
  const nc = await tier.connect({ servers });
  const sub = nc.subscribe("tier.>");
  const service = nc.subscribe("tier.svc", { callback: (_e, m) => m.respond(`re: ${m.string()}`) });
  const h = tier.headers();
  h.set("X-Tier", "1");
  nc.publish("tier.hello", "hi", { headers: h });
  const got = await sub[Symbol.asyncIterator]().next();
  assert.equal(got.value.subject, "tier.hello");
  assert.equal(got.value.string(), "hi");
  assert.equal(got.value.headers.get("X-Tier"), "1");
  assert.equal((await nc.request("tier.svc", "ping", { timeout: 2000 })).string(), "re: ping");
  await assert.rejects(nc.request("nobody.here", "", { timeout: 2000 }), tier.RequestError);
  assert.match(tier.createInbox(), /^_INBOX\./);
  service.unsubscribe();
  await nc.drain();
}

test("natsjet/core: connect, pub/sub and request over nats:// and ws://", async () => {
  await coreRoundTrip(core, server.url);
  await coreRoundTrip(core, server.wsUrl);
});

test("natsjet/core exports core NATS only, and its wasm has no JetStream", async () => {
  for (const name of ["jetstream", "jetstreamManager", "Kvm", "Objm", "AckBatch"]) {
    assert.equal(core[name], undefined, name);
  }
  for (const name of ["connect", "wsconnect", "createInbox", "headers", "NatsError", "TimeoutError", "nanos"]) {
    assert.equal(typeof core[name], "function", name);
  }
  const nc = await core.connect({ servers: server.url });
  assert.equal(typeof nc.raw.jetstream, "undefined", "the core wasm has no JetStream exports");
  // The bigger tiers' JetStream on a core connection: a typed error, not a TypeError.
  assert.throws(() => all.jetstream(nc), (e) => e instanceof all.InvalidOperationError && /natsjet\/core/.test(e.message));
  await nc.close();
});

test("natsjet/jetstream: core NATS, and JetStream publish and consume", async () => {
  await coreRoundTrip(js, server.url);
  assert.equal(js.Kvm, undefined);
  assert.equal(js.Objm, undefined);
  const nc = await js.connect({ servers: server.wsUrl });
  assert.equal(typeof nc.raw.kvStream, "undefined", "the jetstream wasm has no Key-Value exports");
  const jsm = await js.jetstreamManager(nc);
  await jsm.streams.add({ name: "TIERS", subjects: ["tiers.>"] });
  await jsm.consumers.add("TIERS", { durable_name: "w", ack_policy: js.AckPolicy.Explicit });
  const client = js.jetstream(nc);
  const ack = await client.publish("tiers.a", "one", { msgID: "1" });
  assert.equal(ack.seq, 1);
  assert.equal((await client.publish("tiers.a", "one", { msgID: "1" })).duplicate, true);
  await client.publish("tiers.b", "two");
  const consumer = await client.consumers.get("TIERS", "w");
  const messages = await consumer.consume({ max_messages: 10 });
  const seen = [];
  for await (const m of messages) {
    seen.push(m.string());
    m.ack();
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen, ["one", "two"]);
  await assert.rejects(jsm.streams.info("NOPE"), js.StreamNotFoundError);
  await nc.drain();
});
