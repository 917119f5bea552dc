/**
 * What every browser (and bundler) entry does over its own `web` wasm
 * build (`web.ts`: everything; `tiers/core/web.ts`, `tiers/jetstream/web.ts`: the smaller tiers): load
 * the wasm once, on the first `connect`, from `natsjet_bg.wasm` next to its
 * glue (`import.meta.url`), register the error classes, and connect.
 * Imports nothing from Node.
 */
import type { ConnectionOptions, connect as rawConnect, createInbox as rawCreateInbox, credsParts } from "./raw_core.js";
import { wasmAuth } from "./auth.js";
import { InvalidOperationError, errorClasses } from "./errors.js";
import { connectWith, type NatsConnection } from "./core.js";

/** What an entry takes from its build's web glue (every tier's has these). */
export interface WebGlue<Input> {
  load(init?: { module_or_path: Input | Promise<Input> }): Promise<unknown>;
  connect: typeof rawConnect;
  createInbox: typeof rawCreateInbox;
  credsParts: typeof credsParts;
  setErrorClasses(classes: typeof errorClasses): void;
}

/** What a browser entry exports over its build. */
export interface WebEntry<Input> {
  /**
   * Loads the wasm module, once; `connect` calls it. Call it first with the
   * module (a URL, `Response`, bytes or `WebAssembly.Module`) where the
   * default location does not resolve.
   */
  init(module?: Input | Promise<Input>): Promise<void>;
  /** Connects to a NATS server over WebSocket (`ws://`, `wss://`). */
  connect(options?: ConnectionOptions): Promise<NatsConnection>;
  /**
   * A unique subject `<prefix>.<token>` (prefix `_INBOX` by default), as
   * nats.js's `createInbox`. The generator lives in the wasm: call it once
   * `init()` or a `connect` has loaded it.
   */
  createInbox(prefix?: string): string;
}

/** @internal An entry's `init`, `connect` and `createInbox` over `glue`; `loaded` runs once the wasm is. */
export function webEntry<Input>(glue: WebGlue<Input>, loaded: () => void = () => {}): WebEntry<Input> {
  let loading: Promise<void> | undefined;
  let ready = false;
  const init = (module?: Input | Promise<Input>): Promise<void> => {
    loading ??= glue.load(module === undefined ? undefined : { module_or_path: module }).then(
      () => {
        glue.setErrorClasses(errorClasses);
        wasmAuth.credsParts = glue.credsParts;
        loaded();
        ready = true;
      },
      (e: unknown) => {
        loading = undefined;
        throw e;
      },
    );
    return loading;
  };
  return {
    init,
    async connect(options?: ConnectionOptions): Promise<NatsConnection> {
      await init();
      return connectWith(glue.connect, options);
    },
    createInbox(prefix?: string): string {
      if (!ready) throw new InvalidOperationError("createInbox: the wasm is not loaded yet; await init() or connect() first");
      return glue.createInbox(prefix);
    },
  };
}
