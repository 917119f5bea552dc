// Every kind of name refused before a byte is written when it is wrong, in
// the JS API: subjects, queue groups, stream, consumer, bucket, key, object
// and link names, bad strings and values that are no strings at all (which
// must never reach the wasm: its glue traps on them). The client talks to a
// fake server on a Node socket that records what it wrote; after the setup
// only the closing flush's PING may follow.
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, test } from "node:test";
import { Kvm, NatsError, Objm, connect, jetstream, jetstreamManager } from "natsjet";

const INFO = 'INFO {"server_id":"FAKE","version":"2.15.0","proto":1,"headers":true,"max_payload":1048576,"jetstream":true}\r\n';

/** Plays the handshake, PONGs, an account info and the info of any stream asked for; records the client's bytes. */
function fakeServer() {
  const fake = { written: "", port: 0 };
  const server = net.createServer((socket) => {
    socket.write(INFO);
    let pending = "";
    let inboxSid = "";
    const reply = (to, json) => socket.write(`MSG ${to} ${inboxSid} ${Buffer.byteLength(json)}\r\n${json}\r\n`);
    socket.on("data", (chunk) => {
      fake.written += chunk.toString("latin1");
      pending += chunk.toString("latin1");
      for (let at = pending.indexOf("\r\n"); at >= 0; at = pending.indexOf("\r\n")) {
        const [op, subject, a, b] = pending.slice(0, at).split(" ");
        pending = pending.slice(at + 2);
        if (op === "PING") socket.write("PONG\r\n");
        else if (op === "SUB" && subject.startsWith("_INBOX.")) inboxSid = a;
        else if (op === "PUB" && b !== undefined && subject === "$JS.API.INFO") reply(a, "{}");
        else if (op === "PUB" && b !== undefined && subject.startsWith("$JS.API.STREAM.INFO.")) {
          const name = subject.slice("$JS.API.STREAM.INFO.".length);
          reply(a, JSON.stringify({ config: { name, max_msgs_per_subject: 1, allow_direct: true }, state: {} }));
        }
      }
    });
    socket.on("error", () => {});
  });
  fake.close = () => server.close();
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(Object.assign(fake, { port: server.address().port }))));
}

let fake, nc, js, jsm, kv, os, mark;
before(async () => {
  fake = await fakeServer();
  nc = await connect({ servers: `nats://127.0.0.1:${fake.port}`, maxReconnectAttempts: 0 });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  kv = await new Kvm(nc).open("b");
  os = await new Objm(nc).open("b");
  await nc.flush();
  mark = fake.written.length;
});
after(async () => {
  await nc.close();
  fake.close();
});

/** Values that are no strings, for arguments that must be one. */
const NOT_STRINGS = [42, null, undefined, {}, ["a"], true, Symbol("s"), 7n];
/** Strings no name may be: empty, whitespace, CR/LF, tab, NUL, DEL. */
const NEVER = ["", " ", "a b", "a\tb", "a\rb", "a\nb", "a\r\nPUB x 1\r\n", "a\0b", "a\x7fb"];
const show = (v) => (typeof v === "string" ? JSON.stringify(v) : typeof v === "symbol" ? v.toString() : typeof v === "bigint" ? `${v}n` : JSON.stringify(v) ?? String(v));

/** `call(bad)` throws or rejects, for each of `bads`, with one of natsjet's argument errors. */
async function refuses(what, bads, call) {
  for (const bad of bads) {
    let error;
    try {
      await call(bad);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof NatsError, `${what}(${show(bad)}): ${error?.stack ?? "accepted"}`);
    assert.ok(["INVALID_ARGUMENT", "INVALID_SUBJECT"].includes(error.kind), `${what}(${show(bad)}): ${error.kind} ${error.message}`);
    if (typeof bad !== "string") assert.match(error.message, /must be a string/, `${what}(${show(bad)})`);
  }
}

/** Since the setup the client wrote nothing but a flush's PING. */
async function nothingWritten() {
  await nc.flush();
  assert.equal(fake.written.slice(mark), "PING\r\n");
  mark = fake.written.length;
}

test("subjects", async () => {
  const bad = [...NOT_STRINGS, ...NEVER, ".a", "a.", "a..b", "."];
  await refuses("publish", bad, (s) => nc.publish(s, "x"));
  await refuses("publish reply", [42, {}, "a b", "a\r\n"], (r) => nc.publish("ok", "x", { reply: r }));
  await refuses("subscribe", [...bad, "a.b*", "a.>.b", ">a"], (s) => nc.subscribe(s));
  await refuses("request", bad, (s) => nc.request(s, "x"));
  await refuses("requestMany", bad, (s) => nc.requestMany(s, "x"));
  await refuses("js.publish", bad, (s) => js.publish(s, "x"));
  // A listing's subject filter goes in the request's JSON: only non-strings are refused here.
  await refuses("streams.names", [42, {}], (s) => jsm.streams.names(s));
  await nothingWritten();
});

