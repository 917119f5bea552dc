/**
 * Messages shaped like nats.js's `Msg`, unpacked from the batches the wasm
 * side sends (see `RawBatch`): one `Uint8Array` per batch, each message's
 * `data` a view into it.
 */
import type { RawBatch } from "./raw_core.js";
import { InvalidArgumentError } from "./errors.js";
import { fromRaw, type MsgHdrs, type TraceOptions } from "./headers.js";

/** A message body: bytes, or a string sent as UTF-8. */
export type Payload = Uint8Array | string;
/** `JSON.parse`'s second argument. */
export type JsonReviver = (this: unknown, key: string, value: unknown) => unknown;

/** Options of `publish` and `respond`. */
export interface PublishOptions extends TraceOptions {
  /** Headers sent with the message. */
  headers?: MsgHdrs;
  /** Subject the receiver should answer to. */
  reply?: string;
}

/** A message received (nats.js's `Msg`). */
export interface Msg {
  /** The subject it was published to. */
  readonly subject: string;
  /** Where to answer; `""` when the sender expects no answer (as nats.js). */
  readonly reply?: string;
  /** The payload; a view into the batch it arrived in. */
  readonly data: Uint8Array;
  /** Its headers; absent when it had none. */
  readonly headers?: MsgHdrs;
  /** Id of the subscription it arrived on (0 for a request's answer). */
  readonly sid: number;
  /** `data` decoded as UTF-8. */
  string(): string;
  /** `data` parsed as JSON (`reviver` as for `JSON.parse`). */
  json<T = unknown>(reviver?: JsonReviver): T;
  /** Publishes to `reply`; `false` when there is none. */
  respond(data?: Payload, opts?: PublishOptions): boolean;
}

/** What a message needs to answer. */
export interface Publisher {
  /** Publishes a message; see `NatsConnection.publish`. */
  publish(subject: string, data?: Payload, opts?: PublishOptions): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

/** A payload as bytes. */
export function encode(data: Payload | undefined): Uint8Array {
  if (data === undefined) return EMPTY;
  if (typeof data === "string") return encoder.encode(data);
  if (data instanceof Uint8Array) return data;
  throw new InvalidArgumentError("payload: expected a Uint8Array or a string");
}

class NatsMsg implements Msg {
  readonly #publisher: Publisher;

  constructor(
    readonly subject: string,
    readonly reply: string,
    readonly data: Uint8Array,
    readonly headers: MsgHdrs | undefined,
    readonly sid: number,
    publisher: Publisher,
  ) {
    this.#publisher = publisher;
  }

  string(): string {
    return decoder.decode(this.data);
  }

  json<T = unknown>(reviver?: JsonReviver): T {
    return JSON.parse(this.string(), reviver) as T;
  }

  respond(data?: Payload, opts?: PublishOptions): boolean {
    if (!this.reply) return false;
    this.#publisher.publish(this.reply, data, opts);
    return true;
  }
}

export function unpack([bytes, ends, headers]: RawBatch, sid: number, publisher: Publisher): Msg[] {
  const msgs = new Array<Msg>(ends.length / 3);
  let start = 0;
  for (let i = 0; i < msgs.length; i++) {
    const subjectEnd = ends[3 * i]!;
    const replyEnd = ends[3 * i + 1]!;
    const end = ends[3 * i + 2]!;
    const subject = decoder.decode(bytes.subarray(start, subjectEnd));
    const reply = decoder.decode(bytes.subarray(subjectEnd, replyEnd));
    const raw = headers?.[i];
    msgs[i] = new NatsMsg(subject, reply, bytes.subarray(replyEnd, end), raw && fromRaw(raw), sid, publisher);
    start = end;
  }
  return msgs;
}
