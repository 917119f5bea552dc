/**
 * `JsMsg`, shaped like nats.js's: a message delivered by a consumer, with
 * its delivery info and acks. Its bytes come from the packed batch and are
 * decoded only when read (subject, headers); its acks and metadata come
 * from the batch's `RawDeliveries` in wasm, by index, which keeps each
 * message's one-final-ack rule (a second one throws `ALREADY_ACKNOWLEDGED`).
 */
import type { RawAckBatch, RawBatch, RawCheckpointLedger, RawDelivered, RawDeliveries } from "../raw.js";
import { InvalidArgumentError } from "../errors.js";
import { fromRaw, type MsgHdrs } from "../headers.js";
import type { JsonReviver } from "../msg.js";

/** Where and when a message was delivered, from its ack subject (nats.js's names). */
export interface DeliveryInfo {
  /** The stream the message is from. */
  readonly stream: string;
  /** The consumer that delivered it. */
  readonly consumer: string;
  /** JetStream domain, `""` for none. */
  readonly domain: string;
  /** Deliveries of this message, this one included. */
  readonly deliveryCount: number;
  /** Whether it was delivered before (`deliveryCount` > 1). */
  readonly redelivered: boolean;
  /** The message's stream sequence. */
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

/** What `JsMsg.next` asks for, as nats.js's `PullOptions` (durations in ms). */
export interface JsMsgNextOptions {
  /** Messages to ask for (default 1). */
  batch?: number;
  /** Milliseconds the pull stays open. */
  expires?: number;
  /** Answer at once, with what is there (or a 404 status). */
  no_wait?: boolean;
}

/** The acks a message (or an `AckBatch`) takes: `working` (`+WPI`) is the only one that can repeat. */
export type AckKind = "ack" | "nak" | "working" | "term";

/**
 * A message a consumer delivered (nats.js's `JsMsg`): its payload, delivery
 * info and acks.
 */
export interface JsMsg {
  /** The subject it was published to. */
  readonly subject: string;
  /** The payload; a view into the batch it arrived in. */
  readonly data: Uint8Array;
  /** Its headers; absent when it had none. */
  readonly headers?: MsgHdrs;
  /** The stream sequence. */
  readonly seq: number;
  /** Whether it was delivered before (`info.redelivered`). */
  readonly redelivered: boolean;
  /** Its delivery info, from the ack subject. */
  readonly info: DeliveryInfo;
  /** The ack subject the server delivered it with (what `ackToken()` gives). */
  readonly reply: string;
  /** When the stream stored it, in Unix nanoseconds (`info.timestampNanos`). */
  readonly timestampNanos: bigint;
  /** When the stream stored it (millisecond precision). */
  readonly time: Date;
  /** `time` as an ISO 8601 string. */
  readonly timestamp: string;
  /** `data` decoded as UTF-8. */
  string(): string;
  /** `data` parsed as JSON (`reviver` as for `JSON.parse`). */
  json<T = unknown>(reviver?: JsonReviver): T;
  /** Done with it; sent at once, unconfirmed. */
  ack(): void;
  /** Redeliver it, after `millis` if given. */
  nak(millis?: number): void;
  /** Still working on it: resets the server's ack timer (repeatable). */
  working(): void;
  /** Never redeliver it; `reason` shows in the server's advisory. */
  term(reason?: string): void;
  /**
   * Acks it with `+NXT`, asking the consumer for `opts.batch` more (1),
   * within `opts.expires` ms or at once (`no_wait`), delivered to `subj`
   * (subscribe to it first), as nats.js.
   */
  next(subj?: string, opts?: JsMsgNextOptions): void;
  /**
   * Acks and resolves `true` once the server applied it, waiting at most
   * `opts.timeout` ms (default: the JetStream timeout). A `TIMEOUT` is
   * ambiguous, not proof of failure.
   */
  ackAck(opts?: { timeout?: number }): Promise<boolean>;
  /** natsjet: a token (the ack subject) to ack this delivery later, from any connection, with an `AckBatch`. */
  ackToken(): string;
}

const KINDS: Record<AckKind, number> = { ack: 0, nak: 1, working: 2, term: 3 };

/** The wasm code of `kind`, checked: an unknown kind must not become `+ACK`. */
export function ackKind(kind: AckKind): number {
  const code = KINDS[kind];
  if (code === undefined) throw new InvalidArgumentError(`unknown ack kind ${String(kind)}`);
  return code;
}

const decoder = new TextDecoder();

/**
 * The messages of one delivered batch: `bytes` holds each message's
 * subject, reply and payload in turn, `ends` the end of each (see `RawBatch`).
 */
export class DeliveredBatch {
  readonly bytes: Uint8Array;
  readonly ends: Uint32Array;
  readonly headers: RawBatch[2];
  readonly deliveries: RawDeliveries;
  /** A consumer group member's batch: each message's partition. */
  readonly partitions: Uint32Array | undefined;
  /** Messages in the batch. */
  readonly length: number;
  /**
   * What the messages' getters decoded, by index, so each gives the same
   * value every time; here rather than in each message, which then stays
   * small (one is made per message, most never read these).
   */
  #subjects?: string[];
  #headerMaps?: (MsgHdrs | null)[];
  #infos?: DeliveryInfo[];

