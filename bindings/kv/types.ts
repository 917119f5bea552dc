/**
 * The types of natsjet's Key-Value API, named and shaped as nats.js 3.4's
 * `@nats-io/kv` has them (option and status fields as nats.js spells them;
 * durations in milliseconds, TTLs of keys as Go duration strings).
 */
import type { Placement, PurgeResponse, Republish, StreamInfo, StreamSource } from "../raw.js";
import type { StorageType } from "../jetstream/enums.js";
import type { Payload } from "../msg.js";
import type { KvCodecs } from "./codec.js";
import type { QueuedIterator } from "../reader.js";

export type { QueuedIterator };

/** What a watch delivers before the changes made while it runs (nats.js's values). */
export const KvWatchInclude = {
  /** The latest entry of every matching key (the default). */
  LastValue: "",
  /** Every kept revision of every matching key. */
  AllHistory: "history",
  /** Nothing: only changes made after the watch started. */
  UpdatesOnly: "updates",
} as const;
export type KvWatchInclude = (typeof KvWatchInclude)[keyof typeof KvWatchInclude];

/** A key's value at one revision; deletes (`DEL`) and purges (`PURGE`) are entries too. */
export type KvEntry = {
  /** The bucket it is in. */
  bucket: string;
  /** The key (decoded by the bucket's key codec, if any). */
  key: string;
  /** Empty for `DEL` and `PURGE`, and for `headers_only` reads. */
  value: Uint8Array;
  /** When the server stored it (millisecond precision). */
  created: Date;
  /** The stream sequence: unique and rising across the bucket. */
  revision: number;
  /** Newer entries a watch or history has yet to deliver (0 for a get). */
  delta?: number;
  /** What the entry is: a value (`PUT`), a delete or a purge. */
  operation: "PUT" | "DEL" | "PURGE";
  /** The value's size, also when only headers were read. */
  length: number;
  /** The key as stored (`key` is it decoded by the bucket's key codec). */
  rawKey: string;
  /** `value` parsed as JSON. */
  json<T>(): T;
  /** `value` decoded as UTF-8. */
  string(): string;
};

/** A watch's or history's entry. */
export type KvWatchEntry = KvEntry & {
  /**
   * A watch: this entry is the last of those that existed when it started,
   * or a change made since (nats.js's meaning). Always `false` in a history.
   */
  isUpdate: boolean;
};

/** A bucket's settings (nats.js's `KvLimits`). */
export type KvLimits = {
  /** The bucket's description. */
  description: string;
  /** Replicas of the bucket's stream (1, 3 or 5). */
  replicas: number;
  /** Values kept per key, 1 to 64 (1). */
  history: number;
  /** Size of the whole bucket in bytes (-1: unlimited). */
  max_bytes: number;
  /** Largest value in bytes (-1: the server's limit). */
  maxValueSize: number;
  /** How long a value lives, in ms (0: forever). */
  ttl: number;
  /**
   * How long the server keeps a marker, in ms, when a limit or a TTL removes
   * a key (server 2.11); also allows per-key TTLs (`create(k, v, "10s")`).
   */
  markerTTL: number;
  /** Where the server keeps the bucket: file (the default) or memory. */
  storage: StorageType;
  /** Where the stream's replicas go. */
  placement: Placement;
  /** Republishes every change to another subject. */
  republish: Republish;
  /** A mirror of another bucket (its name, or its stream's `KV_` name): reads here, writes go to it. */
  mirror?: StreamSource;
  /** Buckets whose keys flow into this one, under its name. */
  sources?: StreamSource[];
  /** S2 compression of the stored values. */
  compression?: boolean;
};

/** A bucket's state and settings, from its stream's info. */
export type KvStatus = KvLimits & {
  /** The bucket's name. */
  bucket: string;
  /** Messages stored: values, deletes and purges of every kept revision. */
  values: number;
  /** The info of the bucket's stream (`KV_<bucket>`). */
  streamInfo: StreamInfo;
  /** Bytes stored. */
  size: number;
  /** The bucket's metadata. */
  metadata?: Record<string, string>;
  /** 0 when the bucket has no markers. */
  markerTTL: number;
};

