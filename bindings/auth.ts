/** Authenticators for `ConnectionOptions.authenticator`, named as nats.js's. */
import type { Authenticator } from "./raw.js";

export type { Authenticator };

const decoder = new TextDecoder();
const text = (value: string | Uint8Array) => (typeof value === "string" ? value : decoder.decode(value));

/** Signs the server's nonce with an nkey seed (`SU…`). */
export function nkeyAuthenticator(seed: string | Uint8Array): Authenticator {
  return { nkeySeed: text(seed) };
}

/** Authenticates with the contents of a `.creds` file (user JWT and nkey seed). */
export function credsAuthenticator(creds: string | Uint8Array): Authenticator {
  return { creds: text(creds) };
}
