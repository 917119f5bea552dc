// Core NATS through the built package (Node entry) against a real server.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { InvalidArgumentError, Match, NatsError, connect, headers } from "natsjet";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import net from "node:net";
import { nextMsg, startServer, waitFor } from "./harness.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const conn = (opts = {}) => connect({ servers: server.wsUrl, ...opts });

test("connects over ws:// and shows the server's info", async () => {
  const nc = await conn({ name: "info" });
  assert.equal(typeof nc.info.server_id, "string");
  assert.equal(nc.info.headers, true);
  assert.ok(nc.info.max_payload > 0);
  assert.equal(nc.isClosed(), false);
  await nc.close();
});

test("publishes and receives strings, bytes, replies and headers", async () => {
  const nc = await conn();
  const sub = nc.subscribe("pubsub.>");
  await nc.flush();
  const h = headers();
  h.append("Trace-Id", "42");
  h.append("Trace-Id", "43");
  h.set("x-other", "v");
  nc.publish("pubsub.a", "hello", { headers: h });
  nc.publish("pubsub.b", new Uint8Array([1, 2, 3]), { reply: "answer.here" });
  nc.publish("pubsub.c");
  const got = [];
  for await (const msg of sub) {
    got.push(msg);
    if (got.length === 3) break;
  }
  const [a, b, c] = got;
  assert.equal(a.subject, "pubsub.a");
  assert.equal(a.string(), "hello");
  assert.equal(a.reply, "", "no reply subject reads as nats.js reads it");
  assert.equal(a.sid, sub.getID());
  assert.deepEqual(a.headers.values("Trace-Id"), ["42", "43"]);
  assert.equal(a.headers.get("X-OTHER", Match.IgnoreCase), "v");
  assert.equal(a.headers.get("X-OTHER", "insensitive"), "v", "nats.js's Match values");
  assert.equal(a.headers.get("X-OTHER"), "");
  assert.deepEqual(a.headers.keys(), ["Trace-Id", "x-other"]);
  assert.deepEqual([...b.data], [1, 2, 3]);
  assert.equal(b.reply, "answer.here");
  assert.equal(b.headers, undefined);
  assert.equal(c.data.length, 0);
  assert.equal(sub.getSubject(), "pubsub.>");
  assert.equal(sub.getProcessed(), 3);
  await nc.close();
});

test("many messages arrive complete and in order across batches", async () => {
  const nc = await conn();
  const count = 20_000;
  const sub = nc.subscribe("bulk", { max: count });
  await nc.flush();
  for (let i = 0; i < count; i++) nc.publish("bulk", JSON.stringify({ i }));
  let expected = 0;
  for await (const msg of sub) {
    if (expected === 0) assert.deepEqual(msg.json((key, value) => (key === "i" ? `#${value}` : value)), { i: "#0" });
    assert.equal(msg.json().i, expected++);
  }
  assert.equal(expected, count);
  await sub.closed;
  assert.equal(sub.isClosed(), true);
  const stats = nc.stats();
  assert.ok(stats.outMsgs >= count && stats.inMsgs >= count, JSON.stringify(stats));
  await nc.close();
});

test("queue group members share the messages", async () => {
  const nc = await conn();
  const counts = [0, 0];
  nc.subscribe("work", { queue: "workers", callback: () => counts[0]++ });
  nc.subscribe("work", { queue: "workers", callback: () => counts[1]++ });
  await nc.flush();
  for (let i = 0; i < 200; i++) nc.publish("work", `${i}`);
  await waitFor(() => counts[0] + counts[1] === 200);
  assert.ok(counts[0] > 0 && counts[1] > 0, `both members got some: ${counts}`);
  await nc.close();
});

test("request and reply, with headers both ways", async () => {
  const nc = await conn();
  nc.subscribe("svc.echo", {
    callback: (err, msg) => {
      assert.equal(err, null);
      const h = headers();
      h.set("Echo", msg.headers?.get("In") ?? "none");
      assert.equal(msg.respond(msg.data, { headers: h }), true);
    },
  });
  await nc.flush();
  const h = headers();
  h.set("In", "yes");
  const answer = await nc.request("svc.echo", "ping", { headers: h, timeout: 2000 });
  assert.equal(answer.string(), "ping");
  assert.equal(answer.headers.get("Echo"), "yes");
  assert.equal((await nc.request("svc.echo")).headers.get("Echo"), "none");
  await nc.close();
});

