/**
 * The browser (and bundler) entry: the `web` wasm build, loaded on first
 * `connect` from `natsjet_bg.wasm` next to its glue (`import.meta.url`).
 * Imports nothing from Node.
 */
import loadWasm, {
  connect as rawConnect,
  createInbox as rawCreateInbox,
  credsParts,
  RawSha256,
  setErrorClasses,
  type InitInput,
} from "./web/natsjet.js";
import { wasmAuth } from "./auth.js";
import { InvalidOperationError, errorClasses } from "./errors.js";
import { connectWith, type ConnectionOptions, type NatsConnection } from "./index.js";
import { sha256 } from "./obj/digest.js";

export * from "./index.js";

let loading: Promise<void> | undefined;
let loaded = false;

/**
 * Loads the wasm module, once; `connect` calls it. Call it first with the
 * module (a URL, `Response`, bytes or `WebAssembly.Module`) where the default
 * location does not resolve.
 */
export function init(module?: InitInput | Promise<InitInput>): Promise<void> {
  loading ??= loadWasm(module === undefined ? undefined : { module_or_path: module }).then(
    () => {
      setErrorClasses(errorClasses);
      wasmAuth.credsParts = credsParts;
      sha256.wasm = () => new RawSha256();
      loaded = true;
    },
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

/** Connects to a NATS server over WebSocket (`ws://`, `wss://`). */
export async function connect(options?: ConnectionOptions): Promise<NatsConnection> {
  await init();
  return connectWith(rawConnect, options);
}

/** `connect`, under nats.js's name for WebSocket connections. */
export { connect as wsconnect };

/**
 * A unique subject `<prefix>.<token>` (prefix `_INBOX` by default), as
 * nats.js's `createInbox`. The generator lives in the wasm: call it once
 * `init()` or a `connect` has loaded it.
 */
export function createInbox(prefix?: string): string {
  if (!loaded) throw new InvalidOperationError("createInbox: the wasm is not loaded yet; await init() or connect() first");
  return rawCreateInbox(prefix);
}
