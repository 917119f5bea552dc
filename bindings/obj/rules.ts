/**
 * The Object Store's rules (ADR-20) as the Rust store has them
 * (`src/core/object`, `src/jetstream/object_store`), in TS because they are
 * JSON and string checks, which cost the bundle a fraction of what they cost
 * in wasm: names and the subjects they make, digests, metas, the object a
 * name finds, and the writes decided over that lookup. No I/O here.
 * `tests/vectors/object_store.json` holds cases that this and the Rust run.
 */
import { InvalidArgumentError, JetStreamApiCodes, JetStreamApiError, ProtocolError } from "../errors.js";

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

/** A meta read from the stream: its subject and sequence (the object's revision). */
export interface Stored {
  meta: Meta;
  subject: string;
  seq: number;
}

/** The object a name finds: the newer of its UTF-8 and Latin-1 metas, shadowing the older. */
export interface Found extends Stored {
  shadowed?: { subject: string; nuid?: string };
}

/** A write decided: `meta` goes on `subject` (with a rollup), then `purge` is purged. */
export interface MetaWrite {
  subject: string;
  meta: Meta;
  purge: string[];
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

/**
 * The subjects object `name`'s meta is looked for under: the UTF-8 one
 * every client but nats.js 3.4 writes and, for a name outside ASCII that
 * fits Latin-1, the one nats.js 3.4 writes (`btoa` of the name).
 */
export function metaSubjects(bucket: string, name: string): string[] {
  checkName(name);
  const subjects = [metaSubject(bucket, name)];
  if (/[^\0-\x7f]/.test(name) && !/[^\0-\xff]/.test(name)) subjects.push(`$O.${bucket}.M.${base64url(Uint8Array.from(name, (c) => c.charCodeAt(0)))}`);
  return subjects;
}

function metaSubject(bucket: string, name: string): string {
  return `$O.${bucket}.M.${base64url(encoder.encode(name))}`;
}

export function chunkSubject(bucket: string, nuid: string): string {
  return `$O.${bucket}.C.${nuid}`;
}

/** Padded URL-safe base64. */
function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_");
}

/** A chunks token: 22 random characters of [0-9A-Za-z], as a NUID. */
export function nuid(): string {
  const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return Array.from(crypto.getRandomValues(new Uint8Array(22)), (b) => digits[b % 62]).join("");
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

/**
 * The meta `payload` (at `seq`, stored at `time`) on `subject`, its time
 * that of the message, if it is object `name`'s: a name in one encoding
 * can make another's subject in the other.
 */
export function stored(name: string, subject: string, payload: Uint8Array, seq: number, time: string): Stored | null {
  const meta = { ...readMeta(payload), mtime: time };
  return meta.name === name ? { meta, subject, seq } : null;
}

/** The object of a name from its metas under the UTF-8 and the Latin-1 subject. */
export function newer(utf8: Stored | null, latin1: Stored | null): Found | null {
  const [found, older] = latin1 && (!utf8 || latin1.seq > utf8.seq) ? [latin1, utf8] : [utf8, latin1];
  if (!found) return null;
  if (!older) return found;
  const chunks = older.meta.nuid !== "" && older.meta.nuid !== found.meta.nuid;
  return { ...found, shadowed: { subject: older.subject, nuid: chunks ? older.meta.nuid : undefined } };
}

/** The API's 404 for object `name`, as a lookup finds nothing. */
export function notFound(name: string): JetStreamApiError {
  return new JetStreamApiError({ code: 404, err_code: JetStreamApiCodes.NoMessageFound, description: `no object named ${quote(name)}` });
}

/** The write of `meta` on `written` in `bucket`, purging the `stale` subjects and what `shadowed` holds, never `written` itself. */
function metaWrite(bucket: string, written: string, meta: Meta, stale: (string | undefined)[], shadowed?: Found["shadowed"]): MetaWrite {
  const purge = [...stale, shadowed?.subject, shadowed?.nuid && chunkSubject(bucket, shadowed.nuid)];
  return { subject: written, meta, purge: purge.filter((s): s is string => !!s && s !== written) };
}

/** The write deleting the object `found` of `bucket`: its meta says so, its chunks go. */
export function deleteWrite(bucket: string, found: Found): MetaWrite {
  const { digest: _, ...kept } = found.meta;
  const meta = { ...kept, deleted: true, size: 0, chunks: 0, mtime: now() };
  return metaWrite(bucket, found.subject, meta, [chunkSubject(bucket, found.meta.nuid)], found.shadowed);
}

/** Whether an update of `found` (the lookup of `name`) to `newName` renames it; a missing or deleted object is not found. */
export function renames(found: Found | null, name: string, newName: string): boolean {
  if (!found || found.meta.deleted) throw notFound(name);
  if (newName !== name) checkName(newName);
  return newName !== name;
}

/**
 * The write of `found` in `bucket` renamed to `newName` (`taken`: the
 * object of that name, if any) with `change` made (the headers only if it
 * has the key).
 */
export function updateWrite(bucket: string, found: Found, newName: string, taken: Found | null, change: Pick<Meta, "description" | "metadata" | "headers">): MetaWrite {
  if (taken && !taken.meta.deleted) throw new InvalidArgumentError(`an object named ${quote(newName)} exists`);
  const meta = { ...found.meta, ...change, name: newName, mtime: now() };
  const subject = newName === found.meta.name ? found.subject : metaSubject(bucket, newName);
  return metaWrite(bucket, subject, meta, [found.subject], found.shadowed);
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

/** The write of link `name` in `bucket` to `link`, over `found` (only a link or a deleted object may be replaced). */
export function linkWrite(bucket: string, name: string, link: Link, found: Found | null): MetaWrite {
  if (found && !found.meta.deleted && !found.meta.options?.link) throw new InvalidArgumentError(`an object named ${quote(name)} exists`);
  const meta: Meta = { name, options: { link }, bucket, nuid: nuid(), size: 0, chunks: 0, mtime: now() };
  return metaWrite(bucket, found?.subject ?? metaSubject(bucket, name), meta, [], found?.shadowed);
}

/** Where a get of `meta` goes next: `null` to its own chunks, else the bucket and name of the object it links to; a link to a bucket is no object. */
export function linkTarget(meta: Meta): [bucket: string, name: string] | null {
  const link = meta.options?.link;
  if (!link) return null;
  if (!link.name) throw new InvalidArgumentError(`${quote(meta.name)} links to bucket ${quote(link.bucket)}`);
  checkBucket(link.bucket);
  return [link.bucket, link.name];
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


function now(): string {
  return new Date().toISOString();
}
