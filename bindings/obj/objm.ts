/**
 * `Objm`, nats.js's entry point to object stores: `create` (the bucket as
 * it is, or made from the options: its stream config, sent with the
 * JetStream API's get-or-create), `open` (the bucket's stream info) and
 * `list`.
 */
import type { NatsConnection } from "../connection.js";
import { InvalidArgumentError } from "../errors.js";
import { JetStreamClient, jetstream } from "../jetstream/client.js";
import { Lister } from "../jetstream/lister.js";
import { request } from "../jetstream/api.js";
import { str } from "../names.js";
import type { StreamConfig, StreamInfo } from "../raw.js";
import { objectStatus } from "./infos.js";
import { checkBucket, whole } from "./rules.js";
import { ObjectBucket } from "./store.js";
import type { ObjectStore, ObjectStoreOptions, ObjectStoreStatus } from "./types.js";

const PREFIX = "OBJ_";
/** The JetStream API level of fast batches (`allow_batched`, nats-server 2.14). */
const FAST_BATCH_API_LEVEL = 4;

export class Objm {
  /** The JetStream client the buckets use. */
  readonly js: JetStreamClient;

  /** Buckets through `nc` (with default JetStream options) or through the JetStream client `nc`. */
  constructor(nc: NatsConnection | JetStreamClient) {
    this.js = nc instanceof JetStreamClient ? nc : jetstream(nc);
  }

  /**
   * Bucket `name`: the existing one whatever its config (as nats.js), else
   * made from `opts`. Throws `INVALID_ARGUMENT` naming a bad bucket name or
   * option before anything is sent.
   */
  async create(name: string, opts: Partial<ObjectStoreOptions> = {}): Promise<ObjectStore> {
    const config = streamConfig(str(name, "bucket name"), opts, this.js.info.api_lvl);
    const info = await request<StreamInfo>(this.js.raw, "STREAM.GET_OR_CREATE", config.name, "", config);
    return new ObjectBucket(name, this.js, info.config.allow_direct === true, info.config.allow_batched === true);
  }

  /**
   * The existing bucket `name`; rejects with a `StreamNotFoundError` (`code` 10059)
   * if there is none. `check: false` (nats.js's) opens it without asking:
   * a missing bucket shows in the first call.
   */
  async open(name: string, check: boolean | { check?: boolean } = true): Promise<ObjectStore> {
    checkBucket(str(name, "bucket name"));
    const ask = typeof check === "boolean" ? check : check.check === true;
    const config = ask ? (await request<StreamInfo>(this.js.raw, "STREAM.INFO", PREFIX + name)).config : undefined;
    return new ObjectBucket(name, this.js, !config || config.allow_direct === true, config?.allow_batched === true);
  }

  /** The status of every bucket (streams named `OBJ_…`, as nats.js), a page of streams at a time. */
  list(): Lister<ObjectStoreStatus> {
    return new Lister(this.js.raw.list("STREAM.LIST", ""), (infos) =>
      (infos as StreamInfo[]).flatMap((si) => (si.config.name.startsWith(PREFIX) ? [objectStatus(si.config.name.slice(PREFIX.length), si)] : [])),
    );
  }
}

/** The config of bucket `bucket`'s stream (ADR-20), from nats.js's options; `INVALID_ARGUMENT` naming a bad one. */
function streamConfig(bucket: string, opts: Partial<ObjectStoreOptions>, apiLevel: number): StreamConfig {
  checkBucket(bucket);
  const { description, ttl = 0, storage = "file", replicas = 1, max_bytes = -1, placement, metadata, compression, allowBatched } = opts;
  if (storage !== "file" && storage !== "memory") throw new InvalidArgumentError(`storage ${JSON.stringify(storage)}: "file" or "memory"`);
  if (allowBatched && apiLevel < FAST_BATCH_API_LEVEL) {
    throw new InvalidArgumentError(`fast batches need JetStream API level 4 (nats-server 2.14); the server has ${apiLevel}`);
  }
  const config: Partial<StreamConfig> & Record<string, unknown> = {
    name: PREFIX + bucket,
    description: description || undefined,
    subjects: [`$O.${bucket}.C.>`, `$O.${bucket}.M.>`],
    // Below zero (nats.js's -1) and 0 are no limit.
    max_bytes: whole(max_bytes < 0 ? 0 : max_bytes, "max_bytes") || -1,
    max_age: whole(ttl, "ttl") || undefined,
    discard: "new",
    storage,
    num_replicas: Math.max(whole(replicas, "replicas"), 1),
    allow_rollup_hdrs: true,
    allow_direct: true,
    compression: compression ? "s2" : undefined,
    placement,
    metadata,
    allow_batched: allowBatched || undefined,
  };
  return config as StreamConfig;
}
