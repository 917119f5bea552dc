/**
 * Key-Value entries unpacked from the batches the wasm side sends
 * (`RawEntries`): each entry's key and value are slices of one
 * `Uint8Array`, its numbers seven slots of one `Float64Array`.
 */
import type { RawEntries } from "../raw.js";
import { FIELDS, caughtUpAt } from "../reader.js";
import { byToken, type KvCodecs } from "./codec.js";
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
    readonly rawKey: string,
  ) {}

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

/** The key of entry `i`, decoded by `codec` if there is one. */
export function decodedKeyAt(batch: RawEntries, i: number, codec?: KvCodecs): string {
  const key = keyAt(batch, i);
  return codec ? byToken(key, codec.key.decode) : key;
}

function fill<E extends Entry>(
  make: new (...args: ConstructorParameters<typeof Entry>) => E,
  bucket: string,
  batch: RawEntries,
  i: number,
  codec?: KvCodecs,
): E {
  const [bytes, meta] = batch;
  const m = i * FIELDS;
  const stored = bytes.subarray(meta[m]!, meta[m + 1]!);
  const value = codec ? codec.value.decode(stored) : stored;
  const operation = OPERATIONS[meta[m + 6]! & 3] ?? "PUT";
  const [created, length] = [new Date(meta[m + 4]!), meta[m + 5]!];
  const key = decodedKeyAt(batch, i, codec);
  return new make(bucket, key, value, meta[m + 2]!, meta[m + 3]!, created, operation, length, keyAt(batch, i));
}

/** Entry `i` of a get. */
export function entryAt(bucket: string, batch: RawEntries, i: number, codec?: KvCodecs): KvEntry {
  return fill(Entry, bucket, batch, i, codec);
}

/** Entry `i` of a watch (`isUpdate` as the batch says) or of a history (`isUpdate` false). */
export function watchEntryAt(bucket: string, batch: RawEntries, i: number, watch: boolean, codec?: KvCodecs): KvWatchEntry {
  const entry = fill(WatchEntry, bucket, batch, i, codec);
  entry.isUpdate = watch && caughtUpAt(batch, i);
  return entry;
}
