/**
 * Authenticators for `ConnectionOptions.authenticator`, named and shaped as
 * nats.js's: functions from the server's nonce to the credentials for
 * CONNECT, so nats.js's own work here too. The ones that sign load
 * `@nats-io/nkeys` on first use (`connect` waits for it), so apps that do not
 * sign never load or bundle it, and ed25519 stays out of the wasm.
 */
import type { Auth, Authenticator } from "./raw_core.js";

export type { Auth, Authenticator };

type Nkeys = typeof import("@nats-io/nkeys");
type Source<T> = T | (() => T);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (value: string | Uint8Array) => (typeof value === "string" ? encoder.encode(value) : value);
const text = (value: string | Uint8Array) => (typeof value === "string" ? value : decoder.decode(value));
const read = <T>(source: Source<T>): T => (typeof source === "function" ? (source as () => T)() : source);

let nkeys: Nkeys | undefined;
let loading: Promise<void> | undefined;
/** Marks the authenticators that sign, with how to load what they sign with. */
const loader = Symbol("natsjet.loadNkeys");

/** @internal Set by each entry to its wasm build's `.creds` reader. */
export const wasmAuth: { credsParts?: (creds: string) => [jwt: string, seed: string] } = {};

/** @internal Loads `@nats-io/nkeys` when `authenticator` signs; `connect` awaits it. */
export async function prepare(authenticator: unknown): Promise<void> {
  await (authenticator as { [loader]?: () => Promise<void> } | undefined)?.[loader]?.();
}

/** Only reachable from the signing authenticators, so bundles without them leave nkeys out. */
function loadNkeys(): Promise<void> {
  loading ??= import("@nats-io/nkeys").then(
    // Node hands CommonJS over as named exports; some bundlers only as `default`.
    (m) => void (nkeys = "fromSeed" in m ? m : (m as unknown as { default: Nkeys }).default),
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

/** `{ nkey, sig }` for `nonce`, signed with `seed`; throws on a bad seed. */
function sign(seed: string | Uint8Array, nonce: string | undefined): Auth {
  if (!nkeys) throw new Error("@nats-io/nkeys is not loaded");
  const pair = nkeys.fromSeed(bytes(seed));
  const sig = nonce ? nkeys.encode(pair.sign(encoder.encode(nonce))) : undefined;
  return { nkey: pair.getPublicKey(), sig };
}

function signer(answer: (nonce?: string) => Auth): Authenticator {
  return Object.assign(answer, { [loader]: loadNkeys });
}

/** Signs the server's nonce with an nkey seed (`SU…`). */
export function nkeyAuthenticator(seed: Source<string | Uint8Array>): Authenticator {
  return signer((nonce) => sign(read(seed), nonce));
}

/** Sends a user JWT, and signs the nonce with its seed when one is given. */
export function jwtAuthenticator(jwt: Source<string>, seed?: Source<string | Uint8Array>): Authenticator {
  const answer = (nonce?: string): Auth => ({ jwt: read(jwt), ...(seed === undefined ? {} : sign(read(seed), nonce)) });
  return seed === undefined ? answer : signer(answer);
}

/** Authenticates with the contents of a `.creds` file (user JWT and nkey seed). */
export function credsAuthenticator(creds: Source<string | Uint8Array>): Authenticator {
  return signer((nonce) => {
    const [jwt, seed] = wasmAuth.credsParts!(text(read(creds)));
    return { jwt, ...sign(seed, nonce) };
  });
}

/** Sends a token. */
export function tokenAuthenticator(token: Source<string>): Authenticator {
  return () => ({ auth_token: read(token) });
}

/** Sends a user and password. */
export function usernamePasswordAuthenticator(user: Source<string>, pass?: Source<string>): Authenticator {
  return () => ({ user: read(user), pass: pass === undefined ? undefined : read(pass) });
}
