// The wasm client alone: natsjet's default drain (consume() with no options,
// an ack per message) against a scripted server inside this process, behind
// the package's socket factory (nats://). No nats-server competes for the
// cores and no socket is read or written: every run hands the client the
// same bytes in the same chunks (up to 64 KiB per read, one read per turn of
// the event loop; acks are skipped unread), so what is measured is the
// client's parse, dispatch, JS objects and acks, and its rate with nothing
// to wait for. The scripted server's own share is small (a read is a
// prefix of a block made once). Builds alternate pass by pass and medians
// are printed, as in ab_drain.mjs; set next to it, the difference is what
// the sockets and the server's pace add.
//
//   SCRIPTED_PKGS="base=target/pkg-base,new=pkg"  builds of the package (dirs holding node.js; default: pkg)
//   SCRIPTED_WORKERS=1,4  SCRIPTED_PASSES=7  BENCH_SCALE as for node.mjs (200,000 messages)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { nodeClock, scale } from "./common.mjs";
import { durableDrain } from "./workloads.mjs";

const list = (name, fallback) => (process.env[name] ?? fallback).split(",").map((s) => s.trim()).filter(Boolean);
const n = scale(200_000);
const passes = Math.max(1, Number(process.env.SCRIPTED_PASSES ?? 7));
const workers = list("SCRIPTED_WORKERS", "1").map(Number);
const builds = [];
for (const entry of list("SCRIPTED_PKGS", "pkg=pkg")) {
  const [name, dir = name] = entry.split("=");
  const url = (file) => pathToFileURL(resolve(process.cwd(), dir, file)).href;
  const natsjet = await import(url("node.js"));
  // The same module instance as the entry's: its socket factory is replaced.
  (await import(url("node/natsjet.js"))).setSocketFactory({ connect: (_host, _port, events) => new ScriptedSocket(events) });
  builds.push({ name, natsjet });
}

const PAYLOAD = "x".repeat(128);
const READ = 64 * 1024;
const INFO = `INFO ${JSON.stringify({ server_id: "SCRIPTED", version: "2.15.1", proto: 1, headers: true, max_payload: 1 << 20, jetstream: true })}\r\n`;
const enc = (s) => Buffer.from(s, "latin1");
/** What the client writes that this server answers (acks it skips). */
const OPS = ["PING\r\n", "SUB ", "UNSUB ", "PUB $JS.API."].map(enc);

/** The durable all connections read (a drain's workers share it). */
let consumer = "";
/**
 * A read's worth of deliveries to subscription `sid`, made once: message
 * `i` has ack subject `$JS.ACK.DRAIN.<consumer>.1.<i>.<i>.<time>.0` (`i` in
 * six digits, so all are the same size), and each read hands out a prefix.
 */
const blocks = new Map();
function block(sid) {
  const key = `${consumer} ${sid}`;
  if (!blocks.has(key)) {
    const msg = (i) => {
      const seq = String(i + 1).padStart(6, "0");
      const ack = `$JS.ACK.DRAIN.${consumer}.1.${seq}.${seq}.1796524449000000000.0`;
      return `MSG bench.drain ${sid} ${ack} ${PAYLOAD.length}\r\n${PAYLOAD}\r\n`;
    };
    const size = msg(0).length;
    const count = Math.floor(READ / size);
    blocks.set(key, { bytes: enc(Array.from({ length: count }, (_, i) => msg(i)).join("")), size, count, used: size - PAYLOAD.length - 30 });
  }
  return blocks.get(key);
}

/**
 * One client connection of the scripted server: answers what the client
 * writes, fills its pulls. Its own work per message is small next to the
 * client's (some 0.1 µs): a read is a prefix of a ready block, and acks
 * are not read.
 */
class ScriptedSocket {
  #events;
  /** Subscriptions: [pattern tokens, sid]. */
  #subs = [];
  /** Pulls not yet filled: { reply, sid, left, bytes }. */
  #pulls = [];
  #out = [];
  #outBytes = 0;
  #scheduled = false;
  #closed = false;

  constructor(events) {
    this.#events = events;
    setImmediate(() => {
      if (this.#closed) return;
      events.onOpen();
      this.#send(enc(INFO));
    });
  }

  /**
   * The client writes whole operations: those this server answers are
   * found by their names, and the acks around them, most of what comes,
   * are never read.
   */
  write(bytes) {
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const starts = [];
    for (const op of OPS) {
      for (let at = data.indexOf(op); at >= 0; at = data.indexOf(op, at + 1)) {
        if (at === 0 || data[at - 1] === 10) starts.push(at);
      }
    }
    for (const at of starts.sort((x, y) => x - y)) this.#operation(data, at);
    return true;
  }

  /** `data` is read during the call only. */
  writeView(data) {
    return this.write(data);
  }

  upgradeTls() {
    return Promise.reject(new Error("no TLS here"));
  }

  /** No event fires afterwards (the `SocketHandle` contract). */
  close() {
    this.#closed = true;
  }

  #operation(data, at) {
    const lf = data.indexOf(10, at);
    const [op, ...args] = data.toString("latin1", at, lf).trim().split(/\s+/);
    if (op === "PING") this.#send(enc("PONG\r\n"));
    else if (op === "SUB") this.#subs.push([args[0].split("."), args.at(-1)]);
    else if (op === "UNSUB") this.#subs = this.#subs.filter(([, sid]) => sid !== args[0]);
    else if (op === "PUB") this.#publish(args[0], args.length > 2 ? args[1] : undefined, data.subarray(lf + 1, lf + 1 + Number(args.at(-1))));
  }

