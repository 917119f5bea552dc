/**
 * `Bucket`: one Key-Value bucket, shaped like nats.js's `KV`, over the Rust
 * store in wasm (`RawKv`): key and bucket rules, subjects, operations,
 * create over deletes and watches all live there; this adapts arguments
 * and unpacks entries.
 */
import type { PurgeResponse, RawEntries, RawKv, StreamInfo } from "../raw.js";
import { InvalidArgumentError } from "../errors.js";
import { encode, type Payload } from "../msg.js";
import { millis } from "../util.js";
import { request } from "../jetstream/api.js";
import type { JetStreamClient } from "../jetstream/client.js";
import { byToken, type KvCodecs } from "./codec.js";
import { decodedKeyAt, entryAt, watchEntryAt } from "./entries.js";
import { EntryReader } from "../reader.js";
import { str } from "../names.js";
import type {
  KV,
  KvDeleteOptions,
  KvEntry,
  KvPurgeOptions,
  KvPutOptions,
  KvStatus,
  KvWatchEntry,
  KvWatcher,
  KvWatchOptions,
  QueuedIterator,
} from "./types.js";

const EMPTY = new Uint8Array(0);

export class Bucket implements KV {
  /** The bucket's name. */
  readonly bucket: string;
  readonly #raw: RawKv;
  readonly #js: JetStreamClient;
  /** The options' `codec`, if any. */
  readonly #codec?: KvCodecs;

  /** Made by `kvm.create` and `kvm.open`. */
  constructor(bucket: string, raw: RawKv, js: JetStreamClient, codec?: KvCodecs) {
    this.bucket = bucket;
    this.#raw = raw;
    this.#js = js;
    this.#codec = codec;
  }

  /** A key (or a filter) as stored. */
  #key(k: string): string {
    const key = str(k, "key");
    return this.#codec ? byToken(key, this.#codec.key.encode) : key;
  }

  /** One key or several, as stored, as the wasm takes them. */
  #keys(k: string | string[]): string[] {
    return (Array.isArray(k) ? k : [k]).map((key) => this.#key(key));
  }

  /** A value as stored. */
  #value(data: Payload): Uint8Array {
    return this.#codec ? this.#codec.value.encode(data) : encode(data);
  }

  async create(k: string, data: Payload, markerTTL?: string): Promise<number> {
    // The core's create: over a delete or purge marker, it publishes again expecting the marker.
    const created = this.#raw.create(this.#key(k), this.#value(data), markerTTL);
    try {
      return ((await created.next(1)) as number[])[0]!;
    } finally {
      created.free();
    }
  }

  update(k: string, data: Payload, version: number, timeout?: number): Promise<number> {
    // nats.js throws here, before any promise.
    if (!(version > 0)) throw new InvalidArgumentError("update: the version must be greater than 0");
    return this.put(k, data, { previousSeq: version, timeout });
  }

  async put(k: string, data: Payload, opts: Partial<KvPutOptions> = {}): Promise<number> {
    return this.#write("put", this.#key(k), this.#value(data), opts.previousSeq, undefined, opts.timeout);
  }

  /** A write Rust makes into a subject and headers, sent with the JetStream API's publish; the revision. */
  async #write(
    op: "put" | "delete" | "purge",
    key: string,
    value: Uint8Array,
    previous?: number,
    ttl?: string,
    timeout?: number,
  ): Promise<number> {
    const [subject, ...headers] = this.#raw.write(op, key, value.length, previous, ttl);
    const options = { headers: headers.length ? headers : undefined, timeout: timeout || undefined };
    return (await this.#js.raw.publish(subject, value, options))[1];
  }

  async get(k: string, opts?: { revision: number }): Promise<KvEntry | null> {
    const found = (await this.#raw.get(this.#key(k), opts?.revision)) as RawEntries | null;
    return found && entryAt(this.bucket, found, 0, this.#codec);
  }

  delete(k: string, opts?: Partial<KvDeleteOptions>): Promise<void> {
    return this.#remove(k, false, opts);
  }

  purge(k: string, opts?: Partial<KvPurgeOptions>): Promise<void> {
    return this.#remove(k, true, opts);
  }

  /** A delete or purge marker; with wildcards, one on every matching key (as nats.js, without `opts`). */
  async #remove(k: string, purge: boolean, opts?: Partial<KvPurgeOptions>): Promise<void> {
    const op = purge ? "purge" : "delete";
    if (!str(k, "key").split(".").some((t) => t === "*" || t === ">")) {
      // nats.js: a previousSeq of 0 expects nothing.
      await this.#write(op, this.#key(k), EMPTY, opts?.previousSeq || undefined, purge ? opts?.ttl : undefined);
      return;
    }
    const removed: Promise<unknown>[] = [];
    for await (const key of await this.keys(k)) removed.push(this.#write(op, this.#key(key), EMPTY));
    await Promise.all(removed);
  }

  async watch(opts: KvWatchOptions = {}): Promise<KvWatcher> {
    const { key = ">", include, ignoreDeletes, headers_only, resumeFromRevision } = opts;
    const raw = await this.#raw.read(["watch", include ?? "", ...this.#keys(key)], [+(ignoreDeletes === true), +(headers_only === true), resumeFromRevision ?? 0]);
    return new EntryReader(raw, (batch, i) => watchEntryAt(this.bucket, batch, i, true, this.#codec));
  }

  async history(opts: { key?: string | string[]; headers_only?: boolean } = {}): Promise<QueuedIterator<KvWatchEntry>> {
    const raw = await this.#raw.read(["history", "", ...this.#keys(opts.key ?? ">")], [0, +(opts.headers_only === true)]);
    return new EntryReader(raw, (batch, i) => watchEntryAt(this.bucket, batch, i, false, this.#codec));
  }

  async keys(filter: string | string[] = ">"): Promise<QueuedIterator<string>> {
    const raw = await this.#raw.read(["keys", "", ...this.#keys(filter)], []);
    return new EntryReader(raw, (batch, i) => decodedKeyAt(batch, i, this.#codec));
  }

  /** The bucket's state and settings, from its stream's info. */
  async status(): Promise<KvStatus> {
    return kvStatus(this.bucket, await request<StreamInfo>(this.#js.raw, "STREAM.INFO", `KV_${this.bucket}`));
  }

  async purgeDeletes(olderMillis = 30 * 60 * 1000): Promise<PurgeResponse> {
    return { success: true, purged: await this.#raw.purgeDeletes(olderMillis) };
  }

  async destroy(): Promise<boolean> {
    return (await request<{ success: boolean }>(this.#js.raw, "STREAM.DELETE", `KV_${this.bucket}`)).success;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** nats.js's `KvStatus` of bucket `bucket`, from its stream's info. */
export function kvStatus(bucket: string, si: StreamInfo): KvStatus {
  const c = si.config;
  return {
    bucket,
    values: si.state.messages,
    history: c.max_msgs_per_subject ?? 1,
    ttl: millis(c.max_age ?? 0),
    markerTTL: millis(c.subject_delete_marker_ttl ?? 0),
    storage: c.storage ?? "file",
    replicas: c.num_replicas ?? 1,
    description: c.description ?? "",
    max_bytes: c.max_bytes ?? -1,
    maxValueSize: c.max_msg_size ?? -1,
    placement: c.placement ?? { cluster: "", tags: [] },
    republish: c.republish ?? { src: "", dest: "" },
    mirror: c.mirror,
    sources: c.sources,
    compression: (c.compression ?? "none") !== "none",
    metadata: c.metadata ?? {},
    streamInfo: si,
    size: si.state.bytes,
  };
}