  constructor([[bytes, ends, headers], deliveries, partitions]: RawDelivered) {
    this.bytes = bytes;
    this.ends = ends;
    this.headers = headers;
    this.deliveries = deliveries;
    this.partitions = partitions;
    this.length = ends.length / 3;
  }

  /** Message `i`. */
  msg(i: number): NatsJsMsg {
    return new NatsJsMsg(this, i);
  }

  /** Message `i`'s subject. */
  subject(i: number): string {
    const subjects = (this.#subjects ??= new Array<string>(this.length));
    return (subjects[i] ??= decoder.decode(this.bytes.subarray(i === 0 ? 0 : this.ends[3 * i - 1]!, this.ends[3 * i]!)));
  }

  /** Message `i`'s headers, `null` for none. */
  headerMap(i: number): MsgHdrs | null {
    const maps = (this.#headerMaps ??= new Array<MsgHdrs | null>(this.length));
    let map = maps[i];
    if (map === undefined) {
      const raw = this.headers?.[i];
      map = maps[i] = raw ? fromRaw(raw) : null;
    }
    return map;
  }

  /** Message `i`'s delivery metadata. */
  info(i: number): DeliveryInfo {
    return ((this.#infos ??= new Array<DeliveryInfo>(this.length))[i] ??= deliveryInfo(this.deliveries, i));
  }
}

export class NatsJsMsg implements JsMsg {
  readonly #batch: DeliveredBatch;
  readonly #index: number;
  #data?: Uint8Array;

  constructor(batch: DeliveredBatch, index: number) {
    this.#batch = batch;
    this.#index = index;
  }

  get subject(): string {
    return this.#batch.subject(this.#index);
  }

  get data(): Uint8Array {
    if (this.#data === undefined) {
      const { bytes, ends } = this.#batch;
      const i = this.#index;
      this.#data = bytes.subarray(ends[3 * i + 1]!, ends[3 * i + 2]!);
    }
    return this.#data;
  }

  get headers(): MsgHdrs | undefined {
    return this.#batch.headerMap(this.#index) ?? undefined;
  }

  get seq(): number {
    return this.info.streamSequence;
  }

  /** A consumer group member's message: its partition (`GroupMsg`); otherwise `undefined`. */
  get partition(): number | undefined {
    return this.#batch.partitions?.[this.#index];
  }

  get redelivered(): boolean {
    return this.info.redelivered;
  }

  get info(): DeliveryInfo {
    return this.#batch.info(this.#index);
  }

  get reply(): string {
    return this.ackToken();
  }

  get timestampNanos(): bigint {
    return this.info.timestampNanos;
  }

  get time(): Date {
    return this.info.time;
  }

  get timestamp(): string {
    return this.time.toISOString();
  }

  string(): string {
    return decoder.decode(this.data);
  }

  json<T = unknown>(reviver?: JsonReviver): T {
    return JSON.parse(this.string(), reviver) as T;
  }

  ack(): void {
    thrown(this.#batch.deliveries.sendAck(this.#index));
  }

  nak(millis?: number): void {
    thrown(this.#batch.deliveries.ack(this.#index, KINDS.nak, millis));
  }

  working(): void {
    thrown(this.#batch.deliveries.ack(this.#index, KINDS.working));
  }

  term(reason?: string): void {
    thrown(this.#batch.deliveries.ack(this.#index, KINDS.term, undefined, reason));
  }

  next(subj?: string, opts: JsMsgNextOptions = {}): void {
    this.#batch.deliveries.next(this.#index, subj, opts.batch, opts.expires, opts.no_wait);
  }

  ackAck(opts?: { timeout?: number }): Promise<boolean> {
    return this.#batch.deliveries.ackAck(this.#index, opts?.timeout);
  }

  ackToken(): string {
    return this.#batch.deliveries.ackToken(this.#index);
  }

  /** @internal Hands this message's final ack to `batch`. */
  addTo(batch: RawAckBatch, kind: number, delay?: number, reason?: string): void {
    batch.addMessage(this.#batch.deliveries, this.#index, kind, delay, reason);
  }

  /** @internal Hands this message's ack to `ledger` until `epoch` commits. */
  trackIn(ledger: RawCheckpointLedger, epoch: number): void {
    thrown(ledger.track(this.#batch.deliveries, this.#index, epoch));
  }

  /** @internal `ledger`'s `admit` of this message. */
  admitIn(ledger: RawCheckpointLedger): boolean {
    const admitted = ledger.admit(this.#batch.deliveries, this.#index);
    if (typeof admitted !== "boolean") throw admitted;
    return admitted;
  }
}

/** Throws what an ack gave back (see `RawDeliveries.ack`). */
function thrown(error: Error | undefined): void {
  if (error !== undefined) throw error;
}

function deliveryInfo(deliveries: RawDeliveries, index: number): DeliveryInfo {
  const [stream, consumer, domain, delivered, streamSequence, deliverySequence, timestampNanos, pending] =
    deliveries.info(index);
  return {
    stream,
    consumer,
    domain: domain ?? "",
    deliveryCount: delivered,
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