test("queue groups", async () => {
  await refuses("subscribe queue", [42, {}, ["q"], Symbol("q"), ...NEVER.filter((q) => q !== "")], (q) => nc.subscribe("q.ok", { queue: q }));
  await nothingWritten();
});

const API_NAMES = [...NOT_STRINGS, ...NEVER, "a.b", "a*", "a>", "*", ">", "a/b", "a\\b", "n".repeat(256)];

test("stream names", async () => {
  const bad = API_NAMES.filter((n) => n !== undefined);
  await refuses("streams.info", bad, (n) => jsm.streams.info(n));
  await refuses("streams.info with options", bad, (n) => jsm.streams.info(n, { deleted_details: true }));
  await refuses("streams.delete", bad, (n) => jsm.streams.delete(n));
  await refuses("streams.getMessage", bad, (n) => jsm.streams.getMessage(n, { seq: 1 }));
  await refuses("direct.getMessage", bad, (n) => jsm.direct.getMessage(n, { seq: 1 }));
  await refuses("direct.getMessage last_by_subj", [42, {}], (s) => jsm.direct.getMessage("S", { last_by_subj: s }));
  await refuses("consumers.list", bad, (n) => jsm.consumers.list(n));
  await refuses("consumers.info", bad, (n) => jsm.consumers.info(n, "c"));
  await refuses("js.consumers.get", bad, (n) => js.consumers.get(n, "c"));
  await refuses("js.consumers.get ordered", bad, (n) => js.consumers.get(n));
  await nothingWritten();
});

test("consumer names", async () => {
  const bad = API_NAMES.filter((n) => typeof n === "string");
  await refuses("consumers.info", bad, (n) => jsm.consumers.info("S", n));
  await refuses("consumers.delete", bad, (n) => jsm.consumers.delete("S", n));
  await refuses("js.consumers.get", bad, (n) => js.consumers.get("S", n));
  await refuses("js.consumers.getPushConsumer", bad, (n) => js.consumers.getPushConsumer("S", n));
  await nothingWritten();
});

const BUCKETS = [...NOT_STRINGS.filter((b) => b !== undefined), ...NEVER, "a.b", "a*", "a>", "a/b", "ü", "a=b", "b".repeat(253)];

test("bucket names", async () => {
  const kvm = new Kvm(nc);
  const objm = new Objm(nc);
  await refuses("kvm.create", BUCKETS, (b) => kvm.create(b));
  await refuses("kvm.open", BUCKETS, (b) => kvm.open(b));
  await refuses("objm.create", BUCKETS, (b) => objm.create(b));
  await refuses("objm.open", BUCKETS, (b) => objm.open(b));
  await nothingWritten();
});

test("keys", async () => {
  const bad = [...NOT_STRINGS, ...NEVER, ".a", "a.", "a..b", "a\\b", "ü", "a:b"];
  await refuses("kv.put", bad, (k) => kv.put(k, "v"));
  await refuses("kv.create", bad, (k) => kv.create(k, "v"));
  await refuses("kv.update", bad, (k) => kv.update(k, "v", 1));
  await refuses("kv.get", bad, (k) => kv.get(k));
  await refuses("kv.delete", bad, (k) => kv.delete(k));
  await refuses("kv.purge", bad, (k) => kv.purge(k));
  // Watches, histories and listings take a key or an array of keys, and no key (null) as all.
  const filters = bad.filter((k) => k != null && !Array.isArray(k));
  await refuses("kv.watch", [...filters, "a.>.b", "a*"], (k) => kv.watch({ key: k }));
  await refuses("kv.history", filters, (k) => kv.history({ key: k }));
  await refuses("kv.keys", filters, (k) => kv.keys(k));
  await refuses("kv.keys of many", filters, (k) => kv.keys(["ok", k]));
  await refuses("kv.put wildcard", ["*", ">", "a.*", "a.>"], (k) => kv.put(k, "v"));
  await nothingWritten();
});

test("object and link names", async () => {
  // Any text names an object (base64 in the subject): only empty, over-long and non-strings are wrong.
  const bad = [...NOT_STRINGS, "", "n".repeat(2049)];
  const target = { name: "target", bucket: "b", nuid: "N", size: 1, chunks: 1, mtime: "2025-01-01T00:00:00Z", deleted: false };
  await refuses("os.info", bad, (n) => os.info(n));
  await refuses("os.get", bad, (n) => os.get(n));
  await refuses("os.delete", bad, (n) => os.delete(n));
  await refuses("os.update", bad, (n) => os.update(n, {}));
  await refuses("os.link", bad, (n) => os.link(n, target));
  await refuses("os.linkStore", bad, (n) => os.linkStore(n, os));
  await refuses("os.putBlob", bad.filter((n) => n !== undefined), (n) => os.putBlob({ name: n }, new Uint8Array(1)));
  await nothingWritten();
});
