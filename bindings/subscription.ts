/**
 * A subscription shaped like nats.js's: an `AsyncIterable<Msg>`, or a
 * `callback`. Messages cross from wasm in batches (`nextBatch`), read one
 * batch at a time.
 */
import type { RawSubscription } from "./raw_core.js";
import { ClosedConnectionError, InvalidOperationError, type NatsError } from "./errors.js";
import { unpack, type Msg, type Publisher } from "./msg.js";

/** Options of `subscribe`. */
export interface SubscriptionOptions {
  /** Join this queue group: each message goes to one member. */
  queue?: string;
  /** Unsubscribe after this many messages. */
  max?: number;
  /**
   * Milliseconds to wait for the first message, as nats.js: if none came
   * by then, the subscription ends with a `TimeoutError` (thrown by the
   * iterator, or passed to the callback; `closed` resolves with it).
   */
  timeout?: number;
  /** Receive messages here instead of iterating. */
  callback?: (err: NatsError | null, msg: Msg) => void;
}

/** Messages taken from wasm per crossing, at most. */
const BATCH = 1024;

/**
 * A subscription (nats.js's `Subscription`), made by `nc.subscribe`:
 * iterate it for its messages, unless it has a callback.
 */
export class Subscription implements AsyncIterable<Msg> {
  readonly #raw: RawSubscription;
  readonly #subject: string;
  readonly #sid: number;
  readonly #publisher: Publisher;
  readonly #callback: SubscriptionOptions["callback"];
  /** The last batch read; the next read waits for it (one read at a time). */
  #reading: Promise<Msg[] | null> = Promise.resolve([]);
  #processed = 0;
  /** `received` and `dropped` as of the end, once the raw subscription is freed. */
  #received = 0;
  #dropped = 0;
  #drained: Promise<void> | undefined;
  #done = false;
  readonly #release: () => void;
  /** `caughtUp()` callers: resolved once the callback has had `n` messages. */
  #waiters: { n: number; resolve: () => void }[] = [];
  #resolveClosed!: (err?: NatsError) => void;
  /** Resolves once the subscription ended and its messages were read, with the error that ended it, if any. */
  readonly closed: Promise<void | NatsError> = new Promise((resolve) => (this.#resolveClosed = resolve));

  /**
   * @param release called once unsubscribed: the connection need not hold
   * this any longer (its messages are still there for whoever holds it).
   */
  constructor(
    raw: RawSubscription,
    subject: string,
    publisher: Publisher,
    opts: SubscriptionOptions,
    release: () => void = () => {},
  ) {
    this.#raw = raw;
    this.#release = release;
    this.#subject = subject;
    this.#sid = raw.sid;
    this.#publisher = publisher;
    this.#callback = opts.callback;
    if (opts.max !== undefined) raw.unsubscribe(opts.max);
    if (this.#callback) void this.#pump(this.#callback);
  }

  /** The subject it was made with. */
  getSubject(): string {
    return this.#subject;
  }

  /** The subscription id used on the wire. */
  getID(): number {
    return this.#sid;
  }

  /** Messages handed to the iterator or callback so far. */
  getProcessed(): number {
    return this.#processed;
  }

  /** Messages received from the server so far (those dropped as a slow consumer aside). */
  getReceived(): number {
    return this.#done ? this.#received : this.#raw.received;
  }

  /**
   * natsjet: messages dropped because this subscription's buffer was full
   * (`subscriptionCapacity`, `subscriptionCapacityBytes`), as the
   * `slowConsumer` statuses report them.
   */
  getDropped(): number {
    return this.#done ? this.#dropped : this.#raw.dropped;
  }

  /** Messages received and not yet handed to the iterator or callback. */
  getPending(): number {
    return this.getReceived() - this.#processed;
  }

  /**
   * Whether it ended (unsubscribed, drained, timed out or its connection
   * closed) and its messages were all read.
   */
  isClosed(): boolean {
    return this.#done;
  }

  /** Whether `drain()` was called. */
  isDraining(): boolean {
    return this.#drained !== undefined;
  }

  /**
   * Unsubscribes, still delivers what the server sent before it processed
   * that, then ends. Resolves once all of it has arrived (with a
   * `callback`, once handed to it); rejects with `CLOSED` if the
   * connection is closed.
   */
  drain(): Promise<void> {
    if (this.#done) return Promise.resolve();
    this.#release();
    this.#drained ??= this.#raw.drain().then(async () => {
      if (this.#callback) await this.closed;
    });
    return this.#drained;
  }

  /** `await using sub = nc.subscribe(…)`: drains, as nats.js; nothing once closed. */
  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.drain();
    } catch (e) {
      if (!(e instanceof ClosedConnectionError)) throw e;
    }
  }

  /** Stops now, or after `max` messages in total. Messages already received are still delivered. */
  unsubscribe(max?: number): void {
    if (this.#done) return;
    this.#raw.unsubscribe(max);
    if (max === undefined) this.#release();
  }

  /**
   * Its messages, until it ends; throws an `InvalidOperationError` when it has a
   * callback, and the error that ended it (e.g. a `TimeoutError`).
   */
  async *[Symbol.asyncIterator](): AsyncIterator<Msg> {
    if (this.#callback) throw new InvalidOperationError("a subscription with a callback cannot be iterated");
    for (let batch = await this.#next(); batch; batch = await this.#next()) {
      for (const msg of batch) {
        this.#processed++;
        yield msg;
      }
    }
  }

  /**
   * @internal Resolves once the callback has had every message received so
   * far (or the subscription ended): what `flush()` waits for.
   */
  caughtUp(): Promise<void> {
    const n = this.getReceived();
    if (this.#done || this.#processed >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }

  async #pump(callback: NonNullable<SubscriptionOptions["callback"]>): Promise<void> {
    const next = () =>
      this.#next().catch((err: NatsError) => {
        callback(err, {} as Msg);
        return null;
      });
    for (let batch = await next(); batch; batch = await next()) {
      for (const msg of batch) {
        this.#processed++;
        try {
          callback(null, msg);
        } catch (e) {
          // Like an event listener: report it to the host, keep delivering.
          queueMicrotask(() => {
            throw e;
          });
        }
      }
      this.#wake();
    }
    this.#wake();
  }

  #wake(): void {
    const due = (w: { n: number }) => this.#done || this.#processed >= w.n;
    for (const w of this.#waiters) if (due(w)) w.resolve();
    this.#waiters = this.#waiters.filter((w) => !due(w));
  }

  /** The next batch, `null` once ended; reads are chained so only one is pending in wasm. */
  #next(): Promise<Msg[] | null> {
    const read = () => this.#read();
    this.#reading = this.#reading.then(read, read);
    return this.#reading;
  }

  async #read(): Promise<Msg[] | null> {
    if (this.#done) return null;
    let batch;
    try {
      batch = await this.#raw.nextBatch(BATCH);
    } catch (err) {
      // The first-message timeout ended it.
      this.#end(err as NatsError);
      throw err;
    }
    if (batch) return unpack(batch, this.#sid, this.#publisher);
    // The connection's error, if it closed for good with one.
    this.#end(this.#raw.closedReason as NatsError | undefined);
    return null;
  }

  #end(err?: NatsError): void {
    this.#received = this.#raw.received;
    this.#dropped = this.#raw.dropped;
    this.#done = true;
    this.#raw.free();
    this.#resolveClosed(err);
  }
}
