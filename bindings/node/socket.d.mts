// Types of socket.mjs, for the Node entry (bindings/node.ts).
import type { SocketFactory } from "./natsjet.js";

/** The factory natsjet calls for `nats://` and `tls://` URLs. */
export declare const nodeSocketFactory: SocketFactory;
/** Registers Node sockets with a loaded natsjet wasm module. */
export declare function installNodeSockets(wasmModule: { setSocketFactory(factory: SocketFactory): void }): void;
