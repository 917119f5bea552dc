/**
 * Connection events from the wasm side (it calls `status` on a `StatusHub`)
 * turned into nats.js-like status objects: `status()` iterables and the
 * `closed()` promise.
 */
import type { StatusSink, StatusType } from "./raw.js";
import type { NatsError } from "./errors.js";

export type { StatusType };

/** A connection event, as nats.js's `Status`. */
export type Status =
  | { type: "connected" }
  | { type: "disconnect"; error?: NatsError }
  | { type: "reconnect" }
  /** The server is shutting down (lame duck mode); the client moves on. */
  | { type: "ldm" }
  /** An error that left the connection up, e.g. a permissions violation. */
  | { type: "error"; error: NatsError }
  /** A subscription did not keep up and `dropped` messages were lost so far. */
  | { type: "slowConsumer"; sid: number; dropped: number }
  | { type: "close"; error?: NatsError }
  /** `reconnect()` is dropping the connection; `disconnect` and `reconnect` follow. */
  | { type: "forceReconnect" };

export class StatusHub implements StatusSink {
  readonly #listeners = new Set<(status: Status) => void>();
  #isClosed = false;
  #resolveClosed!: (error: NatsError | undefined) => void;
  /** Resolves on the close event, with the error that caused it if any. */
  readonly closed: Promise<NatsError | undefined> = new Promise((resolve) => (this.#resolveClosed = resolve));

  status(type: StatusType, error: Error | undefined, sid: number | undefined, dropped: number | undefined): void {
    const err = error as NatsError | undefined;
    const status: Status =
      type === "slowConsumer"
        ? { type, sid: sid ?? 0, dropped: dropped ?? 0 }
        : type === "error"
          ? { type, error: err! }
          : type === "disconnect" || type === "close"
            ? { type, ...(err && { error: err }) }
            : { type };
    for (const listener of this.#listeners) listener(status);
    if (type === "close") {
      this.#isClosed = true;
      this.#listeners.clear();
      this.#resolveClosed(err);
    }
  }

  /** Events from now until the connection closes (the close event included). */
  iterate(): AsyncIterable<Status> {
    const queue: Status[] = [];
    let wake: (() => void) | undefined;
    const listener = (status: Status) => {
      queue.push(status);
      wake?.();
    };
    if (!this.#isClosed) this.#listeners.add(listener);
    const hub = this;
    return (async function* () {
      try {
        for (;;) {
          const status = queue.shift();
          if (status) {
            yield status;
            if (status.type === "close") return;
          } else if (hub.#isClosed) {
            return;
          } else {
            await new Promise<void>((resolve) => (wake = resolve));
          }
        }
      } finally {
        hub.#listeners.delete(listener);
      }
    })();
  }
}
