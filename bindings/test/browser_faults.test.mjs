// Faults under a consumer running in a real headless Chromium page: the
// link cut and stalled by the fault proxy in front of the websocket port,
// and the server killed and restarted on its store, each in the middle of
// a shared durable consume. The page's consumer resumes; nothing is lost.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AckPolicy, connect, jetstream, jetstreamManager } from "natsjet";
import { pageWithNatsjet, skipBrowser } from "./chromium.mjs";
import { startProxy } from "./fault_proxy.mjs";
import { restartJetStream, startJetStreamServer } from "./harness.mjs";
import { LossLedger, publishWithRetries } from "./loss.mjs";

const COUNT = 1500;
const RUN = 45_000;

describe("faults under a consumer in Chromium", { skip: skipBrowser, timeout: 180_000 }, () => {
  let server, direct, jsm, page, closeBrowser;
  before(async () => {
    server = await startJetStreamServer();
    direct = await connect({ servers: server.wsUrl, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    jsm = await jetstreamManager(direct);
    ({ page, close: closeBrowser } = await pageWithNatsjet("natsjet faults"));
  });
  after(async () => {
    await closeBrowser?.();
    await direct?.close();
    await server?.close();
  });

  /** A stream of COUNT ids and a durable `work` on it; the ledger knows what was acked. */
  async function streamOfIds(name) {
    await jsm.streams.add({ name, subjects: [`${name}.>`] });
    const ledger = new LossLedger();
    await publishWithRetries(jetstream(direct), name, COUNT, ledger);
    await jsm.consumers.add(name, { durable_name: "work", ack_policy: AckPolicy.Explicit, ack_wait: 2e9 });
    return ledger;
  }

  /** Starts the page's consumer on `servers`: it acks after work and records [id, deliveryCount]. */
  const consumeInPage = (servers, name) =>
    page.evaluate(
      async ({ servers, name }) => {
        const nc = await natsjet.connect({
          servers,
          pingInterval: 250,
          maxPingOut: 2,
          reconnectTimeWait: 100,
          reconnectJitter: 50,
          maxReconnectAttempts: -1,
        });
        const c = await natsjet.jetstream(nc).consumers.get(name, "work");
        const messages = await c.consume({ max_messages: 50, idle_heartbeat: 500, expires: 2000 });
        const run = { seen: [], nc, messages };
        window.faultRun = run;
        (async () => {
          for await (const m of messages) {
            // Not awaited one by one: after a restart the server may leave acks of what it
            // sent before unanswered, and each would hold the loop for the whole timeout
            // (seen: one message a second for 40 s). A failed ack is ambiguous: the
            // message may come again, which shows as a duplicate.
            m.ackAck({ timeout: 1000 }).catch(() => false);
            run.seen.push([Number(m.string()), m.info.deliveryCount]);
          }
        })();
      },
      { servers, name },
    );

  /** Resolves once the page has handled `n` deliveries. */
  async function pageHandled(n) {
    const deadline = Date.now() + RUN;
    while ((await page.evaluate(() => window.faultRun.seen.length)) < n) {
      assert.ok(Date.now() < deadline, `the page handled fewer than ${n}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits until the page has seen every id and the server holds no ack pending; the loss line. */
  async function finish(name, ledger, label, maxDuplicates) {
    const deadline = Date.now() + RUN;
    for (;;) {
      const ids = new Set(await page.evaluate(() => window.faultRun.seen.map(([id]) => id)));
      const info = await jsm.consumers.info(name, "work").catch(() => null);
      if (ids.size === COUNT && info?.ack_floor.stream_seq === COUNT && info.num_ack_pending === 0) break;
      assert.ok(Date.now() < deadline, `${label}: the page saw ${ids.size} of ${COUNT}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const [id, delivered] of await page.evaluate(() => window.faultRun.seen)) ledger.consumed(id, delivered);
    const reconnects = await page.evaluate(async () => {
      const { faultRun } = window;
      await faultRun.messages.close();
      const reconnects = faultRun.nc.stats().reconnects;
      await faultRun.nc.close();
      return reconnects;
    });
    ledger.check(label, maxDuplicates);
    return reconnects;
  }

  for (const fault of ["cut", "stall"]) {
    test(`the page's consumer survives a ${fault} link`, async (t) => {
      const name = `BF_${fault}`;
      const ledger = await streamOfIds(name);
      const proxy = await startProxy(server.ports.websocket);
      t.after(() => proxy.close());
      await consumeInPage(proxy.wsUrl, name);
      await pageHandled(COUNT / 3);
      proxy.inject(fault);
      const reconnects = await finish(name, ledger, `mid-consume ${fault} over WebSocket (Chromium)`, 200);
      assert.ok(reconnects >= 1, `the page reconnected: ${reconnects}`);
    });
  }

  test("the page's consumer resumes after the server restarts on its store", async () => {
    const name = "BF_restart";
    const ledger = await streamOfIds(name);
    await consumeInPage(server.wsUrl, name);
    await pageHandled(COUNT / 3);
    await restartJetStream(server, jsm);
    // A server killed loses what its consumer recorded last (delivered and
    // acked since its last state write) and sends that again as first
    // deliveries: seen up to ~850 of 1500, so the bound here is the stream.
    const reconnects = await finish(name, ledger, "server restart mid-consume (Chromium)", COUNT);
    assert.ok(reconnects >= 1, `the page reconnected: ${reconnects}`);
  });
});