/** Options of `kvm.create` and `kvm.open` (nats.js's `KvOptions`). */
export type KvOptions = KvLimits & {
  /** Key and value codecs this handle applies (none by default). */
  codec: KvCodecs;
  /** Milliseconds to wait for the server in this handle's calls (the JetStream timeout). */
  timeout: number;
  /** The bucket's stream: only `KV_<bucket>` is accepted. */
  streamName: string;
  /** `kvm.create` only opens the bucket, as `kvm.open`. */
  bindOnly: boolean;
  /** `false`: this handle reads from the stream's leader instead of any replica. */
  allow_direct: boolean;
  /** The bucket's metadata (set when it is created). */
  metadata?: Record<string, string>;
};

/** Options of `watch` (nats.js's `KvWatchOptions`). */
export type KvWatchOptions = {
  /** A key, or keys, with `*` and `>` as in subjects (default `">"`: all). */
  key?: string | string[];
  /** Entries without their values (`length` still tells their size). */
  headers_only?: boolean;
  /** Leave out deletes and purges. */
  ignoreDeletes?: boolean;
  /** What comes before the changes (`KvWatchInclude.LastValue`). */
  include?: KvWatchInclude;
  /** Start at this revision instead: for watchers that resume where they were. */
  resumeFromRevision?: number;
};

/** Options of `put` (pass a `Partial` of it). */
export type KvPutOptions = {
  /** Only if this is the key's last revision (0: the key has none). */
  previousSeq: number;
  /** Milliseconds to wait for the ack. */
  timeout: number;
};

/** Options of `delete` (pass a `Partial` of it). */
export type KvDeleteOptions = {
  /** Only if this is the key's last revision. */
  previousSeq: number;
};

/** Options of `purge` (pass a `Partial` of it). */
export type KvPurgeOptions = KvDeleteOptions & {
  /** The purge marker lives this long (`"10s"`, `"1h"`; the bucket needs `markerTTL`). */
  ttl: string;
};

/** A watch: nats.js's iterator, and natsjet's `caughtUp()`. */
export interface KvWatcher extends QueuedIterator<KvWatchEntry> {
  /**
   * Resolves once the iteration is done with every entry that existed when
   * the watch started (it asked for the next one after the last, or
   * stopped), deletes it ignores included: at once when there were none (an
   * empty bucket, no matching key, `UpdatesOnly`). It resolves as the
   * iteration reads, not before.
   */
  caughtUp(): Promise<void>;
}

/** Reads of a bucket (nats.js's `RoKV`). */
export type RoKV = {
  /** The latest entry of `k` (or the one at `opts.revision`), a `DEL` or `PURGE` one included; `null` if none. */
  get(k: string, opts?: { revision: number }): Promise<KvEntry | null>;
  /** Every kept revision of `opts.key` (default all keys), oldest first, then the end. */
  history(opts?: { key?: string | string[]; headers_only?: boolean }): Promise<QueuedIterator<KvWatchEntry>>;
  /** Entries as they change; see `KvWatchOptions`. */
  watch(opts?: KvWatchOptions): Promise<KvWatcher>;
  /** The bucket's state and settings. */
  status(): Promise<KvStatus>;
  /** The keys that hold a value (matching `filter`, default all), then the end. */
  keys(filter?: string | string[]): Promise<QueuedIterator<string>>;
};

/** A bucket (nats.js's `KV`). */
export type KV = RoKV & {
  /** Puts `data` if the key has no value (never written, deleted or purged); `markerTTL` (`"10s"`) makes it expire. */
  create(k: string, data: Payload, markerTTL?: string): Promise<number>;
  /** Puts `data` if the key's last revision is `version` (> 0). */
  update(k: string, data: Payload, version: number, timeout?: number): Promise<number>;
  /** Puts `data`; resolves to the new revision. */
  put(k: string, data: Payload, opts?: Partial<KvPutOptions>): Promise<number>;
  /** Marks `k` deleted (its history stays); with wildcards, every matching key. */
  delete(k: string, opts?: Partial<KvDeleteOptions>): Promise<void>;
  /** Removes every revision of `k`, leaving one purge marker; with wildcards, every matching key. */
  purge(k: string, opts?: Partial<KvPurgeOptions>): Promise<void>;
  /**
   * Removes the history of deleted and purged keys: a marker older than
   * `olderMillis` (30 minutes) goes with everything before it, a newer one
   * stays as its key's only message.
   */
  purgeDeletes(olderMillis?: number): Promise<PurgeResponse>;
  /** Deletes the bucket and everything in it. */
  destroy(): Promise<boolean>;
  /** Nothing to release; resolves at once (as nats.js). */
  close(): Promise<void>;
};
