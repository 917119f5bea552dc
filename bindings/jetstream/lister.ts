/** nats.js's `Lister`: the items of a listing, fetched a page at a time as they are read. */
import type { RawLister } from "../raw.js";

export class Lister<T> implements AsyncIterable<T> {
  readonly #raw: RawLister;

  /** Made by the `list` and `names` calls. */
  constructor(raw: RawLister) {
    this.#raw = raw;
  }

  /** The next page's items; empty once every page was read. */
  async next(): Promise<T[]> {
    const page = await this.#raw.next();
    if (page === null) return [];
    const { streams, consumers } = JSON.parse(page) as { streams?: T[] | null; consumers?: T[] | null };
    return streams ?? consumers ?? [];
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (let items = await this.next(); items.length > 0; items = await this.next()) yield* items;
  }
}
