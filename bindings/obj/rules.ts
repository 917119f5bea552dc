/**
 * The Object Store's argument checks nats.js makes in TS (names, buckets,
 * a put's meta, a link's target) and the meta's JSON shape as the API
 * hands it out. Lookups and every write by name are the core's procedures
 * (`src/core/object`, through `objectChange`, `objectRead`, `objectWrite`).
 * No I/O here. `tests/vectors/object_store.json` holds cases that this's
 * name and bucket checks and the Rust run; the subjects names make are the
 * core's alone.
 */
import { InvalidArgumentError, ProtocolError } from "../errors.js";

/** A meta as the stream holds it: the JSON nats.go, nats.js and async-nats write. */
export interface Meta {
  name: string;
  description?: string;
  headers?: Record<string, string[]>;
  options?: { link?: Link; max_chunk_size?: number };
  metadata?: Record<string, string>;
  bucket: string;
  nuid: string;
  size: number;
  chunks: number;
  mtime?: string;
  digest?: string;
  deleted?: boolean;
}

/** An object (with `name`) or a whole bucket (without) a link points to. */
export interface Link {
  bucket: string;
  name?: string;
}

/** The object a name finds (the core's lookup): its meta (and that meta's JSON), subject and sequence, and the older meta of its name it shadows. */
export interface Found {
  meta: Meta;
  json: Uint8Array;
  subject: string;
  seq: number;
  shadowed?: { subject: string; nuid?: string };
}

export const DEFAULT_CHUNK_SIZE = 128 * 1024;
const MAX_NAME = 2048;
const PREFIX = "SHA-256=";

const encoder = new TextEncoder();
const quote = JSON.stringify;

/** `[A-Za-z0-9_-]+`, its stream name (`OBJ_` and it) at most 255 bytes. */
export function checkBucket(bucket: string): void {
  const why = !/^[\w-]+$/.test(bucket) ? "use letters, digits, '_' and '-' only" : bucket.length > 251 ? "longer than 251 bytes" : "";
  if (why) throw new InvalidArgumentError(`invalid bucket name ${quote(bucket)}: ${why}`);
}

/** An object's name: 1 to 2048 bytes of UTF-8. */
export function checkName(name: string): void {
  const n = encoder.encode(name).length;
  if (n === 0 || n > MAX_NAME) throw new InvalidArgumentError(`invalid object name ${quote(name)}: ${n ? "longer than 2048 bytes" : "empty name"}`);
}

/** Padded URL-safe base64. */
function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_");
}

/** A SHA-256 as a meta holds it. */
export function formatDigest(sum: Uint8Array): string {
  return PREFIX + base64url(sum);
}

/** The meta whose JSON is `json`; a `PROTOCOL` error if it is not an object with a name and a bucket. */
export function readMeta(json: Uint8Array): Meta {
  let meta: Partial<Meta> | undefined;
  try {
    // `null` is a missing field, wherever it stands (async-nats writes them).
    meta = JSON.parse(new TextDecoder().decode(json), (_, v: unknown) => (v === null ? undefined : Array.isArray(v) ? v.filter(() => true) : v)) as Partial<Meta>;
  } catch {
    // Refused below.
  }
  if (typeof meta?.name !== "string" || typeof meta.bucket !== "string") throw new ProtocolError("an object store meta that is not one");
  return { nuid: "", size: 0, chunks: 0, ...meta } as Meta;
}

/** `meta` as JSON, its optional fields left out when empty (as the Rust store writes it). */
export function metaJson(meta: Meta): string {
  const optional = ["description", "headers", "options", "metadata", "digest", "deleted"];
  const empty = (v: unknown) => !v || (typeof v === "object" && Object.keys(v).length === 0);
  return JSON.stringify(Object.fromEntries(Object.entries(meta).filter(([key, value]) => !(optional.includes(key) && empty(value)))));
}

/** What a put or an update sets besides the name: a string description, and metadata of strings. */
export function checkMeta({ description, metadata }: { description?: unknown; metadata?: unknown }): void {
  if (description !== undefined && typeof description !== "string") throw new InvalidArgumentError("description: expected a string");
  const strings = metadata === undefined || (typeof metadata === "object" && metadata !== null && Object.values(metadata).every((v) => typeof v === "string"));
  if (!strings) throw new InvalidArgumentError("metadata: expected an object of strings");
}

/** A link's name: not empty, and an object's name. */
export function checkLinkName(name: string): void {
  if (name === "") throw new InvalidArgumentError("empty link name");
  checkName(name);
}

/** The link to `target`: an object with a name, neither deleted nor a link; without a name, its bucket. */
export function linkTo(target: Partial<Meta>): Link {
  const { name, bucket = "", deleted, options } = target;
  if (!name) {
    checkBucket(bucket);
    return { bucket };
  }
  const refused = deleted ? "is deleted" : options?.link ? "is a link" : "";
  if (refused) throw new InvalidArgumentError(`the object to link to ${refused}`);
  return { name, bucket };
}

/** The bytes per chunk of a put asking for `asked` (none or 0: the default), never more than a message holds. */
export function chunkSize(asked: number | undefined, maxPayload: number): number {
  const n = asked === undefined ? 0 : whole(asked, "options.max_chunk_size");
  return Math.min(n || DEFAULT_CHUNK_SIZE, Math.max(maxPayload, 1));
}

/** `n`, if it is a whole number >= 0; else `INVALID_ARGUMENT` naming `what`. */
export function whole(n: unknown, what: string): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError(`${what}: expected a whole number >= 0`);
  return n;
}

