// Browser half of the test harness: headless Chromium (Debian's, driven by
// playwright-core, which downloads no browser) and a static http server on
// 127.0.0.1 for the pages it loads.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname } from "node:path";
import { chromium } from "playwright-core";

const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const missing = `no Chromium at ${executablePath} (scripts/setup.sh --browser installs it)`;

/**
 * `skip` option for browser tests: a reason where Chromium is missing, but
 * never in CI (CI=true), where the browser tests must run: there the launch
 * fails and says why.
 */
export const skipBrowser = !existsSync(executablePath) && !process.env.CI && missing;

/** Chromium's flags for a quiet headless run in a container (also used by bench/js/cdp.mjs). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--disable-dev-shm-usage",
];

/** One headless Chromium; callers share it across a file's tests. */
export function launchChromium() {
  if (!existsSync(executablePath)) throw new Error(`${missing}; CI must install it`);
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

/** A page whose uncaught exceptions show in the test log. */
export async function newPage(browser) {
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error("[page error]", e));
  return page;
}

const types = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css",
};

/**
 * Serves `routes` on 127.0.0.1: URL path prefix -> folder (a file URL ending
 * in "/"), or exact path -> page text. `index.html` answers for a folder.
 * Resolves to `{ url, close }`.
 */
export async function serve(routes) {
  const prefixes = Object.keys(routes).sort((a, b) => b.length - a.length);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const folder = (p) => typeof routes[p] !== "string" && path.startsWith(p);
    const prefix = prefixes.find((p) => path === p || folder(p));
    const route = routes[prefix];
    if (typeof route === "string") return res.writeHead(200, { "content-type": types[".html"] }).end(route);
    const rel = path.slice(prefix?.length);
    const name = rel === "" || rel.endsWith("/") ? `${rel}index.html` : rel;
    const file = route && !rel.includes("..") && new URL(name, route);
    if (!file || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(file.pathname)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections(); // browsers keep connections alive
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Headless Chromium on a page that has imported the web build from `pkg/`
 * (its `entry`: `web.js` is `natsjet`, `tiers/core/web.js` `natsjet/core`…)
 * as `window.natsjet`, served on 127.0.0.1. Resolves to `{ page, blankPage,
 * close }`: `blankPage()` opens another page there that has loaded nothing;
 * `close` ends the browser and the page's server.
 */
export async function pageWithNatsjet(title, entry = "web.js") {
  const pkg = new URL("../../pkg/", import.meta.url);
  const http = await serve({ "/": `<!doctype html><title>${title}</title>`, "/pkg/": pkg });
  let browser;
  const close = async () => {
    await browser?.close();
    await http.close();
  };
  try {
    browser = await launchChromium();
    const page = await newPage(browser);
    await page.goto(`${http.url}/`);
    await page.evaluate(async (entry) => {
      window.natsjet = await import(`/pkg/${entry}`);
    }, entry);
    const blankPage = async () => {
      const blank = await newPage(browser);
      await blank.goto(`${http.url}/`);
      return blank;
    };
    return { page, blankPage, close };
  } catch (e) {
    await close();
    throw e;
  }
}
