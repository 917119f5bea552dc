// Key-Value buckets made from nats.js 3.4's nested `KvOptions` (mirror,
// sources, placement, republish: the Rust config's stream rules, through
// the wasm), `purgeDeletes`, and key and value codecs read and written
// beside nats.js's, against a real nats-server.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Base64KeyCodec as NatsJsBase64KeyCodec, Kvm as NatsJsKvm } from "@nats-io/kv";
import { connect as natsJsConnect } from "@nats-io/transport-node";
import { Base64KeyCodec, Kvm, connect, jetstreamManager } from "natsjet";
import { setTimeout as sleep } from "node:timers/promises";
import { nextMsg, startJetStreamServer } from "./harness.mjs";

let server, nc, kvm, jsm;
before(async () => {
  server = await startJetStreamServer('server_tags: ["az:1"]');
  nc = await connect({ servers: server.url });
  kvm = new Kvm(nc);
  jsm = await jetstreamManager(nc);
});
after(async () => {
  await nc?.close();
  await server.close();
});

/** Resolves once `stream` holds `n` messages (mirrors copy in the background). */
async function messagesSoon(stream, n) {
  const deadline = Date.now() + 10_000;
  while ((await jsm.streams.info(stream)).state.messages !== n) {
    if (Date.now() > deadline) throw new Error(`${stream} does not hold ${n} messages in 10 s`);
    await sleep(50);
  }
}

/** The value of `key` in `kv` once it has one (sources copy in the background). */
async function valueSoon(kv, key) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const entry = await kv.get(key);
    if (entry?.operation === "PUT") return entry.string();
    if (Date.now() > deadline) throw new Error(`no value for ${key} in 10 s`);
    await sleep(50);
  }
}

test("a mirror bucket copies its origin, and its writes go to the origin (as nats.go)", async () => {
  const origin = await kvm.create("origin");
  await origin.put("a", "1");
  const mirror = await kvm.create("copy", { mirror: { name: "origin" } });
  const { config } = await jsm.streams.info("KV_copy");
  assert.equal(config.mirror.name, "KV_origin");
  assert.equal(config.mirror_direct, true);
  assert.deepEqual(config.subjects ?? [], []);
  await mirror.put("b", "2");
  assert.equal((await origin.get("b"))?.string(), "2");
  await messagesSoon("KV_copy", 2);
});

test("a bucket with sources gets their keys under its own name", async () => {
  const [east, west] = [await kvm.create("east"), await kvm.create("west")];
  await east.put("e", "from east");
  await west.put("w", "from west");
  const all = await kvm.create("all", { sources: [{ name: "east" }, { name: "KV_west" }] });
  const { config } = await jsm.streams.info("KV_all");
  assert.deepEqual(config.subjects, ["$KV.all.>"]);
  assert.deepEqual(
    config.sources.map((s) => [s.name, s.subject_transforms?.[0]?.src, s.subject_transforms?.[0]?.dest]),
    [
      ["KV_east", "$KV.east.>", "$KV.all.>"],
      ["KV_west", "$KV.west.>", "$KV.all.>"],
    ],
  );
  assert.equal(await valueSoon(all, "e"), "from east");
  assert.equal(await valueSoon(all, "w"), "from west");
});

test("placement and republish reach the bucket's stream", async () => {
  const kv = await kvm.create("placed", {
    placement: { tags: ["az:1"] },
    republish: { src: "$KV.placed.>", dest: "changes.>" },
  });
  const { config } = await jsm.streams.info("KV_placed");
  assert.deepEqual(config.placement.tags, ["az:1"]);
  assert.deepEqual([config.republish.src, config.republish.dest], ["$KV.placed.>", "changes.>"]);
  const changes = nc.subscribe("changes.>");
  await nc.flush();
  await kv.put("k", "v");
  const m = await nextMsg(changes);
  assert.deepEqual([m.subject, m.string()], ["changes.k", "v"]);
});

test("purgeDeletes keeps recent markers alone, and removes old ones with what came before", async () => {
  const kv = await kvm.create("purging", { history: 5 });
  await kv.put("gone", "1");
  await kv.put("gone", "2");
  await kv.delete("gone");
  await kv.put("wiped", "1");
  await kv.purge("wiped");
  await kv.put("kept", "1");
  // Markers younger than 30 minutes stay, each as its key's only message.
  assert.deepEqual(await kv.purgeDeletes(), { success: true, purged: 2 });
  assert.equal((await kv.status()).values, 3);
  assert.deepEqual(await kv.purgeDeletes(0), { success: true, purged: 2 });
  assert.equal((await kv.status()).values, 1);
  assert.equal((await kv.get("kept"))?.string(), "1");
  assert.equal(await kv.get("gone"), null);
});

