/**
 * `ObjectBucket`: one bucket, shaped like nats.js's `ObjectStore`, over the
 * Rust store in wasm (`RawObjectStore`): names, subjects, chunking, the
 * SHA-256, links, replacing and cleaning up, nats.js's Latin-1 names all
 * live there. Here arguments are adapted, metas unpacked, streams wired,
 * and the bucket's own calls (status, seal, destroy) made through the
 * JetStream API, as are the writes Rust decides (`plan`): a meta's
 * publish, then the purges of what it replaced.
 */
import { isMessageNotFound, InvalidArgumentError } from "../errors.js";
import { headers } from "../headers.js";
import { request } from "../jetstream/api.js";
import type { JetStreamClient, PubAck } from "../jetstream/client.js";
import { StreamAPI } from "../jetstream/manager.js";
import type {
  PurgeResponse,
  RawEntries,
  RawFound,
  RawMetaWrite,
  RawObjectStore,
  RawObjectUpload,
  RawReader,
  StreamConfig,
  StreamInfo,
  StreamInfoRequestOptions,
} from "../raw.js";
import { EntryReader, type QueuedIterator } from "../reader.js";
import { infoAt, metaJson, objectStatus, watchInfoAt } from "./infos.js";
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
    const found = await this.#raw.info(str(name, "object name"));
    try {
      const meta = found.entries();
      return meta && infoAt(meta, 0);
    } finally {
      found.free();
    }
  }

  async list(): Promise<ObjectInfo[]> {
    const infos: ObjectInfo[] = [];
    for await (const info of new EntryReader(await this.#raw.read("list", false, false), infoAt)) infos.push(info);
    return infos;
  }

  async get(name: string, opts: ObjectStoreGetOpts = {}): Promise<ObjectResult | null> {
    const found = (await this.#raw.get(str(name, "object name"), opts.progress)) as [RawEntries, RawReader] | null;
    return found && { info: infoAt(found[0], 0), ...chunks(found[1]) };
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
    const found = await this.#raw.info(str(meta.name, "object name"));
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
    const found = await this.#raw.info(name, op === "link" ? json : undefined);
    let write: RawMetaWrite | string;
    try {
      write = this.#raw.plan(op, name, json, found);
      if (typeof write === "string") write = this.#raw.plan(op, name, json, found, await this.#raw.info(write));
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
    const raw = await this.#raw.read("watch", opts.includeHistory === true, opts.ignoreDeletes === true);
    return new EntryReader(raw, watchInfoAt);
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
