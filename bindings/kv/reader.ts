/**
 * `KvReader`: a watch, history or key listing (nats.js: a `QueuedIterator`)
 * read from wasm a batch at a time. The ordered consumer underneath (its
 * recreation after gaps, missed heartbeats and reconnects, its flow
 * control) runs in Rust, in the connection's task; a watch's `caughtUp()`
 * resolves as the iteration hands out the last entry it had to catch up with.
 */
import type { RawKvEntries, RawKvReader } from "../raw.js";
import { InvalidOperationError } from "../errors.js";
import { caughtUpAt, count } from "./entries.js";
import type { KvWatcher, KvWatchEntry, QueuedIterator } from "./types.js";

/** Entries taken from wasm per crossing, at most. */
const BATCH = 256;

export class KvReader<T> implements QueuedIterator<T> {
  readonly #raw: RawKvReader;
  readonly #item: (batch: RawKvEntries, i: number) => T;
  #batch: RawKvEntries | null = null;
  #index = 0;
  #processed = 0;
  #iterated = false;
  #stopError: Error | undefined;
  #resolveCaughtUp!: () => void;
  readonly #caughtUp = new Promise<void>((resolve) => (this.#resolveCaughtUp = resolve));

  /** Made by `kv.watch`, `kv.history` and `kv.keys`; `item` makes what the iteration yields. */
  constructor(raw: RawKvReader, item: (batch: RawKvEntries, i: number) => T) {
    this.#raw = raw;
    this.#item = item;
    if (raw.seenCurrent) this.#resolveCaughtUp();
  }

  /** A watch: resolves once every entry that existed when it started has been handed out (see `KvWatcher`). */
  caughtUp(): Promise<void> {
    return this.#caughtUp;
  }

  stop(err?: Error): void {
    this.#stopError ??= err;
    this.#raw.stop();
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

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) throw new InvalidOperationError("a Key-Value iterator can be iterated once");
    this.#iterated = true;
    return this.#items();
  }

  async *#items(): AsyncGenerator<T> {
    try {
      for (let batch = await this.#raw.nextBatch(BATCH); batch; batch = await this.#raw.nextBatch(BATCH)) {
        const n = count(batch);
        // Only left-out deletes came, and the watch caught up on them.
        if (n === 0 && batch[2]) this.#resolveCaughtUp();
        this.#batch = batch;
        for (this.#index = 0; this.#index < n; ) {
          const i = this.#index++;
          const item = this.#item(batch, i);
          this.#processed++;
          if (caughtUpAt(batch, i) || (i === n - 1 && batch[2])) this.#resolveCaughtUp();
          yield item;
        }
        this.#batch = null;
      }
      if (this.#stopError) throw this.#stopError;
    } finally {
      this.#batch = null;
      this.#raw.stop();
    }
  }
}

/** The type `kv.watch` resolves to. */
export type Watcher = KvReader<KvWatchEntry> & KvWatcher;
