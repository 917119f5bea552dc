/**
 * The Object Store's types, as nats.js 3.4's `@nats-io/obj` declares them
 * (its names and fields; TTLs in nanoseconds), plus natsjet's progress
 * option on puts and gets.
 */
import type { MsgHdrs } from "../headers.js";
import type { PubAck } from "../jetstream/client.js";
import type { StorageType } from "../jetstream/enums.js";
import type { Nanos, Placement, PurgeResponse, StreamInfo, StreamInfoRequestOptions } from "../raw.js";
import type { QueuedIterator } from "../reader.js";

/** An object (with `name`) or a whole bucket (without) that a link points to. */
export type ObjectStoreLink = {
  /** The bucket holding what is linked. */
  bucket: string;
  /** The linked object; none: the whole bucket. */
  name?: string;
};

/** nats.js's name of {@link ObjectStoreLink} in infos. */
export type ObjectLink = ObjectStoreLink;

/** An object's options, stored in its meta. */
export type ObjectStoreMetaOptions = {
  /** Set in a link's meta: what it points to (puts refuse it; `link()` makes links). */
  link?: ObjectStoreLink;
  /** Bytes per chunk (default 128 KiB; at most the server's `max_payload`). */
  max_chunk_size?: number;
};

/** What a put sets. */
export type ObjectStoreMeta = {
  /** Any string but the empty one, up to 2048 bytes of UTF-8. */
  name: string;
  /** What the object is, for people. */
  description?: string;
  /** Headers stored in the meta (not on the chunks). */
  headers?: MsgHdrs;
  /** Its chunk size, or what it links to. */
  options?: ObjectStoreMetaOptions;
  /** Application metadata. */
  metadata?: Record<string, string>;
};

/** An object as its meta describes it. */
export type ObjectInfo = ObjectStoreMeta & {
  /** The bucket the object is in. */
  bucket: string;
  /** The token of its chunks' subject. */
  nuid: string;
  /** Bytes. */
  size: number;
  /** How many chunks hold its bytes. */
  chunks: number;
  /** `SHA-256=` and the URL-safe base64 of its SHA-256 (`""` for a deleted object or a link). */
  digest: string;
  /** Whether the object was deleted (its meta remains, marked so). */
  deleted: boolean;
  /** When its meta was stored (the server's time, RFC 3339). */
  mtime: string;
  /** The stream sequence of its meta. */
  revision: number;
  /** What the object is, for people (`""` when unset). */
  description: string;
  /** Headers stored in the meta (empty when none). */
  headers: MsgHdrs;
  /** Application metadata (empty when none). */
  metadata: Record<string, string>;
};

/** A watch's meta: `isUpdate` once what existed when the watch started was handed out. */
export type ObjectWatchInfo = ObjectInfo & {
  /** `false` for what existed when the watch started, `true` for later changes. */
  isUpdate: boolean;
};

/** A bucket's state and settings, from its stream's info. */
export type ObjectStoreStatus = {
  /** The bucket's name. */
  bucket: string;
  /** The bucket's description (`""` when unset). */
  description: string;
  /** How long an object lives, in nanoseconds (0: forever). */
  ttl: Nanos;
  /** Where the server keeps the bucket: file or memory. */
  storage: StorageType;
  /** How many servers hold a copy. */
  replicas: number;
  /** A sealed bucket takes no more writes. */
  sealed: boolean;
  /** Bytes stored, chunks and metas. */
  size: number;
  /** Always `"JetStream"`. */
  backingStore: string;
  /** The info of the bucket's stream (`OBJ_<bucket>`). */
  streamInfo: StreamInfo;
  /** The bucket's metadata. */
  metadata?: Record<string, string> | undefined;
  /** Whether the stored chunks are S2-compressed. */
  compression: boolean;
};

/** Options of `objm.create` (nats.js's `ObjectStoreOptions`). */
export type ObjectStoreOptions = {
  /** The bucket's description. */
  description?: string;
  /** How long an object lives, in nanoseconds (`nanos(ms)`). */
  ttl?: Nanos;
  /** Where the server keeps the bucket (default file). */
  storage: StorageType;
  /** How many servers hold a copy (default 1). */
  replicas: number;
  /** Size of the whole bucket in bytes (-1: unlimited). */
  max_bytes: number;
  /** The cluster and server tags the bucket's stream is placed by. */
  placement: Placement;
  /** The bucket's metadata. */
  metadata?: Record<string, string>;
  /** S2 compression of the stored chunks. */
  compression?: boolean;
  /**
   * The bucket's stream takes fast batches (`allow_batched`, nats-server
   * 2.14; nats.js's undocumented option): other clients' puts use them,
   * natsjet's JS puts do not.
   */
  allowBatched?: boolean;
};

