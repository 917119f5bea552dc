/**
 * `ConsumerMessages`, shaped like nats.js's: the messages of a `fetch` or
 * `consume` (of a pull or push consumer) as an `AsyncIterable<JsMsg>` (or,
 * for `consume({ callback })`, handed to a callback), read from wasm a batch
 * at a time, and its consumer events as `status()`. The pulling, heartbeats,
 * re-pulls and flow-control replies run in Rust, in the connection's task,
 * whatever the reader's pace.
 */
import type { RawConsumerEvent, RawConsumerMessages } from "../raw.js";
import { InvalidArgumentError, InvalidOperationError } from "../errors.js";
import { DeliveredBatch, type JsMsg } from "./jsmsg.js";

/** Why a fetch ended (`fetch_done`). */
export type FetchEnd =
  | "batch_complete"
  | "max_bytes_reached"
  | "no_messages"
  | "expired"
  | "timed_out"
  | "heartbeats_missed"
  | "status"
  | "stopped";

/** A consumer event (nats.js: `ConsumerNotification`); none of them ends the messages by itself. */
export type ConsumerStatus =
  /** `count` heartbeat intervals passed in silence; natsjet pulls again by itself. */
  | {
      /** Which event this is. */
      type: "heartbeats_missed";
      /** Heartbeat intervals that passed without a message. */
      count: number;
    }
  /** Pending pulls were void (leader change, reconnect, expiry); a new pull went out. */
  | {
      /** Which event this is. */
      type: "reset";
      /** Why the pulls were void. */
      reason: "leadership_change" | "reconnected" | "pulls_expired";
    }
  /** A status worth knowing, e.g. 409 `Exceeded MaxWaiting`. */
  | {
      /** Which event this is. */
      type: "warning";
      /** The status code (e.g. 409). */
      code: number;
      /** The status description. */
      description: string;
    }
  /** The consumer cannot serve pulls (409 `Consumer Deleted`…): the messages end with this error. */
  | {
      /** Which event this is. */
      type: "terminal";
      /** The status code (e.g. 409). */
      code: number;
      /** The status description. */
      description: string;
    }
  /** This client holds the pin of a pinned-client priority group. */
  | {
      /** Which event this is. */
      type: "pinned";
      /** The pin id the server gave this client. */
      id: string;
    }
  /** The pin id was stale (423) and was dropped. */
  | {
      /** Which event this is. */
      type: "pin_id_mismatch";
    }
  /** A fetch ended; `code` and `description` come with `reason: "status"`. */
  | {
      /** Which event this is. */
      type: "fetch_done";
      /** Why the fetch ended. */
      reason: FetchEnd;
      /** The status code that ended the fetch. */
      code?: number;
      /** The status description. */
      description?: string;
    }
  /** After `stop()`, every pull has ended. */
  | {
      /** Which event this is. */
      type: "drained";
    }
  /** An ordered consumer made consumer `name` (first, or after a gap or a loss) and reads from it. */
  | {
      /** Which event this is. */
      type: "ordered_consumer_recreated";
      /** The consumer now read from. */
      name: string;
    }
  /**
   * The server said the consumer (`code` 10014) or its stream (10059) is
   * gone: a pull consumer's after a pull met no responders, a push
   * consumer's after missed heartbeats. The messages end with this error
   * under `abort_on_missing_resource`, else listening goes on.
   */
  | {
      /** Which event this is. */
      type: "consumer_deleted";
      /** The API `err_code`: 10014 (consumer) or 10059 (stream). */
      code: number;
      /** The server's description of the error. */
      description: string;
    };

/** Messages taken from wasm per crossing, at most. */
const BATCH = 1024;

