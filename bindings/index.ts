/**
 * natsjet's whole JavaScript API, the `natsjet` entries' (`web.ts`,
 * `node.ts`): core NATS, JetStream, Key-Value and Object Store. Shaped like
 * nats.js v3; the smaller tiers (`natsjet/core`, `natsjet/jetstream`)
 * export parts of it over smaller wasm builds.
 */
export * from "./core.js";
export * from "./jetstream/index.js";
export * from "./kv/index.js";
export * from "./obj/index.js";
