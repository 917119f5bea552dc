// What one client writes, the others read: natsjet in Chromium (web build,
// over ws://) against the native Rust client (examples/interop.rs, over
// nats://) and nats.js v3 (over ws://), both ways, headers included; and
// JetStream publishes and acks once the package has the JetStream JS API.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { headers, wsconnect } from "@nats-io/nats-core";
import WebSocket from "ws";
import { pageWithNatsjet, skipBrowser } from "./chromium.mjs";
import { skipWithoutJetStream, startServer, withJetStream } from "./harness.mjs";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("../../", import.meta.url));
const skipJetStream = await skipWithoutJetStream();
globalThis.WebSocket ??= WebSocket; // nats.js's wsconnect; Node 20 has no global one

/** A message as comparable JSON: the shape examples/interop.rs prints. Also runs in the page (as source). */
function msgJson(m) {
  const headers = {};
  for (const k of m.headers?.keys() ?? []) headers[k] = m.headers.values(k);
  return { subject: m.subject, payload: new TextDecoder().decode(m.data), headers };
}

const jsonLines = (text) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line));

/** Builds examples/interop.rs (where CARGO_TARGET_DIR says) and returns the binary's path. */
async function buildNative() {
  const args = ["build", "--example", "interop", "--message-format=json"];
  const { stdout } = await run("cargo", args, { cwd: repo, maxBuffer: 64 << 20 });
  return jsonLines(stdout).find((a) => a.reason === "compiler-artifact" && a.target.name === "interop").executable;
}

