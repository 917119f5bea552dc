/**
 * The SHA-256 of objects: `node:crypto`'s where the Node entry registers it
 * (many times faster), else the wasm's own (the `sha2` crate), so that
 * digests need neither `crypto.subtle` (asynchronous, and missing outside
 * secure contexts) nor bundler flags. A put's digest and a get's check are
 * the wasm's procedures', hashing with the host's SHA-256 when one is registered.
 */
import { formatDigest } from "./rules.js";

/** A running SHA-256, as `node:crypto`'s `Hash` is. */
export interface Sha256Hasher {
  update(data: Uint8Array): unknown;
  digest(): Uint8Array;
}

/** Makes a hasher, e.g. `() => createHash("sha256")` from `node:crypto`. */
export type Sha256Factory = () => Sha256Hasher;

/** @internal The host's hashers, if registered (by the Node entry), else the wasm hashes. */
export const sha256: { host?: Sha256Factory } = {};

/** SHA-256 of "abc" (FIPS 180-2). */
const ABC = "SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=";

/**
 * @internal Digests begun from now on are made by hashers that `factory`
 * makes; `null` goes back to the wasm's. A factory whose hasher does not
 * give the SHA-256 of "abc" is refused with a `TypeError`.
 */
export function setSha256Factory(factory: Sha256Factory | null): void {
  if (factory !== null && !computesSha256(factory)) throw new TypeError("setSha256Factory: expected a function whose hashers compute SHA-256");
  sha256.host = factory ?? undefined;
}

/** Whether `factory`'s hasher gives the SHA-256 of "abc", fed in two pieces. */
function computesSha256(factory: Sha256Factory): boolean {
  try {
    const hasher = factory();
    hasher.update(new Uint8Array([97]));
    hasher.update(new Uint8Array([98, 99]));
    return formatDigest(hasher.digest()) === ABC;
  } catch {
    return false;
  }
}
