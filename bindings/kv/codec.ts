/**
 * nats.js's Key-Value codecs: user functions that change each key token
 * (between dots; `*` and `>` stay) before it is stored and after it is
 * read, and each value likewise. They run in JS, around the Rust store,
 * which sees keys and values as stored.
 */
import { encode, type Payload } from "../msg.js";

/** A pair of functions that change a key token (or a value) on the way in and back. */
export type KvCodec<T> = {
  /** Changes what is written. */
  encode(k: T): T;
  /** Changes what is read back (undoes `encode`). */
  decode(k: T): T;
};
/** Changes one key token (nats.js's `KvKeyCodec`). */
export type KvKeyCodec = KvCodec<string>;
/** Changes a value to store and one read (nats.js's `KvPayloadCodec`). */
export type KvPayloadCodec = {
  /** The bytes to store for value `v`. */
  encode(v: Payload): Uint8Array;
  /** The value of bytes read (undoes `encode`). */
  decode(d: Uint8Array): Uint8Array;
};
/** A bucket handle's codecs (nats.js's `KvCodecs`). */
export type KvCodecs = {
  /** Applied to each key token. */
  key: KvKeyCodec;
  /** Applied to each value. */
  value: KvPayloadCodec;
};

/** Keys and values as they are. */
export function NoopKvCodecs(): KvCodecs {
  return { key: { encode: (k) => k, decode: (k) => k }, value: { encode, decode: (v) => v } };
}

/** Each key token as base64 (what `btoa` makes), as nats.js's. */
export function Base64KeyCodec(): KvKeyCodec {
  return { encode: (k) => btoa(k), decode: (k) => atob(k) };
}

/** `key` with each token through `code`, wildcards as they are. */
export function byToken(key: string, code: (token: string) => string): string {
  return key
    .split(".")
    .map((t) => (t === "*" || t === ">" ? t : code(t)))
    .join(".");
}
