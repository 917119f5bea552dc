// A bare DevTools-protocol driver for the browser benchmark
// (BENCH_BROWSER=cdp): headless Chromium started here and driven over its
// debugging WebSocket with Runtime and Performance only. Playwright enables
// the Network domain on every page it drives, so each WebSocket frame also
// becomes a DevTools event, serialized in the page and relayed by the browser
// process: a cost per frame that a page without DevTools attached never pays
// (and that weighs on a client sending a frame per message most).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { CHROMIUM_ARGS } from "../../bindings/test/chromium.mjs";

const ARGS = ["--headless", ...CHROMIUM_ARGS, "--remote-debugging-port=0"];

/**
 * Chromium at `executablePath` showing `url`, with the page's
 * `evaluate(expression)` (awaited, by value), `send(method, params)` and
 * `version`; `close()` ends it.
 */
export async function openPage(executablePath, url) {
  const profile = mkdtempSync(join(tmpdir(), "natsjet-bench-cdp-"));
  const child = spawn(executablePath, [...ARGS, `--user-data-dir=${profile}`, url], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = async () => {
    child.kill();
    await exited;
    // Its helper processes may still be writing the profile for a moment.
    for (let i = 0; ; i++) {
      try {
        rmSync(profile, { recursive: true, force: true });
        return;
      } catch (e) {
        if (i === 20) throw e;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  try {
    const port = await new Promise((resolve, reject) => {
      let log = "";
      child.stderr.on("data", (d) => {
        log += d;
        const m = log.match(/DevTools listening on ws:\/\/[^/]+:(\d+)\//);
        if (m) resolve(m[1]);
      });
      child.once("exit", () => reject(new Error(`chromium exited: ${log.slice(-1000)}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    let target;
    for (let i = 0; i < 100 && !target; i++) {
      const targets = await (await fetch(`${base}/json/list`)).json();
      target = targets.find((t) => t.type === "page" && t.url.startsWith(url));
      if (!target) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!target) throw new Error(`no page for ${url}`);
    const { Browser: version } = await (await fetch(`${base}/json/version`)).json();
    const ws = new WebSocket(target.webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 1 << 30 });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    let lastId = 0;
    const pending = new Map();
    ws.on("message", (data) => {
      const m = JSON.parse(data);
      const settle = pending.get(m.id);
      if (!settle) return;
      pending.delete(m.id);
      settle(m);
    });
    const send = (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++lastId;
        pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
        ws.send(JSON.stringify({ id, method, params }));
      });
    const evaluate = async (expression) => {
      const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      return r.result.value;
    };
    return {
      version,
      send,
      evaluate,
      async close() {
        ws.close();
        await close();
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}
