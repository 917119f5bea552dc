/**
 * `EntryReader`: a Key-Value watch, history or key listing (nats.js: a
 * `QueuedIterator`) read from wasm (`RawReader`) a batch at a time. The
 * ordered consumer underneath (its recreation after gaps, missed heartbeats
 * and reconnects, its flow control) runs in Rust, in the connection's task;
 * a watch's `caughtUp()` resolves when the iteration, having handed out the
 * last entry it had to catch up with, asks for the next (a `for await` body
 * is done with it).
 */
import type { RawEntries, RawReader } from "./raw.js";

/** Entries taken from wasm per crossing, at most. */
const BATCH = 256;
/** Numbers per entry in a batch's `meta` (see `RawEntries`). */
export const FIELDS = 7;
const CAUGHT_UP = 4;

/** Entries in `batch`. */
export function count(batch: RawEntries): number {
  return batch[1].length / FIELDS;
}

/** Whether entry `i` of a watch's batch is one it caught up with. */
export function caughtUpAt(batch: RawEntries, i: number): boolean {
  return (batch[1][i * FIELDS + 6]! & CAUGHT_UP) !== 0;
}

/** An iteration fed from the server (nats-core's `QueuedIterator`). */
export interface QueuedIterator<T> extends AsyncIterable<T> {
  /** Stops: what arrived is still handed out, then the iteration ends (throwing `err` if given). */
  stop(err?: Error): void;
  /** Items handed out so far. */
  getProcessed(): number;
  /** Items received and not handed out yet. */
  getPending(): number;
  /** Items received so far. */
  getReceived(): number;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

export class EntryReader<T> implements QueuedIterator<T> {
  readonly #raw: RawReader;
  readonly #item: (batch: RawEntries, i: number) => T;
  /** The batch being handed out, and the index of its next entry. */
  #batch: RawEntries | null = null;
  #index = 0;
  /** The read from wasm under way: one at a time. */
  #reading: Promise<void> | null = null;
  #processed = 0;
  #done = false;
  /** Thrown once what was received is out: given to `stop()`, or the error that ended the read. */
  #error: Error | undefined;
  /** The last entry a watch had to catch up with is out: `caughtUp()` resolves when the next is asked for. */
  #caughtUpOut = false;
  #resolveCaughtUp!: () => void;
  readonly #caughtUp = new Promise<void>((resolve) => (this.#resolveCaughtUp = resolve));

  /** Made by the stores' watches and listings; `item` makes what the iteration yields. */
  constructor(raw: RawReader, item: (batch: RawEntries, i: number) => T) {
    this.#raw = raw;
    this.#item = item;
    if (raw.seenCurrent) this.#resolveCaughtUp();
  }

  /** A watch: resolves once every entry that existed when it started has been handed out (see `KvWatcher`). */
  caughtUp(): Promise<void> {
    return this.#caughtUp;
  }

  stop(err?: Error): void {
    if (this.#caughtUpOut) this.#resolveCaughtUp();
    this.#error ??= err;
    if (!this.#done) this.#raw.stop();
  }

  getProcessed(): number {
    return this.#processed;
  }

  getPending(): number {
    return this.#batch === null ? 0 : count(this.#batch) - this.#index;
  }

  getReceived(): number {
    return this.#processed + this.getPending();
  }

  /** Iterators share the position; leaving a `for await` early stops the read, as in nats.js. */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.#next(),
      return: () => {
        this.stop();
        return Promise.resolve(DONE);
      },
    };
  }

  async #next(): Promise<IteratorResult<T>> {
    // The loop is done with the last entry it had to catch up with.
    if (this.#caughtUpOut) this.#resolveCaughtUp();
    for (;;) {
      const batch = this.#batch;
      if (batch !== null && this.#index < count(batch)) {
        const i = this.#index++;
        this.#processed++;
        this.#caughtUpOut ||= caughtUpAt(batch, i) || (this.#index === count(batch) && batch[2]);
        return { done: false, value: this.#item(batch, i) };
      }
      if (this.#done) {
        const error = this.#error;
        this.#error = undefined;
        if (error) throw error;
        return DONE;
      }
      await (this.#reading ??= this.#read().finally(() => (this.#reading = null)));
    }
  }

  /** The next batch from wasm into `#batch`, or the end. */
  async #read(): Promise<void> {
    try {
      const batch = await this.#raw.nextBatch(BATCH);
      this.#batch = batch;
      this.#index = 0;
      if (batch === null) this.#done = true;
      // Only left-out deletes came, and the watch caught up on them.
      else if (count(batch) === 0 && batch[2]) this.#resolveCaughtUp();
    } catch (e) {
      this.#batch = null;
      this.#done = true;
      this.#error ??= e as Error;
    }
  }
}
