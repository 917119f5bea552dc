/**
 * The browser (and bundler) entry of `natsjet`, the whole API: the `web`
 * wasm build with every export, loaded on first `connect` from
 * `natsjet_bg.wasm` next to its glue (`import.meta.url`).
 * Imports nothing from Node.
 */
import load, * as glue from "./web/natsjet.js";
import type { InitInput } from "./web/natsjet.js";
import { webEntry } from "./entry_web.js";
import type { ConnectionOptions, NatsConnection } from "./core.js";

export * from "./index.js";

// The glue's functions one by one: its namespace as a whole would keep every export in a bundle.
const entry = webEntry<InitInput>(
  {
    load,
    connect: glue.connect,
    createInbox: glue.createInbox,
    credsParts: glue.credsParts,
    setErrorClasses: glue.setErrorClasses,
  },
);

/**
 * Loads the wasm module, once; `connect` calls it. Call it first with the
 * module (a URL, `Response`, bytes or `WebAssembly.Module`) where the default
 * location does not resolve.
 */
export function init(module?: InitInput | Promise<InitInput>): Promise<void> {
  return entry.init(module);
}

/** Connects to a NATS server over WebSocket (`ws://`, `wss://`). */
export function connect(options?: ConnectionOptions): Promise<NatsConnection> {
  return entry.connect(options);
}

/** `connect`, under nats.js's name for WebSocket connections. */
export { connect as wsconnect };

/**
 * A unique subject `<prefix>.<token>` (prefix `_INBOX` by default), as
 * nats.js's `createInbox`. The generator lives in the wasm: call it once
 * `init()` or a `connect` has loaded it.
 */
export function createInbox(prefix?: string): string {
  return entry.createInbox(prefix);
}
