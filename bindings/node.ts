/**
 * The Node.js entry of `natsjet`, the whole API: the `nodejs` wasm build
 * with every export (`entry_node.ts` sets it up), and `node:crypto`'s
 * SHA-256 for object store digests (the wasm's own software one is many
 * times slower).
 */
import { createHash } from "node:crypto";
import * as wasm from "./node/natsjet.js";
import { nodeEntry } from "./entry_node.js";
import type { ConnectionOptions, NatsConnection } from "./core.js";
import { setSha256Factory } from "./obj/digest.js";

export * from "./index.js";

const entry = nodeEntry(wasm);
setSha256Factory(() => createHash("sha256"));

/** Connects to a NATS server: `nats://` and `tls://` over TCP, `ws://` and `wss://` over WebSocket. */
export function connect(options?: ConnectionOptions): Promise<NatsConnection> {
  return entry.connect(options);
}

/** `connect`, under nats.js's name for WebSocket connections. */
export { connect as wsconnect };

/** A unique subject `<prefix>.<token>` (prefix `_INBOX` by default), as nats.js's `createInbox`. */
export function createInbox(prefix?: string): string {
  return entry.createInbox(prefix);
}
