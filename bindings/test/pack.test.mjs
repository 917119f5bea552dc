// The npm tarball as users get it: `npm pack` pkg/, install the tarball into
// a fresh project outside the repo (sample-app/, copied to a temp dir), then
// type-check a program against it (tsc --strict, Node's and a bundler's
// resolution), and use it from Node, from an esbuild bundle and from a plain
// <script type="module"> page in Chromium; its README's links resolve inside it. `--prefer-offline`: `ws` comes
// from the npm cache that `npm ci` filled; npm ci does not cache its registry
// metadata, so a fresh machine fetches that once.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import * as esbuild from "esbuild";
import { linkProblem, relativeLinks } from "../../scripts/markdown.mjs";
import { launchChromium, newPage, serve, skipBrowser } from "./chromium.mjs";
import { nkeyPair, startServer } from "./harness.mjs";

const run = promisify(execFile);
const expected = { greeting: "hello 42", answer: "ping", noResponders: "NO_RESPONDERS" };

const nkey = nkeyPair();
let server, signedServer, dir, app;
before(async () => {
  server = await startServer();
  signedServer = await startServer(`authorization { users: [{ nkey: "${nkey.publicKey}" }] }`);
  dir = mkdtempSync(join(tmpdir(), "natsjet-pack-"));
  app = join(dir, "app");
  cpSync(fileURLToPath(new URL("sample-app/", import.meta.url)), app, { recursive: true });
  const pkg = fileURLToPath(new URL("../../pkg/", import.meta.url));
  const packed = await run("npm", ["pack", pkg, "--json", "--pack-destination", dir]);
  const [{ filename }] = JSON.parse(packed.stdout);
  const install = ["install", join(dir, filename), "--prefer-offline", "--no-audit", "--no-fund"];
  await run("npm", install, { cwd: app });
});
after(async () => {
  await server?.close();
  await signedServer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const node = (...args) => run(process.execPath, ["node.mjs", ...args], { cwd: app, timeout: 30_000 });

test("TypeScript: a program type-checks against the installed package's types", async () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const strict = ["--noEmit", "--strict", "--target", "es2022", "check.ts"];
  const resolutions = [
    ["--module", "nodenext", "--moduleResolution", "nodenext"], // Node: node.d.ts
    ["--module", "esnext", "--moduleResolution", "bundler", "--customConditions", "browser"], // bundlers: web.d.ts
  ];
  for (const resolution of resolutions) {
    const checked = await run(process.execPath, [tsc, ...resolution, ...strict], { cwd: app }).catch((e) => e);
    assert.equal(checked.code ?? 0, 0, `tsc ${resolution.join(" ")}:\n${checked.stdout}${checked.stderr}`);
  }
});

test("Node: the installed package resolves to its node entry and works over ws://", async () => {
  const { stdout } = await node(server.wsUrl);
  assert.deepEqual(JSON.parse(stdout), { entry: "node.js", ...expected });
});

test("Node: the installed package works over nats://", async (t) => {
  const got = await node(server.url).catch((e) => e);
  if (got.stderr?.includes("needs Node.js sockets")) {
    return t.skip("nats:// is not wired into the Node entry yet (bindings/node.ts does not install Node sockets)");
  }
  assert.deepEqual(JSON.parse(got.stdout), { entry: "node.js", ...expected });
});

test("Node: nkeyAuthenticator signs with @nats-io/nkeys, installed with the package", async () => {
  const { stdout } = await node(signedServer.url, nkey.seed);
  assert.deepEqual(JSON.parse(stdout), { entry: "node.js", signIn: "signed in" });
});

test("Node: the installed package's natsjet/services entry", async () => {
  const { stdout } = await run(process.execPath, ["services.mjs", server.url], { cwd: app, timeout: 30_000 });
  assert.deepEqual(JSON.parse(stdout), { entry: "services/index.js", answer: "hello app", pings: ["sample"] });
});

test("Node: the installed package's tier entries natsjet/core and natsjet/jetstream, each on its own wasm", async () => {
  const { stdout } = await run(process.execPath, ["tiers.mjs", server.url], { cwd: app, timeout: 30_000 });
  assert.deepEqual(JSON.parse(stdout), {
    "natsjet/core": { entry: "tiers/core/node.js", ...expected, exports: [] },
    "natsjet/jetstream": { entry: "tiers/jetstream/node.js", ...expected, exports: ["jetstream"] },
  });
});

test("the package carries its README, LICENSE and guides, and every link in them resolves inside it", () => {
  const installed = join(app, "node_modules/natsjet");
  const guides = readdirSync(join(installed, "docs")).filter((f) => f.endsWith(".md"));
  assert.ok(guides.includes("getting-started.md"), `docs/ in the package: ${guides}`);
  assert.match(readFileSync(join(installed, "LICENSE"), "utf8"), /Apache License/);
  const broken = [];
  for (const name of ["README.md", ...guides.map((g) => `docs/${g}`)]) {
    const file = join(installed, name);
    for (const link of relativeLinks(readFileSync(file, "utf8"))) {
      const problem = linkProblem(file, link, link.path ? resolve(dirname(file), link.path) : file);
      if (problem) broken.push(`${name}:${link.lineNo}: ${link.target}: ${problem}`);
    }
  }
  assert.deepEqual(broken, []);
});

describe("in Chromium", { skip: skipBrowser, timeout: 60_000 }, () => {
  let http, browser, page;
  before(async () => {
    http = await serve({ "/": pathToFileURL(`${app}/`) });
    browser = await launchChromium();
    page = await newPage(browser);
  });
  after(async () => {
    await browser?.close();
    await http?.close();
  });

  const result = async (file, query = `servers=${encodeURIComponent(server.wsUrl)}`) => {
    await page.goto(`${http.url}/${file}?${query}`);
    return page.evaluate(() => window.result);
  };

  /**
   * Bundles `entry` into dist/`out` as an app would, with the wasm of the
   * package's folder `wasmDir` (its tier) next to it; returns the JS and the
   * wasm-bindgen glue files esbuild put in.
   */
  const bundleWithGlue = async (entry, out, wasmDir = "web") => {
    const built = await esbuild.build({
      entryPoints: [join(app, entry)],
      bundle: true,
      format: "esm",
      platform: "browser", // fails on any Node built-in the web entry would pull in
      minify: true,
      outfile: join(app, "dist", out),
      logLevel: "error",
      metafile: true,
      absWorkingDir: app,
    });
    // esbuild keeps `new URL("natsjet_bg.wasm", import.meta.url)` as is: the wasm goes next to the bundle.
    copyFileSync(join(app, "node_modules/natsjet", wasmDir, "natsjet_bg.wasm"), join(app, "dist", dirname(out), "natsjet_bg.wasm"));
    const glue = Object.keys(built.metafile.inputs).filter((f) => f.endsWith("/natsjet.js"));
    return { js: readFileSync(join(app, "dist", out), "utf8"), glue };
  };
  const bundle = async (entry, out) => (await bundleWithGlue(entry, out)).js;
  // A string in tweetnacl, which @nats-io/nkeys signs with.
  const hasNacl = (js) => js.includes("bad secret key size");

  test("an esbuild bundle of the installed package (browser condition, no Node modules)", async (t) => {
    const js = await bundle("entry.mjs", "app.js");
    t.diagnostic(`bundle: ${statSync(join(app, "dist/app.js")).size} bytes of JS`);
    assert.ok(!hasNacl(js), "an app that does not sign leaves the nkeys code out");
    assert.ok(!js.includes("io.nats.micro"), "an app that adds no service leaves natsjet/services out");
    assert.deepEqual(await result("bundle.html"), expected);
  });

  test("an esbuild bundle of a core-only app carries natsjet/core's wasm and no JetStream", async (t) => {
    const { js, glue } = await bundleWithGlue("core.mjs", "core/core.js", "tiers/core/web");
    t.diagnostic(`core bundle: ${js.length} bytes of JS`);
    assert.deepEqual(glue, ["node_modules/natsjet/tiers/core/web/natsjet.js"]);
    // The JetStream glue (the wasm's JetStream classes) and TypeScript (its
    // refusal of a core connection); both are in a bundle of the same app from "natsjet".
    for (const marker of ["rawjetstream", "natsjet/core, which has no JetStream"]) {
      assert.ok(!js.includes(marker), `${marker} in the core bundle`);
    }
    const coreWasm = readFileSync(join(app, "node_modules/natsjet/tiers/core/web/natsjet_bg.wasm"));
    const fullWasm = readFileSync(join(app, "node_modules/natsjet/web/natsjet_bg.wasm"));
    assert.ok(coreWasm.length < fullWasm.length * 0.7, `core wasm ${coreWasm.length} bytes, full ${fullWasm.length}`);
    assert.deepEqual(await result("core.html"), expected);
  });

  test("a bundle that uses nkeyAuthenticator signs in the browser", async () => {
    assert.ok(hasNacl(await bundle("signed.mjs", "signed.js")));
    const query = `servers=${encodeURIComponent(signedServer.wsUrl)}&seed=${nkey.seed}`;
    assert.equal(await result("signed.html", query), "signed in");
  });

  test("a plain <script type=module> page importing node_modules/natsjet/web.js", async () => {
    assert.deepEqual(await result("index.html"), expected);
  });
});