/** Called with each message, in order (nats.js's `ConsumerCallbackFn`); a throw stops the messages with its error. */
export type ConsumerCallbackFn = (msg: JsMsg) => void;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The messages of a `fetch` or `consume` (nats.js's `ConsumerMessages`):
 * iterate them (unless a callback receives them), watch `status()`, `stop()`.
 */
export class ConsumerMessages implements AsyncIterable<JsMsg> {
  readonly #raw: RawConsumerMessages;
  readonly #callback?: ConsumerCallbackFn;
  /** The batch being handed out, and the index of its next message. */
  #batch: DeliveredBatch | null = null;
  #index = 0;
  /** The read from wasm under way: one at a time. */
  #reading: Promise<void> | null = null;
  #processed = 0;
  #done = false;
  /** Given to `stop()`: thrown once the messages received before it are out. */
  #stopError: Error | undefined;
  #watched = false;
  /**
   * Set by `CheckpointLedger.filter`: gives the indexes, ascending, of the
   * messages of a batch from `from` on to leave out (`undefined`: none),
   * asked once per batch, the first time the iterator reaches it.
   */
  #admit?: (batch: DeliveredBatch, from: number) => Uint32Array | undefined;
  /** The batch `#admit` was asked about, what it left out, and how many of those were passed. */
  #admitted: DeliveredBatch | null = null;
  #skipped: Uint32Array | undefined;
  #skippedAt = 0;
  #resolveClosed!: (error: Error | undefined) => void;
  readonly #closed: Promise<Error | undefined> = new Promise((resolve) => (this.#resolveClosed = resolve));

  /** Made by `Consumer.fetch` and `Consumer.consume`; with `callback`, messages go to it instead of an iterator. */
  constructor(raw: RawConsumerMessages, callback?: ConsumerCallbackFn) {
    this.#raw = raw;
    if (callback !== undefined) {
      if (typeof callback !== "function") throw new InvalidArgumentError("callback: expected a function");
      this.#callback = callback;
      void this.#deliver(callback);
    }
  }

  /** Messages handed to the iterator (or the callback) so far. */
  getProcessed(): number {
    return this.#processed;
  }

  /** Messages received and not yet handed to the iterator (or the callback). */
  getPending(): number {
    const batch = this.#batch;
    const inBatch = batch === null ? 0 : batch.length - this.#index;
    return inBatch + (this.#done ? 0 : this.#raw.pending());
  }

  /**
   * natsjet: messages a push consumer's reader dropped because it fell
   * behind the connection's subscription bounds (`subscriptionCapacity`,
   * `subscriptionCapacityBytes`), as the `slowConsumer` status reports them.
   * A consumer with acks redelivers them after `ack_wait`; an ack-none one
   * loses them. Always 0 for pull and ordered consumers.
   */
  getDropped(): number {
    return this.#raw.dropped();
  }

  /** Messages received so far: those handed out and those pending. */
  getReceived(): number {
    return this.#processed + this.getPending();
  }

  /**
   * Stops pulling. Messages already received are still delivered, then the
   * iteration ends, or throws `err` when given (`closed()` resolves with
   * it), as in nats.js. Breaking out of a `for await` loop stops too.
   */
  stop(err?: Error): void {
    if (this.#done) return;
    this.#stopError ??= err;
    this.#raw.stop();
  }

  /**
   * Stops pulling and resolves once the server has every ack sent so far.
   * Messages already received are still delivered to the iterator.
   */
  async close(): Promise<void> {
    if (!this.#done) await this.#raw.drain();
  }

  /**
   * Resolves when the messages ended: with the error that ended them, if
   * any (a `NatsError`, or what the callback threw).
   */
  closed(): Promise<void | Error> {
    return this.#closed;
  }

  /** Consumer events until the messages end. One `status()` iterator at a time. */
  async *status(): AsyncIterable<ConsumerStatus> {
    if (this.#watched) throw new InvalidOperationError("status() is already being iterated");
    this.#watched = true;
    try {
      for (let e = await this.#raw.nextEvent(); e; e = await this.#raw.nextEvent()) yield consumerStatus(e);
    } finally {
      this.#watched = false;
    }
  }

  /**
   * The messages, in order, until they end; throws an `InvalidOperationError`
   * when a callback receives them, and the error that ended them.
   */
  [Symbol.asyncIterator](): AsyncIterator<JsMsg> {
    if (this.#callback) throw new InvalidOperationError("messages go to the callback: they cannot be iterated");
    // A plain iterator, not an async generator: a message already read from
    // wasm costs one resolved promise, not a generator's round of them.
    return {
      next: () => {
        const batch = this.#batch;
        // With `#admit`, a batch that leaves nothing out, once asked.
        const plain = this.#admit === undefined || (this.#admitted === batch && this.#skipped === undefined);
        if (batch !== null && this.#index < batch.length && plain) {
          this.#processed++;
          return Promise.resolve({ done: false, value: batch.msg(this.#index++) });
        }
        return this.#nextSlow();
      },
      return: () => {
        // Left early (break, return, throw): nothing more will be read.
        this.#leave();
        return Promise.resolve(DONE);
      },
    };
  }

  /** The next message once a batch came from wasm, `DONE` once ended. */
  async #nextSlow(): Promise<IteratorResult<JsMsg>> {
    try {
      for (;;) {
        const batch = this.#batch;
        if (batch !== null && this.#index < batch.length) {
          const i = this.#index++;
          const admit = this.#admit;
          if (admit !== undefined && this.#leftOut(admit, batch, i)) continue;
          this.#processed++;
          return { done: false, value: batch.msg(i) };
        }
        if (this.#done) return DONE;
        await this.#read();
      }
    } catch (e) {
      this.#leave();
      throw e;
    }
  }

  /**
   * @internal The messages without those `admit` leaves out (see
   * `#admit`): what `CheckpointLedger.filter` gives for natsjet's messages,
   * one call to the ledger per batch instead of one per message.
   */
  admitted(admit: (batch: DeliveredBatch, from: number) => Uint32Array | undefined): AsyncIterable<JsMsg> {
    return {
      [Symbol.asyncIterator]: () => {
        const iterator = this[Symbol.asyncIterator]();
        this.#admit = admit;
        return iterator;
      },
    };
  }

  /** Whether `admit` (`#admit`) leaves message `i` of `batch` out (asked at the batch's first message reached). */
  #leftOut(admit: (batch: DeliveredBatch, from: number) => Uint32Array | undefined, batch: DeliveredBatch, i: number): boolean {
    if (this.#admitted !== batch) {
      this.#admitted = batch;
      this.#skipped = admit(batch, i);
      this.#skippedAt = 0;
    }
    const skipped = this.#skipped;
    if (skipped === undefined || skipped[this.#skippedAt] !== i) return false;
    this.#skippedAt++;
    return true;
  }

  /** Messages to `callback` as they come, a batch per read from wasm. */
  async #deliver(callback: ConsumerCallbackFn): Promise<void> {
    try {
      while (!this.#done) {
        await this.#read();
        const batch = this.#batch;
        while (batch !== null && this.#index < batch.length) {
          this.#processed++;
          callback(batch.msg(this.#index++));
        }
      }
    } catch (e) {
      // The callback threw, or a terminal status ended the messages.
      this.stop();
      this.#end(e instanceof Error ? e : new Error(String(e)));
      this.#batch = null;
    }
  }

  /** Reads the next batch from wasm into `#batch`; ends the messages when there is none. */
  #read(): Promise<void> {
    return (this.#reading ??= this.#readBatch().finally(() => (this.#reading = null)));
  }

  async #readBatch(): Promise<void> {
    try {
      const delivered = await this.#raw.nextBatch(BATCH);
      if (delivered) {
        this.#batch = new DeliveredBatch(delivered);
        this.#index = 0;
      } else {
        this.#batch = null;
        if (this.#stopError) throw this.#stopError;
        this.#end(undefined);
      }
    } catch (e) {
      this.#batch = null;
      this.#end(e as Error);
      throw e;
    }
  }

  /** The iterator is done with the messages. */
  #leave(): void {
    this.stop();
    this.#end(undefined);
    this.#batch = null;
  }

  #end(error: Error | undefined): void {
    if (this.#done) return;
    this.#done = true;
    this.#resolveClosed(error);
  }
}

function consumerStatus([type, value, text]: RawConsumerEvent): ConsumerStatus {
  const code = value ?? 0;
  const description = text ?? "";
  switch (type) {
    case "heartbeats_missed":
      return { type, count: code };
    case "reset":
      return { type, reason: text as "leadership_change" | "reconnected" | "pulls_expired" };
    case "warning":
    case "terminal":
    case "consumer_deleted":
      return { type, code, description };
    case "pinned":
      return { type, id: description };
    case "ordered_consumer_recreated":
      return { type, name: description };
    case "fetch_done":
      return value === undefined ? { type, reason: text as FetchEnd } : { type, reason: "status", code, description };
    default:
      return { type: type as "pin_id_mismatch" | "drained" };
  }
}