test("status messages carry their code and description in the headers", async () => {
  const nc = await conn();
  const inbox = nc.newInbox();
  const sub = nc.subscribe(inbox);
  nc.publish("nobody.listens", "x", { reply: inbox });
  const msg = await nextMsg(sub);
  assert.equal(msg.subject, inbox);
  assert.equal(msg.headers.code, 503);
  assert.equal(msg.headers.hasError, true);
  assert.equal(msg.headers.status, "503");
  assert.equal(msg.data.length, 0);
  await nc.close();
});

test("noEcho keeps a connection's own messages from it; inboxPrefix names its inboxes", async () => {
  const nc = await conn({ noEcho: true, inboxPrefix: "_MY_INBOX" });
  const other = await conn();
  const own = nc.subscribe("echo.test");
  const theirs = other.subscribe("echo.test");
  other.subscribe("svc.inbox", { callback: (_, m) => m.respond(m.reply) });
  await nc.flush();
  await other.flush();
  nc.publish("echo.test", "mine");
  await nc.flush(); // "mine" reaches `theirs` first
  other.publish("echo.test", "theirs");
  assert.equal((await nextMsg(own)).string(), "theirs");
  assert.equal((await nextMsg(theirs)).string(), "mine");
  assert.ok(nc.newInbox().startsWith("_MY_INBOX."));
  assert.match((await nc.request("svc.inbox")).string(), /^_MY_INBOX\./);
  await nc.close();
  await other.close();
});

test("no responders rejects with a RequestError of kind NO_RESPONDERS, caused by a NoRespondersError", async () => {
  const nc = await conn();
  await assert.rejects(nc.request("nobody.home", "x"), (e) => {
    assert.ok(e instanceof NatsError && e instanceof Error, `${e}`);
    assert.deepEqual([e.name, e.kind, e.isNoResponders()], ["RequestError", "NO_RESPONDERS", true]);
    assert.deepEqual([e.cause.name, e.cause.subject], ["NoResponders", "nobody.home"]);
    return true;
  });
  await nc.close();
});

test("a request nobody answers in time rejects with TIMEOUT", async () => {
  const nc = await conn();
  nc.subscribe("svc.silent");
  await nc.flush();
  const start = Date.now();
  await assert.rejects(nc.request("svc.silent", "", { timeout: 200 }), { kind: "TIMEOUT" });
  assert.ok(Date.now() - start >= 190);
  await nc.close();
});

test("traceDestination and traceOnly: the server reports the message's way; traceOnly delivers nothing", async () => {
  const nc = await conn();
  const traces = nc.subscribe("trace.events");
  const got = nc.subscribe("traced.>");
  await nc.flush();
  nc.publish("traced.a", "x", { traceDestination: "trace.events" });
  assert.equal((await nextMsg(got)).string(), "x");
  const trace = (await nextMsg(traces)).json();
  assert.deepEqual(trace.request.header["Nats-Trace-Dest"], ["trace.events"], JSON.stringify(trace));
  assert.ok(trace.events.some((e) => e.type === "eg"), JSON.stringify(trace));

  // Set, not appended: the user's own trace header is replaced.
  const h = headers();
  h.set("Nats-Trace-Dest", "elsewhere");
  h.set("App", "1");
  await assert.rejects(
    nc.request("traced.b", "y", { headers: h, traceDestination: "trace.events", traceOnly: true, timeout: 300 }),
    { kind: "TIMEOUT" },
  );
  const only = (await nextMsg(traces)).json();
  assert.deepEqual(only.request.header["Nats-Trace-Dest"], ["trace.events"]);
  assert.deepEqual(only.request.header["Nats-Trace-Only"], ["true"]);
  assert.deepEqual(only.request.header["App"], ["1"]);
  await nc.flush();
  assert.equal(got.getReceived(), 1, "the traceOnly request reached no subscriber");
  await nc.close();
});

