/**
 * `ObjectBucket`: one bucket, shaped like nats.js's `ObjectStore`, over the
 * Rust store in wasm (`RawObjectStore`): names, subjects, chunking, the
 * SHA-256, links, replacing and cleaning up, nats.js's Latin-1 names all
 * live there, decided synchronously. Here arguments are adapted, metas
 * unpacked, streams wired, and the I/O done through the generic JetStream
 * exports: lookups by the stream's (direct) get, reads of chunks and metas
 * by direct batches and ordered consumers, the bucket's own calls (status,
 * seal, destroy) and the writes Rust decides (`plan`: a meta's publish,
 * then the purges of what it replaced) through the JetStream API.
 */
import { isMessageNotFound, InvalidArgumentError } from "../errors.js";
import { headers } from "../headers.js";
import { request } from "../jetstream/api.js";
import type { JetStreamClient, PubAck } from "../jetstream/client.js";
import { ConsumerMessages } from "../jetstream/consumer_messages.js";
import { DirectStreamAPI, StreamAPI } from "../jetstream/manager.js";
import type {
  PurgeResponse,
  RawEntries,
  RawFound,
  RawMetaWrite,
  RawObjectStore,
  RawJetStream,
  RawObjectRead,
  RawObjectUpload,
  StreamConfig,
  StreamInfo,
  StreamInfoRequestOptions,
} from "../raw.js";
import type { QueuedIterator } from "../reader.js";
import { infoAt, metaJson, objectStatus, storedInfo } from "./infos.js";
import { chunks, readAll, writeBytes, writeStream } from "./transfer.js";
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

export class ObjectBucket implements ObjectStore {
  /** The bucket's name. */
  readonly bucket: string;
  /** Its stream, `OBJ_<bucket>`. */
  readonly stream: string;
  readonly #raw: RawObjectStore;
  readonly #js: JetStreamClient;

  /** Made by `objm.create` and `objm.open`. */
  constructor(bucket: string, raw: RawObjectStore, js: JetStreamClient) {
    this.bucket = bucket;
    this.stream = `OBJ_${bucket}`;
    this.#raw = raw;
    this.#js = js;
  }

  async info(name: string): Promise<ObjectInfo | null> {
    const found = await this.#find(str(name, "object name"));
    try {
      const meta = found.entries();
      return meta && infoAt(meta, 0);
    } finally {
      found.free();
    }
  }