  #sid(subject) {
    const tokens = subject.split(".");
    const matches = (pattern) =>
      pattern.every((p, i) => p === ">" || p === "*" || p === tokens[i]) &&
      (pattern.length === tokens.length || pattern.at(-1) === ">");
    return this.#subs.find(([pattern]) => matches(pattern))?.[1];
  }

  #publish(subject, reply, payload) {
    const api = subject.split(".");
    if (subject.startsWith("$JS.API.CONSUMER.INFO.")) {
      consumer = api[5];
      const info = consumerInfo(api[4], api[5]);
      this.#send(enc(`MSG ${reply} ${this.#sid(reply)} ${info.length}\r\n${info}\r\n`));
    } else if (subject.startsWith("$JS.API.CONSUMER.MSG.NEXT.")) {
      const pull = JSON.parse(payload.toString());
      this.#pulls.push({ reply, sid: this.#sid(reply), left: pull.batch ?? 1, bytes: pull.max_bytes ?? 0 });
      this.#deliver();
    }
  }

  /**
   * Fills pulls in reads of up to READ bytes, one per event-loop turn. A
   * pull with a bytes bound ends as nats-server ends it, in a 409 that says
   * what it left unused (the client then counts those bytes free).
   */
  #deliver() {
    while (this.#pulls.length && this.#outBytes < READ) {
      const pull = this.#pulls[0];
      const { bytes, size, count, used } = block(pull.sid);
      const n = Math.min(pull.left, count, Math.floor((READ - this.#outBytes) / size) || 1);
      this.#send(bytes.subarray(0, n * size));
      pull.bytes -= n * used;
      pull.left -= n;
      if (pull.left > 0) continue;
      this.#pulls.shift();
      if (pull.bytes <= 0) continue;
      const status = `NATS/1.0 409 Batch Completed\r\nNats-Pending-Messages: 0\r\nNats-Pending-Bytes: ${pull.bytes}\r\n\r\n`;
      this.#send(enc(`HMSG ${pull.reply} ${pull.sid} ${status.length} ${status.length}\r\n${status}\r\n`));
    }
  }

  #send(part) {
    this.#out.push(part);
    this.#outBytes += part.length;
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const chunk = this.#out.length === 1 ? this.#out[0] : Buffer.concat(this.#out);
      this.#out = [];
      this.#outBytes = 0;
      if (!this.#closed) this.#events.onData(chunk);
      this.#deliver();
    });
  }
}

function consumerInfo(streamName, name) {
  const config = { durable_name: name, name, deliver_policy: "all", ack_policy: "explicit", ack_wait: 30e9, max_deliver: -1, replay_policy: "instant", max_waiting: 512, max_ack_pending: 100_000, num_replicas: 0 };
  const zero = { consumer_seq: 0, stream_seq: 0 };
  return JSON.stringify({
    type: "io.nats.jetstream.api.v1.consumer_info_response",
    stream_name: streamName,
    name,
    created: "2026-01-01T00:00:00Z",
    config,
    delivered: zero,
    ack_floor: zero,
    num_ack_pending: 0,
    num_redelivered: 0,
    num_waiting: 0,
    num_pending: n,
  });
}

/** One drain of `count` by `build` with `w` workers: `{ n, wallMs, cpuMs }`. */
async function drain(build, w, count) {
  const ncs = await Promise.all(Array.from({ length: w }, () => build.natsjet.connect({ servers: "nats://127.0.0.1:4222" })));
  const jss = ncs.map((nc) => build.natsjet.jetstream(nc));
  try {
    return await durableDrain(ncs, jss, "DRAIN", "scripted", count, nodeClock);
  } finally {
    await Promise.all(ncs.map((nc) => nc.close()));
  }
}

const variants = workers.flatMap((w) => builds.map((build) => ({ build, w, label: `${w}w ${build.name}` })));
for (const v of variants) await drain(v.build, v.w, Math.max(1, Math.floor(n / 10))); // warm-up
const runs = new Map(variants.map((v) => [v, []]));
for (let pass = 0; pass < passes; pass++) {
  for (const v of pass % 2 ? [...variants].reverse() : variants) runs.get(v).push(await drain(v.build, v.w, n));
}
{
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`natsjet default drain of ${n} x 128 B against a scripted server, ack each: medians of ${passes} alternating passes (min-max)`);
  for (const v of variants) {
    const us = runs.get(v).map((r) => (1000 * r.cpuMs) / r.n);
    const rate = runs.get(v).map((r) => r.n / (r.wallMs / 1000) / 1000);
    console.log(`| ${v.label.padEnd(16)} | ${med(rate).toFixed(0)}k msg/s | ${med(us).toFixed(3)} µs/msg (${Math.min(...us).toFixed(3)}-${Math.max(...us).toFixed(3)}) |`);
  }
}
