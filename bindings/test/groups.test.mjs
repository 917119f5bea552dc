// Partitioned consumer groups from JS against a real server: the same Rust
// core as the Rust API (documents, partitions, member loop), reached through
// the wasm. An elastic group's members keep each key's order while members
// change, the partition token is off the subjects, a static member has one
// pinned instance, a step-down keeps each key's order, and deleting a group
// ends its members.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { connect, consumerGroups, jetstream, jetstreamManager } from "natsjet";
import { caught, startJetStreamServer, waitFor } from "./harness.mjs";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("../../", import.meta.url));

/** Builds examples/consumer_group.rs (where CARGO_TARGET_DIR says); returns the binary's path. */
async function buildNative() {
  const args = ["build", "--example", "consumer_group", "--message-format=json"];
  const { stdout } = await run("cargo", args, { cwd: repo, maxBuffer: 64 << 20 });
  const artifacts = stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  return artifacts.find((a) => a.reason === "compiler-artifact" && a.target.name === "consumer_group").executable;
}

let server;
const conns = [];
before(async () => {
  server = await startJetStreamServer();
});
after(async () => {
  await Promise.all(conns.map((nc) => nc.close()));
  await server?.stop();
});

async function client() {
  const nc = await connect({ servers: server.url });
  conns.push(nc);
  return nc;
}

/** Runs a member instance on its own connection; records `key:index` payloads and acks each. */
async function member(kind, stream, name, seen, tag) {
  const groups = consumerGroups(jetstream(await client()));
  const messages = await groups.join(kind, stream, "cg", name, {
    config: { ack_wait: 2_000_000_000, max_ack_pending: 1 },
  });
  const done = (async () => {
    for await (const m of messages) {
      assert.match(m.subject, /^orders\./, "partition token stripped");
      const [key, index] = m.string().split(":");
      (seen.perKey[key] ??= []).push(Number(index));
      seen.byInstance[tag] = (seen.byInstance[tag] ?? 0) + 1;
      m.ack();
    }
  })();
  return { messages, done };
}

async function publishKeys(js, keys, from, to) {
  for (let i = from; i < to; i++) {
    for (let k = 0; k < keys; k++) await js.publish(`orders.k${k}`, `k${k}:${i}`);
  }
}

const processed = (seen) =>
  Object.values(seen.perKey).reduce((n, list) => n + Math.max(...list) + 1, 0);

/** Every key's indexes in order (a redelivery may repeat one already done); returns the repeats. */
function checkOrder(seen, keys, perKey) {
  assert.equal(Object.keys(seen.perKey).length, keys);
  let repeats = 0;
  for (const [key, list] of Object.entries(seen.perKey)) {
    let next = 0;
    for (const i of list) {
      assert.ok(i <= next, `${key}: ${i} before ${next}: ${list}`);
      if (i === next) next++;
      else repeats++;
    }
    assert.equal(next, perKey, `${key}: all processed`);
  }
  return repeats;
}

test("elastic group: members change while each key keeps its order", async () => {
  const nc = await client();
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: "ORDERS", subjects: ["orders.*"] });
  const groups = consumerGroups(js);
  const config = await groups.createElastic("ORDERS", "cg", {
    max_members: 4,
    partitioning_filters: [{ filter: "orders.*", partitioning_wildcards: [1] }],
  });
  assert.deepEqual(config, {
    max_members: 4,
    partitioning_filters: [{ filter: "orders.*", partitioning_wildcards: [1] }],
  });
  assert.deepEqual(await groups.list("elastic", "ORDERS"), ["cg"]);
  const seen = { perKey: {}, byInstance: {} };
  const members = [];
  for (const name of ["m1", "m2", "m3"]) members.push(await member("elastic", "ORDERS", name, seen, name));
  assert.deepEqual(await groups.addMembers("ORDERS", "cg", ["m1", "m2"]), ["m1", "m2"]);
  await publishKeys(js, 10, 0, 20);
  await waitFor(() => processed(seen) >= 60, 30_000);
  await groups.addMembers("ORDERS", "cg", ["m3"]);
  await waitFor(() => processed(seen) >= 120, 30_000);
  await groups.dropMembers("ORDERS", "cg", ["m1"]);
  await waitFor(() => processed(seen) >= 200, 30_000);
  const repeats = checkOrder(seen, 10, 20);
  console.log(`elastic (node): 200 processed, ${repeats} repeated, by instance ${JSON.stringify(seen.byInstance)}`);
  const states = await groups.members("elastic", "ORDERS", "cg");
  assert.deepEqual(states.map((s) => s.member), ["m2", "m3"]);
  const info = await groups.info("elastic", "ORDERS", "cg");
  assert.deepEqual(info.members, ["m2", "m3"]);
  await groups.delete("elastic", "ORDERS", "cg");
  await Promise.all(members.map((m) => m.done));
  await jsm.streams.delete("ORDERS");
});

