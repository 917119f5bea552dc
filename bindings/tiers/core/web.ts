/**
 * The browser (and bundler) entry of `natsjet/core`: core NATS alone (nats.js's `@nats-io/nats-core`), over
 * the smallest wasm build (cargo feature `wasm-runtime`, no JetStream), loaded on first `connect` from `natsjet_bg.wasm` next to its
 * glue (`entry_web.ts`). Imports nothing from Node.
 */
import load, * as glue from "./web/natsjet.js";
import type { InitInput } from "./web/natsjet.js";
import { webEntry, type WebEntry } from "../../entry_web.js";

export * from "../../core.js";

// The glue's functions one by one: its namespace as a whole would keep every export in a bundle.
export const { init, connect, createInbox }: WebEntry<InitInput> = webEntry<InitInput>({
  load,
  connect: glue.connect,
  createInbox: glue.createInbox,
  credsParts: glue.credsParts,
  setErrorClasses: glue.setErrorClasses,
});

/** `connect`, under nats.js's name for WebSocket connections. */
export { connect as wsconnect };
