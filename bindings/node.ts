/**
 * The Node.js entry: the `nodejs` wasm build (CommonJS glue that loads the
 * wasm synchronously). Node 20 has no global `WebSocket`, which the wasm
 * transport uses, so this installs one made from `ws` when it is missing;
 * it registers Node sockets (`node:net`/`node:tls`) for `nats://` and
 * `tls://` servers, and `node:crypto`'s SHA-256 for object store digests
 * (the wasm's own software one is many times slower).
 */
import { createHash, randomFillSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import WebSocket from "ws";
import * as wasm from "./node/natsjet.js";
import { installNodeSockets } from "./node/socket.mjs";
import { ConnectionError, errorClasses } from "./errors.js";
import { wasmAuth } from "./auth.js";
import { connectWith, type ConnectionOptions, type NatsConnection } from "./index.js";
import { setSha256Factory, sha256 } from "./obj/digest.js";

export * from "./index.js";

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

(globalThis as { WebSocket?: unknown }).WebSocket ??= NodeWebSocket;
wasm.setErrorClasses(errorClasses);
wasmAuth.credsParts = wasm.credsParts;
installNodeSockets(wasm);
sha256.wasm = () => new wasm.RawSha256();
setSha256Factory(() => createHash("sha256"));

/** Connects to a NATS server: `nats://` and `tls://` over TCP, `ws://` and `wss://` over WebSocket. */
export async function connect(options?: ConnectionOptions): Promise<NatsConnection> {
  return connectWith(wasm.connect, await readTlsFiles(options));
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

/** `connect`, under nats.js's name for WebSocket connections. */
export { connect as wsconnect };

/** A unique subject `<prefix>.<token>` (prefix `_INBOX` by default), as nats.js's `createInbox`. */
export function createInbox(prefix?: string): string {
  return wasm.createInbox(prefix);
}
