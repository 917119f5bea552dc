// Test harness: throw-away nats-server processes on free 127.0.0.1 ports
// (websocket listener on; JetStream on request, stored in the server's temp
// dir), killed when the test process exits; plus small helpers. The shell
// twin is scripts/server.sh, the Rust one tests/common.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream as natsJsJetStream } from "@nats-io/jetstream";
import { createUser } from "@nats-io/nkeys";
import { connect as natsJsConnect } from "@nats-io/transport-node";
import { NatsError, connect, jetstream, jetstreamManager } from "natsjet";

const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * Starts a server; `config` is appended to its config file (auth blocks…).
 * It may be a function of the server's temp dir, e.g. for a JetStream store_dir.
 */
export async function startServer(config = "") {
  const dir = mkdtempSync(join(tmpdir(), "natsjet-js-"));
  const server = new NatsServer(dir, typeof config === "function" ? config(dir) : config);
  await server.start();
  return server;
}

/** Starts a server with JetStream, storing in its temp dir. */
export async function startJetStreamServer(config = "") {
  const dir = mkdtempSync(join(tmpdir(), "natsjet-js-"));
  const server = new NatsServer(dir, `jetstream { store_dir: "${join(dir, "js")}" }\n${config}`);
  await server.start();
  return server;
}

/**
 * A JetStream server with two accounts: JS (users `js`/`js`, and
 * `limited`/`pw`, who may not publish to `secret.>` nor subscribe to
 * `jobs.>`) and NOJS without JetStream (`nojs`/`nojs`).
 */
export function startAccountsServer() {
  return startServer(
    (dir) => `jetstream { store_dir: "${join(dir, "js")}" }
accounts {
  JS: {
    jetstream: enabled
    users: [
      { user: js, password: js }
      { user: limited, password: pw, permissions: {
        publish: { deny: ["secret.>", "$JS.API.CONSUMER.CREATE.*.locked", "$JS.API.CONSUMER.CREATE.*.locked.>", "$JS.API.CONSUMER.DURABLE.CREATE.*.locked", "$KV.*.locked"] },
        subscribe: { deny: "jobs.>" } } }
    ]
  }
  NOJS: { users: [{ user: nojs, password: nojs }] }
}`,
  );
}

/** Whichever error `f` throws or its promise rejects with; fails when there is none. */
export async function caught(f) {
  try {
    await f();
  } catch (e) {
    return e;
  }
  assert.fail("no error");
}

class NatsServer {
  constructor(dir, extra) {
    this.dir = dir;
    this.extra = extra;
    this.ports = { client: -1, websocket: -1 };
  }

  /** Starts on the ports of the last run (random ones the first time). */
  async start() {
    const conf = join(this.dir, "server.conf");
    writeFileSync(
      conf,
      `listen: "127.0.0.1:${this.ports.client}"\n` +
        `ports_file_dir: "${this.dir}"\n` +
        `websocket { listen: "127.0.0.1:${this.ports.websocket}", no_tls: true }\n` +
        `${this.extra}\n`,
    );
    const log = openSync(join(this.dir, "server.log"), "a");
    const child = spawn(process.env.NATS_SERVER_BIN ?? "nats-server", ["-c", conf], { stdio: ["ignore", log, log] });
    running.add(child);
    this.child = child;
    this.exited = new Promise((resolve) => child.once("exit", resolve));
    const portsFile = join(this.dir, `nats-server_${child.pid}.ports`);
    for (let i = 0; i < 200; i++) {
      try {
        const ports = JSON.parse(readFileSync(portsFile, "utf8"));
        if (ports.websocket?.length) {
          this.url = ports.nats[0];
          this.wsUrl = ports.websocket[0];
          this.clusterUrl = ports.cluster?.[0];
          this.ports = { client: Number(new URL(this.url).port), websocket: Number(new URL(this.wsUrl).port) };
          return;
        }
      } catch {
        // not written yet
      }
      if (child.exitCode !== null) break;
      await sleep(50);
    }
    throw new Error(`nats-server did not start:\n${readFileSync(join(this.dir, "server.log"), "utf8").slice(-2000)}`);
  }

  async stop() {
    if (!this.child) return;
    this.child.kill("SIGKILL");
    await this.exited;
    running.delete(this.child);
    this.child = undefined;
    for (const f of readdirSync(this.dir)) if (f.endsWith(".ports")) unlinkSync(join(this.dir, f));
  }

  /**
   * SIGSTOP: the server keeps its sockets but answers nothing (until
   * `resume`). Resolves once every thread has stopped: the signal reaches
   * the threads one after another, and on a busy machine one could still
   * answer what is sent right after `kill`.
   */
  async pause() {
    this.child.kill("SIGSTOP");
    const tasks = `/proc/${this.child.pid}/task`;
    const stopped = (tid) => readFileSync(`${tasks}/${tid}/stat`, "utf8").split(") ").pop().startsWith("T");
    while (!readdirSync(tasks).every(stopped)) await sleep(1);
  }

