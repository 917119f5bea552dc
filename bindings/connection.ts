/// <reference lib="esnext.disposable" preserve="true" />
// `Symbol.dispose`/`asyncDispose` (ours and wasm-bindgen's classes'), so the
// package's types check under any `target`, with or without @types/node.
/**
 * `NatsConnection`, shaped like nats.js's: the raw wasm connection with
 * nats.js argument shapes, messages, headers, statuses and errors.
 */
import type { RawConnection, ServerInfo } from "./raw_core.js";
import type { NatsError } from "./errors.js";
import { sendHeaders, type MsgHdrs, type TraceOptions } from "./headers.js";
import { encode, unpack, type Msg, type Payload, type PublishOptions, type Publisher } from "./msg.js";
import { Responses, type RequestManyOptions } from "./responses.js";
import type { Status, StatusHub } from "./status.js";
import { Subscription, type SubscriptionOptions } from "./subscription.js";
import { optStr, str } from "./names.js";

export type { ServerInfo };

/** Options of `request` (nats.js's `RequestOptions`). */
export interface RequestOptions extends TraceOptions {
  /** Milliseconds to wait for the answer (default 1000, as nats.js). */
  timeout?: number;
  /** Headers sent with the request. */
  headers?: MsgHdrs;
  /** The answer comes to a subscription of its own instead of the connection's shared request inbox. */
  noMux?: boolean;
  /** With `noMux`: the subject the answer comes to (a new inbox by default). */
  reply?: string;
}

/** Counters since `connect`. */
export interface Stats {
  /** Messages received. */
  inMsgs: number;
  /** Messages sent. */
  outMsgs: number;
  /** Payload bytes received. */
  inBytes: number;
  /** Payload bytes sent. */
  outBytes: number;
  /** Times the connection reconnected. */
  reconnects: number;
}

/**
 * A connection to a NATS server (nats.js's `NatsConnection`), made by
 * `connect`: publishes, subscribes, requests, and reconnects on its own until
 * closed.
 */
export class NatsConnection implements Publisher {
  readonly #raw: RawConnection;
  readonly #hub: StatusHub;
  /**
   * Subscriptions until they end, held as nats.js's connection holds them:
   * the garbage collector would otherwise free one nobody references, and
   * freeing the wasm side unsubscribes.
   */
  readonly #subscriptions = new Set<Subscription>();
  /** Subscriptions with a callback, which `flush()` lets catch up. */
  readonly #callbacks = new Set<Subscription>();

  /** Made by `connect`. */
  constructor(raw: RawConnection, hub: StatusHub) {
    this.#raw = raw;
    this.#hub = hub;
  }

  /** @internal The wasm connection, for the JetStream API. */
  get raw(): RawConnection {
    return this.#raw;
  }

  /** The INFO of the server this connection is (or was last) connected to. */
  get info(): ServerInfo {
    return this.#raw.info();
  }

  /** Publishes at once; throws (e.g. `INVALID_SUBJECT`, `PAYLOAD_TOO_LARGE`) before sending anything. */
  publish(subject: string, data?: Payload, opts?: PublishOptions): void {
    this.#raw.publish(str(subject, "subject"), encode(data), optStr(opts?.reply, "reply"), sendHeaders(opts));
  }

  /** Publishes `msg` as it is: its subject, data, headers and reply (nats.js). */
  publishMessage(msg: Msg): void {
    this.publish(msg.subject, msg.data, { reply: msg.reply || undefined, headers: msg.headers });
  }

  /**
   * Sends `msg`'s data and headers to its reply subject, with that subject
   * as the reply too (as nats.js); `false` when it has none.
   */
  respondMessage(msg: Msg): boolean {
    if (!msg.reply) return false;
    this.publish(msg.reply, msg.data, { reply: msg.reply, headers: msg.headers });
    return true;
  }

  /**
   * Subscribes to `subject` (wildcards allowed): iterate the result, or pass
   * `opts.callback`. Throws `INVALID_SUBJECT` for a bad subject or queue.
   */
  subscribe(subject: string, opts: SubscriptionOptions = {}): Subscription {
    const release = () => this.#subscriptions.delete(sub);
    const raw = this.#raw.subscribe(str(subject, "subject"), optStr(opts.queue, "queue"), opts.timeout);
    const sub = new Subscription(raw, subject, this, opts, release);
    this.#subscriptions.add(sub);
    if (opts.callback) this.#callbacks.add(sub);
    void sub.closed.then(() => {
      release();
      this.#callbacks.delete(sub);
    });
    return sub;
  }

