/**
 * `Objm`, nats.js's entry point to object stores: `create` (the bucket as
 * it is, or made from the options: the stream config Rust makes for them,
 * sent with the JetStream API's get-or-create), `open` (the bucket's
 * stream info) and `list`; each handle is made in Rust from its stream's config.
 */
import type { NatsConnection } from "../connection.js";
import { JetStreamClient, jetstream } from "../jetstream/client.js";
import { Lister } from "../jetstream/lister.js";
import { request } from "../jetstream/api.js";
import { str } from "../names.js";
import type { StreamConfig, StreamInfo } from "../raw.js";
import { objectStatus } from "./infos.js";
import { ObjectBucket } from "./store.js";
import type { ObjectStore, ObjectStoreOptions, ObjectStoreStatus } from "./types.js";

const PREFIX = "OBJ_";

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
    const { description, ttl, storage, replicas, max_bytes, metadata, compression, allowBatched, placement } = opts;
    const flat = metadata && Object.entries(metadata).flat();
    const json = this.js.raw.objStream(str(name, "bucket name"), description, ttl, storage, replicas, max_bytes, flat, compression, allowBatched);
    const config = JSON.parse(json) as StreamConfig;
    if (placement) config.placement = placement;
    return this.#bind(name, await request<StreamInfo>(this.js.raw, "STREAM.GET_OR_CREATE", config.name, "", config));
  }

  /**
   * The existing bucket `name`; rejects with `JETSTREAM` (`errCode` 10059)
   * if there is none. `check: false` (nats.js's) opens it without asking:
   * a missing bucket shows in the first call.
   */
  async open(name: string, check: boolean | { check?: boolean } = true): Promise<ObjectStore> {
    // Checks the name before any request.
    const stream = (JSON.parse(this.js.raw.objStream(str(name, "bucket name"))) as StreamConfig).name;
    const ask = typeof check === "boolean" ? check : check.check === true;
    const config = ask ? (await request<StreamInfo>(this.js.raw, "STREAM.INFO", stream)).config : { allow_direct: true };
    return new ObjectBucket(name, this.js.raw.objBind(name, config), this.js);
  }

  #bind(name: string, info: StreamInfo): ObjectStore {
    return new ObjectBucket(name, this.js.raw.objBind(name, info.config), this.js);
  }

  /** The status of every bucket (streams named `OBJ_…`, as nats.js), a page of streams at a time. */
  list(): Lister<ObjectStoreStatus> {
    return new Lister(this.js.raw.list("STREAM.LIST", ""), (infos) =>
      (infos as StreamInfo[]).flatMap((si) => (si.config.name.startsWith(PREFIX) ? [objectStatus(si.config.name.slice(PREFIX.length), si)] : [])),
    );
  }
}
