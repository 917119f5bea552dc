/**
 * `Kvm`, nats.js's entry point to Key-Value buckets: `create` (the bucket
 * as it is, or made from the options: the stream config Rust makes for
 * them, sent with the JetStream API's get-or-create), `open` (the bucket's
 * stream info) and `list`; each handle is made in Rust from its stream's config.
 */
import type { RawKvOptions, StreamInfo } from "../raw.js";
import type { NatsConnection } from "../connection.js";
import { InvalidArgumentError } from "../errors.js";
import { JetStreamClient, jetstream } from "../jetstream/client.js";
import { Lister } from "../jetstream/lister.js";
import { request } from "../jetstream/api.js";
import { Bucket, kvStatus } from "./bucket.js";
import type { KV, KvOptions, KvStatus } from "./types.js";

/** The options as the wasm reads them; nats.js's `codec` is refused, not ignored. */
function raw(opts: Partial<KvOptions>): RawKvOptions {
  if ("codec" in opts && opts.codec !== undefined) {
    throw new InvalidArgumentError("codec: natsjet's Key-Value has no key or value codecs");
  }
  return opts;
}

export class Kvm {
  /** The JetStream client the buckets use. */
  readonly js: JetStreamClient;

  /** Buckets through `nc` (with default JetStream options) or through the JetStream client `nc`. */
  constructor(nc: NatsConnection | JetStreamClient) {
    this.js = nc instanceof JetStreamClient ? nc : jetstream(nc);
  }

  /**
   * Bucket `name`: the existing one whatever its config (as nats.js), else
   * made from `opts` (`bindOnly`: only open it). Rejects with
   * `INVALID_ARGUMENT` naming a bad bucket name or option.
   */
  async create(name: string, opts: Partial<KvOptions> = {}): Promise<KV> {
    if (opts.bindOnly) return this.open(name, opts);
    const stream = this.js.raw.kvStream(name, raw(opts));
    return this.#bind(name, await request<StreamInfo>(this.js.raw, "STREAM.GET_OR_CREATE", `KV_${name}`, "", JSON.parse(stream)), opts);
  }

  /**
   * The existing bucket `name`; rejects with `JETSTREAM` (`errCode` 10059)
   * if there is none (nats.js: its first call fails). Of `opts`, `timeout`
   * and `allow_direct` apply.
   */
  async open(name: string, opts: Partial<KvOptions> = {}): Promise<KV> {
    const options = raw(opts);
    // Checks the name before the request; the stream is KV_<name>.
    this.js.raw.kvStream(name, {});
    return this.#bind(name, await request<StreamInfo>(this.js.raw, "STREAM.INFO", `KV_${name}`), options);
  }

  #bind(name: string, info: StreamInfo, opts: Partial<KvOptions>): KV {
    return new Bucket(name, this.js.raw.kvBind(name, info.config, raw(opts)), this.js);
  }

  /** The status of every bucket, a page of streams at a time. */
  list(): Lister<KvStatus> {
    const raw = this.js.raw;
    return new Lister(raw.list("STREAM.LIST", ""), (infos) =>
      (infos as StreamInfo[]).flatMap((si) => {
        const bucket = raw.kvBucketOf(si.config.name);
        return bucket === undefined ? [] : [kvStatus(bucket, si)];
      }),
    );
  }
}