  /** The first answer to a request; rejects with `NO_RESPONDERS` or `TIMEOUT`. */
  async request(subject: string, data?: Payload, opts: RequestOptions = {}): Promise<Msg> {
    const headers = sendHeaders(opts);
    const [to, reply] = [str(subject, "subject"), optStr(opts.reply, "reply")];
    const batch = await this.#raw.request(to, encode(data), headers, opts.timeout ?? 1000, opts.noMux, reply);
    return unpack(batch, 0, this)[0]!;
  }

  /**
   * A request answered by many responders, as nats.js's: the replies end by
   * `opts.strategy` (`"timer"`, `"count"`, `"stall"` or `"sentinel"`) or at
   * `maxWait`; iterating throws `NO_RESPONDERS` when nobody listens and
   * `CLOSED` when the connection closes first (with `noMux`, the replies
   * then just end, as in nats.js).
   */
  async requestMany(subject: string, data?: Payload, opts: Partial<RequestManyOptions> = {}): Promise<Responses> {
    const headers = sendHeaders(opts);
    const raw = this.#raw.requestMany(
      str(subject, "subject"),
      encode(data),
      headers,
      opts.strategy,
      opts.maxWait,
      opts.maxMessages,
      opts.stall,
      opts.noMux,
    );
    return new Responses(raw, this);
  }

  /** Resolves once the server has processed everything sent before. */
  async flush(): Promise<void> {
    await this.#raw.flush();
    // nats.js calls callbacks as it reads: once a flush resolves, they have
    // had what the server sent before answering. Here they are fed batches
    // from wasm, so wait for them to catch up.
    if (this.#callbacks.size) await Promise.all(Array.from(this.#callbacks, (sub) => sub.caughtUp()));
  }

  /** Unsubscribes everything, delivers what already arrived, flushes, then closes. */
  drain(): Promise<void> {
    return this.#raw.drain();
  }

  /** Sends what was accepted, then closes. */
  close(): Promise<void> {
    return this.#raw.close();
  }

  /** Resolves when the connection is closed, with the error that closed it, if any. */
  closed(): Promise<void | NatsError> {
    return this.#hub.closed;
  }

  /** Whether the connection is closed for good. */
  isClosed(): boolean {
    return this.#raw.isClosed();
  }

  /** Connection events from now until it closes, as nats.js v3's {@link Status}. */
  status(): AsyncIterable<Status> {
    return this.#hub.iterate();
  }

  /** Message and byte counters since `connect`. */
  stats(): Stats {
    const [inMsgs = 0, outMsgs = 0, inBytes = 0, outBytes = 0, reconnects = 0] = this.#raw.stats();
    return { inMsgs, outMsgs, inBytes, outBytes, reconnects };
  }

  /** A unique subject under the inbox prefix, for replies. */
  newInbox(): string {
    return this.#raw.newInbox();
  }

  /** Whether `drain()` was called (it stays so once closed). */
  isDraining(): boolean {
    return this.#raw.isDraining();
  }

  /** `host:port` of the server connected to (or last tried while reconnecting). */
  getServer(): string {
    return this.#raw.server();
  }

  /**
   * Makes `servers` (URLs or `host:port`) the pool to reconnect to, as
   * nats.js: the connection stays, `reconnect()` moves to the new pool at
   * once; the current server, when not among them, is not tried again.
   * Throws `INVALID_ARGUMENT` for an empty list or a bad URL.
   */
  setServers(servers: string[]): void {
    this.#raw.setServers(servers.map((s) => str(s, "servers")));
  }

  /** Milliseconds of a PING/PONG round trip; rejects with `DISCONNECTED` while reconnecting. */
  rtt(): Promise<number> {
    return this.#raw.rtt();
  }

  /**
   * Drops the server connection and reconnects (`forceReconnect`,
   * `disconnect`, `reconnecting`, then `reconnect` statuses); subscriptions are made again.
   * Resolves at once; does nothing while already reconnecting; rejects with
   * `CLOSED`, and with `INVALID_ARGUMENT` while draining.
   */
  reconnect(): Promise<void> {
    return this.#raw.reconnect();
  }

  /** `await using nc = await connect()`: drains, as nats.js; nothing if closed, waits if draining. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.isClosed()) return;
    if (this.isDraining()) {
      await this.closed();
      return;
    }
    await this.drain();
  }
}
