/**
 * `JsMsg`, shaped like nats.js's: a message delivered by a consumer, with
 * its delivery info and acks. Its bytes come from the packed batch; its
 * acks and metadata from the batch's `RawDeliveries` in wasm, which keeps
 * each message's one-final-ack rule (a second one throws `ALREADY_ACKNOWLEDGED`).
 */
import type { RawAckBatch, RawDelivered, RawDeliveries } from "../raw.js";
import { NatsError } from "../errors.js";
import type { MsgHdrs } from "../headers.js";
import { unpack, type Msg, type Publisher } from "../msg.js";

/** Where and when a message was delivered, from its ack subject (nats.js's names). */
export interface DeliveryInfo {
  readonly stream: string;
  readonly consumer: string;
  /** JetStream domain, `""` for none. */
  readonly domain: string;
  /** Deliveries of this message, this one included. */
  readonly redeliveryCount: number;
  readonly redelivered: boolean;
  readonly streamSequence: number;
  /** The consumer's sequence of this delivery. */
  readonly deliverySequence: number;
  /** When the stream stored it, in Unix nanoseconds: past 2^53, so a `bigint`. */
  readonly timestampNanos: bigint;
  /** Messages left for the consumer after this one. */
  readonly pending: number;
  /** `timestampNanos` as a `Date` (millisecond precision). */
  readonly time: Date;
}

/** The acks a message (or an `AckBatch`) takes: `working` (`+WPI`) is the only one that can repeat. */
export type AckKind = "ack" | "nak" | "working" | "term";

export interface JsMsg {
  readonly subject: string;
  /** The payload; a view into the batch it arrived in. */
  readonly data: Uint8Array;
  readonly headers?: MsgHdrs;
  /** The stream sequence. */
  readonly seq: number;
  readonly redelivered: boolean;
  readonly info: DeliveryInfo;
  /** `data` decoded as UTF-8. */
  string(): string;
  /** `data` parsed as JSON. */
  json<T = unknown>(): T;
  /** Done with it; sent at once, unconfirmed. */
  ack(): void;
  /** Redeliver it, after `millis` if given. */
  nak(millis?: number): void;
  /** Still working on it: resets the server's ack timer (repeatable). */
  working(): void;
  /** Never redeliver it; `reason` shows in the server's advisory. */
  term(reason?: string): void;
  /**
   * Acks and resolves `true` once the server applied it (the JetStream
   * timeout bounds the wait). A `TIMEOUT` is ambiguous, not proof of failure.
   */
  ackAck(): Promise<boolean>;
  /** natsjet: a token (the ack subject) to ack this delivery later, from any connection, with an `AckBatch`. */
  ackToken(): string;
}

const KINDS: Record<AckKind, number> = { ack: 0, nak: 1, working: 2, term: 3 };

/** The wasm code of `kind`, checked: an unknown kind must not become `+ACK`. */
export function ackKind(kind: AckKind): number {
  const code = KINDS[kind];
  if (code === undefined) throw new NatsError(`unknown ack kind ${String(kind)}`, "INVALID_ARGUMENT");
  return code;
}

export class NatsJsMsg implements JsMsg {
  readonly #msg: Msg;
  readonly #deliveries: RawDeliveries;
  readonly #index: number;
  #info?: DeliveryInfo;

  constructor(msg: Msg, deliveries: RawDeliveries, index: number) {
    this.#msg = msg;
    this.#deliveries = deliveries;
    this.#index = index;
  }

  get subject(): string {
    return this.#msg.subject;
  }

  get data(): Uint8Array {
    return this.#msg.data;
  }

  get headers(): MsgHdrs | undefined {
    return this.#msg.headers;
  }

  get seq(): number {
    return this.info.streamSequence;
  }

  get redelivered(): boolean {
    return this.info.redelivered;
  }

  get info(): DeliveryInfo {
    return (this.#info ??= deliveryInfo(this.#deliveries, this.#index));
  }

  string(): string {
    return this.#msg.string();
  }

  json<T = unknown>(): T {
    return this.#msg.json<T>();
  }

  ack(): void {
    this.#deliveries.ack(this.#index, KINDS.ack);
  }

  nak(millis?: number): void {
    this.#deliveries.ack(this.#index, KINDS.nak, millis);
  }

  working(): void {
    this.#deliveries.ack(this.#index, KINDS.working);
  }

  term(reason?: string): void {
    this.#deliveries.ack(this.#index, KINDS.term, undefined, reason);
  }

  ackAck(): Promise<boolean> {
    return this.#deliveries.ackAck(this.#index);
  }

  ackToken(): string {
    return this.#deliveries.ackToken(this.#index);
  }

  /** @internal Hands this message's final ack to `batch`. */
  addTo(batch: RawAckBatch, kind: number, delay?: number, reason?: string): void {
    batch.addMessage(this.#deliveries, this.#index, kind, delay, reason);
  }
}

function deliveryInfo(deliveries: RawDeliveries, index: number): DeliveryInfo {
  const [stream, consumer, domain, delivered, streamSequence, deliverySequence, timestampNanos, pending] =
    deliveries.info(index);
  return {
    stream,
    consumer,
    domain: domain ?? "",
    redeliveryCount: delivered,
    redelivered: delivered > 1,
    streamSequence,
    deliverySequence,
    timestampNanos,
    pending,
    get time() {
      return new Date(Number(timestampNanos / 1_000_000n));
    },
  };
}

/** The messages of a delivered batch. */
export function unpackDelivered([batch, deliveries]: RawDelivered, publisher: Publisher): JsMsg[] {
  return unpack(batch, 0, publisher).map((msg, i) => new NatsJsMsg(msg, deliveries, i));
}
