// Network faults on purpose, in Node over WebSocket: a proxy in front of
// the server's websocket port cuts, stalls, slows or half-opens the link in
// the middle of an acked publish, a shared durable consume, a KV watch and
// an object get. The client notices (missed pongs, missed heartbeats),
// reconnects, re-pulls and resumes; each test prints its loss line and
// asserts nothing was lost. The Rust twin is tests/faults_network.rs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AckPolicy, Kvm, Objm, connect, jetstream, jetstreamManager } from "natsjet";
import { FAULTS, startProxy } from "./fault_proxy.mjs";
import { startJetStreamServer, waitFor } from "./harness.mjs";
import { LossLedger, publishWithRetries } from "./loss.mjs";

const RUN = 45_000;

/**
 * A client through `proxy` that notices a dead link within about a second
 * (PING every 250 ms, two unanswered make it stale); over the slow link it
 * waits longer, as a PONG queued behind the link's backlog comes late.
 */
const watchful = (proxy, fault) =>
  connect({
    servers: proxy.wsUrl,
    pingInterval: fault === "slow" ? 1000 : 250,
    maxPingOut: fault === "slow" ? 15 : 2,
    reconnectTimeWait: 100,
    reconnectJitter: 50,
    maxReconnectAttempts: -1,
  });

const until = (check) => waitFor(check, RUN);
const within = (promise, what) =>
  Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${RUN} ms`)), RUN).unref()),
  ]);

describe("faults over WebSocket in Node", { timeout: 240_000 }, () => {
  let server, direct, jsm;
  before(async () => {
    server = await startJetStreamServer();
    direct = await connect({ servers: server.wsUrl });
    jsm = await jetstreamManager(direct);
  });
  after(async () => {
    await direct?.close();
    await server?.close();
  });

  for (const fault of FAULTS) {
    test(`mid-publish ${fault}`, { timeout: 60_000 }, async (t) => {
      const COUNT = 1000;
      const name = `FP_${fault}`;
      await jsm.streams.add({ name, subjects: [`${name}.>`] });
      const proxy = await startProxy(server.ports.websocket);
      t.after(() => proxy.close());
      const nc = await watchful(proxy, fault);
      t.after(() => nc.close());
      const ledger = new LossLedger();
      await publishWithRetries(jetstream(nc), name, COUNT, ledger, (id) => id === COUNT / 4 && proxy.inject(fault));
      if (fault !== "slow") await waitFor(() => proxy.accepted >= 2, 10_000); // the client reconnected
      // Read the stream back on the direct connection: each id once.
      await jsm.consumers.add(name, { durable_name: "check", ack_policy: AckPolicy.Explicit });
      const messages = await (await jetstream(direct).consumers.get(name, "check")).consume();
      const stored = (await jsm.streams.info(name)).state.messages;
      let read = 0;
      for await (const m of messages) {
        ledger.consumed(Number(m.string()), m.info.deliveryCount);
        m.ack();
        if (++read === stored) break;
      }
      ledger.check(`mid-publish ${fault} over WebSocket (Node)`, 0);
      assert.equal(stored, COUNT, "the stream holds each id once");
    });

    test(`mid-consume ${fault}`, { timeout: 60_000 }, async (t) => {
      const COUNT = 1500;
      const name = `FC_${fault}`;
      await jsm.streams.add({ name, subjects: [`${name}.>`] });
      const ledger = new LossLedger();
      await publishWithRetries(jetstream(direct), name, COUNT, ledger);
      await jsm.consumers.add(name, {
        durable_name: "work",
        ack_policy: AckPolicy.Explicit,
        ack_wait: 2e9,
        max_ack_pending: 200,
      });
      const proxy = await startProxy(server.ports.websocket);
      t.after(() => proxy.close());
      // Two workers, each on its own connection; a failed ackAck is ambiguous:
      // the message counts as consumed, and comes again if the ack was lost.
      const workers = [];
      for (let w = 0; w < 2; w++) {
        const nc = await watchful(proxy, fault);
        t.after(() => nc.close());
        const c = await jetstream(nc).consumers.get(name, "work");
        const messages = await c.consume({ max_messages: 50, idle_heartbeat: 500, expires: 2000 });
        workers.push(
          (async () => {
            for await (const m of messages) {
              await m.ackAck({ timeout: 1000 }).catch(() => false);
              ledger.consumed(Number(m.string()), m.info.deliveryCount);
            }
          })(),
        );
        t.after(() => messages.close());
      }
      await until(() => ledger.consumedCount >= COUNT / 3);
      proxy.inject(fault);
      await until(() => ledger.consumedCount >= COUNT);
      const deadline = Date.now() + RUN;
      for (;;) {
        const info = await jsm.consumers.info(name, "work");
        if (info.ack_floor.stream_seq === COUNT && info.num_ack_pending === 0) break;
        assert.ok(Date.now() < deadline, `acks pending on the server: ${JSON.stringify(info.ack_floor)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      ledger.check(`mid-consume ${fault} over WebSocket (Node)`, 200);
      if (fault !== "slow") await waitFor(() => proxy.accepted >= 4, 10_000); // both workers reconnected
    });

    test(`mid-kv-watch ${fault}`, { timeout: 60_000 }, async (t) => {
      const COUNT = 300;
      const bucket = `FW_${fault}`;
      const writer = await new Kvm(direct).create(bucket);
      const proxy = await startProxy(server.ports.websocket);
      t.after(() => proxy.close());
      const nc = await watchful(proxy, fault);
      t.after(() => nc.close());
      const watch = await (await new Kvm(nc).open(bucket)).watch({ key: ">" });
      const revisions = [];
      const reading = (async () => {
        for await (const e of watch) {
          revisions.push(e.revision);
          if (revisions.length === COUNT) break;
        }
      })();
      const ledger = new LossLedger();
      for (let i = 0; i < COUNT; i++) {
        ledger.published(i + 1);
        if (i === COUNT / 3) proxy.inject(fault);
        // One key per write, so every revision stays in the bucket.
        ledger.serverAcked(await writer.put(`k.${i}`, String(i)));
      }
      await within(reading, `the watch (${revisions.length} seen)`);
      for (const r of revisions) ledger.consumed(r, 1);
      ledger.check(`mid-kv-watch ${fault} over WebSocket (Node)`, 0);
      assert.deepEqual(revisions, Array.from({ length: COUNT }, (_, i) => i + 1), "no gap, no repeat, in order");
      if (fault !== "slow") await waitFor(() => proxy.accepted >= 2, 10_000); // the watcher reconnected
    });

    test(`mid-object-get ${fault}`, { timeout: 60_000 }, async (t) => {
      const SIZE = 512 * 1024;
      const bucket = `FO_${fault}`;
      // Bytes that do not compress: the server may deflate websocket frames,
      // and a compressible object would be through before the fault.
      const data = new Uint8Array(SIZE);
      let state = 0x2545f491;
      for (let i = 0; i < SIZE; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        data[i] = state & 0xff;
      }
      await (await new Objm(direct).create(bucket)).putBlob({ name: "blob" }, data);
      const proxy = await startProxy(server.ports.websocket);
      t.after(() => proxy.close());
      const nc = await watchful(proxy, fault);
      t.after(() => nc.close());
      const os = await new Objm(nc).open(bucket);
      proxy.slow(1024 * 1024); // paced from the start, so the fault lands while chunks are on their way
      const ledger = new LossLedger();
      ledger.published(0);
      ledger.serverAcked(0);
      const errors = [];
      for (let attempt = 0; ; attempt++) {
        assert.ok(attempt < 20, `no get completed: ${errors}`);
        const result = await os.get("blob");
        const reader = result.data.getReader();
        const parts = [];
        let got = 0;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            parts.push(value);
            got += value.length;
            if (attempt === 0 && got >= SIZE / 4 && proxy.openConnections() > 0) {
              // The pacing goes with the fault: a PONG queued behind the paced backlog
              // would make the new link look dead too (the slow case).
              proxy.slow(0);
              proxy.inject(fault);
            }
          }
        } catch (e) {
          errors.push(e.kind ?? String(e)); // a typed error, never a short or corrupt read: try again
          continue;
        }
        const error = await result.error;
        if (error) {
          errors.push(error.kind ?? String(error));
          continue;
        }
        const bytes = new Uint8Array(got);
        let at = 0;
        for (const p of parts) bytes.set(p, (at += p.length) - p.length);
        assert.ok(Buffer.compare(bytes, data) === 0, `a completed get returns exactly the object (${got} of ${SIZE})`);
        break;
      }
      ledger.consumed(0, 1);
      console.log(`mid-object-get ${fault}: errors before success: [${errors}]`);
      ledger.check(`mid-object-get ${fault} over WebSocket (Node)`, 0);
      if (fault !== "slow") await waitFor(() => proxy.accepted >= 2, 10_000); // the getter reconnected
    });
  }
});
