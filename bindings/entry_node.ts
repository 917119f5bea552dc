/**
 * What every Node.js entry does over its own `nodejs` wasm build (`node.ts`:
 * everything; `tiers/core/node.ts`, `tiers/jetstream/node.ts`: the smaller
 * tiers; CommonJS glue that loads the wasm synchronously). Node 20 has no
 * global `WebSocket`, which the wasm transport uses, so this installs one
 * made from `ws` when it is missing; it registers Node sockets
 * (`node:net`/`node:tls`) for `nats://` and `tls://` servers, and reads
 * nats.js's TLS file options.
 */
import { randomFillSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import WebSocket from "ws";
import type { SocketFactory, connect as rawConnect, createInbox as rawCreateInbox, credsParts } from "./raw_core.js";
import { installNodeSockets } from "./node/socket.mjs";
import { ConnectionError, errorClasses } from "./errors.js";
import { wasmAuth } from "./auth.js";
import { connectWith, type ConnectionOptions, type NatsConnection } from "./core.js";

/** What an entry takes from its build's Node glue (every tier's has these). */
export interface NodeGlue {
  connect: typeof rawConnect;
  createInbox: typeof rawCreateInbox;
  credsParts: typeof credsParts;
  setErrorClasses(classes: typeof errorClasses): void;
  setSocketFactory(factory: SocketFactory): void;
}

/**
 * `ws` behaving like a browser's WebSocket for the wasm transport: frames
 * are handed over as views of wasm memory, which must be copied during
 * `send` (the wasm writes the next frame there), so no compression (it would
 * read them later) and never an all-zero mask (`ws` then sends the view as it
 * is, later if the socket is busy); and an `error` listener that outlives
 * the transport's, so a late error never becomes an uncaught exception.
 */
class NodeWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { perMessageDeflate: false, generateMask });
    this.on("error", () => {});
  }
}

/** A random mask, as `ws` makes them, but never all zeros (1 in 2^32). */
function generateMask(mask: Buffer): void {
  randomFillSync(mask);
  if ((mask[0]! | mask[1]! | mask[2]! | mask[3]!) === 0) mask[0] = 1;
}

/** What a Node entry exports over its build. */
export interface NodeEntry {
  /** Connects to a NATS server: `nats://` and `tls://` over TCP, `ws://` and `wss://` over WebSocket. */
  connect(options?: ConnectionOptions): Promise<NatsConnection>;
  /** A unique subject `<prefix>.<token>` (prefix `_INBOX` by default), as nats.js's `createInbox`. */
  createInbox(prefix?: string): string;
}

/** @internal Sets up `glue` (a loaded Node build) and returns the entry's functions over it. */
export function nodeEntry(glue: NodeGlue): NodeEntry {
  (globalThis as { WebSocket?: unknown }).WebSocket ??= NodeWebSocket;
  glue.setErrorClasses(errorClasses);
  wasmAuth.credsParts = glue.credsParts;
  installNodeSockets(glue);
  return {
    connect: async (options) => connectWith(glue.connect, await readTlsFiles(options)),
    createInbox: (prefix) => glue.createInbox(prefix),
  };
}

/**
 * nats.js's `tls.caFile`, `certFile` and `keyFile`, read with `node:fs`
 * into the PEM options `ca`, `cert` and `key` (a file wins over inline
 * text, as nats.js); a file that cannot be read rejects with `TLS`.
 */
async function readTlsFiles(options?: ConnectionOptions): Promise<ConnectionOptions | undefined> {
  const tls = options?.tls;
  if (!tls || !(tls.caFile || tls.certFile || tls.keyFile)) return options;
  const read = async (option: string, path: string): Promise<string> => {
    try {
      return await readFile(path, "utf8");
    } catch (e) {
      throw new ConnectionError(`tls.${option}: cannot read ${path}: ${(e as Error).message}`, { cause: e }, "TLS");
    }
  };
  const pem = { ...tls };
  if (tls.caFile) pem.ca = await read("caFile", tls.caFile);
  if (tls.certFile) pem.cert = await read("certFile", tls.certFile);
  if (tls.keyFile) pem.key = await read("keyFile", tls.keyFile);
  return { ...options, tls: pem };
}