describe("interop: browser, native Rust and nats.js", { skip: skipBrowser, timeout: 60_000 }, () => {
  let server, page, closeBrowser, nativeBin, nc;
  before(async () => {
    [nativeBin, server] = await Promise.all([buildNative(), startServer(withJetStream)]);
    ({ page, close: closeBrowser } = await pageWithNatsjet("interop"));
    await page.evaluate(
      async ([servers, msgJsonSource]) => {
        window.nc = await natsjet.connect({ servers, name: "interop-browser" });
        window.msgJson = eval(`(${msgJsonSource})`);
      },
      [server.wsUrl, msgJson.toString()],
    );
    nc = await wsconnect({ servers: server.wsUrl, name: "interop-natsjs" });
  });
  after(async () => {
    await nc?.close();
    await closeBrowser?.();
    await server?.close();
  });

  /** Runs one native command to its end; resolves to the JSON lines it printed. */
  const native = async (...args) => {
    const { stdout } = await run(nativeBin, [server.url, ...args], { timeout: 20_000 });
    return jsonLines(stdout);
  };

  /** Starts a native command that prints "ready" first; `lines` resolves to the JSON lines after it. */
  const nativeReady = (...args) => {
    const child = spawn(nativeBin, [server.url, ...args], { stdio: ["ignore", "pipe", "inherit"], timeout: 20_000 });
    const got = [];
    const done = new Promise((resolve) => child.once("exit", () => resolve(got)));
    return new Promise((ready, fail) => {
      child.once("error", fail);
      child.once("exit", (code) => fail(new Error(`interop ${args.join(" ")} exited (${code}) before "ready"`)));
      createInterface({ input: child.stdout }).on("line", (line) =>
        line === "ready" ? ready({ child, lines: done }) : got.push(JSON.parse(line)),
      );
    });
  };

  test("core messages with headers: browser -> native and nats.js", async () => {
    const fromNative = await nativeReady("subscribe", "interop.up", "2");
    const sub = nc.subscribe("interop.up", { max: 2 });
    const fromNatsJs = (async () => {
      const got = [];
      for await (const m of sub) got.push(msgJson(m));
      return got;
    })();
    await nc.flush();
    await page.evaluate(() => {
      const h = natsjet.headers();
      h.append("Trace-Id", "1");
      h.append("Trace-Id", "2");
      h.set("Source", "browser");
      nc.publish("interop.up", "with headers", { headers: h });
      nc.publish("interop.up", "plain");
      return nc.flush();
    });
    const expected = [
      { subject: "interop.up", payload: "with headers", headers: { "Trace-Id": ["1", "2"], Source: ["browser"] } },
      { subject: "interop.up", payload: "plain", headers: {} },
    ];
    assert.deepEqual(await fromNative.lines, expected);
    assert.deepEqual(await fromNatsJs, expected);
  });

  test("core messages with headers: native and nats.js -> browser", async () => {
    await page.evaluate(async () => {
      window.down = [];
      nc.subscribe("interop.down", { callback: (_err, m) => down.push(msgJson(m)) });
      await nc.flush();
    });
    await native("publish", "interop.down", "from rust", "Source:rust", "Trace-Id:7");
    const h = headers();
    h.set("Source", "nats.js");
    nc.publish("interop.down", "from nats.js", { headers: h });
    await nc.flush();
    await page.waitForFunction(() => down.length === 2);
    const got = await page.evaluate(() => down.sort((a, b) => a.payload.localeCompare(b.payload)));
    assert.deepEqual(got, [
      { subject: "interop.down", payload: "from nats.js", headers: { Source: ["nats.js"] } },
      { subject: "interop.down", payload: "from rust", headers: { Source: ["rust"], "Trace-Id": ["7"] } },
    ]);
  });

  test("request/reply across clients, headers both ways", async () => {
    const echo = await nativeReady("echo", "interop.native.echo");
    try {
      nc.subscribe("interop.natsjs.echo", { callback: (_err, m) => m.respond(m.data, { headers: m.headers }) });
      await nc.flush();
      const answers = await page.evaluate(async () => {
        nc.subscribe("interop.browser.echo", { callback: (_err, m) => m.respond(m.data, { headers: m.headers }) });
        await nc.flush();
        const h = natsjet.headers();
        h.set("Asked-By", "browser");
        const ask = async (subject) => msgJson(await nc.request(subject, "ping", { headers: h }));
        return [await ask("interop.native.echo"), await ask("interop.natsjs.echo")];
      });
      const body = ({ payload, headers }) => ({ payload, headers });
      const echoed = (payload, by) => ({ payload, headers: { "Asked-By": [by] } });
      assert.deepEqual(answers.map(body), [echoed("ping", "browser"), echoed("ping", "browser")]);
      const h = headers();
      h.set("Asked-By", "nats.js");
      const answer = msgJson(await nc.request("interop.browser.echo", "pong", { headers: h }));
      assert.deepEqual(body(answer), echoed("pong", "nats.js"));
    } finally {
      echo.child.kill();
    }
  });

  test("JetStream: publishes and acks across clients", { skip: skipJetStream }, async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "INTEROP", subjects: ["interop.js.>"] });
    const durable = (name, filter_subject) =>
      jsm.consumers.add("INTEROP", { durable_name: name, ack_policy: "explicit", filter_subject });
    await Promise.all([
      durable("native", "interop.js.up"),
      durable("natsjs", "interop.js.up"),
      durable("browser", "interop.js.down"),
    ]);

    // Browser -> stream -> native and nats.js, each acking.
    await page.evaluate(async () => {
      const js = natsjet.jetstream(nc);
      const h = natsjet.headers();
      h.set("Source", "browser");
      for (let i = 0; i < 3; i++) await js.publish("interop.js.up", `order ${i}`, { msgID: `up-${i}`, headers: h });
    });
    const expectedUp = [0, 1, 2].map((i) => ({
      subject: "interop.js.up",
      payload: `order ${i}`,
      headers: { Source: ["browser"], "Nats-Msg-Id": [`up-${i}`] },
    }));
    assert.deepEqual(await native("consume", "INTEROP", "native", "3"), expectedUp);
    const fromNatsJs = [];
    const natsJsConsumer = await jetstream(nc).consumers.get("INTEROP", "natsjs");
    for await (const m of await natsJsConsumer.fetch({ max_messages: 3 })) {
      fromNatsJs.push(msgJson(m));
      await m.ackAck();
    }
    assert.deepEqual(fromNatsJs, expectedUp);

    // Native and nats.js -> stream -> browser, acking.
    await native("js-publish", "interop.js.down", "from rust", "Source:rust");
    const h = headers();
    h.set("Source", "nats.js");
    await jetstream(nc).publish("interop.js.down", "from nats.js", { headers: h });
    const down = await page.evaluate(async () => {
      const consumer = await natsjet.jetstream(nc).consumers.get("INTEROP", "browser");
      const messages = await consumer.consume({ max_messages: 10 });
      const got = [];
      for await (const m of messages) {
        got.push(msgJson(m));
        m.ack();
        if (got.length === 2) break;
      }
      await nc.flush();
      return got;
    });
    assert.deepEqual(down, [
      { subject: "interop.js.down", payload: "from rust", headers: { Source: ["rust"] } },
      { subject: "interop.js.down", payload: "from nats.js", headers: { Source: ["nats.js"] } },
    ]);

    // The server saw every ack.
    for (const [name, count] of [["native", 3], ["natsjs", 3], ["browser", 2]]) {
      const info = await jsm.consumers.info("INTEROP", name);
      assert.deepEqual([name, info.ack_floor.consumer_seq, info.num_ack_pending], [name, count, 0]);
    }
  });
});
