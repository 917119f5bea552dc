/**
 * `Queue`: a `QueuedIterator` fed by `push`, for an endpoint's requests and
 * a discovery call's replies. `stop` ends it after what was pushed before.
 */
import { InvalidOperationError } from "../errors.js";
import type { QueuedIterator } from "../reader.js";

export class Queue<T> implements QueuedIterator<T> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;
  #done = false;
  #error: Error | undefined;
  #processed = 0;
  #iterated = false;

  /**
   * @param spent told the milliseconds the loop's body took over each item
   * @param left called once the iteration ends (its loop left, or it was stopped)
   * @param callback the items go to a handler: iterating throws
   */
  constructor(
    private readonly spent?: (ms: number) => void,
    private readonly left?: () => void,
    private readonly callback = false,
  ) {}

  push(item: T): void {
    if (this.#done) return;
    this.#items.push(item);
    this.#wake?.();
  }

  stop(err?: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.#error = err;
    this.#wake?.();
  }

  getProcessed(): number {
    return this.#processed;
  }

  getPending(): number {
    return this.#items.length;
  }

  getReceived(): number {
    return this.#processed + this.#items.length;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.callback) throw new InvalidOperationError("iterator cannot be used when a callback is registered");
    if (this.#iterated) throw new InvalidOperationError("iterator is already yielding");
    this.#iterated = true;
    try {
      for (;;) {
        if (this.#items.length > 0) {
          this.#processed++;
          const start = performance.now();
          yield this.#items.shift()!;
          this.spent?.(performance.now() - start);
        } else if (this.#done) {
          if (this.#error) throw this.#error;
          return;
        } else {
          await new Promise<void>((resolve) => (this.#wake = resolve));
        }
      }
    } finally {
      this.stop();
      this.left?.();
    }
  }
}
