// The examples as users run them, against a real server with JetStream:
// examples/node-service and examples/walkthrough.mjs as Node processes,
// examples/browser and examples/walkthrough/ in Chromium. Their JetStream
// parts wait for the package's JetStream JS API (skipped until then).
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
const walkthrough = fileURLToPath(new URL("walkthrough.mjs", examples));

/** The lines the walkthrough prints, step by step (as walkthrough.rs's), for a clean server. */
const WALKTHROUGH = [
  /^1\. stream WALK stores walk\.>$/,
  /^2\. durable pull consumer "instant": ack policy all, replay instant$/,
  /^2\. durable pull consumer "original": ack policy all, replay original$/,
  /^3\. published 10 messages$/,
  /^4\. fetched 10 messages from "instant" and acked them with one ack$/,
  /^4\. fetched 10 messages from "original" and acked them with one ack$/,
  /^5\. kv put color=blue at revision 1$/,
  /^6\. kv get color = blue$/,
  /^7\. kv delete color: get now says DEL$/,
  /^8\. kv watch saw PUT color at revision 1$/,
  /^8\. kv watch saw DEL color at revision 2$/,
  /\[#{30}\] 100%$/,
  /^9\. object put photo\.jpg: 3145728 bytes in 24 chunks, SHA-256=KcDLPy-hMJwhRM9Fbv5pc-3vIbBxHQVDhaFkg7D_0S8=$/,
  /^10\. object list: photo\.jpg$/,
  /^11\. object info: 3145728 bytes, modified \d{4}-\d\d-\d\dT[\d:.]+Z$/,
  /\[#{30}\] 100%$/,
  /^12\. object get: 3145728 bytes, size and digest checked$/,
  /^13\. object delete: get now says null$/,
];

/** Asserts `lines` are the walkthrough's, in order. */
function assertWalkthrough(lines) {
  assert.equal(lines.length, WALKTHROUGH.length, lines.join("\n"));
  lines.forEach((line, i) => assert.match(line, WALKTHROUGH[i]));
}
const skipJetStream = await skipWithoutJetStream();

let server;
before(async () => {
  server = await startServer(withJetStream);
});
after(() => server?.close());

test("examples/node-service parses", () => run(process.execPath, ["--check", service]));
test("examples/consumer_group.mjs parses", () =>
  run(process.execPath, ["--check", fileURLToPath(new URL("consumer_group.mjs", examples))]));

test("examples/node-service: 3 workers on one durable ack every message", { skip: skipJetStream }, async () => {
  const { stdout } = await run(process.execPath, [service, server.wsUrl, "3", "300"], { timeout: 60_000 });
  assert.match(stdout, /all 300 orders processed and acked/);
});

test("examples/walkthrough.mjs prints every step, twice over nats:// and ws://", { skip: skipJetStream }, async () => {
  for (const url of [server.url, server.wsUrl]) {
    const { stdout } = await run(process.execPath, [walkthrough, url], { timeout: 60_000 });
    // The progress bar redraws its line with \r: each line's last drawing counts.
    assertWalkthrough(stdout.trimEnd().split("\n").map((line) => line.split("\r").at(-1).trim()));
  }
});

describe("examples/walkthrough/ in Chromium", { skip: skipBrowser || skipJetStream, timeout: 60_000 }, () => {
  let http, browser, page;
  before(async () => {
    http = await serve({ "/examples/": examples, "/pkg/": new URL("../pkg/", examples) });
    browser = await launchChromium();
    page = await newPage(browser);
    page.setDefaultTimeout(30_000);
  });
  after(async () => {
    await browser?.close();
    await http?.close();
  });

  test("prints every step and fills the progress bar", async () => {
    await page.goto(`${http.url}/examples/walkthrough/?server=${encodeURIComponent(server.wsUrl)}`);
    await page.locator("#status", { hasText: "done" }).waitFor();
    assertWalkthrough((await page.locator("#log > div").allTextContents()).map((line) => line.trim()));
    const progress = await page.evaluate(() => ["value", "max"].map((k) => document.getElementById("progress")[k]));
    assert.deepEqual(progress, [3145728, 3145728], "the get's last progress: all of it");
  });
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