test("a member works on several partitions at once, one message per key at a time", async () => {
  const nc = await client();
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: "PIPE", subjects: ["pipe.*"] });
  const groups = consumerGroups(js);
  await groups.createElastic("PIPE", "cg", {
    max_members: 8,
    partitioning_filters: [{ filter: "pipe.*", partitioning_wildcards: [1] }],
  });
  await groups.addMembers("PIPE", "cg", ["m1", "m2"]);
  const [keys, rounds] = [30, 20];
  for (let i = 0; i < rounds; i++) for (let k = 0; k < keys; k++) await js.publish(`pipe.k${k}`, `k${k}:${i}`);
  const handed = {};
  const mostAtOnce = {};
  let [acked, naks] = [0, 0];
  const readers = [];
  const loops = [];
  for (const name of ["m1", "m2"]) {
    const messages = await consumerGroups(jetstream(await client())).join("elastic", "PIPE", "cg", name, {
      config: { ack_wait: 2_000_000_000, max_ack_pending: 100 },
    });
    readers.push(messages);
    const inFlight = new Set();
    loops.push(
      (async () => {
        for await (const m of messages) {
          const [key, index] = m.string().split(":");
          assert.ok(!inFlight.has(key), `${key}:${index} handed out while ${key}'s previous is in flight`);
          inFlight.add(key);
          mostAtOnce[name] = Math.max(mostAtOnce[name] ?? 0, inFlight.size);
          (handed[key] ??= []).push(Number(index));
          // Acked later, in a scrambled order; every 7th nak'd on its first delivery.
          setTimeout(() => {
            inFlight.delete(key);
            if (Number(index) % 7 === 3 && !m.redelivered) {
              naks++;
              m.nak();
            } else {
              acked++;
              m.ack();
            }
          }, 1 + ((Number(index) * 3 + key.length) % 4));
        }
      })(),
    );
  }
  await waitFor(() => acked >= keys * rounds, 60_000);
  assert.ok(naks > 0);
  for (const [key, list] of Object.entries(handed)) {
    let next = 0;
    for (const i of list) {
      assert.ok(i === next || i + 1 === next, `${key}: ${i} handed out after ${next - 1}: ${list}`);
      next = i + 1;
    }
    assert.equal(next, rounds, key);
  }
  for (const name of ["m1", "m2"]) assert.ok(mostAtOnce[name] >= 2, `${name} pipelined: ${JSON.stringify(mostAtOnce)}`);
  console.log(`pipelined (node): at most ${JSON.stringify(mostAtOnce)} keys in flight per member, ${naks} naks`);
  await groups.delete("elastic", "PIPE", "cg");
  await Promise.all(loops);
  await jsm.streams.delete("PIPE");
});