/** natsjet: how far a put (bytes the stream acknowledged) or a get (bytes received) is, out of `total` when known. */
export type ObjectProgress = (done: number, total?: number) => void;

/** Options of `os.put` and `os.putBlob`. */
export type ObjectStorePutOpts = {
  /** Milliseconds each chunk's publish may wait for its ack (the JetStream timeout). */
  timeout?: number;
  /** Store the object only if its meta is at this revision (0: there is no such object). */
  previousRevision?: number;
  /** natsjet: told of the bytes stored as the put moves. */
  progress?: ObjectProgress;
  /** natsjet: the object's size, when known, as the progress's `total` (`putBlob` knows it). */
  size?: number;
};

/** natsjet's options of `os.get` and `os.getBlob`. */
export type ObjectStoreGetOpts = {
  /** Told of the bytes received as the get moves, out of the object's size. */
  progress?: ObjectProgress;
};

/** An object being read. */
export type ObjectResult = {
  /** The object's meta (the linked object's, after a link). */
  info: ObjectInfo;
  /**
   * The object's bytes, read from the server as this stream is read. It
   * ends only once the size and SHA-256 matched the meta; otherwise it
   * errors (`DIGEST_MISMATCH`, `SIZE_MISMATCH`) before its last chunk.
   */
  data: ReadableStream<Uint8Array>;
  /** Resolves to `null` once `data` ended whole (or was cancelled); rejects with the error `data` ended in. */
  error: Promise<Error | null>;
};

/** A bucket of objects (nats.js's `ObjectStore`). */
export type ObjectStore = {
  /** The object's meta (a deleted object's too), or `null` if there is none. */
  info(name: string): Promise<ObjectInfo | null>;
  /** Every object that is not deleted. */
  list(): Promise<ObjectInfo[]>;
  /** The object (following a link), or `null` for a missing or deleted one. */
  get(name: string, opts?: ObjectStoreGetOpts): Promise<ObjectResult | null>;
  /** The object's bytes, checked; `null` for a missing or deleted one. */
  getBlob(name: string, opts?: ObjectStoreGetOpts): Promise<Uint8Array | null>;
  /** Puts the object read from `rs`, replacing the one of that name once it is stored. */
  put(meta: ObjectStoreMeta, rs: ReadableStream<Uint8Array>, opts?: ObjectStorePutOpts): Promise<ObjectInfo>;
  /** Puts `data` (`null`: no bytes). */
  putBlob(meta: ObjectStoreMeta, data: Uint8Array | null, opts?: ObjectStorePutOpts): Promise<ObjectInfo>;
  /** Marks the object deleted and purges its chunks (`success: false` if there is none). */
  delete(name: string): Promise<PurgeResponse>;
  /** Adds `name` as a link to the object `meta` (in this bucket or another); links to links are refused. */
  link(name: string, meta: ObjectInfo): Promise<ObjectInfo>;
  /** Adds `name` as a link to the bucket `bucket`. */
  linkStore(name: string, bucket: ObjectStore): Promise<ObjectInfo>;
  /** Metas as objects change; `includeHistory`: every object's first; `ignoreDeletes`: no deleted ones. */
  watch(opts?: Partial<{ ignoreDeletes?: boolean; includeHistory?: boolean }>): Promise<QueuedIterator<ObjectWatchInfo>>;
  /** Seals the bucket: no more writes, deletes or purges. */
  seal(): Promise<ObjectStoreStatus>;
  /** The bucket's state and settings; `opts` as `streams.info`'s. */
  status(opts?: Partial<StreamInfoRequestOptions>): Promise<ObjectStoreStatus>;
  /** Renames the object or changes its description and metadata (replaced) or its headers (if given). */
  update(name: string, meta: Partial<ObjectStoreMeta>): Promise<PubAck>;
  /** Deletes the bucket and every object in it. */
  destroy(): Promise<boolean>;
};
