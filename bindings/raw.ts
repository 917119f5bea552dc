/**
 * The types of the raw wasm exports of the whole build (`natsjet`, cargo
 * feature `wasm`), identical for web and Node, which JetStream, Key-Value
 * and the Object Store use (core NATS uses the core tier's, `raw_core.ts`;
 * test/tier_types.test.mjs checks JetStream's against its tier's build).
 * Taken from the Node build's declarations, which (unlike the web build's,
 * with its loader types) need no DOM library, so Node users' type checks
 * pass without it.
 */
export type * from "./node/natsjet.js";