test("static group: one pinned instance per member; mistakes are typed errors", async () => {
  const nc = await client();
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({
    name: "ORDERS",
    subjects: ["orders.*"],
    subject_transform: { src: "orders.*", dest: "{{partition(2,1)}}.orders.{{wildcard(1)}}" },
  });
  const groups = consumerGroups(js);
  await groups.createStatic("ORDERS", "cg", { max_members: 2, members: ["m1", "m2"] });
  await assert.rejects(groups.createStatic("ORDERS", "cg", { max_members: 3, members: ["m1"] }), /doesn't match/);
  await assert.rejects(groups.createStatic("ORDERS", "bad.name", { max_members: 2 }), { name: "InvalidArgumentError" });
  await assert.rejects(groups.createStatic("NOPE", "cg", { max_members: 2 }), { name: "StreamNotFoundError", code: 10059 });
  await assert.rejects(groups.join("static", "ORDERS", "cg", "m9"), /not in the current static consumer group/);
  const seen = { perKey: {}, byInstance: {} };
  const a = await member("static", "ORDERS", "m1", seen, "m1-a");
  const b = await member("static", "ORDERS", "m1", seen, "m1-b");
  const other = await member("static", "ORDERS", "m2", seen, "m2");
  await publishKeys(js, 6, 0, 10);
  await waitFor(() => processed(seen) >= 60, 30_000);
  checkOrder(seen, 6, 10);
  assert.ok(!(seen.byInstance["m1-a"] && seen.byInstance["m1-b"]), `one m1 instance pinned: ${JSON.stringify(seen.byInstance)}`);
  const states = await groups.members("static", "ORDERS", "cg");
  assert.ok(states.every((s) => s.active && s.pinnedClientId), JSON.stringify(states));
  await groups.stepDown("static", "ORDERS", "cg", "m1");
  await groups.delete("static", "ORDERS", "cg");
  await Promise.all([a.done, b.done, other.done]);
});

test("interop: a group made by the Rust API is joined from JS, and one made from JS is read by Rust", { timeout: 600_000 }, async () => {
  const bin = await buildNative();
  const native = async (...args) =>
    (await run(bin, args, { env: { ...process.env, NATS_URL: server.url }, timeout: 30_000 })).stdout;
  const nc = await client();
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: "INTEROP", subjects: ["interop.*"] });
  await native("elastic", "create", "INTEROP", "rs", "3", "interop.*", "1");
  await native("elastic", "add", "INTEROP", "rs", "m1");
  const groups = consumerGroups(js);
  assert.deepEqual(await groups.info("elastic", "INTEROP", "rs"), {
    max_members: 3,
    partitioning_filters: [{ filter: "interop.*", partitioning_wildcards: [1] }],
    members: ["m1"],
  });
  const messages = await groups.join("elastic", "INTEROP", "rs", "m1", { config: { max_ack_pending: 1 } });
  for (let i = 0; i < 6; i++) await js.publish(`interop.k${i % 2}`, `${i}`);
  const got = [];
  for await (const m of messages) {
    got.push(`${m.subject}:${m.string()}`);
    m.ack();
    if (got.length === 6) break;
  }
  assert.deepEqual(got.filter((s) => s.startsWith("interop.k0")), ["interop.k0:0", "interop.k0:2", "interop.k0:4"]);
  await groups.createElastic("INTEROP", "fromjs", { max_members: 2, partitioning_filters: null });
  await groups.addMembers("INTEROP", "fromjs", ["m2"]);
  assert.match(await native("elastic", "info", "INTEROP", "fromjs"), /^m2 +active=false/m);
  assert.match(await native("elastic", "ls", "INTEROP"), /"fromjs"/);
  await native("elastic", "delete", "INTEROP", "rs");
  await groups.delete("elastic", "INTEROP", "fromjs");
});

test("a member's iterator throws the errors it cannot get past, typed", async () => {
  const deny = '["$JS.API.CONSUMER.CREATE.ORDERS-cg.>", "$JS.API.CONSUMER.DURABLE.CREATE.ORDERS-cg.>"]';
  const auth = await startJetStreamServer(`authorization { users = [
    { user: "admin", password: "pw" }
    { user: "reader", password: "pw", permissions: { publish: { deny: ${deny} } } }
  ] }`);
  const admin = await connect({ servers: auth.url, user: "admin", pass: "pw" });
  const reader = await connect({ servers: auth.url, user: "reader", pass: "pw" });
  try {
    const jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: "ORDERS", subjects: ["orders.*"] });
    const groups = consumerGroups(jetstream(admin));
    await groups.createElastic("ORDERS", "cg", {
      max_members: 4,
      partitioning_filters: [{ filter: "orders.*", partitioning_wildcards: [1] }],
    });
    await groups.addMembers("ORDERS", "cg", ["m1"]);
    const config = { ack_wait: 1_000_000_000, max_ack_pending: 8 };
    // Not allowed to create the member's consumer: the server's refusal, at
    // once (the API timeout is far longer than the test), as nats.js rejects it.
    const refused = await consumerGroups(jetstream(reader, { timeout: 60_000 })).join("elastic", "ORDERS", "cg", "m1", { config });
    const denied = await caught(async () => {
      for await (const m of refused) m.ack();
    });
    assert.equal(denied.name, "RequestError", String(denied));
    assert.equal(denied.cause?.name, "PermissionViolationError", String(denied.cause));
    assert.deepEqual([denied.cause.operation, denied.cause.subject.startsWith("$JS.API.CONSUMER.CREATE.ORDERS-cg.")], ["publish", true]);
    // The group's stream deleted under a running member: StreamNotFoundError (10059).
    const running = await groups.join("elastic", "ORDERS", "cg", "m1", { config });
    await publishKeys(jetstream(admin), 4, 0, 5);
    let got = 0;
    const gone = await caught(async () => {
      for await (const m of running) {
        m.ack();
        if (++got === 20) await jsm.streams.delete("ORDERS-cg");
      }
    });
    assert.equal(got, 20);
    assert.equal(gone.name, "StreamNotFoundError", String(gone));
    assert.equal(gone.code, 10059);
  } finally {
    await Promise.all([admin.close(), reader.close()]);
    await auth.stop();
  }
});

