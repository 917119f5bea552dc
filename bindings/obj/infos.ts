/**
 * Metas and statuses as the API hands them out: an object's meta crosses
 * from wasm as its JSON, with its revision next to it (`RawEntries`), or
 * comes in a message of the bucket; a bucket's status is its stream's info.
 */
import { headers, type MsgHdrs } from "../headers.js";
import type { RawEntries, StreamInfo } from "../raw.js";
import type { JsMsg } from "../jetstream/jsmsg.js";
import { FIELDS } from "../reader.js";
import type { ObjectInfo, ObjectStoreMeta, ObjectStoreStatus } from "./types.js";

const decoder = new TextDecoder();

/** A meta as the stream holds it (headers as Go writes them). */
type StoredMeta = Omit<Partial<ObjectInfo>, "headers"> & { headers?: Record<string, string[]> | null };

/** Meta `i` of `batch`. */
export function infoAt([bytes, meta]: RawEntries, i: number): ObjectInfo {
  const m = i * FIELDS;
  return infoOf(bytes.subarray(meta[m], meta[m + 1]), meta[m + 2]!);
}

/** A meta message of the bucket, its time that of the message (as Rust's lookups). */
export function storedInfo(m: JsMsg): ObjectInfo {
  const ns = m.timestampNanos;
  const fraction = String(ns % 1_000_000_000n).padStart(9, "0").replace(/0+$/, "");
  const mtime = new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19) + (fraction && `.${fraction}`) + "Z";
  return Object.assign(infoOf(m.data, m.seq), { mtime });
}

/** The meta `json` at `revision`. */
function infoOf(json: Uint8Array, revision: number): ObjectInfo {
  const stored = JSON.parse(decoder.decode(json)) as StoredMeta;
  const h = headers();
  for (const [name, values] of Object.entries(stored.headers ?? {})) for (const value of values) h.append(name, value);
  return {
    name: stored.name ?? "",
    description: stored.description ?? "",
    headers: h,
    options: stored.options,
    metadata: stored.metadata ?? {},
    bucket: stored.bucket ?? "",
    nuid: stored.nuid ?? "",
    size: stored.size ?? 0,
    chunks: stored.chunks ?? 0,
    digest: stored.digest ?? "",
    deleted: stored.deleted ?? false,
    mtime: stored.mtime ?? "",
    revision,
  };
}

/** `meta` as JSON in the stream's layout, for the wasm to read. */
export function metaJson(meta: Partial<ObjectStoreMeta> & { bucket?: string; deleted?: boolean }): string {
  const { headers: h, ...rest } = meta;
  return JSON.stringify({ ...rest, bucket: rest.bucket ?? "", headers: h && record(h) });
}

function record(h: MsgHdrs): Record<string, string[]> {
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
