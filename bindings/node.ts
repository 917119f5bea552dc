/**
 * The Node.js entry: the `nodejs` wasm build (CommonJS glue that loads the
 * wasm synchronously). Node 20 has no global `WebSocket`, which the wasm
 * transport uses, so this installs one made from `ws` when it is missing;
 * and it registers Node sockets (`node:net`/`node:tls`) for `nats://` and
 * `tls://` servers.
 */
import WebSocket from "ws";
import * as wasm from "./node/natsjet.js";
import { installNodeSockets } from "./node/socket.mjs";
import { errorClasses } from "./errors.js";
import { wasmAuth } from "./auth.js";
import { connectWith, type ConnectionOptions, type NatsConnection } from "./index.js";

export * from "./index.js";

/**
 * `ws` behaving like a browser's WebSocket for the wasm transport: frames
 * are handed over as views of wasm memory, so no compression (it would read
 * them later), and an `error` listener that outlives the transport's, so a
 * late error never becomes an uncaught exception.
 */
class NodeWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { perMessageDeflate: false });
    this.on("error", () => {});
  }
}

(globalThis as { WebSocket?: unknown }).WebSocket ??= NodeWebSocket;
wasm.setErrorClasses(errorClasses);
wasmAuth.credsParts = wasm.credsParts;
installNodeSockets(wasm);

/** Connects to a NATS server: `nats://` and `tls://` over TCP, `ws://` and `wss://` over WebSocket. */
export function connect(options?: ConnectionOptions): Promise<NatsConnection> {
  return connectWith(wasm.connect, options);
}