test("an instance whose handler hangs gives its pin to a standby", async () => {
  const own = await startJetStreamServer();
  const ncs = await Promise.all([0, 1, 2].map(() => connect({ servers: own.url })));
  try {
    const [nc, hungNc, standbyNc] = ncs;
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "ORDERS", subjects: ["orders.*"] });
    const groups = consumerGroups(jetstream(nc));
    await groups.createElastic("ORDERS", "cg", {
      max_members: 4,
      partitioning_filters: [{ filter: "orders.*", partitioning_wildcards: [1] }],
    });
    await groups.addMembers("ORDERS", "cg", ["m1"]);
    await publishKeys(jetstream(nc), 4, 0, 10);
    const config = { ack_wait: 2_000_000_000, max_ack_pending: 8 };
    // Takes one message and hangs: never settles it nor reads on.
    const hung = await consumerGroups(jetstream(hungNc)).join("elastic", "ORDERS", "cg", "m1", { config });
    const stuck = await hung[Symbol.asyncIterator]().next();
    assert.ok(!stuck.done);
    const started = Date.now();
    const seen = { perKey: {}, byInstance: {} };
    const standby = await consumerGroups(jetstream(standbyNc)).join("elastic", "ORDERS", "cg", "m1", { config });
    const done = (async () => {
      for await (const m of standby) {
        const [key, index] = m.string().split(":");
        (seen.perKey[key] ??= []).push(Number(index));
        m.ack();
      }
    })();
    await waitFor(() => processed(seen) >= 40, 30_000);
    const took = Date.now() - started;
    checkOrder(seen, 4, 10);
    assert.ok(took > 4000 && took < 15_000, `${took} ms`);
    await groups.delete("elastic", "ORDERS", "cg");
    await done;
  } finally {
    await Promise.all(ncs.map((c) => c.close()));
    await own.stop();
  }
});

test("a step-down hands what the old instance holds to the new one, each key in order", async () => {
  const own = await startJetStreamServer();
  const ncs = await Promise.all([0, 1, 2].map(() => connect({ servers: own.url })));
  try {
    const [nc, ...instanceNcs] = ncs;
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "ORDERS", subjects: ["orders.*"] });
    const groups = consumerGroups(jetstream(nc));
    await groups.createElastic("ORDERS", "cg", {
      max_members: 8,
      partitioning_filters: [{ filter: "orders.*", partitioning_wildcards: [1] }],
    });
    await groups.addMembers("ORDERS", "cg", ["m1"]);
    const [keys, rounds] = [16, 8];
    await publishKeys(jetstream(nc), keys, 0, rounds);
    // Up to 64 held by the pinned instance: 6.4 s of work, ack_wait is 2 s.
    const config = { ack_wait: 2_000_000_000, max_ack_pending: 64 };
    const seen = { perKey: {}, byInstance: {} };
    const loops = [];
    for (const [i, tag] of ["a", "b"].entries()) {
      const messages = await consumerGroups(jetstream(instanceNcs[i])).join("elastic", "ORDERS", "cg", "m1", { config });
      loops.push(
        (async () => {
          for await (const m of messages) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            const [key, index] = m.string().split(":");
            (seen.perKey[key] ??= []).push(Number(index));
            seen.byInstance[tag] = (seen.byInstance[tag] ?? 0) + 1;
            m.ack();
          }
        })().catch((e) => e), // an error is checked below, not left unhandled when an assertion fails first
      );
    }
    await waitFor(() => processed(seen) >= 3, 30_000);
    const pinned = Object.keys(seen.byInstance);
    assert.equal(pinned.length, 1, `one instance pinned: ${JSON.stringify(seen.byInstance)}`);
    const standby = pinned[0] === "a" ? "b" : "a";
    await groups.stepDown("elastic", "ORDERS", "cg", "m1");
    await waitFor(() => processed(seen) >= keys * rounds, 60_000);
    assert.ok(seen.byInstance[standby] > 0, `the standby took over: ${JSON.stringify(seen.byInstance)}`);
    const repeats = checkOrder(seen, keys, rounds);
    console.log(`step-down (node): ${repeats} repeats, by instance ${JSON.stringify(seen.byInstance)}`);
    await groups.delete("elastic", "ORDERS", "cg");
    assert.deepEqual(await Promise.all(loops), [undefined, undefined], "both instances ended with the group");
  } finally {
    await Promise.all(ncs.map((c) => c.close()));
    await own.stop();
  }
});
