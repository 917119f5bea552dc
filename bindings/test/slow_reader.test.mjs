// Readers that fall behind, against a real server: a subscription that is
// never read keeps what fits in subscriptionCapacityBytes, drops the rest,
// counts it (getDropped) and reports slowConsumer while the connection
// goes on; an ack-none push consumer's reader is bounded the same way
// (its drops are lost: the connection's slowConsumer status says so), and
// one with acks gets every message in the end, the dropped ones redelivered.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AckPolicy, connect, jetstream, jetstreamManager } from "natsjet";
import { startJetStreamServer, waitFor } from "./harness.mjs";

let server;
before(async () => {
  server = await startJetStreamServer();
});
after(() => server.close());

/** A connection whose subscriptions are bounded by `options`, with its slowConsumer statuses. */
async function smallReader(options) {
  const nc = await connect({ servers: server.url, ...options });
  const slow = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === "slowConsumer") slow.push(s);
  })();
  return { nc, slow };
}

test("a subscription never read drops past subscriptionCapacityBytes; another one gets everything", async () => {
  const { nc, slow } = await smallReader({ subscriptionCapacityBytes: 100 * 1024 });
  const idle = nc.subscribe("flood");
  let busy = 0;
  nc.subscribe("flood", { callback: () => busy++ });
  await nc.flush();
  const publisher = await connect({ servers: server.url });
  const payload = new Uint8Array(1024);
  for (let i = 0; i < 5000; i++) publisher.publish("flood", payload);
  await publisher.flush();
  await waitFor(() => busy === 5000, 30_000);
  await nc.flush();
  const kept = Math.floor((100 * 1024) / (5 + 1024));
  assert.equal(idle.getReceived(), kept, "what fits: subject and payload");
  assert.equal(idle.getDropped(), 5000 - kept);
  assert.deepEqual(slow[0], { type: "slowConsumer", sid: idle.getID(), dropped: 1 });
  assert.ok(slow.some((s) => s.dropped === 1000));
  let read = 0;
  for await (const _m of idle) if (++read === kept) break;
  publisher.publish("flood", "again");
  for await (const m of idle) {
    assert.equal(m.string(), "again", "it reads again");
    break;
  }
  await publisher.close();
  await nc.close();
});

for (const ack_policy of [AckPolicy.None, AckPolicy.Explicit]) {
  test(`a push reader with ack_policy ${ack_policy} that falls behind drops, says so, and ${ack_policy === AckPolicy.None ? "loses the drops" : "gets them redelivered"}`, async () => {
    const name = `SLOW_${ack_policy.toUpperCase()}`;
    const admin = await connect({ servers: server.url });
    const jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name, subjects: [`${name}.>`] });
    const js = jetstream(admin);
    await Promise.all(Array.from({ length: 200 }, (_, i) => js.publish(`${name}.x`, `${i}`)));
    await jsm.consumers.add(name, {
      durable_name: name,
      deliver_subject: `deliver.${name}`,
      ack_policy,
      // With acks: the server may send everything at once, far above the reader's 20.
      ...(ack_policy === AckPolicy.None ? {} : { ack_wait: 1e9, max_ack_pending: 10_000 }),
    });
    const { nc, slow } = await smallReader({ subscriptionCapacity: 20 });
    const messages = await (await jetstream(nc).consumers.getPushConsumer(name, name)).consume();
    await waitFor(() => slow.some((s) => s.dropped === 1), 10_000);
    const seen = new Set();
    const it = messages[Symbol.asyncIterator]();
    const wanted = ack_policy === AckPolicy.None ? 20 : 200;
    while (seen.size < wanted) {
      const { value } = await it.next();
      seen.add(value.seq);
      value.ack();
    }
    if (ack_policy === AckPolicy.None) {
      assert.deepEqual([...seen], Array.from({ length: 20 }, (_, i) => i + 1), "the first 20 were kept, the rest lost");
    } else {
      assert.equal(seen.size, 200, "every message in the end");
      await nc.flush();
      let info;
      for (let tries = 0; tries < 100; tries++) {
        info = await jsm.consumers.info(name, name);
        if (info.num_ack_pending === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(info.num_ack_pending, 0, "every message acked");
      assert.equal(info.ack_floor.stream_seq, 200);
    }
    messages.stop();
    await nc.close();
    await admin.close();
  });
}