  resume() {
    this.child.kill("SIGCONT");
  }

  async restart() {
    await this.stop();
    await this.start();
  }

  async close() {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * `startServer` config for a node of cluster `name` with a route port of
 * its own (`server.clusterUrl`), routed to the given nodes.
 */
export const clusterNode = (name, ...peers) =>
  `cluster { name: "${name}", listen: "127.0.0.1:-1", routes: [${peers.map((p) => `"${p.clusterUrl}"`).join(", ")}] }`;

/** `startServer` config: JetStream on, stored in the server's temp dir. */
export const withJetStream = (dir) => `jetstream { store_dir: "${dir}/js" }`;

/** `skip` reason for tests of the JetStream JS API while the package has none (no `jetstream` export). */
/** Restarts `server` and waits until JetStream answers through `jsm` again. */
export async function restartJetStream(server, jsm) {
  await server.restart();
  for (;;) {
    try {
      await jsm.getAccountInfo();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function skipWithoutJetStream() {
  const natsjet = await import("natsjet");
  const missing = "the natsjet package has no JetStream JS API yet (no `jetstream` export)";
  return typeof natsjet.jetstream !== "function" && missing;
}

/** Resolves once `check()` is true; rejects after `ms`. */
export async function waitFor(check, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms: ${check}`);
    await sleep(10);
  }
}

/**
 * Resolves once the consumer's info satisfies `check` (or with the last
 * info after 5 s): the server applies acks after it has received them, so
 * a flush does not mean they count yet.
 */
export async function consumerInfoSoon(consumerInfo, check) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const info = await consumerInfo();
    if (check(info) || Date.now() > deadline) return info;
    await sleep(20);
  }
}

/** The next message of a subscription (iterating it once). */
export async function nextMsg(sub) {
  for await (const msg of sub) return msg;
  throw new Error("subscription ended");
}

/** A fresh user nkey: `seed` (SU…) for the client, `publicKey` (U…) for the server. */
export function nkeyPair() {
  const user = createUser();
  return { seed: new TextDecoder().decode(user.getSeed()), publicKey: user.getPublicKey() };
}

/** Asserts `promise` rejects with a NatsError of `kind` and the given details (`code`, `status`…). */
export async function rejectsWith(promise, kind, details = {}) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof NatsError, `a NatsError: ${e}`);
    assert.equal(e.kind, kind, e.message);
    for (const [key, value] of Object.entries(details)) assert.equal(e[key], value, `${key} of ${e.message}`);
    return true;
  });
}

/**
 * A throw-away CA, a server certificate for 127.0.0.1 and a client
 * certificate, made with `openssl` in `dir`: their paths and PEM text.
 */
export function testCertificates(dir) {
  const file = (name) => join(dir, name);
  const openssl = (...args) => execFileSync("openssl", args, { stdio: "pipe" });
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const subject = ["-days", "1", "-subj", "/CN=natsjet test CA"];
  openssl("req", "-x509", ...key, "-keyout", file("ca.key"), "-out", file("ca.pem"), ...subject);
  for (const [name, ext] of [
    ["server", "subjectAltName=IP:127.0.0.1"],
    ["client", "extendedKeyUsage=clientAuth"],
  ]) {
    openssl("req", ...key, "-keyout", file(`${name}.key`), "-out", file(`${name}.csr`), "-subj", `/CN=${name}`);
    writeFileSync(file(`${name}.ext`), `${ext}\n`);
    const ca = ["-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial", "-days", "1"];
    openssl("x509", "-req", "-in", file(`${name}.csr`), ...ca, "-out", file(`${name}.pem`), "-extfile", file(`${name}.ext`));
  }
  const pem = (name) => readFileSync(file(name), "utf8");
  return {
    files: { ca: file("ca.pem"), cert: file("server.pem"), key: file("server.key") },
    ca: pem("ca.pem"),
    clientCert: pem("client.pem"),
    clientKey: pem("client.key"),
  };
}

/**
 * natsjet and nats.js 3.4 connected to `server` over nats://: natsjet's
 * `nc`, `js` and `jsm`, nats.js's `theirs` and `theirJs`, and `close()`
 * for both connections.
 */
export async function bothClients(server) {
  const nc = await connect({ servers: server.url });
  const theirs = await natsJsConnect({ servers: server.url });
  const close = () => Promise.all([nc.close(), theirs.close()]);
  return { nc, js: jetstream(nc), jsm: await jetstreamManager(nc), theirs, theirJs: natsJsJetStream(theirs), close };
}