test("bad subjects, payloads and headers are refused before sending", async () => {
  const nc = await conn();
  const sent = nc.stats().outMsgs;
  assert.throws(() => nc.publish("bad subject", "x"), (e) => e instanceof NatsError && e.kind === "INVALID_SUBJECT");
  assert.throws(() => nc.publish("a..b"), { kind: "INVALID_SUBJECT" });
  assert.throws(() => nc.publish("ok", "x", { reply: "bad reply" }), { kind: "INVALID_SUBJECT" });
  assert.throws(() => nc.subscribe("a.>.b"), { kind: "INVALID_SUBJECT" });
  assert.throws(() => nc.subscribe("ok", { queue: "bad queue" }), { kind: "INVALID_SUBJECT" });
  await assert.rejects(nc.request("", "x"), { kind: "INVALID_SUBJECT" });
  assert.throws(() => nc.publish("ok", 42), { kind: "INVALID_ARGUMENT" });
  // nats.js refuses a header value with a line break when it is set.
  assert.throws(() => headers().set("Bad", "line\r\nPUB x 1"), InvalidArgumentError);
  assert.throws(() => headers().append("Bad", "line\nPUB x 1"), { message: "'header' values cannot contain \\r or \\n" });
  const big = new Uint8Array(nc.info.max_payload + 1);
  assert.throws(() => nc.publish("ok", big), { kind: "PAYLOAD_TOO_LARGE" });
  await nc.flush();
  assert.equal(nc.stats().outMsgs, sent);
  await nc.close();
});

test("unsubscribe(max) ends a subscription after max messages in total", async () => {
  const nc = await conn();
  const sub = nc.subscribe("limited");
  sub.unsubscribe(3);
  await nc.flush();
  for (let i = 0; i < 10; i++) nc.publish("limited", `${i}`);
  const got = [];
  for await (const msg of sub) got.push(msg.string());
  assert.deepEqual(got, ["0", "1", "2"]);
  await sub.closed;
  sub.unsubscribe(); // after the end: a no-op
  await nc.close();
});

test("unsubscribe() ends iteration", async () => {
  const nc = await conn();
  const sub = nc.subscribe("stop.me");
  await nc.flush();
  nc.publish("stop.me", "one");
  assert.equal((await nextMsg(sub)).string(), "one");
  sub.unsubscribe();
  for await (const msg of sub) assert.fail(`no message after unsubscribe: ${msg.string()}`);
  assert.equal(sub.isClosed(), true);
  await nc.close();
});

test("a subscription nobody references stays until unsubscribed, as in nats.js", async () => {
  // Freeing the wasm side unsubscribes: the connection must hold the wrapper.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const nc = await conn();
  nc.subscribe("unreferenced.iter");
  nc.subscribe("unreferenced.max", { max: 5 });
  await nc.flush();
  for (let i = 0; i < 5; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20)); // finalizers run after a GC, in a task
  }
  for (const subject of ["unreferenced.iter", "unreferenced.max"]) {
    // Interest remains: the request times out instead of finding no responders.
    await assert.rejects(nc.request(subject, "", { timeout: 200 }), { kind: "TIMEOUT" }, subject);
  }
  await nc.close();
});

test("flush resolves after the server processed earlier messages, and callbacks had them", async () => {
  const nc = await conn();
  const other = await conn();
  const seen = [];
  other.subscribe("flushed", { callback: (_, m) => seen.push(m.string()) });
  await other.flush();
  for (let round = 1; round <= 3; round++) {
    for (let i = 0; i < 10_000; i++) nc.publish("flushed", "a");
    await nc.flush();
    // The server routed them before answering; its answer to `other` comes
    // after them, and the callback has had them all when flush resolves.
    await other.flush();
    assert.equal(seen.length, round * 10_000);
  }
  await nc.close();
  await other.close();
});

test("drain delivers what arrived, ends subscriptions and closes", async () => {
  const nc = await conn();
  const sub = nc.subscribe("drain.me");
  await nc.flush();
  for (let i = 0; i < 50; i++) nc.publish("drain.me", `${i}`);
  await nc.flush();
  await nc.drain();
  const got = [];
  for await (const msg of sub) got.push(msg.string());
  assert.equal(got.length, 50);
  assert.equal(nc.isClosed(), true);
  assert.equal(await nc.closed(), undefined);
});

