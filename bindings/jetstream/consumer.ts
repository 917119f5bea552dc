/**
 * Pull consumers shaped like nats.js's `Consumer` (`js.consumers.get`):
 * `fetch` one batch, `next` one message, `consume` continuously; the same
 * on an ordered consumer (`js.consumers.get(stream, opts?)`), whose
 * consumers the client makes and replaces itself. Push consumers as
 * nats.js's `PushConsumer` (`js.consumers.getPushConsumer(stream, name)`,
 * `getBoundPushConsumer(opts)` by the deliver subject alone, or ordered:
 * `getPushConsumer(stream, opts?)`): `consume` what the server sends to the
 * deliver subject.
 */
import type {
  BoundPushConsumerOptions,
  ConsumeOptions as RawConsumeOptions,
  ConsumerInfo,
  FetchOptions,
  OrderedConsumerOptions,
  OrderedPushConsumerOptions,
  PushConsumeOptions,
  RawConsumer,
  RawConsumerMessages,
  RawJetStream,
  RawOrderedConsumer,
} from "../raw.js";
import { InvalidOperationError } from "../errors.js";
import { parseReply, request, requestText } from "./api.js";
import { str } from "../names.js";
import { ConsumerMessages, type ConsumerCallbackFn } from "./consumer_messages.js";
import { DeliveredBatch, type JsMsg } from "./jsmsg.js";

export type { BoundPushConsumerOptions, FetchOptions, OrderedConsumerOptions, OrderedPushConsumerOptions };

/** Options of `consume`, as nats.js's; durations in milliseconds. Set `max_messages` or `max_bytes`, not both. */
export interface ConsumeOptions extends RawConsumeOptions {
  /**
   * Messages go to this function, in order, instead of to an iterator (which
   * then cannot be used). It cannot be async; a throw stops the messages,
   * and `closed()` resolves with what was thrown.
   */
  callback?: ConsumerCallbackFn;
}

/** Options of `next`. */
export interface NextOptions {
  /** Milliseconds to wait for a message (30000). */
  expires?: number;
}

/** How a consumer reads: the wasm consumer, plain or ordered. */
type RawReads = Pick<RawConsumer, "fetch" | "consume" | "next">;

/** Reading, the same on both kinds of consumer. */
abstract class Reads {
  /** @internal How this consumer reads: its wasm consumer. */
  protected abstract readonly reads: RawReads;

  /** Always true: a pull consumer (nats.js's `ConsumerKind`). */
  isPullConsumer(): true {
    return true;
  }

  /** Always false: a pull consumer. */
  isPushConsumer(): false {
    return false;
  }

  /** One batch: iterating ends after `max_messages` (100), `max_bytes` or `expires` (30 s). */
  async fetch(opts?: FetchOptions): Promise<ConsumerMessages> {
    return new ConsumerMessages(this.reads.fetch(opts));
  }

  /** The next message, or `null` if none came within `expires`. */
  async next(opts: NextOptions = {}): Promise<JsMsg | null> {
    const delivered = await this.reads.next(opts.expires);
    return delivered && new DeliveredBatch(delivered).msg(0);
  }

  /**
   * Continuous reading: pulls stay outstanding and refill, heartbeats are
   * watched and reconnects re-pulled in the connection's task (a slow loop
   * never causes a missed heartbeat). As nats.js, a deleted consumer is
   * waited for (reported by `status()`) unless `abort_on_missing_resource`,
   * which ends it with a `CONSUMER_STATUS` error; a 400 bad request ends it.
   * With `callback`, each message goes to it instead of to the iterator.
   */
  async consume(opts?: ConsumeOptions): Promise<ConsumerMessages> {
    const callback = opts?.callback;
    return new ConsumerMessages(this.reads.consume(opts), callback);
  }
}

/** A consumer's info and deletion, by its name or by the current name of an ordered consumer. */
interface Handle {
  info(cached: boolean): Promise<ConsumerInfo>;
  delete(): Promise<boolean>;
}

/** A named consumer's info, kept from the last call, and its deletion: the same for pull and push consumers. */
class Named implements Handle {
  readonly #js: RawJetStream;
  #info: ConsumerInfo;

  constructor(js: RawJetStream, info: ConsumerInfo) {
    this.#js = js;
    this.#info = info;
  }

  async info(cached: boolean): Promise<ConsumerInfo> {
    if (!cached) {
      this.#info = await request(this.#js, "CONSUMER.INFO", this.#info.stream_name, this.#info.name);
    }
    return this.#info;
  }

