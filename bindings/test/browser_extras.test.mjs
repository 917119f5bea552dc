// The web entry's nats.js helpers in headless Chromium: createInbox needs
// the wasm loaded (a clear error before), wsconnect is connect, and the
// connection controls work over the browser's WebSocket.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { launchChromium, newPage, serve, skipBrowser } from "./chromium.mjs";
import { startServer } from "./harness.mjs";

describe("web entry helpers in Chromium", { skip: skipBrowser, timeout: 60_000 }, () => {
  let server, http, browser, page;
  before(async () => {
    server = await startServer();
    const pkg = new URL("../../pkg/", import.meta.url);
    http = await serve({ "/": "<!doctype html><title>natsjet</title>", "/pkg/": pkg });
    browser = await launchChromium();
    page = await newPage(browser);
    await page.goto(`${http.url}/`);
  });
  after(async () => {
    await browser?.close();
    await http?.close();
    await server?.close();
  });

  test("createInbox before and after the wasm loads; wsconnect, rtt, getServer, drain", async () => {
    const got = await page.evaluate(async (servers) => {
      const natsjet = await import("/pkg/web.js");
      let before;
      try {
        natsjet.createInbox();
      } catch (e) {
        before = { code: e.code, isNatsError: e instanceof natsjet.NatsError };
      }
      const nc = await natsjet.wsconnect({ servers });
      const inbox = natsjet.createInbox("web");
      const sub = nc.subscribe(inbox);
      await nc.flush();
      nc.publish(inbox, natsjet.Empty);
      nc.publish(inbox, "x");
      await sub.drain();
      const lengths = [];
      for await (const m of sub) lengths.push(m.data.length);
      const rtt = await nc.rtt();
      const server = nc.getServer();
      await nc[Symbol.asyncDispose]();
      return {
        before,
        inbox,
        lengths,
        received: sub.getReceived(),
        rtt,
        server,
        same: natsjet.wsconnect === natsjet.connect,
        closed: nc.isClosed(),
      };
    }, server.wsUrl);
    assert.deepEqual(got.before, { code: "INVALID_ARGUMENT", isNatsError: true });
    assert.match(got.inbox, /^web\.[0-9A-Za-z]{22}$/);
    assert.deepEqual(got.lengths, [0, 1]);
    assert.equal(got.received, 2);
    assert.ok(got.rtt >= 0 && got.rtt < 5000, `${got.rtt}`);
    assert.equal(got.server, new URL(server.wsUrl).host);
    assert.equal(got.same, true);
    assert.equal(got.closed, true);
  });
});
