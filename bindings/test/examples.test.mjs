// The examples as users run them, against a real server with JetStream:
// examples/node-service as a Node process, examples/browser in Chromium.
// Their JetStream parts wait for the package's JetStream JS API (skipped until then).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import { wsconnect } from "@nats-io/nats-core";
import { connect } from "natsjet";
import { launchChromium, newPage, serve, skipBrowser } from "./chromium.mjs";
import { skipWithoutJetStream, startServer, withJetStream } from "./harness.mjs";

const run = promisify(execFile);
const examples = new URL("../../examples/", import.meta.url);
const service = fileURLToPath(new URL("node-service/service.mjs", examples));
const skipJetStream = await skipWithoutJetStream();

let server;
before(async () => {
  server = await startServer(withJetStream);
});
after(() => server?.close());

test("examples/node-service parses", () => run(process.execPath, ["--check", service]));

test("examples/node-service: 3 workers on one durable ack every message", { skip: skipJetStream }, async () => {
  const { stdout } = await run(process.execPath, [service, server.wsUrl, "3", "300"], { timeout: 60_000 });
  assert.match(stdout, /all 300 orders processed and acked/);
});

describe("examples/browser in Chromium", { skip: skipBrowser, timeout: 60_000 }, () => {
  let http, browser, page;
  before(async () => {
    http = await serve({ "/examples/browser/": new URL("browser/", examples), "/pkg/": new URL("../pkg/", examples) });
    browser = await launchChromium();
    page = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await page.goto(`${http.url}/examples/browser/?server=${encodeURIComponent(server.wsUrl)}`);
    await page.locator("#status", { hasText: "connected to" }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await http?.close();
  });

  test("shows what the page and a Node client publish", async () => {
    await page.fill("#text", "typed in the page");
    await page.click("#publish button");
    await page.locator("#messages li", { hasText: "demo.greet: typed in the page" }).waitFor();
    const nc = await connect({ servers: server.wsUrl });
    nc.publish("demo.node", "from node");
    await nc.close();
    await page.locator("#messages li", { hasText: "demo.node: from node" }).waitFor();
  });

  test("says so when the package has no JetStream API", { skip: !skipJetStream && "it has one" }, async () => {
    await page.locator("#js-status", { hasText: "no JetStream API" }).waitFor();
  });

  test("JetStream: consumes and acks what the page publishes", { skip: skipJetStream }, async () => {
    await page.locator("#js-publish").waitFor();
    await page.fill("#js-text", "order 1");
    await page.click("#js-publish button");
    await page.locator("#js-messages li", { hasText: "order 1 (acked)" }).waitFor();
    // The server's view, through nats.js: the ack arrived.
    const nc = await wsconnect({ servers: server.wsUrl });
    const jsm = await jetstreamManager(nc);
    let info;
    const acked = async () => (info = await jsm.consumers.info("DEMO", "browser")).ack_floor.stream_seq === 1;
    for (let tries = 0; !(await acked()) && tries < 100; tries++) await sleep(20);
    await nc.close();
    assert.equal(info.ack_floor.stream_seq, 1);
  });
});
