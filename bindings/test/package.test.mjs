// The package as published: its exports resolve per environment, the web
// entry imports nothing from Node, and the web build works given a WebSocket.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { startServer } from "./harness.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const pkg = new URL("../../pkg/", import.meta.url);

test("Node resolves the package to the node entry", () => {
  assert.equal(import.meta.resolve("natsjet"), new URL("node.js", pkg).href);
});

/** The package's files `entry` imports, all of them; each import must be relative (no node: module, no bare specifier). */
function importedBy(entry) {
  const seen = new Set();
  const visit = (url) => {
    if (seen.has(url.href)) return;
    seen.add(url.href);
    const source = readFileSync(url, "utf8");
    for (const [, spec] of source.matchAll(/(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']/g)) {
      assert.ok(spec.startsWith("./") || spec.startsWith("../"), `${url.pathname} imports ${spec}`);
      visit(new URL(spec, url));
    }
  };
  visit(new URL(entry, pkg));
  return seen;
}

test("the web entry and its imports use no node: module or bare specifier", () => {
  assert.ok(importedBy("web.js").has(new URL("web/natsjet.js", pkg).href));
});

test("each tier resolves to its own entries, whose web imports reach only that tier's TypeScript and wasm glue", () => {
  const tiers = {
    "natsjet/core": { dir: "tiers/core/", outside: ["/jetstream/", "/kv/", "/obj/", "/services/"] },
    "natsjet/jetstream": { dir: "tiers/jetstream/", outside: ["/kv/", "/obj/", "/services/"] },
  };
  for (const [name, { dir, outside }] of Object.entries(tiers)) {
    assert.equal(import.meta.resolve(name), new URL(`${dir}node.js`, pkg).href);
    const files = [...importedBy(`${dir}web.js`)].map((href) => href.slice(pkg.href.length));
    const glue = files.filter((file) => file.endsWith("/natsjet.js"));
    assert.deepEqual(glue, [`${dir}web/natsjet.js`], `${name}'s wasm glue`);
    const strays = files.filter((file) => !file.startsWith("tiers/") && outside.some((part) => `/${file}`.includes(part)));
    assert.deepEqual(strays, [], `${name} reaches another tier's TypeScript`);
  }
  assert.ok(importedBy("tiers/jetstream/web.js").has(new URL("jetstream/client.js", pkg).href));
});

test("natsjet/services is an entry of its own, for browsers and Node, that the main entries never reach", () => {
  assert.equal(import.meta.resolve("natsjet/services"), new URL("services/index.js", pkg).href);
  const services = importedBy("services/index.js");
  assert.ok(![...services].some((file) => file.includes("/web/") || file.endsWith("/web.js")), "services imports no wasm");
  for (const entry of ["web.js", "index.js"]) {
    assert.ok(![...importedBy(entry)].some((file) => file.includes("/services/")), `${entry} reaches services`);
  }
});

test("the web build connects once given the wasm and a WebSocket", async () => {
  globalThis.WebSocket ??= WebSocket;
  const web = await import(new URL("web.js", pkg));
  await web.init(readFileSync(new URL("web/natsjet_bg.wasm", pkg)));
  const nc = await web.connect({ servers: server.wsUrl });
  nc.subscribe("web.echo", { callback: (_, m) => m.respond(m.data) });
  assert.equal((await nc.request("web.echo", "hi")).string(), "hi");
  await assert.rejects(nc.request("web.nobody"), (e) => e instanceof web.NatsError && e.kind === "NO_RESPONDERS");
  await nc.close();
});
