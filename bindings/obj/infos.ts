/**
 * Metas and statuses as the API hands them out: an object's meta (its
 * revision the stream sequence of its message), or a bucket's status (its
 * stream's info).
 */
import { headers, type MsgHdrs } from "../headers.js";
import type { StreamInfo } from "../raw.js";
import type { JsMsg } from "../jetstream/jsmsg.js";
import { type Meta, readMeta } from "./rules.js";
import type { ObjectInfo, ObjectStoreStatus } from "./types.js";

/** nats.js's `ObjectInfo` of `meta` at `revision`. */
export function infoOf(meta: Meta, revision: number): ObjectInfo {
  const h = headers();
  for (const [name, values] of Object.entries(meta.headers ?? {})) for (const value of values) h.append(name, value);
  return {
    name: meta.name,
    description: meta.description ?? "",
    headers: h,
    options: meta.options,
    metadata: meta.metadata ?? {},
    bucket: meta.bucket,
    nuid: meta.nuid,
    size: meta.size,
    chunks: meta.chunks,
    digest: meta.digest ?? "",
    deleted: meta.deleted ?? false,
    mtime: meta.mtime ?? "",
    revision,
  };
}

/** A meta message of the bucket, its time that of the message (as lookups have it). */
export function storedInfo(m: JsMsg): ObjectInfo {
  const ns = m.timestampNanos;
  const fraction = String(ns % 1_000_000_000n).padStart(9, "0").replace(/0+$/, "");
  const mtime = new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19) + (fraction && `.${fraction}`) + "Z";
  return infoOf({ ...readMeta(m.data), mtime }, m.seq);
}

/** Headers as a meta holds them: each name with its values. */
export function record(h: MsgHdrs): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, values] of h) out[name] = values;
  return out;
}

/** nats.js's `ObjectStoreStatus` of bucket `bucket`, from its stream's info. */
export function objectStatus(bucket: string, si: StreamInfo): ObjectStoreStatus {
  const c = si.config;
  return {
    bucket,
    description: c.description ?? "",
    ttl: c.max_age ?? 0,
    storage: c.storage ?? "file",
    replicas: c.num_replicas ?? 1,
    sealed: c.sealed ?? false,
    size: si.state.bytes,
    backingStore: "JetStream",
    streamInfo: si,
    metadata: c.metadata,
    compression: (c.compression ?? "none") !== "none",
  };
}
