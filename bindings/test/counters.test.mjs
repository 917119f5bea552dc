// Counters (ADR-49) through the built package against a real nats-server,
// side by side with nats.js 3.4: increments from both clients add up and
// both read the same total, exact beyond 2^53 as bigint; many counters read
// in one batch; a counter over sources carries the per-source breakdown; a
// stream without allow_msg_counter and an increment that is not a number
// are typed errors. The rules are the Rust core's (tests/vectors/counters.json).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { headers as natsJsHeaders } from "@nats-io/nats-core";
import {
  Counter,
  Counters,
  headers,
  incrementText,
  InvalidArgumentError,
  JetStreamApiError,
  NewCounter,
  parseCounterSources,
  parseCounterValue,
  ProtocolError,
} from "natsjet";
import { bothClients, startJetStreamServer } from "./harness.mjs";

const vectors = JSON.parse(readFileSync(new URL("../../tests/vectors/counters.json", import.meta.url), "utf8"));

let server, nc, js, jsm, theirJs, close;
before(async () => {
  server = await startJetStreamServer();
  ({ nc, js, jsm, theirJs, close } = await bothClients(server));
});
after(async () => {
  await close?.();
  await server?.close();
});

async function counterStream(name, extra = {}) {
  await jsm.streams.add({ name, subjects: [`${name.toLowerCase()}.>`], allow_msg_counter: true, allow_direct: true, ...extra });
}

async function collect(iterable) {
  const out = [];
  for await (const v of await iterable) out.push(v);
  return out;
}

