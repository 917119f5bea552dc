// The package's tiers in real headless Chromium against a real server's
// websocket listener: each tier's browser entry (natsjet/core,
// natsjet/jetstream) loads its own wasm build, and connects, publishes,
// subscribes and requests; the JetStream tier also publishes to a stream
// and consumes it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { pageWithNatsjet, skipBrowser } from "./chromium.mjs";
import { startJetStreamServer } from "./harness.mjs";

/** Connect, pub/sub and request in the page, through its `window.natsjet`. */
function coreScenario(servers) {
  return (async () => {
    const nc = await natsjet.connect({ servers });
    const sub = nc.subscribe("tier.>");
    nc.subscribe("svc.echo", { callback: (_e, m) => m.respond(`echo: ${m.string()}`) });
    nc.publish("tier.a", "hello");
    const first = (await sub[Symbol.asyncIterator]().next()).value;
    const answer = await nc.request("svc.echo", "hi");
    const noResponders = await nc.request("nobody.here", "").catch((e) => e.name);
    await nc.drain();
    return { subject: first.subject, text: first.string(), answer: answer.string(), noResponders };
  })();
}

const expected = { subject: "tier.a", text: "hello", answer: "echo: hi", noResponders: "RequestError" };

for (const [tier, entry, wasm] of [
  ["natsjet/core", "tiers/core/web.js", "/pkg/tiers/core/web/natsjet_bg.wasm"],
  ["natsjet/jetstream", "tiers/jetstream/web.js", "/pkg/tiers/jetstream/web/natsjet_bg.wasm"],
]) {
  describe(`${tier} in Chromium`, { skip: skipBrowser, timeout: 60_000 }, () => {
    let server, page, closeBrowser;
    const fetched = [];
    before(async () => {
      server = await startJetStreamServer();
      ({ page, close: closeBrowser } = await pageWithNatsjet(tier, entry));
      page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
    });
    after(async () => {
      await closeBrowser?.();
      await server?.close();
    });

    test("connects, publishes, subscribes and requests over its own wasm", async () => {
      assert.deepEqual(await page.evaluate(coreScenario, server.wsUrl), expected);
      assert.deepEqual(fetched.filter((p) => p.endsWith(".wasm")), [wasm]);
      const names = await page.evaluate(() => ["jetstream", "Kvm", "Objm"].filter((n) => n in natsjet));
      assert.deepEqual(names, tier === "natsjet/core" ? [] : ["jetstream"]);
    });

    if (tier === "natsjet/jetstream") {
      test("publishes to a stream and consumes it", async () => {
        const got = await page.evaluate(async (servers) => {
          const nc = await natsjet.connect({ servers });
          const jsm = await natsjet.jetstreamManager(nc);
          await jsm.streams.add({ name: "WEB", subjects: ["web.>"] });
          await jsm.consumers.add("WEB", { durable_name: "w", ack_policy: "explicit" });
          const js = natsjet.jetstream(nc);
          const acks = [await js.publish("web.a", "one", { msgID: "a" }), await js.publish("web.a", "one", { msgID: "a" })];
          await js.publish("web.b", "two");
          const messages = await (await js.consumers.get("WEB", "w")).consume({ max_messages: 10 });
          const seen = [];
          for await (const m of messages) {
            seen.push(m.string());
            m.ack();
            if (seen.length === 2) break;
          }
          await nc.drain();
          return { seqs: acks.map((a) => [a.seq, a.duplicate]), seen };
        }, server.wsUrl);
        assert.deepEqual(got, { seqs: [[1, false], [1, true]], seen: ["one", "two"] });
      });
    }
  });
}