/** Values stored reversed: a value codec both clients share. */
const reversed = {
  encode: (v) => (typeof v === "string" ? new TextEncoder().encode(v) : v).slice().reverse(),
  decode: (d) => d.slice().reverse(),
};

test("key and value codecs: every call sees decoded keys and values, stored encoded, as nats.js's", async () => {
  const kv = await kvm.create("coded", { history: 5, codec: { key: Base64KeyCodec(), value: reversed } });
  const plain = await kvm.open("coded");
  await kv.put("sue.color", "blue");
  await kv.create("sue.food", "pizza");
  const stored = await plain.get(`${btoa("sue")}.${btoa("color")}`);
  assert.deepEqual([stored.key, stored.string()], [`${btoa("sue")}.${btoa("color")}`, "eulb"]);
  const entry = await kv.get("sue.color");
  assert.deepEqual([entry.key, entry.rawKey, entry.string()], ["sue.color", stored.key, "blue"]);
  const keys = [];
  for await (const k of await kv.keys("sue.>")) keys.push(k);
  assert.deepEqual(keys.sort(), ["sue.color", "sue.food"]);
  const watch = await kv.watch({ key: "sue.*" });
  const seen = [];
  for await (const e of watch) {
    seen.push(`${e.key}=${e.string()}`);
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen.sort(), ["sue.color=blue", "sue.food=pizza"]);
  await kv.delete("sue.*");
  assert.equal((await kv.get("sue.food"))?.operation, "DEL");

  // nats.js with the same codecs reads what natsjet wrote, and natsjet what it writes.
  const theirs = await natsJsConnect({ servers: server.url });
  try {
    const theirKv = await new NatsJsKvm(theirs).open("coded", { codec: { key: NatsJsBase64KeyCodec(), value: reversed } });
    await kv.put("joe.color", "red");
    const read = await theirKv.get("joe.color");
    assert.deepEqual([read?.key, read?.string()], ["joe.color", "red"]);
    await theirKv.put("joe.food", "rice");
    assert.equal((await kv.get("joe.food"))?.string(), "rice");
  } finally {
    await theirs.close();
  }
});

test("every field of a nested option reaches the stream, as given", async () => {
  const time = "2026-01-02T03:04:05Z";
  const transforms = [{ src: "$KV.far.>", dest: "$KV.gathered.>" }];
  const external = { api: "$JS.far.API", deliver: "far.deliver" };
  await kvm.create("gathered", {
    sources: [
      { name: "near", opt_start_seq: 7 },
      { name: "far", opt_start_time: time, external, subject_transforms: transforms },
    ],
    republish: { src: "$KV.gathered.>", dest: "heads.>", headers_only: true },
    placement: { cluster: "", tags: ["az:1"] },
  });
  const { config } = await jsm.streams.info("KV_gathered");
  const [near, far] = config.sources;
  assert.deepEqual([near.name, near.opt_start_seq, near.subject_transforms[0].dest], ["KV_near", 7, "$KV.gathered.>"]);
  assert.deepEqual([far.name, far.opt_start_time, far.external, far.subject_transforms], ["KV_far", time, external, transforms]);
  assert.deepEqual(config.republish, { src: "$KV.gathered.>", dest: "heads.>", headers_only: true });
  const mirror = { name: "gathered", opt_start_seq: 3, filter_subject: "$KV.gathered.a.>" };
  await kvm.create("mirrored", { mirror, republish: { dest: "m.>" } });
  const mirrored = (await jsm.streams.info("KV_mirrored")).config;
  assert.deepEqual(mirrored.mirror, { ...mirror, name: "KV_gathered" });
  assert.equal(mirrored.republish.dest, "m.>");
  await assert.rejects(kvm.create("bad", { sources: [{ name: "x", subject_transforms: [{ src: 1, dest: "y" }] }] }), {
    kind: "INVALID_ARGUMENT",
    message: /sources.subject_transforms/,
  });
});
