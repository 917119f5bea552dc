/**
 * The SHA-256 of objects: `node:crypto`'s where the Node entry registers it
 * (many times faster), else the wasm's `RawSha256` (the `sha2` crate), so
 * that digests need neither `crypto.subtle` (asynchronous, and missing
 * outside secure contexts) nor bundler flags. A get's check of the chunks
 * against their meta's size and digest is the wasm's read procedure's,
 * hashing with the host's SHA-256 when one is registered.
 */
import { NatsError } from "../errors.js";
import { formatDigest } from "./rules.js";

/** A running SHA-256, as `node:crypto`'s `Hash` and the wasm's `RawSha256` are. */
export interface Sha256Hasher {
  update(data: Uint8Array): unknown;
  digest(): Uint8Array;
}

/** Makes a hasher, e.g. `() => createHash("sha256")` from `node:crypto`. */
export type Sha256Factory = () => Sha256Hasher;

/** @internal Where hashers come from: the host's if registered, else the wasm's (both set by the entries). */
export const sha256: { host?: Sha256Factory; wasm?: Sha256Factory } = {};

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

/** The running SHA-256 of an object's bytes; a hasher that throws fails the transfer. */
export class Digest {
  readonly #hasher: Sha256Hasher = (sha256.host ?? sha256.wasm!)();

  update(data: Uint8Array): void {
    this.#guard(() => this.#hasher.update(data));
  }

  /** The digest as a meta holds it. */
  finish(): string {
    return this.#guard(() => formatDigest(this.#hasher.digest()));
  }

  #guard<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw new NatsError(`the host's SHA-256 failed: ${(e as Error).message ?? e}`, "IO", { cause: e });
    }
  }
}
