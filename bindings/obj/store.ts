/**
 * `ObjectBucket`: one bucket, shaped like nats.js's `ObjectStore`, over
 * the core's procedures (the Rust store's): lookups, deletes, updates and
 * links by `objectChange` (which follows a get's link too), gets and puts by `objectRead` and `objectWrite`;
 * listings and watches over ordered consumers, the bucket's own calls
 * (status, seal, destroy) through the JetStream API. What stays here is
 * nats.js's shapes and the argument checks nats.js makes in TS.
 */
import { InvalidArgumentError, isMessageNotFound } from "../errors.js";
import { request } from "../jetstream/api.js";
import type { JetStreamClient, PubAck } from "../jetstream/client.js";
import { ConsumerMessages } from "../jetstream/consumer_messages.js";
import { StreamAPI } from "../jetstream/manager.js";
import type { PurgeResponse, RawJetStream, RawProcedure, StreamConfig, StreamInfo, StreamInfoRequestOptions } from "../raw.js";
import type { QueuedIterator } from "../reader.js";
import { infoOf, objectStatus, record, storedInfo } from "./infos.js";
import { chunkSize, checkLinkName, checkMeta, type Found, linkTo, type Meta, readMeta, whole } from "./rules.js";
import { bytesSource, chunks, readAll, type Source, streamSource, write } from "./transfer.js";
import { str } from "../names.js";
import type {
  ObjectInfo,
  ObjectResult,
  ObjectStore,
  ObjectStoreGetOpts,
  ObjectStoreMeta,
  ObjectStorePutOpts,
  ObjectStoreStatus,
  ObjectWatchInfo,
} from "./types.js";

/** The JetStream API level of fast batches (`allow_batched`, nats-server 2.14). */
const FAST_BATCH_API_LEVEL = 4;

export class ObjectBucket implements ObjectStore {
  /** The bucket's name. */
  readonly bucket: string;
  /** Its stream, `OBJ_<bucket>`. */
  readonly stream: string;
  readonly #js: JetStreamClient;
  /** The stream has `allow_direct`: metas and chunks are read with direct gets. */
  readonly #direct: boolean;
  /** The stream has `allow_batched`: puts go as fast batches where the server takes them. */
  readonly #batched: boolean;

  /** Made by `objm.create` and `objm.open`. */
  constructor(bucket: string, js: JetStreamClient, direct: boolean, batched = false) {
    this.bucket = bucket;
    this.stream = `OBJ_${bucket}`;
    this.#js = js;
    this.#direct = direct;
    this.#batched = batched;
  }

  async info(name: string): Promise<ObjectInfo | null> {
    const found = await this.#find(str(name, "object name"));
    return found && infoOf(found.meta, found.seq);
  }