describe("counters", () => {
  test("the Rust core's cases: increments, bodies, source breakdowns", () => {
    for (const [text, ok] of vectors.increments) {
      if (ok) assert.equal(incrementText(text), text);
      else assert.throws(() => incrementText(text), InvalidArgumentError, JSON.stringify(text));
    }
    for (const [body, want] of vectors.bodies) {
      if (want === null) assert.throws(() => parseCounterValue(body), ProtocolError, body);
      else assert.equal(parseCounterValue(body), BigInt(want), body);
    }
    for (const [text, want] of vectors.sources) {
      if (want === null) {
        assert.throws(() => parseCounterSources(text), ProtocolError, text);
        continue;
      }
      const got = Object.fromEntries([...parseCounterSources(text)].map(([s, m]) => [s, Object.fromEntries([...m].map(([k, v]) => [k, v.toString()]))]));
      assert.deepEqual(got, want, text);
    }
    assert.equal(parseCounterSources(headers()).size, 0);
  });

  test("increments return the total, exact beyond 2^53, and reads agree", async () => {
    await counterStream("HITS");
    const c = NewCounter(nc, "HITS");
    assert.ok(c instanceof Counters);
    assert.equal(await c.increment("hits.a"), 1n);
    assert.equal(await c.increment("hits.a", 4), 5n);
    assert.equal(await c.increment("hits.a", -10n), -5n);
    assert.equal(await c.increment("hits.a", "+7"), 2n);
    const big = 2n ** 100n + 1n;
    assert.equal(await c.increment("hits.big", big), big);
    assert.equal(await c.increment("hits.big", Number.MAX_SAFE_INTEGER), big + BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal(await c.value("hits.a"), 2n);
    const entry = await c.getCounter("hits.big");
    assert.ok(entry instanceof Counter);
    assert.equal(entry.value, big + BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal(entry.delta, BigInt(Number.MAX_SAFE_INTEGER));
    assert.deepEqual([entry.stream, entry.subject, entry.seq, entry.sources.size], ["HITS", "hits.big", 6, 0]);
    assert.ok(entry.time instanceof Date && entry.timestamp.length > 0);
    assert.equal(await c.value("hits.none"), null);
    assert.equal(await c.getCounter("hits.none"), null);
    // The ack's total is on js.publish's PubAck too.
    const h = headers();
    h.set("Nats-Incr", "3");
    assert.equal((await js.publish("hits.a", undefined, { headers: h })).val, "5");
  });

  test("increments from natsjet and nats.js add up; both read the same total", async () => {
    await counterStream("MIXED");
    const mine = NewCounter(nc, "MIXED");
    const theirs = (n) => {
      const h = natsJsHeaders();
      h.set("Nats-Incr", String(n));
      return theirJs.publish("mixed.x", undefined, { headers: h });
    };
    const acks = [];
    for (let i = 0; i < 20; i++) {
      acks.push(mine.increment("mixed.x", 2n ** 60n));
      acks.push(theirs(i));
    }
    await Promise.all(acks);
    const want = 20n * 2n ** 60n + 190n;
    assert.equal(await mine.value("mixed.x"), want);
    const theirAck = await theirs(0);
    assert.equal(theirAck.val, want.toString(), "nats.js's ack carries the same total");
    const stored = await jsm.streams.getMessage("MIXED", { last_by_subj: "mixed.x" });
    assert.equal(stored.json().val, want.toString());
  });

  test("many counters in one batch, wildcards allowed, in stream order", async () => {
    await counterStream("MANY");
    const c = NewCounter(nc, "MANY");
    for (const [s, n] of [["many.x.1", 1], ["many.x.2", 2], ["many.y.1", 3], ["many.x.1", 10]]) await c.increment(s, n);
    const got = (await collect(c.getCounters("many.x.*"))).map((e) => [e.subject, e.value]);
    assert.deepEqual(got, [["many.x.2", 2n], ["many.x.1", 11n]]);
    assert.deepEqual(await collect(c.values(["many.y.1", "many.x.2"])), [2n, 3n]);
    assert.deepEqual(await collect(c.values("many.none.*")), []);
  });

  test("a counter over sources carries the per-source breakdown", async () => {
    await counterStream("EU");
    await counterStream("US");
    const source = (name, from) => ({ name, subject_transforms: [{ src: from, dest: "total.hits" }] });
    await jsm.streams.add({
      name: "TOTAL",
      allow_msg_counter: true,
      allow_direct: true,
      sources: [source("EU", "eu.hits"), source("US", "us.hits")],
    });
    const [eu, us, total] = ["EU", "US", "TOTAL"].map((s) => NewCounter(nc, s));
    await eu.increment("eu.hits", 10);
    await us.increment("us.hits", 2n ** 64n);
    const want = 2n ** 64n + 10n;
    let entry = null;
    for (let i = 0; i < 100 && entry?.value !== want; i++, await sleep(50)) entry = await total.getCounter("total.hits");
    assert.equal(entry?.value, want);
    assert.equal(entry.sources.get("EU").get("eu.hits"), 10n);
    assert.equal(entry.sources.get("US").get("us.hits"), 2n ** 64n);
    const [many] = await collect(total.getCounters(["total.>"]));
    assert.deepEqual(many.sources, entry.sources);
  });

  test("a stream without allow_msg_counter and increments that are not numbers are typed errors", async () => {
    await jsm.streams.add({ name: "PLAIN", subjects: ["plain.>"], allow_direct: true });
    await counterStream("STRICT");
    const plain = NewCounter(nc, "PLAIN");
    const disabled = await plain.increment("plain.a").catch((e) => e);
    assert.ok(disabled instanceof JetStreamApiError, String(disabled));
    assert.equal(disabled.code, 10168);
    const c = NewCounter(nc, "STRICT");
    for (const bad of [1.5, "1e3", "one", NaN, 2 ** 60]) {
      await assert.rejects(c.increment("strict.a", bad), InvalidArgumentError, String(bad));
    }
    // The server's own refusal, sent raw: 10171 from natsjet and nats.js alike.
    const h = headers();
    h.set("Nats-Incr", "one");
    const invalid = await js.publish("strict.a", undefined, { headers: h }).catch((e) => e);
    assert.ok(invalid instanceof JetStreamApiError);
    assert.equal(invalid.code, 10171);
    const theirH = natsJsHeaders();
    theirH.set("Nats-Incr", "one");
    const theirs = await theirJs.publish("strict.a", undefined, { headers: theirH }).catch((e) => e);
    assert.equal(theirs.code, 10171);
    assert.equal((await jsm.streams.info("STRICT")).state.messages, 0, "nothing stored");
  });
});