  async list(): Promise<ObjectInfo[]> {
    const infos: ObjectInfo[] = [];
    for await (const info of await Metas.open(this.#js.raw, this.bucket, "last_per_subject", true, true)) infos.push(info);
    return infos;
  }

  /** Follows a link (to this bucket or another, looked up with the stream's own get as natively); Rust refuses a link to a link. */
  async get(name: string, opts: ObjectStoreGetOpts = {}): Promise<ObjectResult | null> {
    let [raw, bucket] = [this.#raw, this.bucket];
    let found = await this.#find(str(name, "object name"));
    try {
      for (let linked = false; ; linked = true) {
        let opened: RawObjectRead | [string, string] | null;
        let info: ObjectInfo | undefined;
        try {
          opened = raw.open(found, linked);
          if (opened !== null && !Array.isArray(opened)) info = infoAt(found.entries()!, 0);
        } finally {
          found.free();
        }
        if (opened === null) return null;
        if (!Array.isArray(opened)) return { info: info!, ...chunks(this.#js.raw, `OBJ_${bucket}`, opened, info!.size, opts.progress) };
        const [to, target] = opened;
        if (to !== bucket) [raw, bucket] = [this.#js.raw.objBind(to, {}), to];
        found = await this.#find(target, undefined, raw, bucket);
      }
    } finally {
      // The handle on another bucket a link led to.
      if (raw !== this.#raw) raw.free();
    }
  }

  /** The lookup of object `name` in bucket `bucket`: the newest meta on each subject Rust names, read as the stream allows. */
  async #find(name: string, link?: string, raw = this.#raw, bucket = this.bucket): Promise<RawFound> {
    const subjects = raw.subjects(name, link);
    const api = raw.direct ? new DirectStreamAPI(this.#js.raw) : new StreamAPI(this.#js.raw);
    const metas = await Promise.all(subjects.map((s) => api.getMessage(`OBJ_${bucket}`, { last_by_subj: s })));
    return raw.found(name, metas[0]?.data, metas[1]?.data, metas.map((m) => m?.seq ?? 0), metas.map((m) => m?.timestamp ?? ""));
  }

  async getBlob(name: string, opts?: ObjectStoreGetOpts): Promise<Uint8Array | null> {
    const found = await this.get(name, opts);
    return found && readAll(found.data);
  }

  put(meta: ObjectStoreMeta, rs: ReadableStream<Uint8Array>, opts?: ObjectStorePutOpts): Promise<ObjectInfo> {
    return this.#put(meta, opts, opts?.size, (upload) => writeStream(upload, rs));
  }

  putBlob(meta: ObjectStoreMeta, data: Uint8Array | null, opts?: ObjectStorePutOpts): Promise<ObjectInfo> {
    const bytes = data ?? new Uint8Array(0);
    return this.#put(meta, opts, bytes.length, (upload) => writeBytes(upload, bytes));
  }

  async #put(
    meta: ObjectStoreMeta,
    opts: ObjectStorePutOpts = {},
    size: number | undefined,
    write: (upload: RawObjectUpload) => Promise<void>,
  ): Promise<ObjectInfo> {
    const found = await this.#find(str(meta.name, "object name"));
    let upload: RawObjectUpload;
    try {
      upload = this.#raw.upload(metaJson(meta), found, opts.timeout, opts.previousRevision, size, opts.progress);
    } finally {
      found.free();
    }
    let done: [RawEntries, string[]];
    try {
      await write(upload);
      done = (await upload.finish()) as [RawEntries, string[]];
    } catch (e) {
      // Best effort, as the Rust put's: a sealed bucket or a lost connection refuses this too.
      await this.#purge([upload.chunks]).catch(() => {});
      throw e;
    }
    await this.#purge(done[1]);
    return infoAt(done[0], 0);
  }

  async delete(name: string): Promise<PurgeResponse> {
    try {
      return { success: true, purged: (await this.#write("delete", name))[1] };
    } catch (e) {
      // nats.js: nothing to delete is no error.
      if (isMessageNotFound(e as Error)) return { success: false, purged: 0 };
      throw e;
    }
  }

  async link(name: string, meta: ObjectInfo): Promise<ObjectInfo> {
    const { name: target, bucket, deleted, options } = meta;
    return (await this.#write("link", name, { name: target, bucket, deleted, options }))[0];
  }

  async linkStore(name: string, bucket: ObjectStore): Promise<ObjectInfo> {
    if (!(bucket instanceof ObjectBucket)) throw new InvalidArgumentError("linkStore: the bucket must be an ObjectStore of objm.open or objm.create");
    return (await this.#write("link", name, { name: "", bucket: bucket.bucket }))[0];
  }

  async update(name: string, meta: Partial<ObjectStoreMeta> = {}): Promise<PubAck> {
    const [info] = await this.#write("update", name, { ...meta, name: meta.name ?? name });
    return { stream: this.stream, seq: info.revision, duplicate: false };
  }

  /** A write Rust decides over the lookup of `name` (and of a new name); the new meta and the messages purged. */
  async #write(op: "delete" | "update" | "link", name: string, meta?: Parameters<typeof metaJson>[0]): Promise<[ObjectInfo, number]> {
    str(name, "object name");
    const json = meta && metaJson(meta);
    const found = await this.#find(name, op === "link" ? json : undefined);
    let write: RawMetaWrite | string;
    try {
      write = this.#raw.plan(op, name, json, found);
      if (typeof write === "string") write = this.#raw.plan(op, name, json, found, await this.#find(write));
    } finally {
      found.free();
    }
    return this.#commit(write as RawMetaWrite);
  }

  /** Publishes the meta `write` decided (replacing the subject's others), then purges what it replaced. */
  async #commit([subject, meta, purge]: RawMetaWrite): Promise<[ObjectInfo, number]> {
    const rollup = headers();
    rollup.set("Nats-Rollup", "sub");
    meta[1][2] = (await this.#js.publish(subject, meta[0], { headers: rollup })).seq;
    return [infoAt(meta, 0), await this.#purge(purge)];
  }

  /** Purges the subjects `filters` of the bucket's stream, one after another; the messages purged. */
  async #purge(filters: string[]): Promise<number> {
    let purged = 0;
    for (const filter of filters) purged += (await request<PurgeResponse>(this.#js.raw, "STREAM.PURGE", this.stream, "", { filter })).purged;
    return purged;
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