  async delete(): Promise<boolean> {
    const { stream_name, name } = this.#info;
    return (await request<{ success: boolean }>(this.#js, "CONSUMER.DELETE", stream_name, name)).success;
  }
}

/** The info and deletion of an ordered consumer's current consumer, pull or push. */
class Current implements Handle {
  readonly #js: RawJetStream;
  readonly #stream: string;
  readonly #raw: { readonly name: string };
  #info: ConsumerInfo | null = null;

  constructor(js: RawJetStream, stream: string, raw: { readonly name: string }) {
    this.#js = js;
    this.#stream = stream;
    this.#raw = raw;
  }

  async info(cached: boolean): Promise<ConsumerInfo> {
    const known = this.#info;
    if (cached && known !== null && known.name === this.#raw.name) return known;
    const info = await request<ConsumerInfo>(this.#js, "CONSUMER.INFO", this.#stream, this.#raw.name);
    return (this.#info = info);
  }

  async delete(): Promise<boolean> {
    return (await request<{ success: boolean }>(this.#js, "CONSUMER.DELETE", this.#stream, this.#raw.name)).success;
  }
}

/**
 * A pull consumer (nats.js's `Consumer`), made by `js.consumers.get`: reads
 * its messages with `fetch`, `next` or `consume`.
 */
export class Consumer extends Reads {
  readonly #raw: RawConsumer;
  readonly #named: Named;

  /** Made by `js.consumers.get`. */
  constructor(raw: RawConsumer, js: RawJetStream, info: ConsumerInfo) {
    super();
    this.#raw = raw;
    this.#named = new Named(js, info);
  }

  /** @internal */
  protected get reads(): RawReads {
    return this.#raw;
  }

  /** @internal The wasm consumer, for `CheckpointLedger`. */
  get raw(): RawConsumer {
    return this.#raw;
  }

  /** Fresh info from the server, or (`cached`) the info as of the last call. */
  info(cached = false): Promise<ConsumerInfo> {
    return this.#named.info(cached);
  }

  /** Deletes the consumer on the server. */
  delete(): Promise<boolean> {
    return this.#named.delete();
  }
}


/** Options of a push consumer's `consume`, as nats.js's `PushConsumerOptions`. */
export interface PushConsumerOptions extends PushConsumeOptions {
  /**
   * Messages go to this function, in order, instead of to an iterator (which
   * then cannot be used). It cannot be async; a throw stops the messages,
   * and `closed()` resolves with what was thrown.
   */
  callback?: ConsumerCallbackFn;
}

/** How a push consumer reads: the wasm push consumer, named, bound or ordered. */
interface RawPushReads {
  consume(opts?: PushConsumeOptions): RawConsumerMessages;
}

/**
 * A push consumer, as nats.js's `PushConsumer`: the server sends its
 * messages to the consumer's `deliver_subject` (to one member of
 * `deliver_group`, if set) without being asked. Heartbeats and flow-control
 * requests are answered in the connection's task and never reach the
 * iterator; missed heartbeats are `status()` events. The messages are
 * `JsMsg`s acked as a pull consumer's. One `consume` at a time. An ordered
 * push consumer (`getPushConsumer(stream, opts?)`) reads in stream order
 * through consumers it makes and replaces itself (acks change nothing,
 * `abort_on_missing_resource` is ignored); `info()` and `delete()` then
 * concern its current consumer.
 */
export class PushConsumer {
  readonly #raw: RawPushReads;
  /** None for a bound consumer: its name is unknown. */
  readonly #named: Handle | null;
  #started = false;

  /** Made by `js.consumers.getPushConsumer` or `getBoundPushConsumer`. */
  constructor(raw: RawPushReads, named: Handle | null) {
    this.#raw = raw;
    this.#named = named;
  }

  /** Always false: a push consumer (nats.js's `ConsumerKind`). */
  isPullConsumer(): false {
    return false;
  }

  /** Always true: a push consumer. */
  isPushConsumer(): true {
    return true;
  }

  /**
   * Listens on the deliver subject until `stop()`. Rejects while another
   * `consume` of this consumer runs, and (`INVALID_ARGUMENT`) when the last
   * info says someone else listens to a consumer without a deliver group.
   * With `callback`, each message goes to it instead of to the iterator.
   */
  async consume(opts?: PushConsumerOptions): Promise<ConsumerMessages> {
    if (this.#started) throw new InvalidOperationError("consumer already started");
    const messages = new ConsumerMessages(this.#raw.consume(opts), opts?.callback);
    this.#started = true;
    void messages.closed().then(() => (this.#started = false));
    return messages;
  }

  /**
   * Fresh info from the server, or (`cached`) the info as of the last call;
   * rejects (`INVALID_ARGUMENT`) for a bound consumer, as nats.js.
   */
  async info(cached = false): Promise<ConsumerInfo> {
    return this.#known("info").info(cached);
  }

  /** Deletes the consumer on the server; rejects (`INVALID_ARGUMENT`) for a bound consumer. */
  async delete(): Promise<boolean> {
    return this.#known("delete").delete();
  }

  #known(what: string): Handle {
    if (this.#named === null) throw new InvalidOperationError(`bound consumers cannot ${what}`);
    return this.#named;
  }
}

/**
 * An ordered consumer (ADR-17), as nats.js's: every message of the stream
 * (or of `filter_subjects`) once and in stream order, read through
 * ephemeral consumers without acks (`ack()` and the like change nothing)
 * that the client makes and, after a gap, missed heartbeats, a deleted
 * consumer or a reconnect, replaces with one that resumes after the last
 * message handed out (`status()` reports `ordered_consumer_recreated`).
 * One `fetch`, `next` or `consume` at a time.
 */
export class OrderedConsumer extends Reads {
  readonly #raw: RawOrderedConsumer;
  readonly #current: Current;

  /** Made by `js.consumers.get(stream, opts?)`. */
  constructor(raw: RawOrderedConsumer, js: RawJetStream, stream: string) {
    super();
    this.#raw = raw;
    this.#current = new Current(js, stream, raw);
  }

  /** @internal */
  protected get reads(): RawReads {
    return this.#raw;
  }

  /** Info of the current consumer from the server, or (`cached`) as of the last call. */
  info(cached = false): Promise<ConsumerInfo> {
    return this.#current.info(cached);
  }

  /** Deletes the current consumer; the next read makes a new one. */
  delete(): Promise<boolean> {
    return this.#current.delete();
  }
}

/** nats.js's `js.consumers`. */
export class Consumers {
  readonly #raw: RawJetStream;

  /** Made by `jetstream()`. */
  constructor(raw: RawJetStream) {
    this.#raw = raw;
  }

  /** The pull consumer `name` of `stream`; rejects with a `ConsumerNotFoundError` (`code` 10014) if it does not exist. */
  get(stream: string, name: string): Promise<Consumer>;
  /**
   * An ordered consumer on `stream` (nats.js: no name, or options); its
   * first consumer is made now, so a missing stream rejects with a `StreamNotFoundError`.
   */
  get(stream: string, opts?: OrderedConsumerOptions): Promise<OrderedConsumer>;
  async get(stream: string, nameOrOpts?: string | OrderedConsumerOptions): Promise<Consumer | OrderedConsumer> {
    if (typeof nameOrOpts === "string") {
      const info = await requestText(this.#raw, "CONSUMER.INFO", stream, nameOrOpts);
      return new Consumer(this.#raw.consumer(info), this.#raw, parseReply(info));
    }
    return new OrderedConsumer(await this.#raw.orderedConsumer(str(stream, "stream name"), nameOrOpts), this.#raw, stream);
  }

  /**
   * The push consumer `name` of `stream` (its config has a
   * `deliver_subject`); rejects with a `ConsumerNotFoundError` (`code`
   * 10014) if it does not exist, with kind `INVALID_ARGUMENT` if it is a
   * pull consumer.
   */
  getPushConsumer(stream: string, name: string): Promise<PushConsumer>;
  /**
   * An ordered push consumer on `stream` (nats.js: no name, or options):
   * every message once and in stream order, pushed by ephemeral consumers
   * (no acks, memory storage, flow control, heartbeats) that the client
   * replaces after a gap, two missed heartbeats (a deleted consumer) or a
   * reconnect (`status()`: `ordered_consumer_recreated`). Its first
   * consumer is made now, so a missing stream rejects with a `StreamNotFoundError`.
   * `info()` and `delete()` concern the current consumer.
   */
  getPushConsumer(stream: string, opts?: OrderedPushConsumerOptions): Promise<PushConsumer>;
  /** Either of the above, as nats.js's signature. */
  getPushConsumer(stream: string, nameOrOpts?: string | OrderedPushConsumerOptions): Promise<PushConsumer>;
  async getPushConsumer(stream: string, nameOrOpts?: string | OrderedPushConsumerOptions): Promise<PushConsumer> {
    if (typeof nameOrOpts === "string") {
      const info = await requestText(this.#raw, "CONSUMER.INFO", stream, nameOrOpts);
      return new PushConsumer(this.#raw.pushConsumer(info), new Named(this.#raw, parseReply(info)));
    }
    const ordered = await this.#raw.orderedPushConsumer(str(stream, "stream name"), nameOrOpts);
    return new PushConsumer(ordered, new Current(this.#raw, stream, ordered));
  }

  /**
   * A push consumer known by its deliver settings alone, made without any
   * JetStream API call (for users without API permissions), as nats.js.
   * Missed heartbeats are reported; a deleted consumer goes unnoticed.
   * `info()` and `delete()` reject. Rejects (`INVALID_ARGUMENT`) without a
   * `deliver_subject`, (`INVALID_SUBJECT`) for a bad one.
   */
  async getBoundPushConsumer(opts: BoundPushConsumerOptions): Promise<PushConsumer> {
    return new PushConsumer(this.#raw.boundPushConsumer(opts), null);
  }
}

/** Whether `v` is a pull consumer (plain or ordered), as nats.js's helper. */
export function isPullConsumer(v: unknown): v is Consumer | OrderedConsumer {
  return v instanceof Reads;
}

/** Whether `v` is a push consumer, as nats.js's helper. */
export function isPushConsumer(v: unknown): v is PushConsumer {
  return v instanceof PushConsumer;
}