  async list(): Promise<ObjectInfo[]> {
    const infos: ObjectInfo[] = [];
    for await (const info of await Metas.open(this.#js.raw, this.bucket, "last_per_subject", true, true)) infos.push(info);
    return infos;
  }

  /**
   * `null` for a missing or deleted object. The core's lookup (the Rust
   * get's) follows a link to this bucket or another, whose chunks are read
   * with a consumer, as its `allow_direct` is not known; a link to a link
   * or to a bucket is refused.
   */
  async get(name: string, opts: ObjectStoreGetOpts = {}): Promise<ObjectResult | null> {
    const item = await this.#item(str(name, "object name"), "get");
    if (!item) return null;
    const [json, seq, , , , bucket, direct] = item as [Uint8Array, number, string, unknown, unknown, string, boolean];
    const meta = readMeta(json);
    if (meta.deleted) return null;
    return { info: infoOf(meta, seq), ...chunks(this.#js.raw, bucket, meta, direct && this.#js.info.api_lvl >= 1, opts.progress) };
  }

  /**
   * The lookup of object `name` by the core's procedure (the Rust store's):
   * the newest meta on each subject its name makes, read with direct gets
   * where the stream allows them, else with its own get.
   */
  async #find(name: string): Promise<Found | null> {
    const item = await this.#item(name, "find");
    if (!item) return null;
    const [json, seq, subject, shadowed, nuid] = item as [Uint8Array, number, string, string?, string?];
    return { meta: readMeta(json), json, seq, subject, shadowed: shadowed === undefined ? undefined : { subject: shadowed, nuid } };
  }

  /** The item of the core's lookup `op` of object `name`; `null` if no object has the name. */
  async #item(name: string, op: string): Promise<unknown[] | null> {
    try {
      return await this.#change(name, op);
    } catch (e) {
      if (isMessageNotFound(e as Error)) return null;
      throw e;
    }
  }

  /** The one item of the core's change `op` of object `name` (`objectChange`'s other arguments after it). */
  async #change(name: string, op: string, ...args: unknown[]): Promise<unknown[]> {
    const change = (this.#js.raw.objectChange as (...a: unknown[]) => RawProcedure)(this.bucket, this.#direct, name, op, ...args);
    try {
      const items = await change.next(1);
      return items![0] as unknown[];
    } finally {
      change.stop();
    }
  }

  async getBlob(name: string, opts?: ObjectStoreGetOpts): Promise<Uint8Array | null> {
    const found = await this.get(name, opts);
    return found && readAll(found.data);
  }

  async put(meta: ObjectStoreMeta, rs: ReadableStream<Uint8Array>, opts?: ObjectStorePutOpts): Promise<ObjectInfo> {
    const [source, end] = streamSource(rs);
    try {
      return await this.#put(meta, opts, opts?.size, source);
    } finally {
      end();
    }
  }

  putBlob(meta: ObjectStoreMeta, data: Uint8Array | null, opts?: ObjectStorePutOpts): Promise<ObjectInfo> {
    const bytes = data ?? new Uint8Array(0);
    return this.#put(meta, opts, bytes.length, bytesSource(bytes));
  }

  /**
   * Puts the object `meta` names with the bytes `source` gives, by the
   * wasm's put procedure (the Rust put's), replacing the object of that
   * name once its meta is stored; a put that fails purges the chunks it wrote.
   */
  async #put(meta: ObjectStoreMeta, opts: ObjectStorePutOpts = {}, size: number | undefined, source: Source): Promise<ObjectInfo> {
    const name = str(meta?.name, "object name");
    checkMeta(meta);
    if (meta.options?.link) throw new InvalidArgumentError("a put cannot set options.link: link() makes links");
    const chunk = chunkSize(meta.options?.max_chunk_size, this.#js.info.max_payload);
    const previousRevision = opts.previousRevision === undefined ? undefined : whole(opts.previousRevision, "previousRevision");
    const old = await this.#find(name);
    const { description, headers, metadata } = meta;
    const stored: Meta = { name, description, headers: headers && record(headers), options: { max_chunk_size: chunk }, metadata, bucket: this.bucket, nuid: "", size: 0, chunks: 0 };
    const fast = this.#batched && this.#js.info.api_lvl >= FAST_BATCH_API_LEVEL;
    const [written, revision] = await write(this.#js.raw, this.bucket, stored, old, { previousRevision, fast, timeout: opts.timeout, progress: opts.progress, size }, source);
    return infoOf(written, revision);
  }

  async delete(name: string): Promise<PurgeResponse> {
    try {
      const [, , purged] = (await this.#change(str(name, "object name"), "delete")) as [Uint8Array, number, number];
      return { success: true, purged };
    } catch (e) {
      // nats.js: nothing to delete is no error.
      if (isMessageNotFound(e as Error)) return { success: false, purged: 0 };
      throw e;
    }
  }

  async link(name: string, meta: ObjectInfo): Promise<ObjectInfo> {
    const { name: target, bucket, deleted, options } = meta;
    return this.#link(name, { name: target, bucket, deleted, options });
  }

  async linkStore(name: string, bucket: ObjectStore): Promise<ObjectInfo> {
    if (!(bucket instanceof ObjectBucket)) throw new InvalidArgumentError("linkStore: the bucket must be an ObjectStore of objm.open or objm.create");
    return this.#link(name, { bucket: bucket.bucket });
  }

  /** Adds `name` as a link to `target` (an object, or without a name its bucket), unless an object (not a link or a deleted one) has the name. */
  async #link(name: string, target: Partial<Meta>): Promise<ObjectInfo> {
    const link = linkTo(target);
    checkLinkName(str(name, "link name"));
    const [json, revision] = (await this.#change(name, "link", undefined, undefined, undefined, undefined, link.bucket, link.name)) as [Uint8Array, number];
    return infoOf(readMeta(json), revision);
  }

  /** Changes the name, description, metadata or headers of object `name`; a new name must be free (or a deleted object's). */
  async update(name: string, meta: Partial<ObjectStoreMeta> = {}): Promise<PubAck> {
    name = str(name, "object name");
    const newName = meta.name === undefined ? undefined : str(meta.name, "object name");
    checkMeta(meta);
    const headers = meta.headers && Object.entries(record(meta.headers)).flatMap(([k, vs]) => vs.flatMap((v) => [k, v]));
    const metadata = meta.metadata && Object.entries(meta.metadata).flat();
    const [, seq] = (await this.#change(name, "update", newName, meta.description, metadata, headers)) as [Uint8Array, number];
    return { stream: this.stream, seq, duplicate: false };
  }

  async watch(opts: Partial<{ ignoreDeletes?: boolean; includeHistory?: boolean }> = {}): Promise<QueuedIterator<ObjectWatchInfo>> {
    return Metas.open(this.#js.raw, this.bucket, opts.includeHistory ? "last_per_subject" : "new", false, opts.ignoreDeletes === true);
  }

  async seal(): Promise<ObjectStoreStatus> {
    const { config } = await request<StreamInfo>(this.#js.raw, "STREAM.INFO", this.stream);
    const sealed: StreamConfig = { ...config, sealed: true };
    return objectStatus(this.bucket, await request<StreamInfo>(this.#js.raw, "STREAM.UPDATE", this.stream, "", sealed));
  }

  async status(opts?: Partial<StreamInfoRequestOptions>): Promise<ObjectStoreStatus> {
    return objectStatus(this.bucket, await new StreamAPI(this.#js.raw).info(this.stream, opts));
  }

  async destroy(): Promise<boolean> {
    return (await request<{ success: boolean }>(this.#js.raw, "STREAM.DELETE", this.stream)).success;
  }
}

/**
 * A listing (every object not deleted, then the end) or a watch of a
 * bucket's metas over an ordered push consumer, as the Rust store's: what
 * existed when it started is known delivered once the first consumer's
 * pending count or a message's reaches zero; a watch's later metas are
 * updates (`isUpdate`).
 */
class Metas implements QueuedIterator<ObjectWatchInfo> {
  readonly #messages: ConsumerMessages;
  readonly #list: boolean;
  readonly #ignoreDeletes: boolean;
  /** Metas the first consumer had to deliver, not yet seen. */
  #left: number;
  #processed = 0;

  private constructor(messages: ConsumerMessages, left: number, list: boolean, ignoreDeletes: boolean) {
    [this.#messages, this.#left, this.#list, this.#ignoreDeletes] = [messages, left, list, ignoreDeletes];
  }

  static async open(js: RawJetStream, bucket: string, deliver_policy: "last_per_subject" | "new", list: boolean, ignoreDeletes: boolean): Promise<Metas> {
    const ordered = await js.orderedPushConsumer(`OBJ_${bucket}`, { filter_subjects: [`$O.${bucket}.M.>`], deliver_policy });
    return new Metas(new ConsumerMessages(ordered.consume()), ordered.pending, list, ignoreDeletes);
  }

  stop(err?: Error): void {
    this.#messages.stop(err);
  }

  getProcessed(): number {
    return this.#processed;
  }

  getPending(): number {
    return 0;
  }

  getReceived(): number {
    return this.#processed;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ObjectWatchInfo> {
    let seen = this.#left === 0;
    try {
      if (this.#list && seen) return;
      for await (const m of this.#messages) {
        this.#left = Math.max(0, this.#left - 1);
        seen ||= this.#left === 0 || m.info.pending === 0;
        const info = storedInfo(m);
        if (!info.deleted || !(this.#list || this.#ignoreDeletes)) {
          this.#processed++;
          yield this.#list ? (info as ObjectWatchInfo) : Object.assign(info, { isUpdate: seen });
        }
        if (this.#list && seen) return;
      }
    } finally {
      this.#messages.stop();
    }
  }
}
