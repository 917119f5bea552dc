// The Object Store's TS rules (bindings/obj/rules.ts) against the cases the
// Rust store runs too (tests/vectors/object_store.json): object and bucket
// names (the subjects names make, digests and direct batches are the wasm's
// procedures': src/core/object runs their vectors). No server.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { InvalidArgumentError } from "natsjet";

const rules = await import(new URL("obj/rules.js", import.meta.resolve("natsjet/package.json")).href);
const vectors = JSON.parse(readFileSync(new URL("../../tests/vectors/object_store.json", import.meta.url), "utf8"));

/** A string case: a string, or `{ repeat, times }`. */
const text = (c) => (typeof c === "string" ? c : c.repeat.repeat(c.times));

test("names and buckets are checked", () => {
  for (const name of vectors.good_names.map(text)) rules.checkName(name);
  for (const name of vectors.bad_names.map(text)) assert.throws(() => rules.checkName(name), InvalidArgumentError, name);
  for (const bucket of vectors.good_buckets.map(text)) rules.checkBucket(bucket);
  for (const bucket of vectors.bad_buckets.map(text)) assert.throws(() => rules.checkBucket(bucket), InvalidArgumentError, bucket);
});

