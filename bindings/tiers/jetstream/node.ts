/**
 * The Node.js entry of `natsjet/jetstream`: core NATS and JetStream (nats.js's `@nats-io/nats-core` and
 * `@nats-io/jetstream`), over
 * the wasm build of cargo feature `wasm-jetstream` (no Key-Value or
 * Object Store); `entry_node.ts` sets it up.
 */
import * as wasm from "./node/natsjet.js";
import { nodeEntry } from "../../entry_node.js";

export * from "../../core.js";
export * from "../../jetstream/index.js";

export const { connect, createInbox } = nodeEntry(wasm);

/** `connect`, under nats.js's name for WebSocket connections. */
export { connect as wsconnect };
