/**
 * The one way JetStream API calls cross the wasm boundary: the request as
 * JSON text out, the server's reply as JSON text back, parsed here. Rust
 * names the subject (validating the names in it), applies the prefix and
 * timeout, and rejects error replies as `NatsError`s.
 */
import type { ApiCall, RawJetStream } from "../raw.js";
import { str } from "../names.js";

/** The reply to `call` on `stream` and `consumer` (`""`: none) as JSON text. */
export function requestText(
  raw: RawJetStream,
  call: ApiCall,
  stream = "",
  consumer = "",
  body?: unknown,
): Promise<string> {
  const [s, c] = [str(stream, "stream name"), str(consumer, "consumer name")];
  return raw.request(call, s, c, body === undefined ? "" : JSON.stringify(body));
}

/** A reply's JSON, without the server's `type` tag. */
export function parseReply<T>(json: string): T {
  const reply = JSON.parse(json) as T & { type?: string };
  delete reply.type;
  return reply;
}

/** The parsed reply to `call`. */
export async function request<T>(
  raw: RawJetStream,
  call: ApiCall,
  stream?: string,
  consumer?: string,
  body?: unknown,
): Promise<T> {
  return parseReply<T>(await requestText(raw, call, stream, consumer, body));
}
