// Programs written for nats.js 3.4 (test/compat/*.ts, importing from
// @nats-io/transport-node, nats-core, jetstream, kv and obj, and from
// @nats-io/services 3.0.0-25) switch to natsjet by their import specifiers
// alone. Each program is compiled twice with `tsc --strict`: as written,
// against nats.js, and with every `@nats-io/*` specifier rewritten to
// "natsjet" ("natsjet/services" for the services), against the built
// package's types. Both builds then run against real nats-servers (a fresh
// one per run), and natsjet's transcript must be nats.js's.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startJetStreamServer } from "./harness.mjs";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const programs = fileURLToPath(new URL("compat/", import.meta.url));
/** An import of one of the nats.js packages (one match; `.source` for all of them). */
const specifier = /(from\s+)"@nats-io\/(?:transport-node|nats-core|jetstream|kv|obj|services)"/;
const switchImports = (source) =>
  source
    .replace(/(from\s+)"@nats-io\/services"/g, '$1"natsjet/services"')
    .replace(new RegExp(specifier.source, "g"), '$1"natsjet"');
const sources = readdirSync(programs).filter((name) => name.endsWith(".ts"));

/** Bounds one program's run: a hang fails the test instead of stalling it. */
const WAIT = 30_000;

/**
 * Writes the programs into a folder beside the originals (so "natsjet" and
 * the `@nats-io/*` packages resolve as they do for them), rewritten by
 * `rewrite`, and compiles them there with the programs' tsconfig. Returns
 * the folder and tsc's exit status and output.
 */
function compile(flavor, rewrite) {
  const dir = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), `.compat-${flavor}-`));
  cpSync(join(programs, "tsconfig.json"), join(dir, "tsconfig.json"));
  for (const name of sources) writeFileSync(join(dir, name), rewrite(readFileSync(join(programs, name), "utf8")));
  const run = spawnSync(process.execPath, [tsc, "-p", dir, "--noEmit", "false", "--outDir", join(dir, "out")], {
    encoding: "utf8",
  });
  return { dir, status: run.status, output: run.stdout + run.stderr };
}

const builds = {
  "nats.js": compile("natsjs", (source) => source),
  natsjet: compile("natsjet", switchImports),
};
after(() => {
  for (const { dir } of Object.values(builds)) rmSync(dir, { recursive: true, force: true });
});

test("there are programs, and every one imports nats.js", () => {
  assert.ok(sources.length >= 4, `programs: ${sources}`);
  for (const name of sources) assert.match(readFileSync(join(programs, name), "utf8"), specifier, name);
});

test("the switched programs import nothing of nats.js", () => {
  for (const name of sources) {
    const switched = readFileSync(join(builds.natsjet.dir, name), "utf8");
    assert.doesNotMatch(switched, /from\s+"@nats-io\//, `${name} still imports nats.js`);
  }
});

for (const [library, build] of Object.entries(builds)) {
  test(`the programs type-check with tsc --strict against ${library}`, () => {
    assert.equal(build.status, 0, build.output);
  });
}

/** The compiled module of `source` in `build`. */
const load = (build, source) => import(pathToFileURL(join(build.dir, "out", source.replace(/\.ts$/, ".js"))).href);

/** Runs `program` on a fresh JetStream server, within WAIT. */
async function run(program) {
  const server = await startJetStreamServer();
  let timer;
  try {
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${program.name} did not finish in ${WAIT} ms`)), WAIT);
    });
    return await Promise.race([program(server.url), late]);
  } finally {
    clearTimeout(timer);
    await server.close();
  }
}

for (const source of sources) {
  describe(`${source}: natsjet sees what nats.js sees`, async () => {
    const compiled = Object.values(builds).every((build) => build.status === 0);
    const natsjs = compiled ? await load(builds["nats.js"], source) : {};
    const natsjet = compiled ? await load(builds.natsjet, source) : {};
    test("the programs compiled", () => assert.ok(compiled, "see the type-check tests"));
    for (const [name, program] of Object.entries(natsjs)) {
      if (typeof program !== "function") continue;
      test(name, async () => {
        const expected = await run(program);
        assert.ok(expected.length > 0, `${name} saw nothing with nats.js`);
        assert.deepEqual(await run(natsjet[name]), expected);
      });
    }
  });
}
