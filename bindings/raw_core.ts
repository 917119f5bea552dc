/**
 * The types of the core tier's raw wasm exports (`natsjet/core`'s build,
 * cargo feature `wasm-runtime` alone), which the core NATS modules use, so
 * they call nothing that build lacks. The bigger builds export the same
 * with more (JetStream's modules use `raw.ts`). From the Node build's
 * declarations, which need no DOM library.
 */
export type * from "./tiers/core/node/natsjet.js";
