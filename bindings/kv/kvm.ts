/**
 * `Kvm`, nats.js's entry point to Key-Value buckets: `create` (the bucket
 * as it is, or made from the options: the stream config Rust makes for
 * them, sent with the JetStream API's get-or-create), `open` (the bucket's
 * stream info) and `list`; each handle is made in Rust from its stream's config.
 */
import type { StreamInfo } from "../raw.js";
import type { NatsConnection } from "../connection.js";
import { InvalidArgumentError } from "../errors.js";
import { JetStreamClient, jetstream } from "../jetstream/client.js";
import { Lister } from "../jetstream/lister.js";
import { parseReply, request } from "../jetstream/api.js";
import { Bucket, kvStatus } from "./bucket.js";
import { optStr, str } from "../names.js";
import type { KV, KvOptions, KvStatus } from "./types.js";

/** Refuses what the options ask for that natsjet does not do. */
function check(name: string, opts: Partial<KvOptions>): Partial<KvOptions> {
  str(name, "bucket name");
  if (opts.streamName !== undefined && opts.streamName !== `KV_${name}`) {
    throw new InvalidArgumentError(`streamName ${JSON.stringify(opts.streamName)}: the stream of bucket ${JSON.stringify(name)} is KV_${name}`);
  }
  return opts;
}

/**
 * `mirror`, `sources`, `placement` and `republish` as the wasm reads them
 * (src/wasm/kv/nested.rs): strings and numbers in turn.
 */
function nested(o: Partial<KvOptions>): [string[], number[]] {
  const sources = [...(o.mirror ? [o.mirror] : []), ...(o.sources ?? [])];
  const { placement, republish } = o;
  const numbers = [+!!o.mirror, o.sources?.length ?? 0, +!!placement, +!!republish];
  const strings: string[] = [];
  const text = (value: unknown, what: string) => optStr(value, what) ?? "";
  sources.forEach((s, i) => {
    const what = i === 0 && o.mirror ? "mirror" : "sources";
    const transforms = s.subject_transforms ?? [];
    strings.push(str(s.name, `${what}.name`), text(s.filter_subject, `${what}.filter_subject`), text(s.opt_start_time, `${what}.opt_start_time`));
    strings.push(text(s.external?.api, `${what}.external.api`), text(s.external?.deliver, `${what}.external.deliver`));
    strings.push(text(s.consumer?.name, `${what}.consumer.name`), text(s.consumer?.deliver_subject, `${what}.consumer.deliver_subject`));
    for (const t of transforms) strings.push(str(t.src, `${what}.subject_transforms`), str(t.dest, `${what}.subject_transforms`));
    numbers.push(s.opt_start_seq ?? 0, transforms.length);
  });
  if (placement) {
    const tags = placement.tags ?? [];
    strings.push(text(placement.cluster, "placement.cluster"), text(placement.preferred, "placement.preferred"));
    strings.push(...tags.map((tag) => str(tag, "placement.tags")));
    numbers.push(tags.length);
  }
  if (republish) {
    strings.push(text(republish.src, "republish.src"), str(republish.dest, "republish.dest"));
    numbers.push(+!!republish.headers_only);
  }
  return [strings, numbers];
}

/** Key-Value buckets (nats.js's `Kvm`): creates, opens and lists them. */
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
    const o = check(name, opts);
    const metadata = Object.entries(o.metadata ?? {}).flatMap(([k, v]) => [k, optStr(v, `metadata.${k}`) ?? ""]);
    const strings: [string, string, string, ...string[]] = [name, optStr(o.description, "description") ?? "", optStr(o.storage, "storage") ?? "file", ...metadata];
    const numbers = [o.history, o.max_bytes, o.maxValueSize, o.ttl, o.markerTTL, o.replicas, o.compression === true ? 1 : 0];
    const stream = this.js.raw.kvStream(strings, numbers.map((n) => n ?? 0), ...nested(o));
    const info = parseReply<StreamInfo>(await this.js.raw.request("STREAM.GET_OR_CREATE", `KV_${name}`, "", stream));
    return this.#bind(name, info, o);
  }

  /**
   * The existing bucket `name`; rejects with a `StreamNotFoundError` (`code` 10059)
   * if there is none (nats.js: its first call fails). Of `opts`, `timeout`
   * and `allow_direct` apply.
   */
  async open(name: string, opts: Partial<KvOptions> = {}): Promise<KV> {
    const o = check(name, opts);
    if (this.js.raw.kvBucketOf(`KV_${name}`) !== name) {
      throw new InvalidArgumentError(`invalid bucket name ${JSON.stringify(name)}: use letters, digits, '_' and '-' only`);
    }
    return this.#bind(name, await request<StreamInfo>(this.js.raw, "STREAM.INFO", `KV_${name}`), o);
  }

  #bind(name: string, info: StreamInfo, o: Partial<KvOptions>): KV {
    const c = info.config;
    const numbers = [+(c.allow_direct === true), c.max_msg_size ?? -1, c.max_msgs_per_subject ?? 0, o.timeout ?? 0, +(o.allow_direct === false)];
    const raw = this.js.raw.kvBind(name, numbers, c.mirror?.name, c.mirror?.external?.api);
    return new Bucket(name, raw, this.js, o.codec);
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
