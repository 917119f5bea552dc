// The web build in a real browser: headless Chromium loads the package's
// web.js from a plain <script type="module"> page and talks to the server.
// Skipped where Chromium is not installed (scripts/setup.sh --browser).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "./harness.mjs";

const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
const pkg = new URL("../../pkg/", import.meta.url);
const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

const page = `<!doctype html>
<script type="module">
  import { connect, NatsError } from "/web.js";
  const report = (body) => fetch("/result", { method: "POST", body: JSON.stringify(body) });
  try {
    const nc = await connect({ servers: new URLSearchParams(location.search).get("ws") });
    nc.subscribe("browser.echo", { callback: (_, m) => m.respond(m.data) });
    const answer = await nc.request("browser.echo", "from the browser");
    const code = await nc.request("browser.nobody").then(() => "answered", (e) => e instanceof NatsError && e.code);
    const serverId = nc.info.server_id;
    await nc.close();
    await report({ answer: answer.string(), code, serverId });
  } catch (e) {
    await report({ error: String(e) });
  }
</script>`;

let server;
before(async () => {
  if (existsSync(chromium)) server = await startServer();
});
after(() => server?.close());

test("a <script type=module> page connects, requests and gets coded errors", { skip: !existsSync(chromium) }, async () => {
  let onResult;
  const result = new Promise((resolve) => (onResult = resolve));
  const http = createServer((req, res) => {
    if (req.method === "POST") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        res.end();
        onResult(JSON.parse(body));
      });
      return;
    }
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/") return res.writeHead(200, { "content-type": types[".html"] }).end(page);
    const file = new URL(`.${path}`, pkg);
    if (!existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const profile = mkdtempSync(join(tmpdir(), "natsjet-chromium-"));
  const url = `http://127.0.0.1:${http.address().port}/?ws=${encodeURIComponent(server.wsUrl)}`;
  const browser = spawn(
    chromium,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
      `--user-data-dir=${profile}`,
      url,
    ],
    { stdio: "ignore", detached: true },
  );
  const exited = new Promise((resolve) => browser.once("exit", resolve));
  try {
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no result in 60 s")), 60_000).unref());
    const got = await Promise.race([result, timeout]);
    assert.deepEqual(got, { answer: "from the browser", code: "NO_RESPONDERS", serverId: got.serverId });
    assert.ok(got.serverId);
  } finally {
    process.kill(-browser.pid, "SIGKILL"); // its own process group: the browser and its helpers
    await exited;
    http.close();
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
});
