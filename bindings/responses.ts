/**
 * The replies of `requestMany`, shaped like nats.js's: an `AsyncIterable<Msg>`
 * that ends by the request's strategy, or throws the error that ended it
 * (`NO_RESPONDERS`, `CLOSED`) after the replies before it. The end rules live
 * in Rust; replies cross from wasm in batches (`nextBatch`).
 */
import type { RawResponses, RequestStrategy } from "./raw_core.js";
import { InvalidOperationError } from "./errors.js";
import type { MsgHdrs, TraceOptions } from "./headers.js";
import { unpack, type Msg, type Publisher } from "./msg.js";

export type { RequestStrategy };

/** nats.js's `RequestManyOptions` (pass a `Partial` of it). */
export interface RequestManyOptions extends TraceOptions {
  /** When the request ends besides `maxWait` (default `"timer"`). */
  strategy: RequestStrategy;
  /** The upper bound of the request, in milliseconds (default 1000). */
  maxWait: number;
  /** Headers sent with the request. */
  headers?: MsgHdrs;
  /** `"count"`: end after this many replies. */
  maxMessages?: number;
  /** Replies come to a subscription of their own instead of the shared request inbox. */
  noMux?: boolean;
  /** `"stall"`: end when no reply came for this many milliseconds after the last (default 300). */
  stall?: number;
}

/** Replies taken from wasm per crossing, at most. */
const BATCH = 1024;

/** The replies of a `requestMany`, as they arrive: iterate them. */
export class Responses implements AsyncIterable<Msg> {
  readonly #raw: RawResponses;
  readonly #publisher: Publisher;
  #processed = 0;
  #iterated = false;
  #freed = false;

  /** Made by `requestMany`. */
  constructor(raw: RawResponses, publisher: Publisher) {
    this.#raw = raw;
    this.#publisher = publisher;
  }

  /** Replies handed to the iterator so far. */
  getProcessed(): number {
    return this.#processed;
  }

  /** Ends the request now; an iteration under way ends after the replies already received. */
  stop(): void {
    if (!this.#freed) this.#raw.stop();
  }

  /**
   * The replies, until the strategy ends them (iterable once); throws
   * `NO_RESPONDERS` when nobody listens, `CLOSED` when the connection closes
   * first.
   */
  async *[Symbol.asyncIterator](): AsyncIterator<Msg> {
    if (this.#iterated) throw new InvalidOperationError("the replies of a request can be iterated once");
    this.#iterated = true;
    const raw = this.#raw;
    try {
      for (let batch = await raw.nextBatch(BATCH); batch; batch = await raw.nextBatch(BATCH)) {
        for (const msg of unpack(batch, 0, this.#publisher)) {
          this.#processed++;
          yield msg;
        }
      }
    } finally {
      this.#freed = true;
      raw.free();
    }
  }
}
