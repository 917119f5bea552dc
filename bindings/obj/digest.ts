/**
 * The SHA-256 of objects: `node:crypto`'s where the Node entry registers it
 * (many times faster), else the wasm's `RawSha256` (the `sha2` crate), so
 * that digests need neither `crypto.subtle` (asynchronous, and missing
 * outside secure contexts) nor bundler flags; and the check of a get's
 * chunks against their meta's size and digest.
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

/** A get's check of an object's chunks against its meta's size and digest: a corrupt object is an error, never data that ends cleanly. */
export class Check {
  readonly #digest = new Digest();
  #received = 0;

  constructor(
    readonly name: string,
    readonly size: number,
    /** The meta's digest, as `formatDigest` writes it. */
    readonly expected: string,
  ) {}

  /** Hashes `chunk`; an error once more bytes came than the object has. */
  chunk(chunk: Uint8Array): void {
    this.#received += chunk.length;
    if (this.#received > this.size) throw this.#corrupt("SIZE_MISMATCH", `${this.#received} bytes arrived of ${this.size}`);
    this.#digest.update(chunk);
  }

  /** Whether what arrived is the object its meta describes; once, at the end. */
  finish(): void {
    if (this.#received !== this.size) throw this.#corrupt("SIZE_MISMATCH", `${this.#received} bytes arrived of ${this.size}`);
    const computed = this.#digest.finish();
    if (computed !== this.expected) throw this.#corrupt("DIGEST_MISMATCH", `its digest is ${this.expected}, its bytes hash to ${computed}`);
  }

  #corrupt(kind: "SIZE_MISMATCH" | "DIGEST_MISMATCH", why: string): NatsError {
    return new NatsError(`object ${JSON.stringify(this.name)} is corrupt: ${why}`, kind);
  }
}