test("close resolves closed() and later calls fail with CLOSED", async () => {
  const nc = await conn();
  const closed = nc.closed();
  await nc.close();
  assert.equal(await closed, undefined);
  assert.equal(nc.isClosed(), true);
  assert.throws(() => nc.publish("late", "x"), { kind: "CLOSED" });
  assert.throws(() => nc.subscribe("late"), { kind: "CLOSED" });
  await assert.rejects(nc.flush(), { kind: "CLOSED" });
  await assert.rejects(nc.request("late"), { kind: "CLOSED" });
  await nc.close(); // twice is fine
});

test("a subscriber that does not keep up gets a slowConsumer status", async () => {
  const nc = await conn();
  const events = [];
  const watching = (async () => {
    for await (const s of nc.status()) events.push(s);
  })();
  const sub = nc.subscribe("flood");
  await nc.flush();
  const payload = new Uint8Array(8);
  for (let i = 0; i < 70_000; i++) nc.publish("flood", payload);
  await nc.flush();
  await waitFor(() => events.some((s) => s.type === "slowConsumer"), 10_000);
  const slow = events.find((s) => s.type === "slowConsumer");
  assert.equal(slow.sid, sub.getID());
  assert.ok(slow.dropped >= 1);
  await nc.close();
  await watching;
  assert.equal(events.at(-1).type, "close");
});

test("connect rejects bad options and unreachable servers with codes", async () => {
  await assert.rejects(connect({ servers: 42 }), { kind: "INVALID_ARGUMENT" });
  await assert.rejects(connect({ servers: server.wsUrl, pingInterval: "soon" }), { kind: "INVALID_ARGUMENT" });
  await assert.rejects(connect({ servers: server.wsUrl, maxPingOut: 1.5 }), { kind: "INVALID_ARGUMENT" });
  await assert.rejects(connect({ servers: "nope://x" }), { kind: "INVALID_ARGUMENT" });
  await assert.rejects(connect({ servers: "ws://127.0.0.1:1", timeout: 1000 }), (e) => e instanceof NatsError);
});

test("subjects too long for the server's control line throw INVALID_SUBJECT; maxControlLine raises the limit", async (t) => {
  const nc = await conn();
  const longest = "a".repeat(4096 - 49);
  const sub = nc.subscribe(longest);
  await nc.flush();
  nc.publish(longest, "fits");
  assert.equal((await nextMsg(sub)).string(), "fits", "the server takes the longest the client lets through");
  const tooLong = `${longest}a`;
  assert.throws(() => nc.publish(tooLong, "x"), { kind: "INVALID_SUBJECT" });
  assert.throws(() => nc.subscribe(tooLong), { kind: "INVALID_SUBJECT" });
  await nc.flush();
  await nc.close();

  const raised = await startServer("max_control_line: 8192");
  t.after(() => raised.close());
  const other = await connect({ servers: raised.wsUrl, maxControlLine: 8192 });
  const big = other.subscribe(tooLong);
  await other.flush();
  other.publish(tooLong, "raised");
  assert.equal((await nextMsg(big)).string(), "raised");
  await other.close();
});

test("a subscription ended by the connection's error resolves `closed` with it", async (t) => {
  // A server that answers the handshake, then sends what is no protocol.
  const fake = net.createServer((socket) => {
    socket.write('INFO {"server_id":"FAKE","version":"2.15.0","proto":1,"headers":true,"max_payload":1048576}\r\n');
    socket.on("data", (chunk) => {
      if (chunk.includes("PING\r\n")) socket.write("PONG\r\n");
      if (chunk.includes("SUB bad ")) socket.write("NOT-NATS\r\n");
    });
    socket.on("error", () => {});
  });
  await new Promise((resolve) => fake.listen(0, "127.0.0.1", resolve));
  t.after(() => fake.close());
  const nc = await connect({ servers: `nats://127.0.0.1:${fake.address().port}`, maxReconnectAttempts: 0 });
  const sub = nc.subscribe("bad");
  const done = (async () => {
    for await (const _m of sub);
  })();
  const why = await sub.closed;
  await done;
  assert.ok(why instanceof NatsError, `${why}`);
  assert.equal(why.kind, "PROTOCOL");
  await nc.closed();
});
