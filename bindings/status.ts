/**
 * Connection events from the wasm side (it calls the `StatusSink` methods of
 * a `StatusHub`) turned into nats.js v3's status objects: `status()` iterables and the
 * `closed()` promise.
 */
import type { SinkStatusType, StatusSink } from "./raw_core.js";
import type { NatsError } from "./errors.js";

/** natsjet's: the connection is up (its first `connect` resolves on it; nats.js has no such status). */
export type ConnectedStatus = {
  /** Which event this is. */
  type: "connected";
  /** The server connected to (`host:port`). */
  server: string;
};
/** The connection to `server` (`host:port`) was lost; `error` says why, when something went wrong (natsjet's). */
export type DisconnectStatus = {
  /** Which event this is. */
  type: "disconnect";
  /** The server the connection was to (`host:port`). */
  server: string;
  /** What went wrong, when something did. */
  error?: NatsError;
};
/** A reconnect attempt starts, one per attempt; natsjet adds the `server` tried. */
export type ReconnectingStatus = {
  /** Which event this is. */
  type: "reconnecting";
  /** The server this attempt tries (`host:port`). */
  server: string;
};
/** Connected again, to `server`; subscriptions are restored. */
export type ReconnectStatus = {
  /** Which event this is. */
  type: "reconnect";
  /** The server connected to (`host:port`). */
  server: string;
};
/**
 * The cluster's server list changed: `added` servers may be tried on
 * reconnect, discovered ones it no longer lists are `deleted` (`host:port`
 * each; natsjet always gives both arrays and reports only changes).
 */
export type ClusterUpdateStatus = {
  /** Which event this is. */
  type: "update";
  /** Servers the cluster now lists (`host:port`). */
  added: string[];
  /** Discovered servers it no longer lists (`host:port`). */
  deleted: string[];
};
/** `server` is shutting down (lame duck mode); the client moves on. */
export type LDMStatus = {
  /** Which event this is. */
  type: "ldm";
  /** The server entering lame duck mode (`host:port`). */
  server: string;
};
/** An error that left the connection up, e.g. a permissions violation. */
export type ServerErrorStatus = {
  /** Which event this is. */
  type: "error";
  /** The error (the server's `-ERR`, or one the client found). */
  error: NatsError;
};
/** A keep-alive PING went out (every `pingInterval`); `pendingPings` are unanswered, it included. */
export type ClientPingStatus = {
  /** Which event this is. */
  type: "ping";
  /** PINGs not answered yet, this one included. */
  pendingPings: number;
};
/** `maxPingOut` PINGs went unanswered and no server bytes came for an interval: the connection is dropped (`disconnect` follows) and replaced. */
export type StaleConnectionStatus = {
  /** Which event this is. */
  type: "staleConnection";
};
/** Subscription `sid` did not keep up: `dropped` messages lost so far (nats.js: `sub`, `pending`). */
export type SlowConsumerStatus = {
  /** Which event this is. */
  type: "slowConsumer";
  /** The subscription's id (`Subscription.getID()`). */
  sid: number;
  /** Messages dropped for it so far. */
  dropped: number;
};
/** `reconnect()` is dropping the connection; `disconnect` and `reconnect` follow. */
export type ForceReconnectStatus = {
  /** Which event this is. */
  type: "forceReconnect";
};
/** Closed for good; `error` when one caused it (natsjet's). */
export type CloseStatus = {
  /** Which event this is. */
  type: "close";
  /** The error that closed the connection, if one did. */
  error?: NatsError;
};

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
