/** nats.js's `Lister`: the items of a listing, fetched a page at a time as they are read. */
import type { RawLister } from "../raw.js";

/**
 * The items of a listing (nats.js's `Lister`), fetched a page at a time as
 * they are read: iterate it, or call `next()` for a page.
 */
export class Lister<T> implements AsyncIterable<T> {
  readonly #raw: RawLister;
  readonly #pick: (items: unknown[]) => T[];

  /** Made by the `list` and `names` calls; `pick` turns a page's items into the listed ones (`kvm.list`). */
  constructor(raw: RawLister, pick: (items: unknown[]) => T[] = (items) => items as T[]) {
    this.#raw = raw;
    this.#pick = pick;
  }

  /** The next page's items; empty once every page was read. */
  async next(): Promise<T[]> {
    for (let page = await this.#raw.next(); page !== null; page = await this.#raw.next()) {
      const { streams, consumers } = JSON.parse(page) as { streams?: unknown[] | null; consumers?: unknown[] | null };
      const items = this.#pick(streams ?? consumers ?? []);
      // A page of no buckets is no end of the listing.
      if (items.length > 0) return items;
    }
    return [];
  }

  /** Every item, page after page. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (let items = await this.next(); items.length > 0; items = await this.next()) yield* items;
  }
}
