/**
 * Message headers shaped like nats.js's `MsgHdrs`: multi-valued, names
 * case-preserving, plus the status line (`code`, `description`) of status
 * messages. Converted to and from the flat arrays the wasm side takes.
 */
import { InvalidArgumentError } from "./errors.js";
import type { RawHeaders } from "./raw_core.js";

/** How header names are compared (nats.js's `Match`). */
export const Match = {
  /** The name as given, byte for byte. */
  Exact: "exact",
  /** The name in canonical MIME form (`content-type` is `Content-Type`). */
  CanonicalMIME: "canonical",
  /** Any case. */
  IgnoreCase: "insensitive",
} as const;
/** A header name matching mode: a value of {@link Match}. */
export type Match = (typeof Match)[keyof typeof Match];

/**
 * A message's headers (nats.js's `MsgHdrs`): names with one or more values,
 * and the status line of a status message. Make them with `headers()`;
 * iterating yields `[name, values]`.
 */
export interface MsgHdrs extends Iterable<[string, string[]]> {
  /** Whether the status code is an error (>= 300). */
  readonly hasError: boolean;
  /** `code` and `description`, e.g. `"503"` or `"408 Request Timeout"`. */
  readonly status: string;
  /** Status code of a status message, 0 otherwise. */
  readonly code: number;
  /** The status description of a status message (e.g. `"No Messages"`), `""` otherwise. */
  readonly description: string;
  /** The first value of `name`, `""` when missing. */
  get(name: string, match?: Match): string;
  /** The last value of `name`, `""` when missing. */
  last(name: string, match?: Match): string;
  /** Every value of `name`, in order. */
  values(name: string, match?: Match): string[];
  /** Whether `name` has a value. */
  has(name: string, match?: Match): boolean;
  /** Replaces every value of `name` with `value`. */
  set(name: string, value: string, match?: Match): void;
  /** Adds `value` to the values of `name`. */
  append(name: string, value: string, match?: Match): void;
  /** Removes `name` and all its values. */
  delete(name: string, match?: Match): void;
  /** The header names, as they were set. */
  keys(): string[];
}

/** New, empty headers (a status `code` and `description` are for status replies). */
export function headers(code = 0, description = ""): MsgHdrs {
  return new NatsHeaders(code, description);
}

/** `Content-Type` from `content-type`, as Go's `textproto.CanonicalMIMEHeaderKey`. */
export function canonicalMIMEHeaderKey(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

class NatsHeaders implements MsgHdrs {
  readonly #entries = new Map<string, string[]>();

  constructor(
    readonly code: number,
    readonly description: string,
  ) {}

  get hasError(): boolean {
    return this.code >= 300;
  }

  get status(): string {
    return `${this.code} ${this.description}`.trim();
  }

  get(name: string, match: Match = Match.Exact): string {
    return this.values(name, match)[0] ?? "";
  }

  last(name: string, match: Match = Match.Exact): string {
    return this.values(name, match).at(-1) ?? "";
  }

  values(name: string, match: Match = Match.Exact): string[] {
    return this.#find(name, match).flatMap((key) => this.#entries.get(key) ?? []);
  }

  has(name: string, match: Match = Match.Exact): boolean {
    return this.#find(name, match).length > 0;
  }

  set(name: string, value: string, match: Match = Match.Exact): void {
    this.delete(name, match);
    this.append(name, value, match);
  }

  /** Adds `value` (trimmed, as nats.js); one with CR or LF throws `InvalidArgumentError`, as in nats.js. */
  append(name: string, value: string, match: Match = Match.Exact): void {
    if (/[\r\n]/.test(value)) throw InvalidArgumentError.format("header", "values cannot contain \\r or \\n");
    value = value.trim();
    const key = match === Match.CanonicalMIME ? canonicalMIMEHeaderKey(name) : (this.#find(name, match)[0] ?? name);
    const values = this.#entries.get(key);
    if (values) values.push(value);
    else this.#entries.set(key, [value]);
  }

  delete(name: string, match: Match = Match.Exact): void {
    for (const key of this.#find(name, match)) this.#entries.delete(key);
  }

  keys(): string[] {
    return [...this.#entries.keys()];
  }

  [Symbol.iterator](): IterableIterator<[string, string[]]> {
    return this.#entries.entries();
  }

  /** The stored names that `name` matches. */
  #find(name: string, match: Match): string[] {
    if (match === Match.Exact) return this.#entries.has(name) ? [name] : [];
    const norm = match === Match.IgnoreCase ? (k: string) => k.toLowerCase() : canonicalMIMEHeaderKey;
    const wanted = norm(name);
    return this.keys().filter((key) => norm(key) === wanted);
  }
}

/** Headers as the wasm side takes them: `[name, value, name, value…]`. */
/** nats.js's message tracing options (nats-server 2.11+), sent as headers. */
export interface TraceOptions {
  /** The server sends events of the message's way through the system to this subject. */
  traceDestination?: string;
  /** Only trace: the message is not delivered (a request then gets no answer). */
  traceOnly?: boolean;
}

const TRACE_DEST = "Nats-Trace-Dest";
const TRACE_ONLY = "Nats-Trace-Only";

/** The headers to send with a message: `opts.headers`, with the tracing ones set as asked. */
export function sendHeaders(opts: ({ headers?: MsgHdrs } & TraceOptions) | undefined): string[] | undefined {
  const flat = opts?.headers && toRaw(opts.headers);
  const dest = opts?.traceDestination;
  const only = opts?.traceOnly === true;
  if (dest === undefined && !only) return flat;
  const traced = (name: string) => (dest !== undefined && name === TRACE_DEST) || (only && name === TRACE_ONLY);
  const out: string[] = [];
  for (let i = 0; flat && i + 1 < flat.length; i += 2) if (!traced(flat[i]!)) out.push(flat[i]!, flat[i + 1]!);
  if (dest !== undefined) out.push(TRACE_DEST, dest);
  if (only) out.push(TRACE_ONLY, "true");
  return out;
}

export function toRaw(h: Iterable<[string, string[]]>): string[] {
  const flat: string[] = [];
  for (const [name, values] of h) for (const value of values) flat.push(name, value);
  return flat;
}

export function fromRaw([code, description, ...entries]: RawHeaders): MsgHdrs {
  const h = new NatsHeaders(code, description);
  for (let i = 0; i + 1 < entries.length; i += 2) h.append(entries[i]!, entries[i + 1]!);
  return h;
}
