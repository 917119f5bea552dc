/**
 * Connection events from the wasm side (it calls the `StatusSink` methods of
 * a `StatusHub`) turned into nats.js v3's status objects: `status()` iterables and the
 * `closed()` promise.
 */
import type { SinkStatusType, StatusSink } from "./raw.js";
import type { NatsError } from "./errors.js";

/** natsjet's: the connection is up (its first `connect` resolves on it; nats.js has no such status). */
export type ConnectedStatus = { type: "connected"; server: string };
/** The connection to `server` (`host:port`) was lost; `error` says why, when something went wrong (natsjet's). */
export type DisconnectStatus = { type: "disconnect"; server: string; error?: NatsError };
/** A reconnect attempt starts, one per attempt; natsjet adds the `server` tried. */
export type ReconnectingStatus = { type: "reconnecting"; server: string };
/** Connected again, to `server`; subscriptions are restored. */
export type ReconnectStatus = { type: "reconnect"; server: string };
/**
 * The cluster's server list changed: `added` servers may be tried on
 * reconnect, discovered ones it no longer lists are `deleted` (`host:port`
 * each; natsjet always gives both arrays and reports only changes).
 */
export type ClusterUpdateStatus = { type: "update"; added: string[]; deleted: string[] };
/** `server` is shutting down (lame duck mode); the client moves on. */
export type LDMStatus = { type: "ldm"; server: string };
/** An error that left the connection up, e.g. a permissions violation. */
export type ServerErrorStatus = { type: "error"; error: NatsError };
/** A keep-alive PING went out (every `pingInterval`); `pendingPings` are unanswered, it included. */
export type ClientPingStatus = { type: "ping"; pendingPings: number };
/** `maxPingOut` PINGs went unanswered and no server bytes came for an interval: the connection is dropped (`disconnect` follows) and replaced. */
export type StaleConnectionStatus = { type: "staleConnection" };
/** Subscription `sid` did not keep up: `dropped` messages lost so far (nats.js: `sub`, `pending`). */
export type SlowConsumerStatus = { type: "slowConsumer"; sid: number; dropped: number };
/** `reconnect()` is dropping the connection; `disconnect` and `reconnect` follow. */
export type ForceReconnectStatus = { type: "forceReconnect" };
/** Closed for good; `error` when one caused it (natsjet's). */
export type CloseStatus = { type: "close"; error?: NatsError };

/** A connection event, as nats.js v3's `Status`. */
export type Status =
  | ConnectedStatus
  | DisconnectStatus
  | ReconnectingStatus
  | ReconnectStatus
  | ClusterUpdateStatus
  | LDMStatus
  | ServerErrorStatus
  | ClientPingStatus
  | StaleConnectionStatus
  | SlowConsumerStatus
  | ForceReconnectStatus
  | CloseStatus;

/** The `type` of every {@link Status}. */
export type StatusType = Status["type"];

export class StatusHub implements StatusSink {
  readonly #listeners = new Set<(status: Status) => void>();
  #isClosed = false;
  #resolveClosed!: (error: NatsError | undefined) => void;
  /** Resolves on the close event, with the error that caused it if any. */
  readonly closed: Promise<NatsError | undefined> = new Promise((resolve) => (this.#resolveClosed = resolve));

  status(type: SinkStatusType, server: string | undefined, error: Error | undefined): void {
    const err = error as NatsError | undefined;
    switch (type) {
      case "error":
        return this.#emit({ type, error: err! });
      case "disconnect":
        return this.#emit({ type, server: server!, ...(err && { error: err }) });
      case "close":
        this.#emit({ type, ...(err && { error: err }) });
        this.#isClosed = true;
        this.#listeners.clear();
        return this.#resolveClosed(err);
      case "connected":
      case "reconnecting":
      case "reconnect":
      case "ldm":
        return this.#emit({ type, server: server! });
      default:
        return this.#emit({ type });
    }
  }

  update(added: string[], deleted: string[]): void {
    this.#emit({ type: "update", added, deleted });
  }

  ping(pendingPings: number): void {
    this.#emit({ type: "ping", pendingPings });
  }

  slowConsumer(sid: number, dropped: number): void {
    this.#emit({ type: "slowConsumer", sid, dropped });
  }

  #emit(status: Status): void {
    for (const listener of this.#listeners) listener(status);
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
