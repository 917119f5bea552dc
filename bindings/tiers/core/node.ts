/**
 * The Node.js entry of `natsjet/core`: core NATS alone (nats.js's `@nats-io/nats-core`), over
 * the smallest wasm build (cargo feature `wasm-runtime`, no JetStream); `entry_node.ts` sets it up.
 */
import * as wasm from "./node/natsjet.js";
import { nodeEntry } from "../../entry_node.js";

export * from "../../core.js";

export const { connect, createInbox } = nodeEntry(wasm);

/** `connect`, under nats.js's name for WebSocket connections. */
export { connect as wsconnect };
