/**
 * nats.js's Key-Value codecs: user functions that change each key token
 * (between dots; `*` and `>` stay) before it is stored and after it is
 * read, and each value likewise. They run in JS, around the Rust store,
 * which sees keys and values as stored.
 */
import { encode, type Payload } from "../msg.js";

export type KvCodec<T> = { encode(k: T): T; decode(k: T): T };
/** Changes one key token (nats.js's `KvKeyCodec`). */
export type KvKeyCodec = KvCodec<string>;
/** Changes a value to store and one read (nats.js's `KvPayloadCodec`). */
export type KvPayloadCodec = { encode(v: Payload): Uint8Array; decode(d: Uint8Array): Uint8Array };
export type KvCodecs = { key: KvKeyCodec; value: KvPayloadCodec };

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
