/**
 * Key-Value entries unpacked from the batches the wasm side sends
 * (`RawEntries`): each entry's key and value are slices of one
 * `Uint8Array`, its numbers seven slots of one `Float64Array`.
 */
import type { RawEntries } from "../raw.js";
import { FIELDS, caughtUpAt } from "../reader.js";
import type { KvEntry, KvWatchEntry } from "./types.js";

const OPERATIONS = ["PUT", "DEL", "PURGE"] as const;
const decoder = new TextDecoder();

/** The key of entry `i`. */
export function keyAt([bytes, meta]: RawEntries, i: number): string {
  return decoder.decode(bytes.subarray(i === 0 ? 0 : meta[i * FIELDS - FIELDS + 1]!, meta[i * FIELDS]!));
}

class Entry implements KvEntry {
  constructor(
    readonly bucket: string,
    readonly key: string,
    readonly value: Uint8Array,
    readonly revision: number,
    readonly delta: number,
    readonly created: Date,
    readonly operation: KvEntry["operation"],
    readonly length: number,
  ) {}

  get rawKey(): string {
    return this.key;
  }

  json<T>(): T {
    return JSON.parse(this.string()) as T;
  }

  string(): string {
    return decoder.decode(this.value);
  }
}

class WatchEntry extends Entry implements KvWatchEntry {
  isUpdate = false;
}

function fill<E extends Entry>(make: new (...args: ConstructorParameters<typeof Entry>) => E, bucket: string, batch: RawEntries, i: number): E {
  const [bytes, meta] = batch;
  const m = i * FIELDS;
  const value = bytes.subarray(meta[m]!, meta[m + 1]!);
  const operation = OPERATIONS[meta[m + 6]! & 3] ?? "PUT";
  return new make(bucket, keyAt(batch, i), value, meta[m + 2]!, meta[m + 3]!, new Date(meta[m + 4]!), operation, meta[m + 5]!);
}

/** Entry `i` of a get. */
export function entryAt(bucket: string, batch: RawEntries, i: number): KvEntry {
  return fill(Entry, bucket, batch, i);
}

/** Entry `i` of a watch (`isUpdate` as the batch says) or of a history (`isUpdate` false). */
export function watchEntryAt(bucket: string, batch: RawEntries, i: number, watch: boolean): KvWatchEntry {
  const entry = fill(WatchEntry, bucket, batch, i);
  entry.isUpdate = watch && caughtUpAt(batch, i);
  return entry;
}
